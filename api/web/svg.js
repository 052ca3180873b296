// Draws cards from the catalogue's segments (GET /catalogue): never a picture per card.

/** @typedef {import("../types/api").components["schemas"]} Schemas */

const NS = "http://www.w3.org/2000/svg";
/** The side a side becomes when a card is turned 180°. @type {Record<Schemas["Opening"], Schemas["Opening"]>} */
export const FLIP = { n: "s", s: "n", e: "w", w: "e" };
/** Where each side's opening meets the card's edge. @type {Record<Schemas["Opening"], [number, number]>} */
const END = { n: [0.5, 0], e: [1, 0.5], s: [0.5, 1], w: [0, 0.5] };

/**
 * An SVG element: attributes (each as a string) and children.
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} name @param {Record<string, unknown>} [attrs] @param {...(Node | string)} children
 * @returns {SVGElementTagNameMap[K]}
 */
export function el(name, attrs = {}, ...children) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  for (const c of children) e.append(c);
  return e;
}

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

/** A group drawing one card at (x, y), one unit square. @param {Schemas["CardEntry"] | undefined} entry @param {number} x @param {number} y @param {boolean | null} [rotated] */
export function cardShape(entry, x, y, rotated = false) {
  const g = el("g", { transform: `translate(${x} ${y})` });
  // A goal turned face up reads apart from the path cards: grey stone, or gold.
  const face = entry?.kind === "goal" ? (entry.gold ? "#e8c65a" : "#a8a29e") : "#c9a66b";
  g.append(
    el("rect", {
      x: 0.02,
      y: 0.02,
      width: 0.96,
      height: 0.96,
      rx: 0.06,
      fill: face,
      stroke: "#6b4f2a",
      "stroke-width": 0.02,
    }),
  );
  for (const seg of entry?.segments ?? []) {
    const sides = seg.openings.map((o) => (rotated ? FLIP[o] : o));
    const colour = seg.door === "blue" ? "#1f5fbf" : seg.door === "green" ? "#1b7f3b" : "#3b2a1a";
    for (const s of sides) {
      const [ex, ey] = END[s];
      const [tx, ty] = seg.dead_end ? [0.5 + (ex - 0.5) * 0.4, 0.5 + (ey - 0.5) * 0.4] : [0.5, 0.5];
      g.append(
        el("line", {
          x1: ex,
          y1: ey,
          x2: tx,
          y2: ty,
          stroke: colour,
          "stroke-width": 0.22,
          "stroke-linecap": seg.dead_end ? "butt" : "round",
        }),
      );
      if (seg.dead_end) g.append(el("circle", { cx: tx, cy: ty, r: 0.09, fill: "#7a1f1f" }));
    }
    if (seg.door) {
      const [ex, ey] = END[sides[0]];
      const t = el("text", {
        x: 0.5 + (ex - 0.5) * 0.55,
        y: 0.5 + (ey - 0.5) * 0.55 + 0.08,
        "font-size": 0.22,
        "text-anchor": "middle",
        fill: "#fff",
        "font-weight": "bold",
      });
      t.textContent = seg.door === "blue" ? "B" : "G";
      g.append(t);
    }
  }
  if (entry?.ladder) {
    const t = el("text", { x: 0.5, y: 0.58, "font-size": 0.28, "text-anchor": "middle", fill: "#fff" });
    t.textContent = "⇅";
    g.append(t);
  }
  if (entry?.crystals)
    g.append(
      el("polygon", {
        points: "0.8,0.08 0.9,0.18 0.8,0.28 0.7,0.18",
        fill: "#b84fd6",
        stroke: "#fff",
        "stroke-width": 0.02,
      }),
    );
  if (entry?.kind === "goal" && entry.gold) {
    const t = el("text", { x: 0.5, y: 0.6, "font-size": 0.3, "text-anchor": "middle", fill: "#ffd700" });
    t.textContent = "★";
    g.append(t);
  }
  if (entry?.kind === "goal" && !entry.gold) {
    g.append(
      el("ellipse", { cx: 0.5, cy: 0.5, rx: 0.2, ry: 0.14, fill: "#6b6560", stroke: "#fff", "stroke-width": 0.02 }),
    );
  }
  if (entry?.kind === "start") {
    const t = el("text", { x: 0.5, y: 0.6, "font-size": 0.22, "text-anchor": "middle", fill: "#fff" });
    t.textContent = "S";
    g.append(t);
  }
  return g;
}

/** A card face down at (x, y) (a goal not yet seen). @param {number} x @param {number} y */
export function faceDown(x, y) {
  const g = el("g", { transform: `translate(${x} ${y})` });
  g.append(
    el("rect", {
      x: 0.02,
      y: 0.02,
      width: 0.96,
      height: 0.96,
      rx: 0.06,
      fill: "#2b2f4a",
      stroke: "#aaa",
      "stroke-width": 0.02,
    }),
  );
  const t = el("text", { x: 0.5, y: 0.62, "font-size": 0.4, "text-anchor": "middle", fill: "#ddd" });
  t.textContent = "?";
  g.append(t);
  return g;
}
