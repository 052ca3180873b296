// Draws cards from the catalogue's segments (GET /catalogue): never a picture per card. A path
// card is cut in earth, its tunnels dug (a light floor between dark walls), a dead end blocked
// by rubble; the start holds a ladder; a goal face down shows the cards' back, face up gold or
// stone; an action card is a face with its picture. What they share is drawn once (cardart.js).

import { ART, actionFace, art, boulder, cardBack, frame, paint, TUNNEL, use } from "./cardart.js";
import { el } from "./dom.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */

/** The side a side becomes when a card is turned 180°. @type {Record<Schemas["Opening"], Schemas["Opening"]>} */
export const FLIP = { n: "s", s: "n", e: "w", w: "e" };
/** Where each side's opening meets the card's edge. @type {Record<Schemas["Opening"], [number, number]>} */
const END = { n: [0.5, 0], e: [1, 0.5], s: [0.5, 1], w: [0, 0.5] };

/** Each action's letters and colour. @type {Record<string, [string, string]>} */
const EFFECT = {
  break: ["B", "#a11"],
  repair: ["R", "#1b7f3b"],
  rockfall: ["RF", "#6b4f2a"],
  map: ["M", "#1746a2"],
  theft: ["T", "#8a4b08"],
  hands_off: ["HO", "#555"],
  swap_hand: ["SH", "#555"],
  inspection: ["I", "#1746a2"],
  swap_hats: ["SW", "#555"],
  trapped: ["TR", "#a11"],
  free_at_last: ["F", "#1b7f3b"],
};

/** An action card's icon, one unit square: a disc with the effect's letters, and the tools'
 * initials under it. @param {Schemas["CardEntry"] | undefined} entry */
export function actionIcon(entry) {
  const g = el("g", {});
  const [letter, colour] = EFFECT[entry?.action?.effect ?? ""] ?? ["?", "#555"];
  g.append(el("circle", { cx: 0.5, cy: 0.42, r: 0.36, fill: colour }));
  const t = el("text", {
    x: 0.5,
    y: 0.52,
    "font-size": letter.length > 1 ? 0.26 : 0.36,
    "text-anchor": "middle",
    fill: "#fff",
    "font-weight": "bold",
  });
  t.textContent = letter;
  g.append(t);
  const tools = (entry?.action?.tools ?? []).map((x) => x[0].toUpperCase()).join("");
  if (tools) {
    const u = el("text", { x: 0.5, y: 0.98, "font-size": 0.2, "text-anchor": "middle", fill: "#222" });
    u.textContent = tools;
    g.append(u);
  }
  return g;
}

/** Where a tunnel turns into the card from `side`, `k` of the way from the middle to the edge. @param {Schemas["Opening"]} side @param {number} k */
const toward = (side, k) => END[side].map((v) => 0.5 + (v - 0.5) * k);

/** How much a shape drawn for the north side is turned to face `side`. @type {Record<Schemas["Opening"], number>} */
const TURN = { n: 0, e: 90, s: 180, w: 270 };

/**
 * The course of a tunnel open at `sides`, as a path: straight across, a curve round a corner, or
 * each side to the middle (where `hub` says a round meeting is drawn).
 * @param {Schemas["Opening"][]} sides
 */
function course(sides) {
  const [a, b] = sides.map((s) => END[s]);
  if (sides.length === 2 && (a[0] === b[0] || a[1] === b[1])) return { d: `M${a} L${b}`, hub: false };
  if (sides.length === 2) return { d: `M${a} Q0.5,0.5 ${b}`, hub: false };
  return { d: sides.map((s) => `M${END[s]} L0.5,0.5`).join(" "), hub: true };
}

/**
 * One segment's tunnel: its walls, then its floor over them; a dead end stops short, blocked by
 * rubble; a door stands across it, its colour and its letter.
 * @param {Schemas["SegmentEntry"]} seg @param {Schemas["Opening"][]} sides
 */
function tunnel(seg, sides) {
  const g = el("g", { class: seg.dead_end ? "tunnel dead-end" : "tunnel" });
  const paths = seg.dead_end ? sides.map((s) => ({ d: `M${END[s]} L${toward(s, 0.4)}`, hub: false })) : [course(sides)];
  for (const [colour, width] of [
    [TUNNEL.wall, TUNNEL.wide],
    [TUNNEL.floor, TUNNEL.narrow],
  ])
    for (const { d, hub } of paths) {
      g.append(el("path", { d, fill: "none", stroke: colour, "stroke-width": width }));
      if (hub) g.append(el("circle", { cx: 0.5, cy: 0.5, r: Number(width) / 2, fill: colour }));
    }
  if (seg.dead_end) for (const s of sides) g.append(use(ART.rubble, `translate(${toward(s, 0.4)}) rotate(${TURN[s]})`));
  if (seg.door) {
    const [x, y] = toward(sides[0], 0.55);
    const colour = seg.door === "blue" ? "#1f5fbf" : "#1b7f3b";
    const t = el("text", {
      x,
      y: y + 0.065,
      "font-size": 0.19,
      "text-anchor": "middle",
      fill: "#fff",
      "font-weight": "bold",
    });
    t.textContent = seg.door === "blue" ? "B" : "G";
    g.append(
      el("rect", {
        class: "door",
        x: x - 0.12,
        y: y - 0.12,
        width: 0.24,
        height: 0.24,
        rx: 0.04,
        fill: colour,
        stroke: "#10233f",
        "stroke-width": 0.02,
      }),
      t,
    );
  }
  return g;
}

/** A group drawing one card at (x, y), one unit square. @param {Schemas["CardEntry"] | undefined} entry @param {number} x @param {number} y @param {boolean | null} [rotated] */
export function cardShape(entry, x, y, rotated = false) {
  art();
  const g = el("g", { transform: `translate(${x} ${y})` });
  const goal = entry?.kind === "goal";
  // A goal turned face up reads apart from the path cards: gold with a star, or a boulder on stone.
  const face = goal ? paint(entry.gold ? ART.gold : ART.stone) : paint(ART.earth);
  g.append(frame(face, goal ? (entry.gold ? "gold" : "stone") : (entry?.kind ?? "path")));
  /** @type {Schemas["Opening"][]} */
  const opened = [];
  for (const seg of entry?.segments ?? []) {
    const sides = seg.openings.map((o) => (rotated ? FLIP[o] : o));
    opened.push(...sides);
    g.append(tunnel(seg, sides));
  }
  if (entry?.ladder || entry?.kind === "start") g.append(use(ART.ladder, "translate(0 0)"));
  if (entry?.crystals)
    g.append(
      el("polygon", {
        class: "crystal",
        points: "0.8,0.08 0.9,0.18 0.8,0.28 0.7,0.18",
        fill: "#b84fd6",
        stroke: "#fff",
        "stroke-width": 0.02,
      }),
    );
  if (goal && entry.gold) g.append(use(ART.star, "translate(0.5 0.5) scale(1.9)"));
  if (goal && !entry.gold) {
    // The boulder lies in the corner the tunnel turns away from.
    const [dx, dy] = opened.reduce(([a, b], s) => [a + END[s][0] - 0.5, b + END[s][1] - 0.5], [0, 0]);
    g.append(boulder(0.5 - Math.sign(dx) * 0.22, 0.5 - Math.sign(dy) * 0.22));
  }
  return g;
}

/** A card face down at (x, y) (a goal not yet seen): the cards' back. @param {number} x @param {number} y */
export function faceDown(x, y) {
  art();
  const g = el("g", { transform: `translate(${x} ${y})` });
  g.append(cardBack());
  return g;
}

/** An action card's face: its picture (letters for an action without one), framed in the action's
 * colour. @param {Schemas["CardEntry"] | undefined} entry @param {SVGElement | null} picture */
export function actionCard(entry, picture) {
  art();
  const [, colour] = EFFECT[entry?.action?.effect ?? ""] ?? ["?", "#555"];
  return actionFace(picture ?? actionIcon(entry), colour);
}
