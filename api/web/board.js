// The maze as SVG: the cards laid, the goals, the cells a card may go to or aim at, the last
// move marked; panned, pinch- and wheel-zoomed, the zoom kept across redraws.

import { el } from "./dom.js";
import { phrase, t } from "./i18n.js";
import { cardShape, faceDown } from "./svg.js";
import { cardNamed, describe, describeEvent } from "./words.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */

/**
 * The maze as SVG, with the cells where the selected card may go.
 * @param {Schemas["View"]} view
 * @param {Record<string, Schemas["CardEntry"]>} deck
 * @param {{ legal?: Array<{ at: Schemas["Cell"] }>, onCell?: (at: Schemas["Cell"]) => void, targets?: Array<{ at: Schemas["Cell"], label: string, onPick: () => void }>, keep?: { box: number[] | null } }} [options]
 */
export function board(view, deck, { legal = [], onCell, targets = [], keep = { box: null } } = {}) {
  const cells = [
    ...view.board.map((p) => [p.x, p.y]),
    ...view.goals.map((g) => [g.x, g.y]),
    ...legal.map((c) => [c.at.x, c.at.y]),
  ];
  const xs = cells.map((c) => c[0]),
    ys = cells.map((c) => c[1]);
  // The whole maze, unless the player zoomed or panned: then where they left it (`keep`
  // outlives the redraws).
  let box = keep.box ?? [
    Math.min(...xs) - 1,
    Math.min(...ys) - 1,
    Math.max(...xs) - Math.min(...xs) + 3,
    Math.max(...ys) - Math.min(...ys) + 3,
  ];
  const svg = el("svg", { class: "board", viewBox: box.join(" "), role: "group", "aria-label": t("board.maze") });
  const title = el("title");
  title.textContent = t("board.title");
  svg.append(title);
  for (const p of view.board) {
    const entry = deck[p.card];
    const g = cardShape(entry, p.x, p.y, p.rotated);
    g.setAttribute("role", "img");
    g.setAttribute("aria-label", `(${p.x}, ${p.y}): ${describe(entry, p.rotated)}`);
    svg.append(g);
  }
  for (const goal of view.goals) if (!goal.revealed) svg.append(goalShape(goal, view, deck));
  const seen = new Set();
  for (const c of legal) {
    const key = `${c.at.x},${c.at.y}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const r = el("rect", {
      class: "cell-legal",
      x: c.at.x + 0.05,
      y: c.at.y + 0.05,
      width: 0.9,
      height: 0.9,
      tabindex: 0,
      role: "button",
      "aria-label": t("board.play_here", { at: `(${c.at.x}, ${c.at.y})` }),
    });
    const go = () => onCell?.(c.at);
    r.addEventListener("click", go);
    r.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        go();
      }
    });
    svg.append(r);
  }
  // Cells an action card aims at (a Map at a goal, a rock fall at a path card): lit, and
  // played by a click or Enter, named by what is there rather than by coordinates.
  for (const t of targets) {
    const r = el("rect", {
      class: "cell-target",
      x: t.at.x + 0.05,
      y: t.at.y + 0.05,
      width: 0.9,
      height: 0.9,
      tabindex: 0,
      role: "button",
      "aria-label": t.label,
    });
    const go = () => t.onPick();
    r.addEventListener("click", go);
    r.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        go();
      }
    });
    svg.append(r);
  }
  // Pan (drag), zoom (wheel, or two fingers pinching), kept across redraws.
  const show = () => {
    keep.box = box;
    svg.setAttribute("viewBox", box.join(" "));
  };
  const zoomBy = (/** @type {number} */ k) => {
    box = [box[0] + (box[2] * (1 - k)) / 2, box[1] + (box[3] * (1 - k)) / 2, box[2] * k, box[3] * k];
    show();
  };
  /** Where a drag began: the pointer's x and y, and the box's. @type {number[] | null} */
  let drag = null;
  /** Fingers on the board, by pointer. @type {Map<number, [number, number]>} */
  const fingers = new Map();
  let spread = 0;
  const apart = () => {
    const [a, b] = [...fingers.values()];
    return Math.hypot(a[0] - b[0], a[1] - b[1]);
  };
  svg.addEventListener(
    "wheel",
    (e) => {
      e.preventDefault();
      zoomBy(e.deltaY > 0 ? 1.15 : 1 / 1.15);
    },
    { passive: false },
  );
  svg.addEventListener("pointerdown", (e) => {
    fingers.set(e.pointerId, [e.clientX, e.clientY]);
    if (fingers.size === 2) {
      drag = null;
      spread = apart();
    } else if (e.target === svg) drag = [e.clientX, e.clientY, box[0], box[1]];
  });
  const lift = (/** @type {PointerEvent} */ e) => {
    fingers.delete(e.pointerId);
    drag = null;
    spread = 0;
  };
  svg.addEventListener("pointerup", lift);
  svg.addEventListener("pointercancel", lift);
  svg.addEventListener("pointermove", (e) => {
    if (fingers.has(e.pointerId)) fingers.set(e.pointerId, [e.clientX, e.clientY]);
    if (fingers.size === 2 && spread) {
      const now = apart();
      if (now > 0) zoomBy(spread / now);
      spread = now;
      return;
    }
    if (!drag) return;
    const s = box[2] / svg.clientWidth;
    box[0] = drag[2] - (e.clientX - drag[0]) * s;
    box[1] = drag[3] - (e.clientY - drag[1]) * s;
    show();
  });
  return svg;
}

/**
 * Marks on the board the newest of `events` that changed it (a path laid or removed, a goal
 * turned), named for screen readers: what just happened, at a glance. The mark pulses when it
 * is new; drawn again for the event at `seen` (a redraw for other news), it stays still.
 * Returns the `seq` of the event marked (null: none).
 * @param {SVGSVGElement} svg @param {Schemas["EventRecord"][]} events
 * @param {Schemas["View"]} view @param {Record<number, string>} names @param {number | null} [seen]
 * @returns {number | null}
 */
export function markLast(svg, events, view, names, seen = null) {
  // Only this round's: a new deal lays a new maze.
  const recent = [...events].reverse();
  const dealt = recent.findIndex((x) => x.event?.type === "round_started");
  const e = recent
    .slice(0, dealt < 0 ? undefined : dealt)
    .find((x) => ["path_played", "path_removed", "goal_revealed"].includes(x.event?.type ?? ""));
  const ev = e?.event;
  const at =
    ev && (ev.type === "path_played" || ev.type === "path_removed" || ev.type === "goal_revealed") ? ev.at : null;
  if (!e || !ev || !at) return null;
  // A path taken back by an undo is no longer there: nothing to point at.
  if (ev.type === "path_played" && !view.board.some((p) => p.x === at.x && p.y === at.y)) return null;
  svg.append(
    el("rect", {
      class: e.seq === seen ? "last-move still" : "last-move",
      x: at.x + 0.02,
      y: at.y + 0.02,
      width: 0.96,
      height: 0.96,
      role: "img",
      "aria-label": t("board.last", { what: describeEvent(e, names) }),
    }),
  );
  return e.seq;
}

/**
 * A goal not turned yet: face down, or the card the reader saw there (a Map), marked as seen by
 * the reader only. @param {Schemas["GoalView"]} goal @param {Schemas["View"]} view
 * @param {Record<string, Schemas["CardEntry"]>} deck
 */
function goalShape(goal, view, deck) {
  const g = goal.card ? cardShape(deck[goal.card], goal.x, goal.y) : faceDown(goal.x, goal.y);
  if (goal.card) g.setAttribute("opacity", "0.7");
  // A goal the reader looked at (a Map) is still face down for everyone else: say so on it.
  if (goal.card && !view.roles) {
    g.append(
      el("rect", { class: "seen-goal", x: 0.06, y: 0.06, width: 0.88, height: 0.88, rx: 0.05 }),
      Object.assign(el("text", { class: "seen-goal-label", x: 0.5, y: 0.9, "text-anchor": "middle" }), {
        textContent: t("board.seen_only_you"),
      }),
    );
  }
  g.setAttribute("role", "img");
  g.setAttribute(
    "aria-label",
    goal.card
      ? phrase("board.goal_seen", { at: `(${goal.x}, ${goal.y})`, card: cardNamed(goal.card) })
      : t("board.goal", { at: `(${goal.x}, ${goal.y})` }),
  );
  return g;
}
