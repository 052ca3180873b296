// A round's end as the table shows it before the next deal (rules §6, §7, §10): the final maze
// with the route from the start to the treasure, every dwarf card revealed, and what each seat
// got in the round and why, as far as the reader may see (§7.3: the values of others' gold
// cards stay hidden until the game ends). And each seat's gold in each round, for the final score.
import { el, h } from "./dom.js";
import { list, t } from "./i18n.js";
import { FLIP } from "./svg.js";
import { roleName, seatName } from "./words.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */
/** @typedef {Schemas["EventRoundEnded"]} RoundEnded */
/** @typedef {{ cells: number[][], doors: string[] }} Route */

/** Where each side of a cell leads. @type {Record<Schemas["Opening"], [number, number]>} */
const STEP = { n: [0, -1], e: [1, 0], s: [0, 1], w: [-1, 0] };

/**
 * The events of `records` (oldest first, numbered one after another) still in force: an
 * `undone` returns the game to its `to_version`, taking back what came after it (rules §12).
 * An undo to before the first of `records` leaves none of those before it.
 * @param {Schemas["EventRecord"][]} records
 */
export function effective(records) {
  const first = records[0]?.seq ?? 1;
  /** Each event's predecessor in force, and the newest event in force after each version. @type {Map<number, number>} */
  const prev = new Map();
  /** @type {Map<number, number>} */
  const head = new Map();
  let at = first - 1;
  for (const r of records) {
    if (r.event.type === "undone")
      at = r.event.to_version >= first ? (head.get(r.event.to_version) ?? first - 1) : first - 1;
    else {
      prev.set(r.seq, at);
      at = r.seq;
    }
    head.set(r.seq, at);
  }
  const bySeq = new Map(records.map((r) => [r.seq, r]));
  /** @type {Schemas["EventRecord"][]} */
  const kept = [];
  for (let s = /** @type {number | undefined} */ (at); s != null && bySeq.has(s); s = prev.get(s))
    kept.push(/** @type {Schemas["EventRecord"]} */ (bySeq.get(s)));
  return kept.reverse();
}

/**
 * A shortest route from a root (the start, or a ladder: §9.3) through connected tunnels to the
 * treasure, passing only doors of the colours in `open` (§10.1): the cells it goes through and
 * the doors on it; null when there is none.
 * @param {Schemas["PlacedCard"][]} board @param {Record<string, Schemas["CardEntry"]>} deck @param {string[]} open
 * @returns {Route | null}
 */
export function route(board, deck, open) {
  const cards = new Map(board.map((p) => [`${p.x},${p.y}`, p]));
  const segments = (/** @type {Schemas["PlacedCard"]} */ p) =>
    (deck[p.card]?.segments ?? []).map((s) => ({
      door: s.door ?? null,
      usable: !s.dead_end && (!s.door || open.includes(s.door)),
      openings: s.openings.map((o) => (p.rotated ? FLIP[o] : o)),
    }));
  /** How each segment reached was reached (`x,y,i`, from the one before it). @type {Map<string, string | null>} */
  const from = new Map();
  /** The segments reached, in the order reached (`x,y,i`). @type {string[]} */
  const queue = [];
  for (const p of board) {
    if (deck[p.card]?.kind !== "start" && !deck[p.card]?.ladder) continue;
    segments(p).forEach((s, i) => {
      if (s.usable) {
        from.set(`${p.x},${p.y},${i}`, null);
        queue.push(`${p.x},${p.y},${i}`);
      }
    });
  }
  for (let k = 0; k < queue.length; k++) {
    const [x, y, i] = queue[k].split(",").map(Number);
    // (Every segment queued is on a card of the maze.)
    const p = /** @type {Schemas["PlacedCard"]} */ (cards.get(`${x},${y}`));
    if (deck[p.card]?.kind === "goal" && deck[p.card]?.gold) return walk(queue[k]);
    for (const o of segments(p)[i].openings) {
      const q = cards.get(`${x + STEP[o][0]},${y + STEP[o][1]}`);
      if (!q) continue;
      segments(q).forEach((s, j) => {
        const next = `${q.x},${q.y},${j}`;
        if (s.usable && s.openings.includes(FLIP[o]) && !from.has(next)) {
          from.set(next, queue[k]);
          queue.push(next);
        }
      });
    }
  }
  return null;
  /** The route that ends at segment `end`, first cell first. @param {string} end */
  function walk(end) {
    /** @type {number[][]} */
    const cells = [];
    /** @type {Set<string>} */
    const doors = new Set();
    for (let k = /** @type {string | null | undefined} */ (end); k != null; k = from.get(k)) {
      const [x, y, i] = k.split(",").map(Number);
      const door = segments(/** @type {Schemas["PlacedCard"]} */ (cards.get(`${x},${y}`)))[i].door;
      if (door) doors.add(door);
      cells.unshift([x, y]);
    }
    return { cells, doors: [...doors].sort() };
  }
}

/**
 * How the round was decided: the teams that won (in Saboteur 2 by the routes to the treasure
 * and who reached it, §10.1; in the base game the gold-diggers whenever it was reached), and
 * the route to draw.
 * @param {{ gold_reached_by?: number | null, roles: string[] }} ended the round's end (its event, or its result in the view)
 * @param {Schemas["View"]} view the table at the round's end
 * @param {Record<string, Schemas["CardEntry"]>} deck
 */
export function decided(ended, view, deck) {
  const finder = ended.gold_reached_by;
  const any = finder == null ? null : route(view.board, deck, ["blue", "green"]);
  if (finder == null) return { green: false, blue: false, way: null };
  if (view.ruleset !== "saboteur2") return { green: true, blue: true, way: any };
  const [none, green, blue] = [[], ["green"], ["blue"]].map((open) => route(view.board, deck, open));
  const role = ended.roles[finder];
  const [g, b] =
    role === "green_digger"
      ? [!!green, !green]
      : role === "blue_digger"
        ? [!blue, !!blue]
        : none || (green && blue)
          ? [true, true]
          : [!!green, !!blue];
  return { green: g, blue: b, way: (g && b ? (none ?? green ?? blue) : g ? green : b ? blue : null) ?? any };
}

/**
 * Draws a route on the maze: a line through the middle of each cell it passes, named.
 * @param {SVGSVGElement} svg @param {Route} way
 */
export function drawRoute(svg, way) {
  const points = way.cells.map(([x, y]) => `${x + 0.5},${y + 0.5}`).join(" ");
  // Its length in cells, for the line to be drawn from the start on (unless motion is reduced).
  const style = `--length:${way.cells.length}`;
  svg.append(
    el("polyline", { class: "route-under", points, "aria-hidden": "true" }),
    el("polyline", {
      class: "route",
      points,
      style,
      role: "img",
      "aria-label": t("round.route", { n: way.cells.length }),
    }),
  );
}

/**
 * The round's outcome in a sentence or two: who reached the treasure and which side won; in
 * Saboteur 2 also the doors the route passes.
 * @param {RoundEnded} ended @param {ReturnType<typeof decided>} how @param {Schemas["View"]} view @param {Record<number, string>} names
 */
export function outcome(ended, how, view, names) {
  const who = seatName(names, ended.gold_reached_by);
  if (ended.gold_reached_by == null)
    return t(ended.winners.length ? "round.outcome_saboteurs" : "round.outcome_no_saboteur");
  if (view.ruleset !== "saboteur2") return t("round.outcome_diggers", { who });
  const won = t(
    how.green && how.blue
      ? "round.outcome_both"
      : how.green
        ? "round.outcome_green"
        : how.blue
          ? "round.outcome_blue"
          : "round.outcome_blocked",
    { who },
  );
  const doors = how.way?.doors ?? [];
  return `${won} ${doors.length ? t("round.route_doors", { doors: list(doors.map((d) => t(`door.${d}`))) }) : how.way ? t("round.route_no_door") : ""}`.trim();
}

/**
 * What each seat got in the round and why. `events` are the round's end in force, from its
 * `round_ended` up to the next deal: gold cards kept and saboteurs paid (counted, their values
 * shown only where the reader sees them), coins paid and stolen (public, §10.2).
 * @param {RoundEnded} ended @param {Schemas["EventRecord"][]} events @param {Schemas["View"]} view the table at the round's end
 * @param {Record<string, Schemas["CardEntry"]>} deck @param {Record<number, string>} names
 */
export function payouts(ended, events, view, deck, names) {
  const rows = ended.roles.map((role, seat) => ({
    seat,
    role,
    gold: 0,
    cards: 0,
    hidden: false,
    notes: /** @type {string[]} */ ([]),
  }));
  const worth = (/** @type {string} */ card) => deck[card]?.value ?? 0;
  for (const { event: e } of events) {
    if (e.type === "gold_kept") {
      rows[e.seat].cards += 1;
      if (e.card) rows[e.seat].gold += worth(e.card);
      else rows[e.seat].hidden = true;
    } else if (e.type === "saboteurs_paid") {
      for (const p of e.payments) {
        if (Array.isArray(p.cards)) {
          rows[p.seat].cards += p.cards.length;
          rows[p.seat].gold += p.cards.reduce((n, c) => n + worth(c), 0);
        } else if (p.cards.count) {
          rows[p.seat].cards += p.cards.count;
          rows[p.seat].hidden = true;
        }
      }
    } else if (e.type === "coins_paid")
      e.coins.forEach((n, i) => {
        if (rows[i]) rows[i].gold += n;
      });
    else if (e.type === "coin_stolen") {
      if (e.from == null) {
        rows[e.seat].notes.push(t("round.stole_nothing"));
        continue;
      }
      rows[e.seat].gold += 1;
      rows[e.from].gold -= 1;
      rows[e.seat].notes.push(t("round.stole", { who: seatName(names, e.from) }));
      rows[e.from].notes.push(t("round.stolen_by", { who: seatName(names, e.seat) }));
    }
  }
  const s2 = view.ruleset === "saboteur2";
  const trapped = (/** @type {number} */ i) => (view.in_front[i] ?? []).includes("trapped");
  const geologists = ended.roles.filter((r, i) => r === "geologist" && !trapped(i)).length;
  const crystals = view.board.reduce(
    (n, p) => n + (deck[p.card]?.kind === "path" ? (deck[p.card]?.crystals ?? 0) : 0),
    0,
  );
  const broken = (/** @type {number} */ i) => (view.in_front[i] ?? []).some((c) => c.startsWith("break_"));
  return rows.map((r) => {
    const why = [];
    if (r.seat === ended.gold_reached_by) why.push(t("round.why_reached"));
    const won = ended.winners.includes(r.seat);
    if (s2 && trapped(r.seat)) why.push(t("round.why_trapped"));
    else if (s2 && r.role === "geologist")
      why.push(t(geologists > 1 ? "round.why_geologists" : "round.why_geologist", { n: crystals }));
    else if (won && !s2 && ended.gold_reached_by != null && !r.cards)
      why.push(
        t(
          view.options.broken_tools_forfeit_gold && broken(r.seat) ? "round.why_broken_tool" : "round.why_no_card_left",
        ),
      );
    else if (won)
      why.push(
        t(r.role === "boss" ? "round.why_boss" : r.role === "profiteer" ? "round.why_profiteer" : "round.why_won"),
      );
    else why.push(t("round.why_lost"));
    return { ...r, why: [...why, ...r.notes].join("; ") };
  });
}

/**
 * The round's end: its heading, the outcome, the final maze (`svg`, the route drawn on it),
 * and a table of every seat's dwarf card, what it got and why.
 * @param {{ ended: RoundEnded, events: Schemas["EventRecord"][], view: Schemas["View"], deck: Record<string, Schemas["CardEntry"]>,
 *   names: Record<number, string>, me: number | null, svg: SVGSVGElement, last: boolean, extra: (HTMLElement | null)[], dock: HTMLElement }} round
 * the round ended, its end's events in force, the table then, the maze drawn from it, whether
 * it was the game's last round, what goes under the table (the score so far, say), and the
 * way on (docked at the bottom of the screen)
 */
export function roundEnd({ ended, events, view, deck, names, me, svg, last, extra, dock }) {
  const how = decided(ended, view, deck);
  if (how.way) drawRoute(svg, how.way);
  const col = (/** @type {string} */ key) => h("th", { scope: "col" }, t(key));
  const rows = payouts(ended, events, view, deck, names);
  return h(
    "section",
    { class: "round-over", "aria-label": t("table.round_over") },
    h("h2", {}, t(last ? "round.heading_last" : "round.heading", { round: ended.round })),
    h("p", { class: "outcome" }, outcome(ended, how, view, names)),
    h(
      "div",
      { class: "round-end" },
      h("div", { class: "round-board" }, svg),
      h(
        "div",
        {},
        h(
          "div",
          { class: "wide", role: "region", tabindex: 0, "aria-label": t("round.payouts", { round: ended.round }) },
          h(
            "table",
            { class: "score payouts" },
            h("caption", {}, t("round.payouts", { round: ended.round })),
            h("thead", {}, h("tr", {}, col("score.player"), col("round.role"), col("score.gold"), col("round.why"))),
            h(
              "tbody",
              {},
              rows.map((r) =>
                h(
                  "tr",
                  { class: ended.winners.includes(r.seat) ? "winner" : null },
                  h("th", { scope: "row" }, seatName(names, r.seat) + (me === r.seat ? ` ${t("players.you")}` : "")),
                  h("td", {}, roleName(r.role)),
                  h("td", {}, r.hidden ? t("round.cards_hidden", { n: r.cards }) : String(r.gold)),
                  h("td", {}, r.why),
                ),
              ),
            ),
          ),
        ),
        rows.some((r) => r.hidden) ? h("p", { class: "note" }, t("round.hidden_note")) : null,
        ...extra,
      ),
    ),
    dock,
  );
}

/**
 * Each seat's gold in each round (the first round first), from the whole log of a game that is
 * over, when every gold value is public (§7.3, §11); null where a value is still hidden from
 * the reader, or the rounds do not add up to the view's totals.
 * @param {Schemas["EventRecord"][]} records @param {Record<string, Schemas["CardEntry"]>} deck @param {Schemas["View"]} view
 * @returns {number[][] | null}
 */
export function goldByRound(records, deck, view) {
  /** @type {number[][]} */
  const rounds = [];
  /** The round being counted's gold by seat. @type {number[] | null} */
  let now = null;
  for (const { event: e } of effective(records)) {
    if (e.type === "round_started") rounds[e.round - 1] = now = view.hand_sizes.map(() => 0);
    else if (!now) continue;
    else if (e.type === "gold_kept") {
      if (!e.card) return null;
      now[e.seat] += deck[e.card]?.value ?? 0;
    } else if (e.type === "saboteurs_paid") {
      for (const p of e.payments) {
        if (!Array.isArray(p.cards)) return null;
        now[p.seat] += p.cards.reduce((n, c) => n + (deck[c]?.value ?? 0), 0);
      }
    } else if (e.type === "coins_paid") for (const [i, n] of e.coins.entries()) now[i] += n;
    else if (e.type === "coin_stolen" && e.from != null) {
      now[e.seat] += 1;
      now[e.from] -= 1;
    }
  }
  const whole = view.gold;
  if (!whole || !rounds.length || whole.some((g, i) => rounds.reduce((n, r) => n + (r?.[i] ?? 0), 0) !== g))
    return null;
  return rounds.map((r) => r ?? view.hand_sizes.map(() => 0));
}
