// The game in words, in the language in use: cards, roles, tools, phases, moves and events.
import { Named } from "./grammar.js";
import { has, list, phrase, t } from "./i18n.js";
import { keys } from "./net.js";
import { FLIP } from "./svg.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */

/** A path card's openings as one box-drawing sign, by the sides open (in n, e, s, w order). */
const GLYPH = {
  n: "╵",
  e: "╶",
  s: "╷",
  w: "╴",
  ns: "│",
  ew: "─",
  ne: "└",
  nw: "┘",
  es: "┌",
  sw: "┐",
  nes: "├",
  nsw: "┤",
  new: "┴",
  esw: "┬",
  nesw: "┼",
};

/** The sides a card is open on (turned or not), in n, e, s, w order. @param {Schemas["CardEntry"]} entry @param {boolean} [rotated] */
export function openings(entry, rotated = false) {
  const open = new Set(
    (entry.segments ?? []).flatMap((s) => s.openings.map((o) => (rotated ? FLIP[/** @type {"n"} */ (o)] : o))),
  );
  return /** @type {Schemas["Opening"][]} */ (["n", "e", "s", "w"]).filter((o) => open.has(o));
}

/** A path card's family, from its identifier: `tunnel_nes` is a tunnel, `door_blue_ew` a blue door. @param {string} card */
const family = (card) => {
  const f = card.replace(/(_[nesw]+)+$/, "");
  return f === "crystal_split" ? "crystal_tunnel" : f;
};

/**
 * How many cards a list holds: its length when shown, its count when hidden from the reader
 * (`{"count": n}`).
 * @param {unknown[] | { count: number } | null | undefined} pile
 */
const size = (pile) => (Array.isArray(pile) ? pile.length : (pile?.count ?? 0));

/**
 * A card's name as the rulebooks call it (a path card by its kind and the sign of its sides).
 * @param {Schemas["CardEntry"] | string | undefined | null} card an entry of the catalogue, or an identifier
 * @param {boolean} [rotated]
 */
export const cardName = (card, rotated = false) => String(cardNamed(card, rotated));

/**
 * A card's name, and where its other forms are for a sentence that names it (grammar.js).
 * @param {Schemas["CardEntry"] | string | undefined | null} card an entry of the catalogue, or an identifier
 * @param {boolean} [rotated]
 */
export function cardNamed(card, rotated = false) {
  if (!card) return new Named(t("card.hidden"), null);
  const id = typeof card === "string" ? card : card.card;
  if (/^gold_\d$/.test(id)) return new Named(t("card.gold", { n: id.slice(5) }), "card-gold", "", { n: id.slice(5) });
  if (id.startsWith("goal_stone")) return new Named(t("card.goal_stone"), "card-goal_stone");
  if (has(`card.${id}`)) return new Named(t(`card.${id}`), `card-${id}`);
  const entry = typeof card === "string" ? null : card;
  // Without the catalogue's entry, the sides its id names: every part of letters n, e, s, w
  // (a split card's two, `crystal_split_nes_w`: all four), in n, e, s, w order.
  const parts = id.split("_").filter((p) => /^[nesw]+$/.test(p));
  const sides = entry
    ? openings(entry, rotated).join("")
    : [..."nesw"].filter((d) => parts.some((p) => p.includes(d))).join("");
  const fam = family(id);
  const sign = fam === "bridge" || fam === "double_curve" ? "" : GLYPH[/** @type {"n"} */ (sides)];
  return new Named(t(`path.${fam}`), `path-${fam}`, sign ? ` ${sign}` : "");
}

/** A role's name. @param {string | null | undefined} role */
export const roleName = (role) => (role ? t(`role.${role}`) : "");
/** A tool's name. @param {string | null | undefined} tool */
export const toolName = (tool) => (tool ? t(`tool.${tool}`) : "");
/** A phase's name. @param {string} phase */
export const phaseName = (phase) => t(`phase.${phase}`);
/** A ruleset's name. @param {string} ruleset */
export const rulesetName = (ruleset) => t(`ruleset.${ruleset}`);
/** A game's status. @param {string} status */
export const statusName = (status) => t(`status.${status}`);

/**
 * A card in words, for its button and screen readers: its name, turned, and its doors, ladder
 * and crystals where its name does not say them already (a blue door is "blue door └", not
 * "blue door └, blue door"; a crystal card shows one crystal).
 * @param {Schemas["CardEntry"] | undefined} entry @param {boolean} [rotated]
 */
export function describe(entry, rotated) {
  if (!entry) return t("card.unknown");
  const fam = family(entry.card);
  const parts = [cardName(entry, rotated)];
  if (rotated) parts.push(t("card.turned"));
  if (entry.doors?.length && !fam.startsWith("door_")) parts.push(list(entry.doors.map((d) => t(`door.${d}`))));
  if (entry.ladder && fam !== "ladder") parts.push(t("card.ladder"));
  if (entry.crystals && !(fam.startsWith("crystal_") && entry.crystals === 1))
    parts.push(t("card.crystals", { n: entry.crystals }));
  return parts.join(", ");
}

/** What a card does, in a sentence: its tooltip. @param {Schemas["CardEntry"] | undefined} entry */
export function explain(entry) {
  if (!entry) return "";
  const tools = list((entry.action?.tools ?? []).map(toolName));
  const effect = entry.action?.effect;
  if (effect) return t(`explain.${effect}`, { tools });
  if (entry.kind === "goal") return t(entry.gold ? "explain.goal_gold" : "explain.goal_stone");
  if (entry.kind === "start") return t("explain.start");
  if (entry.kind === "gold") return t("explain.gold");
  const sides = list(openings(entry).map((o) => t(`side.${o}`)));
  const extra = [
    entry.doors?.length ? t("explain.door", { doors: list(entry.doors.map((d) => t(`door.${d}`))) }) : "",
    entry.ladder ? t("explain.ladder") : "",
    entry.crystals ? t("card.crystals", { n: entry.crystals }) : "",
    entry.dead_ends ? t("explain.dead_end") : "",
  ].filter(Boolean);
  return t("explain.path", { sides }) + (extra.length ? ` ${extra.join("; ")}.` : "");
}

/** Milliseconds as "m:ss". @param {number} ms */
export const clock = (ms) => {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
};

/** A seat's name, or "seat N". @param {Record<number, string>} names @param {number | null | undefined} s */
export const seatName = (names, s) => (s == null ? t("word.someone") : (names[s] ?? t("word.seat", { n: s })));

/** A cell of the maze. @param {{ x: number, y: number } | null | undefined} c */
const cell = (c) => (c ? `(${c.x}, ${c.y})` : "");

/** A command in words (the moves' buttons). @param {Schemas["Command"]} c @param {Record<number, string>} names */
export function describeCommand(c, names) {
  const who = (/** @type {number} */ s) => seatName(names, s);
  switch (c.type) {
    case "play_path":
      return phrase(c.rotated ? "move.path_turned" : "move.path", { card: cardNamed(c.card), at: cell(c.at) });
    case "play_action": {
      const tg = c.target;
      const card = cardNamed(c.card);
      const tool = c.tool ? toolName(c.tool) : "";
      if (tg && "seat" in tg)
        return phrase(tool ? "move.action_on_tool" : "move.action_on", { card, who: who(tg.seat), tool });
      if (tg && "x" in tg) return phrase("move.action_at", { card, at: cell(/** @type {any} */ (tg)) });
      return phrase("move.action", { card });
    }
    case "pass":
      return c.discard?.length
        ? t("move.pass", { cards: list(c.discard.map((d) => cardName(d))) })
        : t("move.pass_nothing");
    case "discard_to_remove":
      return phrase("move.discard_to_remove", {
        cards: c.discard.map((d) => cardNamed(d)),
        card: cardNamed(c.remove),
      });
    case "choose_gold":
      return phrase("move.keep", { card: cardNamed(c.card) });
    case "steal":
      return c.from == null ? t("move.steal_nobody") : t("move.steal", { who: who(c.from) });
    default:
      return t(`command.${/** @type {any} */ (c).type}`);
  }
}

/**
 * A seat's name as the reader reads it: a player's own name; a bot the server named by its
 * level and place ("expert bot 3") named in the reader's language ("hard bot 3").
 * @param {{ seat: number, name: string, bot?: string | null }} s
 */
export function shownName(s) {
  return s.bot && s.name === `${s.bot} bot ${s.seat + 1}`
    ? t("players.bot_name", { level: t(`level.${s.bot}`), n: s.seat + 1 })
    : s.name;
}

/**
 * Who won a round, in words: the winners, or why nobody did — a round whose gold was not
 * reached is the saboteurs', and there may have been none (§2: three or four players). (A
 * round whose gold was reached but whose winning side had nobody to pay — all trapped, or
 * none in play: §10.2 — is told in a sentence of its own, `round.nobody_why`.)
 * @param {number[]} winners @param {(seat: number) => string} who
 */
export function roundWinners(winners, who) {
  return winners?.length ? list(winners.map(who)) : t("word.nobody_no_saboteur");
}

/** Whether a round's gold was reached, yet nobody of the winning side was paid (§10.2). @param {{ gold_reached_by?: number | null, winners: number[] }} r */
export const paysNobody = (r) => r.gold_reached_by != null && !r.winners?.length;

/**
 * How many moves each undo of `records` (the log's, oldest first, one after another) takes
 * back, or would take back (a request), by the undo's `seq`: the moves in force after the
 * version it returns to. An undo to before the first of `records` is left out: its moves are
 * not all there to count.
 * @param {{ seq: number, event: any }[]} records @returns {Map<number, number>}
 */
export function movesTakenBack(records) {
  const first = records[0]?.seq ?? 1;
  /** The moves in force, by their `command_accepted`. @type {number[]} */
  let moves = [];
  /** @type {Map<number, number>} */
  const counts = new Map();
  for (const { seq, event: e } of records) {
    if (e?.type === "command_accepted") moves.push(seq);
    else if (e?.type === "undone" || e?.type === "undo_requested") {
      const to = Number(e.to_version);
      if (to >= first - 1) counts.set(seq, moves.filter((s) => s > to).length);
      if (e.type === "undone") moves = moves.filter((s) => s <= to);
    }
  }
  return counts;
}

/**
 * One event of the log in plain words, numbered as in the record ("#12 …").
 * @param {{ seq: number, event: any }} e @param {Record<number, string>} names
 * @param {Map<number, number>} [back] the moves each undo takes back (`movesTakenBack`), where known
 */
export const describeEvent = (e, names, back) => `#${e.seq} ${eventSentence(e, names, back)}`;

/**
 * One event in plain words, as a person says it (no number: the talk, the news, a step). An
 * undo says how many moves it takes back where `back` knows (`movesTakenBack`).
 * @param {{ seq: number, event: any }} e @param {Record<number, string>} names
 * @param {Map<number, number>} [back]
 */
export function eventSentence(e, names, back) {
  const ev = e.event ?? {};
  const who = (/** @type {number | null | undefined} */ s) => seatName(names, s);
  const whom = (/** @type {number[]} */ seats) => (seats?.length ? list(seats.map(who)) : t("word.nobody"));
  const p = {
    by: ev.seat != null ? who(ev.seat) : t("word.someone"),
    at: cell(ev.at && typeof ev.at === "object" ? ev.at : null),
    card: cardName(ev.card),
    target: who(ev.target?.seat ?? ev.target),
  };
  const say = (/** @type {string} */ key, /** @type {Record<string, string | number>} */ more = {}) =>
    t(`event.${key}`, { ...p, ...more });
  const sentence = (() => {
    switch (ev.type) {
      case "game_created":
        return say("game_created", { ruleset: rulesetName(ev.ruleset), n: ev.players });
      case "seed_mixed":
        return say("seed_mixed", { n: (ev.contributions ?? []).length });
      case "round_started":
        return say("round_started", { round: ev.round, first: who(ev.first_player) });
      case "path_played":
        return say(ev.rotated ? "path_played_turned" : "path_played");
      case "goal_revealed":
        return say("goal_revealed");
      case "tool_broken":
        return phrase("event.tool_broken", { ...p, card: cardNamed(ev.card) });
      case "tool_repaired":
        return say("tool_repaired", { tool: toolName(ev.tool) });
      case "path_removed":
        return say("path_removed");
      case "map_used":
        return ev.goal ? say("map_used_seen", { goal: cardName(ev.goal) }) : say("map_used");
      case "passed":
        return phrase("event.passed", { ...p, n: size(ev.discarded) });
      case "card_drawn":
        return ev.card ? say("card_drawn_seen") : say("card_drawn");
      case "turn_skipped":
        return say("turn_skipped");
      case "round_ended":
        if (paysNobody(ev))
          return say("round_ended_nobody", {
            round: ev.round,
            reached: who(ev.gold_reached_by),
            why: t("round.nobody_why"),
          });
        return say(ev.gold_reached_by == null ? "round_ended_no_gold" : "round_ended", {
          round: ev.round,
          reached: who(ev.gold_reached_by),
          winners: roundWinners(ev.winners, who),
        });
      case "gold_kept":
        return ev.card ? say("gold_kept_seen") : say("gold_kept");
      case "gold_offered":
        return say("gold_offered", { n: size(ev.cards) });
      case "gold_drawn":
        return phrase("event.gold_drawn", { ...p, n: size(ev.cards) });
      case "command_accepted":
        return say(ev.bot ? "command_accepted_bot" : ev.signature ? "command_accepted_signed" : "command_accepted");
      case "undo_requested": {
        const n = back?.get(e.seq);
        return n == null ? say("undo_requested_some") : phrase("event.undo_requested", { ...p, n });
      }
      case "undo_approved":
        return say("undo_approved");
      case "undo_declined":
        return say("undo_declined");
      case "undone": {
        const n = back?.get(e.seq);
        const reason = ev.reason ?? "";
        return n == null
          ? say(ev.reason ? "undone_some_reason" : "undone_some", { reason })
          : phrase(ev.reason ? "event.undone_reason" : "event.undone", { n, reason });
      }
      case "game_ended":
        return say("game_ended", { winners: whom(ev.winners) });
      case "game_cancelled":
        return say("game_cancelled");
      case "talk_posted": {
        const speaker = ev.seat == null ? t("event.spectator", { name: ev.name ?? t("word.spectator") }) : who(ev.seat);
        return ev.text == null
          ? say("talk_hidden_text", { who: speaker })
          : say("talk_posted", { who: speaker, text: ev.text });
      }
      case "talk_hidden":
        return say("talk_hidden", { n: ev.message });
      case "turn_timed_out":
        return say("turn_timed_out");
      case "seat_handed_to_bot":
        return say(
          ev.reason === "abandoned"
            ? "seat_handed_to_bot_abandoned"
            : ev.reason === "lobby"
              ? "seat_handed_to_bot_lobby"
              : "seat_handed_to_bot",
          { level: t(`level.${ev.level}`) },
        );
      case "seat_reclaimed":
        return say("seat_reclaimed");
      case "token_reissued":
        return say("token_reissued");
      case "seat_key_registered":
        return say("seat_key_registered", { key: keys.prints.get(ev.key) ?? String(ev.key).slice(0, 16) });
      case "player_trapped":
        return say("player_trapped");
      case "action_cancelled":
        return phrase("event.action_cancelled", { ...p, card: cardNamed(ev.card), removed: cardName(ev.removed) });
      case "discarded_to_remove":
        return say("discarded_to_remove", { removed: cardName(ev.removed), n: size(ev.discarded) });
      case "hands_swapped":
        return say("hands_swapped");
      case "hats_swapped":
        return say("hats_swapped");
      case "inspected":
        return ev.role ? say("inspected_seen", { role: roleName(ev.role) }) : say("inspected");
      case "theft_played":
        return say("theft_played");
      case "stealing_started":
        return say("stealing_started");
      case "coin_stolen":
        return ev.from == null ? say("coin_stolen_nobody") : say("coin_stolen", { from: who(ev.from) });
      case "saboteurs_paid":
        return say("saboteurs_paid");
      case "coins_paid":
        return say("coins_paid");
      default:
        return say("other", { type: String(ev.type ?? "") });
    }
  })();
  return sentence;
}
