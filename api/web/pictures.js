// Pictures of what the cards do: the three tools (whole, broken, mended), the trap, the map,
// the rock fall and the theft, drawn from a few shapes in a unit square. Used on the action
// cards and on each player, for what lies in front of them; the words stay beside them.

import { el } from "./dom.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */

const INK = "#3b2a1a";

/** A tool, in the unit square. @param {string} tool `pickaxe`, `lantern` or `cart` */
function tool(tool) {
  const g = el("g", { "data-tool": tool });
  if (tool === "pickaxe") {
    g.append(
      el("line", {
        x1: 0.3,
        y1: 0.86,
        x2: 0.62,
        y2: 0.3,
        stroke: "#8a5a2b",
        "stroke-width": 0.08,
        "stroke-linecap": "round",
      }),
      el("path", {
        d: "M0.26 0.36 Q0.58 0.08 0.9 0.44",
        stroke: "#6b7280",
        "stroke-width": 0.1,
        fill: "none",
        "stroke-linecap": "round",
      }),
    );
  } else if (tool === "lantern") {
    g.append(
      el("circle", { cx: 0.5, cy: 0.14, r: 0.07, fill: "none", stroke: INK, "stroke-width": 0.04 }),
      el("rect", { x: 0.32, y: 0.2, width: 0.36, height: 0.09, rx: 0.03, fill: INK }),
      el("rect", { x: 0.36, y: 0.29, width: 0.28, height: 0.42, fill: "#ffd76a", stroke: INK, "stroke-width": 0.04 }),
      el("ellipse", { cx: 0.5, cy: 0.52, rx: 0.06, ry: 0.11, fill: "#e8742a" }),
      el("rect", { x: 0.3, y: 0.71, width: 0.4, height: 0.09, rx: 0.03, fill: INK }),
    );
  } else {
    g.append(
      el("polygon", {
        points: "0.12,0.3 0.88,0.3 0.76,0.66 0.24,0.66",
        fill: "#8b7355",
        stroke: INK,
        "stroke-width": 0.04,
      }),
      el("circle", { cx: 0.33, cy: 0.78, r: 0.1, fill: INK }),
      el("circle", { cx: 0.67, cy: 0.78, r: 0.1, fill: INK }),
    );
  }
  return g;
}

/** A cage: the trap of Saboteur 2; open, a player set free. @param {boolean} open */
function cage(open) {
  const g = el("g", { "data-tool": open ? "free" : "trapped" });
  g.append(el("rect", { x: 0.2, y: 0.14, width: 0.6, height: 0.72, fill: "none", stroke: INK, "stroke-width": 0.06 }));
  for (const x of open ? [0.38, 0.62] : [0.35, 0.5, 0.65])
    g.append(el("line", { x1: x, y1: open ? 0.3 : 0.14, x2: x, y2: 0.86, stroke: INK, "stroke-width": 0.05 }));
  return g;
}

/** The slash over a broken tool. */
const slash = () =>
  el("line", {
    x1: 0.1,
    y1: 0.9,
    x2: 0.9,
    y2: 0.1,
    stroke: "#c81e1e",
    "stroke-width": 0.11,
    "stroke-linecap": "round",
  });

/** The green tick by a mended tool. */
const tick = () =>
  el(
    "g",
    {},
    el("circle", { cx: 0.76, cy: 0.76, r: 0.2, fill: "#1b7f3b" }),
    el("path", { d: "M0.66 0.76 L0.74 0.84 L0.87 0.68", stroke: "#fff", "stroke-width": 0.06, fill: "none" }),
  );

/** `parts` side by side in the unit square, each scaled to fit. @param {SVGGElement[]} parts */
function sideBySide(parts) {
  const g = el("g", {});
  const n = parts.length;
  parts.forEach((p, i) => {
    const scale = 1 / n;
    const box = el("g", { transform: `translate(${i * scale} ${(1 - scale) / 2}) scale(${scale})` });
    box.append(p);
    g.append(box);
  });
  return g;
}

/** A map: a sheet with a dashed way to a cross. */
function map() {
  return el(
    "g",
    {},
    el("rect", {
      x: 0.14,
      y: 0.18,
      width: 0.72,
      height: 0.64,
      rx: 0.04,
      fill: "#f3e3b5",
      stroke: INK,
      "stroke-width": 0.04,
    }),
    el("path", {
      d: "M0.24 0.7 Q0.4 0.4 0.6 0.55 T0.72 0.32",
      stroke: "#1746a2",
      "stroke-width": 0.04,
      fill: "none",
      "stroke-dasharray": "0.06 0.05",
    }),
    el("path", { d: "M0.66 0.26 L0.78 0.38 M0.78 0.26 L0.66 0.38", stroke: "#c81e1e", "stroke-width": 0.05 }),
  );
}

/** Fallen rocks. */
function rocks() {
  return el(
    "g",
    {},
    el("polygon", {
      points: "0.12,0.82 0.22,0.52 0.44,0.48 0.52,0.82",
      fill: "#8a7f72",
      stroke: INK,
      "stroke-width": 0.03,
    }),
    el("polygon", {
      points: "0.44,0.82 0.54,0.42 0.8,0.36 0.9,0.82",
      fill: "#a39888",
      stroke: INK,
      "stroke-width": 0.03,
    }),
    el("polygon", {
      points: "0.3,0.5 0.4,0.2 0.62,0.18 0.66,0.44",
      fill: "#6b6158",
      stroke: INK,
      "stroke-width": 0.03,
    }),
  );
}

/** Coins taken. */
function coins() {
  const g = el("g", {});
  for (const [x, y] of [
    [0.38, 0.62],
    [0.62, 0.62],
    [0.5, 0.38],
  ])
    g.append(el("circle", { cx: x, cy: y, r: 0.18, fill: "#e8c65a", stroke: "#8a6d1a", "stroke-width": 0.04 }));
  return g;
}

/**
 * The picture of an action card, in the unit square, or null for one drawn with letters.
 * @param {Schemas["CardEntry"] | undefined} entry
 */
export function actionPicture(entry) {
  const action = entry?.action;
  const tools = (action?.tools ?? []).map((x) => tool(x));
  switch (action?.effect) {
    case "break":
      return el("g", {}, sideBySide(tools), slash());
    case "repair":
      return el("g", {}, sideBySide(tools), tick());
    case "map":
      return map();
    case "rockfall":
      return rocks();
    case "theft":
      return coins();
    case "trapped":
      return cage(false);
    case "free_at_last":
      return cage(true);
    default:
      return null;
  }
}

/**
 * What lies in front of a player (a broken tool, a trap), as a small picture whose title is
 * its name. @param {string} card such as `break_lantern` or `trapped` @param {string} name
 */
export function inFront(card, name) {
  const svg = el("svg", { viewBox: "0 0 1 1", class: "in-front", "data-card": card, "aria-hidden": "true" });
  const title = el("title", {});
  title.textContent = name;
  svg.append(title);
  if (card.startsWith("break_")) svg.append(tool(card.slice("break_".length)), slash());
  else svg.append(cage(card !== "trapped"));
  return svg;
}
