// The table drawn from what was last read: a cancelled game, the waiting room, or the game
// (its round's end, or the game as it goes on), the focus and the scroll kept across redraws.

import { ensureKey, reclaimBar, undoBar } from "./acts.js";
import { markLast } from "./board.js";
import { h, heldBack, main } from "./dom.js";
import { movesOf } from "./hand.js";
import { t } from "./i18n.js";
import { tokens } from "./net.js";
import { heardSince, markNews } from "./news.js";
import { hostPanel, waitingRoom } from "./room.js";
import { liveTable, roundEndScreen } from "./screens.js";
import { late } from "./shares.js";
import { gather, talkOf } from "./talk.js";
import { clock, movesTakenBack, rulesetName, seatName, shownName, statusName } from "./words.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */
/** @typedef {import("./net.js").Signing} Signing */
/** @typedef {import("./table.js").TablePage} TablePage */

/**
 * What a drawing of a game is drawn from: the last read, the seat reading it (if any), whether
 * the game is over, and how the seat's acts are signed.
 * @typedef {{ s: Schemas["GameSummary"], st: Schemas["StateView"], legal: Schemas["Command"][], log: Schemas["EventPage"], presence: Schemas["PresenceView"],
 *   series: HTMLElement | null, view: Schemas["View"], me: number | null, over: boolean, signed: (act: string) => Signing | undefined }} Drawn
 */

/**
 * Draws the table from what was last read; while a press is down on the page, once it ends
 * (a redraw under a person's finger would lose their tap).
 * @param {TablePage} page
 */
export function draw(page) {
  if (heldBack(page.drawNow)) return;
  const { id, mine } = page;
  const { s, st, legal, log, presence, series } = /** @type {import("./table.js").Read} */ (page.data);
  for (const seat of s.seats) page.names[seat.seat] = shownName(seat);
  const kids = [
    h(
      "h1",
      { class: "table-title" },
      t("table.heading", { id: id.slice(0, 8), ruleset: rulesetName(s.ruleset), status: statusName(s.status) }),
    ),
  ];
  const err = h("p", { class: "error", role: "alert" }, page.message);
  if (s.status === "cancelled") {
    kids.push(h("p", { role: "status" }, t("table.cancelled")), h("p", {}, h("a", { href: "/" }, t("nav.games"))));
    main.replaceChildren(...kids);
    return;
  }
  if (s.status === "lobby") {
    kids.push(
      ...waitingRoom({
        id,
        s,
        mine,
        refresh: page.refresh,
        say: (m) => {
          page.message = m;
        },
      }),
    );
    kids.push(err);
    // Drawn again only when something it shows changed (the room is read every 2 s), the
    // shares' time running out included.
    const drawnFrom = JSON.stringify([s, mine, page.message, tokens.get(id).invites ?? null, late(s)]);
    if (drawnFrom === page.roomDrawn && main.isConnected && main.childElementCount) return;
    page.roomDrawn = drawnFrom;
    const typed = typedKept();
    main.replaceChildren(...kids);
    typed.restore();
    return;
  }
  if (!st || !legal || !log || !presence) return;
  drawGame(page, kids, err, drawnOf(page, { s, st, legal, log, presence, series: series ?? null }));
}

/**
 * The game read, as the seat reading it sees it (once the game is over every view is
 * everyone's: the seat that was ours is remembered), and how that seat signs its acts.
 * @param {TablePage} page @param {Omit<Drawn, "view" | "me" | "over" | "signed">} read
 * @returns {Drawn}
 */
function drawnOf(page, read) {
  const { id, mine } = page;
  const { s, st } = read;
  const view = st.view;
  if (mine.token && view.seat != null && mine.seat !== view.seat) {
    tokens.set(id, { seat: view.seat });
    mine.seat = view.seat;
  }
  const me = view.seat ?? (mine.token ? (mine.seat ?? null) : null);
  const over = s.status === "finished";
  /** The event an act of this seat is about, as the table's status lists it: the command an
   * undo takes back, the request a vote answers, the hand-over a reclaim ends. @param {string} act */
  const about = (act) => {
    const seat = me != null ? st.table.seats[me] : undefined;
    if (act === "undo") return seat?.undoable ?? null;
    if (act === "approve" || act === "decline") return st.table.undo_request ?? null;
    return act === "reclaim" ? (seat?.handed_at ?? null) : null;
  };
  /** The signature of this seat's act, chosen at the version drawn. @param {string} act @returns {Signing | undefined} */
  const signed = (act) =>
    mine.key && me != null
      ? {
          game: id,
          seat: me,
          version: st.version,
          act,
          key: mine.key,
          record: st.table.record_version,
          about: about(act),
        }
      : undefined;
  return { ...read, view, me, over, signed };
}

/**
 * Draws a game under way or over: its parts made in the order they read and change the page's
 * state (the news heard before it is told, the talk gathered before it is shown), then put
 * on the page.
 * @param {TablePage} page @param {HTMLElement[]} kids the heading @param {HTMLElement} err @param {Drawn} drawn
 */
function drawGame(page, kids, err, drawn) {
  const { mine } = page;
  const { s, st, log, view, me, over } = drawn;
  ensureKey(page, drawn);
  const { svg, zoomBar, why, hand, actions, paths, targets } = movesOf(page, drawn);
  const undo = undoBar(page, drawn);
  heardSince(page, st, log);
  for (const [seq, n] of movesTakenBack(log.events)) page.takenBack.set(seq, n);
  page.marked = markLast(svg, log.events, view, page.names, page.marked);
  markNews(page, svg, me);
  const countdown = countdownOf(page, st.table.deadline, me);
  gather(page, log.events);
  const focus = focusKept();
  const { talk, input } = talkOf(page, drawn);
  const host =
    mine.host && !over
      ? hostPanel({
          id: page.id,
          s,
          st,
          log,
          host: mine.host,
          names: page.names,
          open: page.hostOpen,
          refresh: page.refresh,
          toggled: (/** @type {boolean} */ open) => {
            page.hostOpen = open;
          },
          say: (/** @type {string} */ m) => {
            page.message = m;
          },
        })
      : null;
  const reclaim = reclaimBar(page, drawn);
  const banner = bannerOf(page, drawn);
  const title = banner ? `${banner} — Saboteur` : t("table.title");
  if (banner) kids.push(h("p", { class: "turn-banner", "aria-live": "polite" }, banner));
  const turnNow =
    view.phase.awaited === view.seat && view.seat != null
      ? h(
          "p",
          { role: "status" },
          t(
            view.phase.name === "choosing_gold"
              ? "table.turn_gold"
              : view.phase.name === "stealing"
                ? "table.turn_steal"
                : "table.turn_card",
          ),
        )
      : null;
  kids.push(
    ...(page.ending
      ? roundEndScreen(page, page.ending, drawn, turnNow, countdown, actions)
      : liveTable(page, drawn, {
          svg,
          zoomBar,
          err,
          hand,
          why,
          actions,
          undo,
          reclaim,
          turnNow,
          countdown,
          talk,
          host,
        })),
  );
  main.dataset.version = String(st.version);
  document.title = title;
  main.replaceChildren(...kids);
  focus.restore(input, page.draft);
  shown(page, svg, paths.length > 0 || targets.length > 0);
}

/**
 * The turn's deadline, counted down every second (to the player whose turn it is, in their
 * own words). @param {TablePage} page @param {Schemas["TableStatus"]["deadline"]} deadline
 * @param {number | null} me
 */
function countdownOf(page, deadline, me) {
  const countdown = h("p", { class: "deadline", role: "timer", "aria-live": "off" });
  const tick = () => {
    countdown.textContent = !deadline
      ? ""
      : deadline.seat === me
        ? t("table.deadline_you", { time: clock(deadline.at - Date.now()) })
        : t("table.deadline", { who: seatName(page.names, deadline.seat), time: clock(deadline.at - Date.now()) });
  };
  tick();
  clearInterval(page.timer);
  if (deadline) page.timer = setInterval(tick, 1000);
  return countdown;
}

/** Whose turn it is, or who won, in a line over the table ("" while no one is awaited). @param {TablePage} page @param {Drawn} drawn */
function bannerOf(page, drawn) {
  const { view, me, over } = drawn;
  const awaited = view.phase.awaited;
  // A round's end on the screen is what the page is about until the player moves on, even if
  // the next deal already awaits them (the gold chosen at the round's end is still a turn).
  if (page.ending && !over && (page.ending.dealt != null || awaited !== me))
    return t("round.heading", { round: page.ending.ended.round });
  return over
    ? t(me != null && view.winners?.includes(me) ? "table.over_won" : "table.over")
    : awaited == null
      ? ""
      : awaited === me
        ? t("table.you_play")
        : t("table.they_play", { who: seatName(page.names, awaited) });
}

/**
 * The focus as it is before a redraw, to be given back after it: the talk's input keeps the
 * caret at the end of the draft; any other control keeps it (the same kind, label and text).
 */
function focusKept() {
  const typing = document.activeElement instanceof HTMLInputElement && document.activeElement.name === "text";
  const was = document.activeElement;
  const focusKey = (/** @type {Element} */ e) => `${e.tagName}|${e.getAttribute("aria-label") ?? ""}|${e.textContent}`;
  const focused = !typing && was && was !== main && main.contains(was) ? focusKey(was) : null;
  // (Which of the controls alike it was: two cards of a kind in the hand are two buttons.)
  const focusable = () =>
    [...main.querySelectorAll("button, a, input, select, [tabindex]")].filter((e) => focusKey(e) === focused);
  const nth = focused ? focusable().indexOf(/** @type {Element} */ (was)) : -1;
  return {
    /** @param {HTMLInputElement} input the talk's @param {string} draft */
    restore(input, draft) {
      if (typing) {
        input.focus();
        input.setSelectionRange(draft.length, draft.length);
      } else if (focused) {
        const alike = focusable();
        /** @type {HTMLElement | undefined} */
        (alike[nth] ?? alike[0])?.focus({ preventScroll: true });
      }
    },
  };
}

/**
 * What the reader is typing in the waiting room's fields (a guest's name, their own name), and
 * the field they are in with its caret: a redraw (a seat taken, a bot seated, the stream's next
 * event) keeps both, so no keystroke is lost between typing and the button.
 */
function typedKept() {
  const keyOf = (/** @type {HTMLInputElement} */ e) =>
    e.name || e.getAttribute("aria-label") || e.closest("label")?.textContent || "";
  const fields = () =>
    /** @type {HTMLInputElement[]} */ ([...main.querySelectorAll("input:not([type]), input[type=text]")]);
  const typed = new Map(
    fields()
      .filter((e) => e.value !== e.defaultValue)
      .map((e) => [keyOf(e), e.value]),
  );
  const was = document.activeElement;
  const active =
    was instanceof HTMLInputElement && main.contains(was)
      ? { key: keyOf(was), start: was.selectionStart, end: was.selectionEnd }
      : null;
  return {
    restore() {
      for (const e of fields()) {
        const value = typed.get(keyOf(e));
        if (value != null) e.value = value;
        if (active && keyOf(e) === active.key) {
          e.focus({ preventScroll: true });
          e.setSelectionRange(active.start, active.end);
        }
      }
    },
  };
}

/**
 * On a phone, the maze takes the height left between what is above it (down to its zoom's
 * buttons under it) and the docked hand (style.css reads `--above`; the hand's height is
 * `--dock`): the maze, the hand and whose turn it is on one screen. Measured while the maze is
 * shown. @param {SVGSVGElement} svg
 */
function fitMaze(svg) {
  if (!matchMedia("(max-width: 700px)").matches || !svg.isConnected || !svg.getClientRects().length) return;
  const under = svg.nextElementSibling ?? svg;
  const above = under.getBoundingClientRect().bottom + scrollY - svg.getBoundingClientRect().height;
  main.style.setProperty("--above", `${Math.ceil(above)}px`);
}

/**
 * After a drawing: on a phone, a card tapped brings the maze into view, with the cells it
 * lights (`lit`), between the turn banner and the docked hand; the log and the news show their
 * newest line; the page leaves room for the docked hand; a round's end moved on from shows the
 * new deal from its top, the focus on the page; a round's end just shown opens at its top.
 * @param {TablePage} page @param {SVGSVGElement} svg @param {boolean} lit
 */
function shown(page, svg, lit) {
  fitMaze(svg);
  if (page.reveal && lit && matchMedia("(max-width: 700px)").matches)
    svg.scrollIntoView({ block: "start", behavior: "instant" });
  page.reveal = false;
  for (const list of main.querySelectorAll("ol.log, section.news ol")) list.scrollTop = list.scrollHeight;
  page.docked.disconnect();
  const dock = main.querySelector(".dock");
  if (dock) page.docked.observe(dock);
  else main.style.removeProperty("--dock");
  if (page.movedOn) {
    page.movedOn = false;
    scrollTo({ top: 0, behavior: "instant" });
    main.focus({ preventScroll: true });
  }
  // A round's end opens at its top, wherever the page was scrolled during the round.
  const ending = page.ending?.seq ?? 0;
  if (ending && ending !== page.endShown) {
    scrollTo({ top: 0, behavior: "instant" });
  }
  page.endShown = ending;
}
