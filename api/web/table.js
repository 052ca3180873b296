// The table (/play/{id}): a seat's game, or a spectator's. Read once per news (the stream
// says something happened; one round trip reads the rest), drawn from what was read
// (play.js): the maze and the hand (hand.js), what just happened (news.js), the talk
// (talk.js), the seat's own acts (acts.js) and the screens they make up (screens.js).

import { h, main } from "./dom.js";
import { t } from "./i18n.js";
import { api, cards, follow, keys, READ_WAIT_MS, roundEnds, serverKeys, tokens } from "./net.js";
import { checkOpenings, OpeningMismatch } from "./openings.js";
import { seriesSection } from "./parts.js";
import { draw } from "./play.js";
import { effective, goldByRound } from "./roundend.js";
import { shareUnrevealed } from "./shares.js";
import { gather } from "./talk.js";
import { shownName } from "./words.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */

/**
 * What the table was last read as: the game alone in its lobby or once cancelled; else also
 * the state, the legal moves (those of the seat awaited, for that seat), the log's latest 30
 * events, presence, and the series the game belongs to.
 * @typedef {{ s: Schemas["GameSummary"], st?: Schemas["StateView"], legal?: Schemas["Command"][], log?: Schemas["EventPage"],
 *   presence?: Schemas["PresenceView"], series?: HTMLElement | null }} Read
 */

/**
 * The round whose end is shown until the player moves on to the next deal (at the game's end,
 * to the final score): its `round_ended`, the events in force from it up to the next deal,
 * and the table just before that deal (read once the deal happened).
 * @typedef {{ seq: number, ended: Schemas["EventRoundEnded"], events: Schemas["EventRecord"][], dealt: number | null, view: Schemas["View"] | null }} Ending
 */

/**
 * A table's page: what it read and what the player chose, kept across reads and redraws.
 * @typedef {object} TablePage
 * @property {string} id the game
 * @property {ReturnType<typeof tokens.get>} mine what this browser holds of it (token, seat, key, host token)
 * @property {Record<string, Schemas["CardEntry"]>} deck the game's cards
 * @property {Record<number, string>} names the seats' names
 * @property {Schemas["GameSummary"]} summary the game as first read
 * @property {Schemas["Card"] | null} selected the card selected in the hand
 * @property {number | null} sel its place in the hand
 * @property {boolean} rotated whether the selected path card is turned
 * @property {string} message the error (or word) shown under the maze
 * @property {number} timer the countdown's ticking
 * @property {boolean} hostOpen whether the host's panel is open (it stays so across redraws)
 * @property {boolean} reveal whether the next drawing brings the maze into view (a card was just selected)
 * @property {Set<number>} alsoDiscard Cards ticked to discard with the selected one when
 * passing (Saboteur 2 lets a player discard several, §10), by their place in the hand: one Pass
 * button for the chosen set, not one per combination. Cleared when another card is selected or
 * the hand changes.
 * @property {string} draft what is being typed to the table: it survives the redraws
 * @property {Map<number, Schemas["EventRecord"]>} talkSeen the whole conversation, by `seq`
 * (the log's first page, then each redraw's recent events)
 * @property {Promise<Schemas["TableRead"] | null> | null} first the first read, made at once
 * (null once taken; a token the game no longer knows still shows the game)
 * @property {Schemas["EventRecord"][] | null} startLog the log read at the start (kept for the
 * final score of a game over already)
 * @property {Read | null} data What the table was last read as. It is read again when the
 * stream brings news and after every write; a click that only selects, turns or ticks a card
 * redraws from it, without a request.
 * @property {boolean} stale whether the table is to be read again before it is drawn
 * @property {boolean} registering whether this browser is registering its key for the seat
 * @property {number} drawnAt the version the table was last drawn at
 * @property {Schemas["EventRecord"][]} news What happened since the page was opened, the latest
 * 40 events in words: those since the table was last drawn at another version are told one by
 * one (the bots' answers land together) and marked on the board.
 * @property {number} unseen where in `news` the events not yet looked at begin (those marked on the board)
 * @property {number} told How many of `news` are told so far: one more every 0.9 s, each
 * outlined on the board as it is told, so that a person follows the bots' answers one by one;
 * "Show all" tells the rest.
 * @property {number} pacing the telling's interval (0: none)
 * @property {number} flown the newest card laid that travelled to its cell (news.js)
 * @property {Map<number, number>} takenBack how many moves each undo read took back (or would),
 * by its `seq`, kept from the reads whose log held all of them (the log and the news say so)
 * @property {Ending | null} ending the round whose end is shown
 * @property {number[][] | null} byRound each seat's gold in each round, once the game is over
 * and every value public (the final score)
 * @property {boolean} movedOn whether the player just moved on from a round's end (the next drawing starts at the top)
 * @property {number} movedPast the last round's end moved on from (its `round_ended`)
 * @property {number | null} marked the event the board's mark of the last move was last drawn
 * for: it pulses once, then stays still through redraws for other news
 * @property {number} routed the round whose route to the gold was last drawn: it is drawn from the start once, then still
 * @property {ResizeObserver} docked the page leaves room at its end for the docked hand, as tall as it is drawn
 * @property {{ box: number[] | null }} zoom where the player zoomed and panned the maze to (none: the whole maze)
 * @property {string} panel what a phone shows under the news: the maze (`maze`), or the
 * `players`, the `talk` or the `log` in its place (kept across redraws)
 * @property {Promise<void> | null} reading One read at a time, until none is asked for: a read
 * asked for while another runs starts after it, so an older answer never lands after a newer one.
 * @property {number} heard The newest event the stream brought: the table is read again only
 * for what it has not read (a write's own read already holds its events and the bots' answers).
 * @property {number} endShown the round's end (its `round_ended`) the page last showed, 0 for none:
 * one shown anew opens at its top
 * @property {string} roomDrawn what the waiting room was last drawn from (a read that finds it
 * unchanged leaves the page as it is: no click is lost to a redraw)
 * @property {number} moving When a path card was drawn where it goes, its move not yet answered
 * (hand.js; 0 for none): a read that ends meanwhile may not hold it (sent before the move, or
 * answered before the move arrived), so none is drawn for up to `MOVE_HELD_MS`; the answer
 * reads the table again.
 * @property {() => void} drawNow draws the table from what was last read, a read under way or not
 * @property {() => Promise<void>} render draws the table (read first if stale)
 * @property {() => Promise<void>} refresh reads the table again, then draws it
 */

/** @param {string} id @param {Promise<void>} ready the language loaded */
export async function table(id, ready) {
  // The server's keys, kept from first contact (the audit view checks receipts with them).
  serverKeys.keep();
  const mine = invited(id);
  // The first read and the card catalogue at once, alongside the language: every round trip
  // counts on a slow network. A token the game no longer knows still shows the game.
  /** @type {Promise<Schemas["TableRead"] | null>} */
  const first = tableAt({ id, mine }, null).catch(() => null);
  await ready;
  document.title = t("table.title");
  const [firstRead] = await Promise.all([first, cards("base")]);
  /** @type {Schemas["GameSummary"]} */
  const summary = firstRead?.game ?? (await api(`/games/${id}`));
  const deck = await cards(summary.ruleset);
  const names = Object.fromEntries(summary.seats.map((s) => [s.seat, shownName(s)]));
  const startLog = await wholeLog({ id, mine });
  /** @type {TablePage} */
  const page = {
    id,
    mine,
    deck,
    names,
    summary,
    selected: null,
    sel: null,
    rotated: false,
    message: "",
    timer: 0,
    hostOpen: false,
    reveal: false,
    alsoDiscard: new Set(),
    draft: "",
    talkSeen: new Map(),
    first,
    startLog,
    data: null,
    stale: true,
    registering: false,
    drawnAt: 0,
    news: [],
    unseen: 0,
    told: 0,
    pacing: 0,
    flown: 0,
    takenBack: new Map(),
    ending: shownBefore(id, startLog),
    byRound: null,
    movedOn: false,
    movedPast: 0,
    marked: null,
    routed: 0,
    docked: new ResizeObserver(([e]) =>
      main.style.setProperty("--dock", `${Math.ceil(e.target.getBoundingClientRect().height)}px`),
    ),
    zoom: { box: null },
    panel: "maze",
    reading: null,
    heard: 0,
    roomDrawn: "",
    endShown: 0,
    moving: 0,
    drawNow: () => draw(page),
    render: () => render(page),
    refresh: () => {
      page.stale = true;
      return render(page);
    },
  };
  gather(page, startLog);
  await page.refresh();
  listen(page);
}

/**
 * The round's end this browser showed of game `id` and the player had not moved on from when
 * the page was left (a reload): shown again, as far as it still stands (`readEnding`).
 * @param {string} id @param {Schemas["EventRecord"][]} log the whole log
 * @returns {Ending | null}
 */
function shownBefore(id, log) {
  const seq = roundEnds.get(id);
  const ended = seq ? log.find((x) => x.seq === seq)?.event : undefined;
  return ended?.type === "round_ended" ? { seq, ended, events: [], dealt: null, view: null } : null;
}

/**
 * What this browser holds of game `id`: an invite link carries the seat's token (and its
 * number) in the fragment, never sent, kept here and taken off the address.
 * @param {string} id
 */
function invited(id) {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const hashToken = fragment.get("token");
  const hashSeat = fragment.get("seat");
  if (hashToken) {
    tokens.set(id, { token: hashToken, ...(hashSeat ? { seat: Number(hashSeat) } : {}) });
    history.replaceState(null, "", location.pathname);
  }
  return tokens.get(id);
}

/** How often the waiting room is read again, in milliseconds. */
const ROOM_EVERY = 2000;

/** How long a move drawn at once and not answered holds the reads back (then they are drawn). */
const MOVE_HELD_MS = 10000;

/**
 * Follows the game's stream: each event it brings reads the table again, 150 ms after the last
 * (after the read under way), unless the table drawn already holds it.
 * @param {TablePage} page
 */
function listen(page) {
  const abort = new AbortController();
  // A seat taken, freed or renamed in the waiting room is not an event: the room is read
  // again every 2 s while the game waits and the page is in sight, so the host sees a guest
  // arrive (the stream brings the start). Nor is the lobby closed for the players' shares:
  // while this browser holds a share not yet revealed the room is read out of sight too, and
  // at each word of the stream (a hidden page's timers may be slowed to once a minute), so
  // that the share is revealed within its time.
  const unrevealed = () => page.data?.s.status === "lobby" && shareUnrevealed(page.id);
  const room = setInterval(() => {
    if (page.data?.s.status !== "lobby") clearInterval(room);
    else if ((document.visibilityState === "visible" || unrevealed()) && !page.reading) page.refresh();
  }, ROOM_EVERY);
  const heardHidden = () => {
    if (document.visibilityState !== "visible" && unrevealed() && !page.reading) page.refresh();
  };
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let pending;
  let unsure = false;
  const onNews = () => {
    if (!page.data?.st || unsure || behind(page)) {
      unsure = false;
      page.refresh();
    }
  };
  follow(
    page.id,
    page.mine.token,
    (raw) => {
      // News without a sequence number (the stream opened again after a silence or a refusal,
      // or a record not understood): what was missed is unknown, so the table is read once.
      let seq = Number.NaN;
      try {
        seq = Number(JSON.parse(raw).seq);
      } catch {}
      if (Number.isFinite(seq)) page.heard = Math.max(page.heard, seq);
      else unsure = true;
      clearTimeout(pending);
      pending = setTimeout(() => {
        (page.reading ?? Promise.resolve()).then(onNews, onNews);
      }, 150);
    },
    abort.signal,
    heardHidden,
  );
}

/**
 * A page of the log after `after`, as this reader may see it.
 * @param {{ id: string, mine: TablePage["mine"] }} at @param {number} after @param {number} limit
 * @returns {Promise<Schemas["EventPage"]>}
 */
const logPage = async ({ id, mine }, after, limit) => {
  /** @type {Schemas["EventPage"]} */
  const page = await api(`/games/${id}/events?after=${after}&limit=${limit}`, {
    token: mine.token,
    wait: READ_WAIT_MS,
  });
  await checkOpenings(page.events);
  return page;
};

/**
 * The table at one version in one request: the game, the view, the legal moves, presence
 * and the log after `after` (without it, the last 30 events).
 * @param {{ id: string, mine: TablePage["mine"] }} at @param {number | null} after
 * @returns {Promise<Schemas["TableRead"]>}
 */
const tableAt = async ({ id, mine }, after) => {
  /** @type {Schemas["TableRead"]} */
  const read = await api(`/games/${id}/table${after == null ? "" : `?after=${after}&limit=1000`}`, {
    token: mine.token,
    wait: READ_WAIT_MS,
  });
  await checkOpenings(read.events.events);
  return read;
};

/** The whole log, as this reader may see it. @param {{ id: string, mine: TablePage["mine"] }} at */
async function wholeLog(at) {
  /** @type {Schemas["EventRecord"][]} */
  const all = [];
  for (let after = 0; ; ) {
    const page = await logPage(at, after, 1000);
    all.push(...page.events);
    if (page.next_after == null) return all;
    after = page.next_after;
  }
}

/**
 * A read is one request: the table at one version with the log from 30 events before the
 * version drawn last (a second only for a log that ran more than 1000 events further).
 * @param {TablePage} page
 * @returns {Promise<Read>}
 */
async function read(page) {
  const { id, names } = page;
  const e = page.first;
  page.first = null;
  const before = page.data?.st?.version;
  const known = page.data?.s ?? page.summary;
  const fresh = () => tableAt(page, before != null ? Math.max(0, before - 30) : null);
  /** @type {[Schemas["TableRead"], HTMLElement | null]} */
  const [got, series] = await Promise.all([
    e ? e.then((x) => x ?? fresh()) : fresh(),
    known.status === "finished" || known.previous ? seriesSection(id, names, (g) => `/play/${g}`) : null,
  ]);
  const s = got.game;
  if (s.status === "lobby" || s.status === "cancelled") return { s };
  const st = got.state;
  // The seats' keys' fingerprints, shown at the seats.
  await Promise.all(st.table.seats.filter((x) => x.key).map((x) => keys.fingerprint(/** @type {string} */ (x.key))));
  const full = got.events.next_after == null ? got.events : await logPage(page, Math.max(0, st.version - 30), 30);
  const recent = { ...full, events: full.events.filter((x) => x.seq > st.version - 30 && x.seq <= st.version) };
  // A round that ended since the last read is shown at its end until the player moves on.
  const ended =
    before != null
      ? got.events.events.filter((x) => x.seq > before && x.event.type === "round_ended").at(-1)
      : undefined;
  /** @type {Ending | null} */
  let end =
    ended?.event.type === "round_ended"
      ? { seq: ended.seq, ended: ended.event, events: [], dealt: null, view: null }
      : page.ending;
  if (end) end = await readEnding(page, end, got);
  if (s.status === "finished" && !page.byRound)
    page.byRound = goldByRound(
      page.startLog?.at(-1)?.seq === st.version ? page.startLog : await wholeLog(page),
      page.deck,
      st.view,
    );
  page.startLog = null;
  const legal = got.legal?.commands ?? [];
  const shown = st.view.phase.awaited === st.view.seat && st.view.seat != null ? legal : [];
  // (A round's end the player moved on from while this was read stays behind.)
  page.ending = end && end.seq > page.movedPast ? end : null;
  roundEnds.set(id, page.ending?.seq ?? 0);
  return {
    s,
    st,
    legal: shown,
    log: recent,
    presence: got.presence,
    series:
      series ?? (s.status === "finished" || s.previous ? await seriesSection(id, names, (g) => `/play/${g}`) : null),
  };
}

/**
 * Reads what a round's end needs: its events in force up to the next deal (those the table's
 * read brought, else a page of the log), and once the next round is dealt, the table as it
 * stood just before. A round's end taken back (an undo, a rollback) is shown no more.
 * @param {TablePage} page @param {Ending} end @param {Schemas["TableRead"]} got
 * @returns {Promise<Ending | null>}
 */
async function readEnding(page, end, got) {
  if (!got.state.view.rounds.some((r) => r.round === end.ended.round)) return null;
  if (end.view) return end;
  let records = got.events.events.filter((x) => x.seq >= end.seq);
  if (records[0]?.seq !== end.seq) records = (await logPage(page, end.seq - 1, 1000)).events;
  const kept = effective(records);
  if (!kept.some((x) => x.seq === end.seq)) return null;
  const deal = kept.find((x) => x.event.type === "round_started");
  const events = kept.filter((x) => !deal || x.seq < deal.seq);
  if (!deal) return { ...end, events };
  /** @type {Schemas["StateView"]} */
  const then = await api(`/games/${page.id}/state?at=${deal.seq - 1}`, {
    token: page.mine.token,
    wait: READ_WAIT_MS,
  });
  return { ...end, events, dealt: deal.seq, view: then.view };
}

/** Whether the table drawn is older than what the stream said happened. @param {TablePage} page */
const behind = (page) => page.data?.st != null && page.heard > page.data.st.version;

/**
 * Reads until the table is as new as the stream's news. A read that fails (the network, a
 * busy server) is tried again after a pause growing to 8 s, so that news is never left
 * unread for want of another event; the error shows after the third failure in a row.
 * @param {TablePage} page
 */
async function readAll(page) {
  for (let failed = 0; page.stale || behind(page); ) {
    page.stale = false;
    try {
      const got = await read(page);
      // A move drawn at once and not yet answered: this read may not hold it, and would take
      // the card back off the maze until the answer, which reads the table again.
      if (page.moving && performance.now() - page.moving < MOVE_HELD_MS) break;
      page.data = got;
      failed = 0;
    } catch (e) {
      page.stale = true;
      failed += 1;
      if (e instanceof OpeningMismatch) {
        // Not the network: the server showed a card its chain does not commit to. Said at once,
        // over the table or in its place; read again, as a passing fault would be.
        page.message = e.message;
        if (page.data) draw(page);
        else main.replaceChildren(h("p", { class: "error", role: "alert" }, e.message));
      } else if (failed === 3) {
        page.message = /** @type {Error} */ (e).message;
        if (page.data) draw(page);
      }
      await new Promise((r) => setTimeout(r, Math.min(8000, 250 * 2 ** failed)));
    }
  }
}

/** Draws the table, read again first when it is stale. @param {TablePage} page */
async function render(page) {
  // A redraw asked for while a read ends waits for the read it asked for, not an older one.
  while (page.stale || !page.data) {
    page.reading ??= readAll(page).finally(() => {
      page.reading = null;
    });
    await page.reading;
  }
  draw(page);
}
