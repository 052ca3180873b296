// The cards' art, drawn from shapes: the earth a path card is cut in, its frame and shading, a
// tunnel's floor and walls, the rubble that blocks a dead end, the start's ladder, the goals'
// backs and faces, an action card's face. The patterns, gradients and shapes every card shares
// are defined once on the page (`art`), and each card refers to them by id.

import { el } from "./dom.js";

/** The ids of what the cards share. */
export const ART = {
  earth: "art-earth",
  shade: "art-shade",
  back: "art-back",
  gold: "art-gold",
  stone: "art-stone",
  paper: "art-paper",
  rubble: "art-rubble",
  ladder: "art-ladder",
  star: "art-star",
};

/** A reference to a shared paint. @param {string} id */
export const paint = (id) => `url(#${id})`;

/** The walls of a tunnel (dark) and its floor (light), and how wide each is drawn. */
export const TUNNEL = { wall: "#24170c", floor: "#e9cf9c", wide: 0.34, narrow: 0.2 };

/** A linear gradient from top left to bottom right. @param {string} id @param {Array<[number, string, number?]>} stops */
function slope(id, stops) {
  return el(
    "linearGradient",
    { id, x1: 0, y1: 0, x2: 1, y2: 1 },
    ...stops.map(([offset, colour, opacity = 1]) =>
      el("stop", { offset, "stop-color": colour, "stop-opacity": opacity }),
    ),
  );
}

/** The earth a path card is cut in: brown, with pebbles lighter and darker, a tile a half card wide. */
function earth() {
  return el(
    "pattern",
    { id: ART.earth, patternUnits: "userSpaceOnUse", width: 0.5, height: 0.5 },
    el("rect", { width: 0.5, height: 0.5, fill: "#9b7447" }),
    el("ellipse", { cx: 0.1, cy: 0.12, rx: 0.05, ry: 0.03, fill: "#7a5631" }),
    el("ellipse", { cx: 0.36, cy: 0.08, rx: 0.03, ry: 0.02, fill: "#b99162" }),
    el("ellipse", { cx: 0.28, cy: 0.3, rx: 0.06, ry: 0.035, fill: "#85603a" }),
    el("ellipse", { cx: 0.07, cy: 0.4, rx: 0.025, ry: 0.02, fill: "#bf9868" }),
    el("ellipse", { cx: 0.44, cy: 0.42, rx: 0.035, ry: 0.025, fill: "#72502d" }),
    el("circle", { cx: 0.2, cy: 0.2, r: 0.012, fill: "#5d4024" }),
    el("circle", { cx: 0.46, cy: 0.24, r: 0.01, fill: "#c9a677" }),
  );
}

/** The back of a card face down: a lattice of gold lines on deep blue. */
function back() {
  return el(
    "pattern",
    { id: ART.back, patternUnits: "userSpaceOnUse", width: 0.2, height: 0.2 },
    el("rect", { width: 0.2, height: 0.2, fill: "#1e2b4a" }),
    el("path", { d: "M0.1 0 L0.2 0.1 L0.1 0.2 L0 0.1 Z", fill: "#263761", stroke: "#b8934a", "stroke-width": 0.012 }),
  );
}

/** Fallen rocks across a tunnel's end, centred on the origin, the tunnel running up from it. */
function rubble() {
  const rock = (/** @type {string} */ points, /** @type {string} */ fill) =>
    el("polygon", { points, fill, stroke: "#1d130a", "stroke-width": 0.015, "stroke-linejoin": "round" });
  return el(
    "g",
    { id: ART.rubble },
    rock("-0.19,0.06 -0.16,-0.05 -0.06,-0.08 -0.02,0.02 -0.08,0.09", "#7d756c"),
    rock("0.02,0.08 0.0,-0.04 0.09,-0.09 0.19,-0.03 0.17,0.08", "#958b80"),
    rock("-0.08,-0.03 -0.04,-0.13 0.05,-0.14 0.08,-0.05 0.0,0.0", "#a8a096"),
  );
}

/** A wooden ladder standing in the card's middle, seen from above: two rails and four rungs. */
function ladder() {
  const wood = { stroke: "#5a3814", "stroke-width": 0.02 };
  return el(
    "g",
    { id: ART.ladder },
    el("circle", { cx: 0.5, cy: 0.5, r: 0.2, fill: "#140c05" }),
    el("rect", { x: 0.38, y: 0.3, width: 0.055, height: 0.4, rx: 0.015, fill: "#c58a45", ...wood }),
    el("rect", { x: 0.565, y: 0.3, width: 0.055, height: 0.4, rx: 0.015, fill: "#c58a45", ...wood }),
    ...[0.36, 0.45, 0.54, 0.63].map((y) =>
      el("rect", { x: 0.42, y, width: 0.16, height: 0.035, fill: "#e0a960", ...wood, "stroke-width": 0.01 }),
    ),
  );
}

/** A five-pointed star, centred on the origin, 0.2 across. */
function star() {
  const points = Array.from({ length: 10 }, (_, i) => {
    const r = i % 2 ? 0.045 : 0.11;
    const a = (Math.PI / 5) * i - Math.PI / 2;
    return `${(r * Math.cos(a)).toFixed(3)},${(r * Math.sin(a)).toFixed(3)}`;
  }).join(" ");
  return el("polygon", { id: ART.star, points, fill: "#fff4b0", stroke: "#7a5200", "stroke-width": 0.015 });
}

/** The shared defs, made once. */
function defs() {
  const g = (/** @type {string} */ id, /** @type {Array<[number, string]>} */ stops) =>
    el(
      "radialGradient",
      { id, cx: 0.4, cy: 0.35, r: 0.75 },
      ...stops.map(([offset, colour]) => el("stop", { offset, "stop-color": colour })),
    );
  return el(
    "defs",
    {},
    earth(),
    back(),
    slope(ART.shade, [
      [0, "#fff", 0.22],
      [0.5, "#fff", 0],
      [1, "#000", 0.28],
    ]),
    slope(ART.paper, [
      [0, "#fffaf0"],
      [1, "#ead8ad"],
    ]),
    g(ART.gold, [
      [0, "#fff3b0"],
      [0.55, "#e9bd3b"],
      [1, "#a8740f"],
    ]),
    g(ART.stone, [
      [0, "#e4e0da"],
      [0.6, "#a9a39b"],
      [1, "#6f6a63"],
    ]),
    rubble(),
    ladder(),
    star(),
  );
}

/** Puts the shared art on the page, once (out of `main`, so that no redraw takes it away). */
export function art() {
  if (document.getElementById("card-art")) return;
  const svg = el(
    "svg",
    { id: "card-art", width: 0, height: 0, "aria-hidden": "true", focusable: "false", class: "card-art" },
    defs(),
  );
  document.body.append(svg);
}

/** A card's outline, in the unit square. @param {Record<string, unknown>} attrs */
const outline = (attrs) => el("rect", { x: 0.03, y: 0.03, width: 0.94, height: 0.94, rx: 0.08, ...attrs });

/**
 * A card's frame: its face (`fill`), shaded, a border (gold on the start card, else dark) and a
 * fine line inside it. @param {string} fill @param {string} kind what the card is, for whoever reads the drawing
 */
export function frame(fill, kind) {
  return el(
    "g",
    { class: "card-frame", "data-art": kind },
    outline({ fill }),
    outline({ fill: paint(ART.shade) }),
    el("rect", {
      x: 0.08,
      y: 0.08,
      width: 0.84,
      height: 0.84,
      rx: 0.05,
      fill: "none",
      stroke: "#f6e3b8",
      "stroke-opacity": 0.35,
      "stroke-width": 0.015,
    }),
    outline({ fill: "none", stroke: kind === "start" ? "#e0b84f" : "#2a1a0c", "stroke-width": 0.03 }),
  );
}

/** The back of a card face down: the lattice, a gold border and a medallion with a question mark. */
export function cardBack() {
  const g = el("g", { class: "card-back" });
  g.append(
    outline({ fill: paint(ART.back), stroke: "#d9b45a", "stroke-width": 0.04 }),
    el("rect", {
      x: 0.1,
      y: 0.1,
      width: 0.8,
      height: 0.8,
      rx: 0.04,
      fill: "none",
      stroke: "#d9b45a",
      "stroke-width": 0.012,
    }),
    el("circle", { cx: 0.5, cy: 0.5, r: 0.2, fill: "#15203a", stroke: "#e0b84f", "stroke-width": 0.03 }),
  );
  const q = el("text", {
    x: 0.5,
    y: 0.6,
    "font-size": 0.3,
    "font-weight": "bold",
    "text-anchor": "middle",
    fill: "#f3d27a",
  });
  q.textContent = "?";
  g.append(q);
  return g;
}

/** A boulder: what a stone goal holds, at (x, y). @param {number} x @param {number} y */
export function boulder(x, y) {
  return el("path", {
    class: "boulder",
    d: `M${x - 0.13} ${y + 0.07} Q${x - 0.14} ${y - 0.1} ${x} ${y - 0.11} Q${x + 0.15} ${y - 0.09} ${x + 0.13} ${y + 0.06} Q${x} ${y + 0.13} ${x - 0.13} ${y + 0.07} Z`,
    fill: "#6b655e",
    stroke: "#2b2722",
    "stroke-width": 0.02,
  });
}

/** A use of a shared shape, moved by `transform`. @param {string} id @param {string} transform */
export const use = (id, transform) => el("use", { href: `#${id}`, transform });

/**
 * An action card's face: paper with a coloured border, the picture in the middle.
 * @param {SVGElement} picture drawn in the unit square @param {string} colour the border's
 */
export function actionFace(picture, colour) {
  const g = el("g", { class: "card-face", "data-art": "action" });
  g.append(
    outline({ fill: paint(ART.paper), stroke: colour, "stroke-width": 0.05 }),
    el("g", { transform: "translate(0.11 0.11) scale(0.78)" }, picture),
  );
  return g;
}
