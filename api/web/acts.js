// A seat's own acts at the table besides its moves: its key registered once, an undo asked
// for or voted on, its seat taken back from the bot playing it.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { api, keys, RECORD_VERSION, tokens } from "./net.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */
/** @typedef {import("./table.js").TablePage} TablePage */
/** @typedef {import("./play.js").Drawn} Drawn */

/**
 * A seat without a key (its token was issued again, or it came by an invite link) gets this
 * browser's, once: from then on its acts are signed. @param {TablePage} page @param {Drawn} drawn
 */
export function ensureKey(page, drawn) {
  const { id, mine } = page;
  const { me, over, st } = drawn;
  const ownKey = me != null ? st.table.seats[me]?.key : undefined;
  // A key is given only to a game of the record version this browser takes seats under.
  if (mine.token && me != null && !over && !ownKey && !page.registering && st.table.record_version >= RECORD_VERSION) {
    page.registering = true;
    keys
      .make()
      .then(async (key) => {
        if (!key) return;
        // Signed from now on: a signature the server has no key for yet is not asked for.
        mine.key = key;
        /** @type {Schemas["KeyKept"] | Schemas["Outcome"]} */
        const kept = await api(`/games/${id}/seats/${me}/key`, {
          method: "PUT",
          token: mine.token,
          // During play the proof names the seat and the version it is made at.
          body: await keys.sent(key, id, { seat: me, version: st.version }),
        });
        // Before the start the reply is the seat's commitment made again with this key: kept,
        // once it is checked to name this key.
        if ("commitment" in kept && kept.commitment.public_key !== key.public)
          throw new Error(t("join.commitment_mismatch"));
        tokens.set(
          id,
          "commitment" in kept ? { key, commitment: kept.commitment, commitmentReceipt: kept.receipt } : { key },
        );
        page.refresh();
      })
      .catch((e) => {
        page.message = e.message;
      });
  }
}

/**
 * A button that posts one of the seat's acts (signed when clicked, as `act`), then reads the
 * table again: `done` is the message once it went through (left as it was without one), a
 * refusal's sentence otherwise.
 * @param {TablePage} page @param {string} path @param {Drawn["signed"]} signed @param {string} act
 * @param {string} label @param {string} [done]
 */
function actButton(page, path, signed, act, label, done) {
  return h(
    "button",
    {
      type: "button",
      onclick: async () => {
        try {
          await api(`/games/${page.id}${path}`, { method: "POST", token: page.mine.token, sign: signed(act) });
          if (done !== undefined) page.message = done;
        } catch (e) {
          page.message = /** @type {Error} */ (e).message;
        }
        page.refresh();
      },
    },
    label,
  );
}

/**
 * The undo request open, as the log tells it (asked, not yet declined, carried out or
 * overtaken by a move), and the buttons to ask for one or vote on it: its votes are offered
 * only to a seat that may still cast one.
 * @param {TablePage} page @param {Drawn} drawn
 */
export function undoBar(page, drawn) {
  const { log, me, over, signed, s, st } = drawn;
  const request = openRequest(log.events);
  if (!request && page.message === t("table.undo_requested")) page.message = "";
  const mayVote = request != null && me != null && request.seat !== me && !request.approvals.includes(me);
  // Asked for only when the seat has a move of its own to take back.
  const undoable = me != null && st.table.seats[me]?.undoable != null;
  const bots = new Set(s.seats.filter((x) => x.bot).map((x) => x.seat));
  const refused = me != null ? declinedForSeen(log.events, me, bots) : null;
  return page.mine.token && !over
    ? h(
        "p",
        {},
        refused != null
          ? h("span", { role: "status" }, `${t("table.undo_declined_seen", { who: page.names[refused] ?? "" })} `)
          : null,
        request || !undoable
          ? null
          : actButton(page, "/undo", signed, "undo", t("table.undo"), t("table.undo_requested")),
        " ",
        mayVote ? actButton(page, "/undo/approve", signed, "approve", t("table.undo_approve")) : null,
        " ",
        mayVote ? actButton(page, "/undo/decline", signed, "decline", t("table.undo_decline")) : null,
      )
    : null;
}

/**
 * While a bot plays the seat (handed over by the host, or after timeouts), the button that
 * takes it back. @param {TablePage} page @param {Drawn} drawn
 */
export function reclaimBar(page, drawn) {
  const { st, view, signed } = drawn;
  const mySeat = view.seat != null ? st.table.seats[view.seat] : null;
  return mySeat?.handed_to
    ? h(
        "p",
        {},
        `${t("table.bot_playing")} `,
        actButton(page, `/seats/${view.seat}/reclaim`, signed, "reclaim", t("table.take_back"), ""),
      )
    : null;
}

/**
 * The bot that declined the seat's last undo request, when it did so because the moves it would
 * take back had shown the seat a hidden card (rules §12: a bot never takes back what was seen),
 * and nothing was asked or played since; else null.
 * @param {Schemas["EventRecord"][]} events @param {number} me @param {Set<number>} bots
 * @returns {number | null}
 */
function declinedForSeen(events, me, bots) {
  /** @type {number | null} */
  let refused = null;
  /** @type {boolean | null | undefined} */
  let seen = null;
  for (const { event: e } of events) {
    if (e.type === "undo_requested") {
      seen = e.seat === me ? (e.revealed ?? true) : null;
      refused = null;
    } else if (e.type === "undo_declined" && seen && bots.has(e.seat)) refused = e.seat;
    else if (e.type === "command_accepted" && e.seat === me) refused = seen = null;
  }
  return refused;
}

/**
 * The undo request open at the end of `events` (the log's latest, oldest first): who asked and
 * who approved, or null once it was declined, carried out or overtaken by a move.
 * @param {Schemas["EventRecord"][]} events
 * @returns {{ seat: number, approvals: number[] } | null}
 */
function openRequest(events) {
  /** @type {{ seat: number, approvals: number[] } | null} */
  let open = null;
  for (const { event: e } of events) {
    if (e.type === "undo_requested") open = { seat: e.seat, approvals: [] };
    else if (e.type === "undo_approved") open?.approvals.push(e.seat);
    else if (e.type === "undo_declined" || e.type === "undone" || e.type === "command_accepted") open = null;
  }
  return open;
}
