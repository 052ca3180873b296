// Post-game analysis in the replay: through a seat's eyes once the game is over, the seat's
// moves weighed by the expert bot (`GET /games/{id}/analysis`): the costly ones listed and
// marked in the log, and at each move's steps what the expert would have played, said beside
// the board and drawn on it.

import { el, h } from "./dom.js";
import { t } from "./i18n.js";
import { api } from "./net.js";
import { describeCommand, seatName } from "./words.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */
/** @typedef {{ d: Schemas["Decision"], first: number, last: number }} Span */

/**
 * The seat's analysis, or null when there is none to show: the game not over, eyes that are
 * not a seat's, or the server refusing.
 * @param {string} id @param {Schemas["GameSummary"]} summary @param {string} as whose eyes
 * @returns {Promise<Schemas["Analysis"] | null>}
 */
export async function analysisOf(id, summary, as) {
  if (summary.status !== "finished" || !/^\d+$/.test(as)) return null;
  try {
    return await api(`/games/${id}/analysis?seat=${as}`);
  } catch {
    return null;
  }
}

/** A cost worth the reader's attention: 5 points of a round's chance, or half a coin. @param {Schemas["Analysis"]} a @param {number} cost */
const isCostly = (a, cost) => cost >= (a.unit === "coin" ? 0.5 : 0.05);

/** Whether the move played is the expert's suggestion (and so cost nothing). @param {Schemas["Decision"]} d */
const agrees = (d) => d.cost === 0 && JSON.stringify(d.played) === JSON.stringify(d.suggested);

/** A cost in the reader's words. @param {Schemas["Analysis"]} a @param {number} cost */
const costText = (a, cost) =>
  a.unit === "coin"
    ? t("analysis.cost_coins", { n: cost.toFixed(1) })
    : t("analysis.cost_chance", { n: Math.round(cost * 100) });

/**
 * Each decision with the steps its move spans in the log: from its `command_accepted` (the
 * event after its version) to the event before the next command.
 * @param {Schemas["Analysis"]} a @param {Schemas["EventRecord"][]} events @returns {Span[]}
 */
export function spans(a, events) {
  const commands = events.filter((e) => e.event?.type === "command_accepted").map((e) => e.seq);
  return a.decisions.map((d) => {
    const first = d.version + 1;
    const next = commands.find((s) => s > first);
    return { d, first, last: next ? next - 1 : Number.MAX_SAFE_INTEGER };
  });
}

/**
 * The section beside the log: how many moves, how many the expert would have played
 * otherwise, and each costly one as a button to its step.
 * @param {Schemas["Analysis"]} a @param {Span[]} all @param {Record<number, string>} names
 * @param {(seq: number) => void} go
 */
export function analysisSection(a, all, names, go) {
  const differ = all.filter((s) => !agrees(s.d));
  const costly = all.filter((s) => isCostly(a, s.d.cost)).sort((x, y) => y.d.cost - x.d.cost);
  return h(
    "section",
    { class: "analysis", "aria-labelledby": "analysis-title" },
    h("h2", { id: "analysis-title" }, t("analysis.title", { who: seatName(names, a.seat) })),
    h("p", {}, t("analysis.summary", { n: all.length, m: differ.length, k: costly.length })),
    costly.length
      ? h(
          "ol",
          { class: "costly-moves" },
          costly.map((s) =>
            h(
              "li",
              {},
              h(
                "button",
                { type: "button", onclick: () => go(s.first + 1) },
                t("analysis.line", {
                  seq: s.first,
                  played: describeCommand(s.d.played, names),
                  suggested: describeCommand(s.d.suggested, names),
                  cost: costText(a, s.d.cost),
                }),
              ),
            ),
          ),
        )
      : h("p", {}, t("analysis.none")),
  );
}

/**
 * Marks the log's lines of the costly moves. @param {HTMLElement} log @param {Schemas["Analysis"]} a
 * @param {Span[]} all
 */
export function markCostly(log, a, all) {
  for (const s of all) {
    if (!isCostly(a, s.d.cost)) continue;
    const line = log.querySelector(`li[data-seq="${s.first}"] .log-line`);
    if (line) line.prepend(h("span", { class: "costly", role: "img", "aria-label": t("analysis.costly") }, "⚠ "));
  }
}

/**
 * At a step of one of the seat's moves: what the expert would have played, in words, and drawn
 * on the board when it goes to a cell. Null at other steps.
 * @param {Schemas["Analysis"]} a @param {Span[]} all @param {number} v the step shown
 * @param {SVGSVGElement} drawn the board @param {Record<number, string>} names
 */
export function alternative(a, all, v, drawn, names) {
  const s = all.find((x) => x.first <= v && v <= x.last);
  if (!s) return null;
  const suggested = describeCommand(s.d.suggested, names);
  const same = agrees(s.d);
  const c = s.d.suggested;
  const at = c.type === "play_path" ? c.at : c.type === "play_action" && c.target && "x" in c.target ? c.target : null;
  if (at && !same)
    drawn.append(
      el("rect", {
        class: "suggested-move",
        x: at.x + 0.08,
        y: at.y + 0.08,
        width: 0.84,
        height: 0.84,
        role: "img",
        "aria-label": t("analysis.board", { what: suggested }),
      }),
    );
  return h(
    "p",
    { class: isCostly(a, s.d.cost) ? "caption costly-step" : "caption" },
    same ? t("analysis.same") : t("analysis.other", { suggested, cost: costText(a, s.d.cost) }),
  );
}
