// Pieces more than one page shows: the players around the table, the hands a view shows, and
// the series a game belongs to.
import { el, h } from "./dom.js";
import { phrase, t } from "./i18n.js";
import { api, keys } from "./net.js";
import { actionPicture, inFront } from "./pictures.js";
import { actionCard, cardShape } from "./svg.js";
import {
  cardName,
  clock,
  describe,
  explain,
  paysNobody,
  roleName,
  roundWinners,
  seatName,
  statusName,
} from "./words.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */

/** The bots' levels, easiest first: easy (random), medium (heuristic), hard (expert). */
export const LEVELS = ["random", "heuristic", "expert"];

/**
 * A choice of a bot's level, medium picked.
 * @param {Record<string, any>} attrs
 */
export const levelPicker = (attrs) =>
  h(
    "select",
    attrs,
    LEVELS.map((l) => h("option", { value: l, selected: l === "heuristic" }, t(`level.${l}`))),
  );

/**
 * The players: name, connection, cards, gold, clock, what lies in front of them, role once
 * known, whose turn it is, and a mark that opens on the key a seat signs with.
 * @param {Schemas["View"]} view
 * @param {Record<number, string>} names
 * @param {Schemas["TableStatus"]} [table]
 * @param {Schemas["PresenceView"] | null} [presence] (none once the game is over)
 * @param {Set<number>} [bots] the seats bots hold (present by nature)
 */
export function players(view, names, table, presence, bots = new Set()) {
  return h(
    "ul",
    { class: "players", "aria-label": t("players.label") },
    view.hand_sizes.map((n, i) => {
      const turn = view.phase.awaited === i;
      const seat = table?.seats[i];
      const here = presence?.seats[i]?.connected;
      const shown = presence && !bots.has(i);
      const parts = [
        (names[i] ?? t("players.empty")) +
          (view.seat === i ? ` ${t("players.you")}` : "") +
          (shown ? ` ${t(here ? "players.connected" : "players.away")}` : "") +
          ": " +
          phrase("players.cards", { n, gold: view.gold_card_counts[i] }),
      ];
      if (seat?.remaining_ms != null && !turn) parts.push(t("players.clock", { time: clock(seat.remaining_ms) }));
      if (seat?.handed_to) parts.push(t("players.bot_plays", { level: t(`level.${seat.handed_to}`) }));
      if (seat?.timeouts) parts.push(t("players.timeouts", { n: seat.timeouts }));
      if (view.gold) parts.push(t("players.gold", { n: view.gold[i] }));
      if (view.in_front[i].length)
        parts.push(t("players.in_front", { cards: view.in_front[i].map((c) => cardName(c)).join(", ") }));
      if (view.roles) parts.push(t("players.role", { role: roleName(view.roles[i]) }));
      return h(
        "li",
        { class: turn ? "turn" : "" },
        shown
          ? h(
              "span",
              { class: here ? "here" : "away", title: t(here ? "players.connected_title" : "players.away_title") },
              here ? "● " : "○ ",
            )
          : "",
        parts.join("; "),
        ...view.in_front[i].map((c) => inFront(c, cardName(c))),
        // A signing key is behind a mark a curious player opens: its fingerprint, and the whole
        // key in its title.
        seat?.key
          ? h(
              "details",
              { class: "key" },
              h("summary", { title: t("players.verified_title") }, t("players.verified")),
              h(
                "span",
                { title: t("players.key_title", { key: seat.key }) },
                t("players.key", { print: keys.prints.get(seat.key) ?? "" }),
              ),
            )
          : "",
        turn ? ` — ${t("players.their_turn")}` : "",
      );
    }),
  );
}

/**
 * The score, a table: every seat with the gold it holds and the rounds it won. Once the gold is
 * public (the game over, or Saboteur 2's coins) the seats are ranked by it, ties sharing a
 * place, and the game's winners marked; before, each seat's gold cards are counted (their
 * values stay secret until the end, §7.3). With `byRound` (each round's gold by seat, once
 * every value is public), a column for each round before the total.
 * @param {Schemas["View"]} view @param {Record<number, string>} names @param {boolean} over
 * @param {number[][] | null} [byRound]
 */
export function scoreboard(view, names, over, byRound = null) {
  const seats = view.hand_sizes.map((_, i) => i);
  const gold = view.gold;
  const won = (/** @type {number} */ i) => view.rounds.filter((r) => r.winners.includes(i)).length;
  const order = gold ? [...seats].sort((a, b) => gold[b] - gold[a] || a - b) : seats;
  const place = (/** @type {number} */ i) => (gold ? 1 + seats.filter((j) => gold[j] > gold[i]).length : 0);
  const col = (/** @type {string} */ key) => h("th", { scope: "col" }, t(key));
  const perRound = gold && byRound ? byRound : [];
  return h(
    "table",
    { class: "score" },
    h("caption", {}, t(over ? "score.final" : "score.title")),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        gold ? col("score.place") : null,
        col("score.player"),
        perRound.map((_, r) => h("th", { scope: "col" }, t("score.round", { n: r + 1 }))),
        col(perRound.length ? "score.total" : gold ? "score.gold" : "score.gold_cards"),
        col("score.rounds_won"),
      ),
    ),
    h(
      "tbody",
      {},
      order.map((i) => {
        const winner = over && view.winners.includes(i);
        return h(
          "tr",
          { class: winner ? "winner" : null },
          gold ? h("td", {}, String(place(i))) : null,
          h(
            "th",
            { scope: "row" },
            seatName(names, i) +
              (view.seat === i ? ` ${t("players.you")}` : "") +
              (winner ? ` — ${t("score.winner")}` : ""),
          ),
          perRound.map((r) => h("td", {}, String(r[i]))),
          h("td", {}, String(gold ? gold[i] : view.gold_card_counts[i])),
          h("td", {}, String(won(i))),
        );
      }),
    ),
  );
}

/** A card's little picture, drawn as the card: its tunnels cut in earth, or an action's face with
 * what it does (a tool broken or mended, the trap, the map, …; letters for the others).
 * @param {Schemas["CardEntry"] | undefined} entry @param {boolean} [rotated] */
export function cardIcon(entry, rotated = false) {
  const icon = el("svg", { viewBox: "0 0 1 1", "aria-hidden": "true", class: "card-icon" });
  if (entry?.segments?.length) icon.append(cardShape(entry, 0, 0, rotated));
  else if (entry?.action) icon.append(actionCard(entry, actionPicture(entry)));
  return icon;
}

/**
 * The hands and roles a view shows: every seat's once the game is over, or the seat's own.
 * @param {Schemas["View"]} view @param {Record<number, string>} names @param {Record<string, Schemas["CardEntry"]>} deck
 */
export function hands(view, names, deck) {
  const cardsOf = (/** @type {string[]} */ cards) =>
    h(
      "ul",
      { class: "hand" },
      (cards ?? []).map((c) => h("li", { title: explain(deck[c]) }, cardIcon(deck[c]), describe(deck[c]))),
    );
  /** @type {Array<[number, string[], string | null | undefined]>} */
  const seats = view.hands
    ? view.hands.map((cards, i) => [i, cards, view.roles?.[i]])
    : view.seat != null && view.hand
      ? [[view.seat, view.hand, view.role]]
      : [];
  if (!seats.length) return h("section", { "aria-label": t("hands.label") }, h("p", {}, t("hands.hidden")));
  return h(
    "section",
    { "aria-label": t("hands.label") },
    h("h2", {}, t("hands.label")),
    seats.map(([i, cards, role]) =>
      h(
        "section",
        { "aria-label": t("hands.of", { name: seatName(names, i) }) },
        h(
          "h3",
          {},
          t(role ? "hands.heading_role" : "hands.heading", {
            name: seatName(names, i),
            role: roleName(role),
            n: cards.length,
          }),
        ),
        cardsOf(cards),
      ),
    ),
  );
}

/**
 * The series a game belongs to (each game a rematch of the one before), with links and the
 * running totals; nothing for a game that is not part of one.
 * @param {string} id
 * @param {Record<number, string>} names
 * @param {(game: string) => string} link where each game's link goes
 */
export async function seriesSection(id, names, link) {
  /** @type {Schemas["Series"]} */
  const series = await api(`/games/${id}/series`);
  if (series.games.length < 2) return null;
  const totals = (/** @type {number[]} */ gold) => gold.map((x, i) => `${names[i] ?? i} ${x}`).join(", ");
  return h(
    "section",
    { "aria-label": t("series.label") },
    h("h2", {}, t("series.label")),
    h(
      "ol",
      {},
      series.games.map((g) =>
        h(
          "li",
          {},
          g.id === id
            ? h("strong", {}, t("series.this", { id: g.id.slice(0, 8) }))
            : h("a", { href: link(g.id) }, g.id.slice(0, 8)),
          `: ${statusName(g.status)}${g.gold ? `, ${t("series.gold", { gold: totals(g.gold) })}` : ""}`,
        ),
      ),
    ),
    h("p", {}, series.totals.length ? t("series.totals", { gold: totals(series.totals) }) : t("series.none")),
  );
}

/**
 * The finished rounds, a line each: who reached the gold, who won, every dwarf card.
 * @param {Schemas["View"]} view @param {Record<number, string>} names
 */
export function finishedRounds(view, names) {
  if (!view.rounds?.length) return null;
  return h(
    "section",
    { "aria-label": t("table.finished_rounds") },
    h("h2", {}, t("table.finished_rounds")),
    h(
      "ul",
      {},
      view.rounds.map((r) => {
        const said = {
          round: r.round,
          gold:
            r.gold_reached_by == null
              ? t("table.gold_not_reached")
              : t("table.gold_reached", { who: seatName(names, r.gold_reached_by) }),
          roles: r.roles.map((role, i) => `${seatName(names, i)} ${roleName(role)}`).join(", "),
        };
        return h(
          "li",
          {},
          paysNobody(r)
            ? t("table.round_summary_nobody", { ...said, why: t("round.nobody_why") })
            : t("table.round_summary", { ...said, winners: roundWinners(r.winners, (w) => seatName(names, w)) }),
        );
      }),
    ),
  );
}
