// The players' shares in the seed once the host closed the lobby (a seat taken with its share's
// commitment, net.js): this browser's share revealed, the closed lobby's line for everyone at
// the table, and the host's start again once the shares' time is up, which deals without
// those still awaited.
import { h } from "./dom.js";
import { language, list, t } from "./i18n.js";
import { api, shareCommitment, tokens } from "./net.js";
import { shownName } from "./words.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */
/** @typedef {import("./room.js").Room} Room */

/** The reveals under way, by game and seat: one at a time for each. @type {Set<string>} */
const revealing = new Set();

/** The games the host is starting again: one start at a time for each. @type {Set<string>} */
const restarting = new Set();

/**
 * Whether this browser holds a seat of game `id` whose share it has not revealed yet: the
 * share is kept, and the seat's commitment as last signed does not name it.
 * @param {string} id
 */
export function shareUnrevealed(id) {
  const held = tokens.get(id);
  return Boolean(held.token && held.share && held.commitment?.entropy !== held.share);
}

/**
 * Reveals this browser's share once the host closed the lobby (`reveal_by`) while the game
 * says the seat's share is committed: one reveal at a time. The reply must name the share
 * and its commitment (else the seat's commitment stays as it was, and the page says so); its
 * signed commitment and receipt are kept with the seat, and the table read again (the last
 * share revealed starts the game). A reveal refused is tried again at the next read.
 * @param {Room} room
 */
export function revealShare({ id, s, mine, refresh, say }) {
  const held = tokens.get(id);
  const seat = held.seat;
  const entropy = held.share;
  if (!s.reveal_by || !held.token || seat == null || !entropy || !shareUnrevealed(id)) return;
  if (s.seats.find((x) => x.seat === seat)?.share !== "committed") return;
  const at = `${id}/${seat}`;
  if (revealing.has(at)) return;
  revealing.add(at);
  (async () => {
    try {
      /** @type {Schemas["ShareRevealed"]} */
      const r = await api(`/games/${id}/seats/${seat}/share`, {
        method: "PUT",
        token: held.token,
        body: { entropy },
      });
      if (r.commitment.entropy !== entropy || r.commitment.share_commitment !== (await shareCommitment(entropy)))
        throw new Error(t("join.commitment_mismatch"));
      tokens.set(id, { commitment: r.commitment, commitmentReceipt: r.receipt });
      Object.assign(mine, tokens.get(id));
      say("");
      refresh();
    } catch (e) {
      say(/** @type {Error} */ (e).message);
    } finally {
      revealing.delete(at);
    }
  })();
}

/**
 * The host's start again once the shares' time is up and some are still awaited: the game is
 * dealt without them. Sent once per read, quietly (a start refused, the server's clock not
 * there yet, is sent again at the next read).
 * @param {Room} room
 */
export function startAgain({ id, s, mine, refresh }) {
  if (!mine.host || !late(s) || restarting.has(id)) return;
  restarting.add(id);
  api(`/games/${id}/start`, { method: "POST", token: mine.host })
    .then(refresh, () => {})
    .finally(() => restarting.delete(id));
}

/** Whether the shares' time is up and some are still awaited. @param {Schemas["GameSummary"]} s */
export const late = (s) => awaited(s).length > 0 && s.reveal_by != null && Date.parse(s.reveal_by) <= Date.now();

/** The seats whose shares are awaited. @param {Schemas["GameSummary"]} s */
const awaited = (s) => s.seats.filter((x) => x.share === "committed");

/**
 * The closed lobby's line, for everyone at the table: until when the shares are awaited (the
 * reader's local time), and whose; once that time is up, whose shares the game goes without.
 * Nothing while the lobby is open.
 * @param {Schemas["GameSummary"]} s
 */
export function closedLine(s) {
  if (!s.reveal_by) return null;
  const names = list(awaited(s).map(shownName));
  if (late(s)) return h("p", { role: "status" }, t("table.shares_late", { names }));
  const time = new Date(s.reveal_by).toLocaleTimeString(language(), {
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  });
  return h("p", { role: "status" }, t("table.shares_awaited", { time, names }));
}
