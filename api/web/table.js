// The table (/play/{id}): a seat's game, or a spectator's. Read once per news (the stream
// says something happened; one round trip reads the rest), drawn from what was read.

import { board, markLast } from "./board.js";
import { h, main } from "./dom.js";
import { t } from "./i18n.js";
import { api, cards, follow, keys, RECORD_VERSION, serverKeys, tokens } from "./net.js";
import { cardIcon, finishedRounds, players, scoreboard, seriesSection } from "./parts.js";
import { hostPanel, waitingRoom } from "./room.js";
import { decided, drawRoute, effective, goldByRound, roundEnd } from "./roundend.js";
import { el } from "./svg.js";
import {
  cardName,
  clock,
  describe,
  describeCommand,
  describeEvent,
  explain,
  phaseName,
  roleName,
  rulesetName,
  seatName,
  shownName,
  statusName,
} from "./words.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */
/** @typedef {import("./net.js").Signing} Signing */

/** @param {string} id @param {Promise<void>} ready the language loaded */
export async function table(id, ready) {
  // The server's keys, kept from first contact (the audit view checks receipts with them).
  serverKeys.keep();
  // An invite link carries the seat's token (and its number) in the fragment, never sent.
  const fragment = new URLSearchParams(location.hash.slice(1));
  const hashToken = fragment.get("token");
  const hashSeat = fragment.get("seat");
  if (hashToken) {
    tokens.set(id, { token: hashToken, ...(hashSeat ? { seat: Number(hashSeat) } : {}) });
    history.replaceState(null, "", location.pathname);
  }
  const mine = tokens.get(id);
  const logPage = (/** @type {number} */ after, /** @type {number} */ limit) =>
    /** @type {Promise<Schemas["EventPage"]>} */ (
      api(`/games/${id}/events?after=${after}&limit=${limit}`, { token: mine.token })
    );
  /**
   * The table at one version in one request: the game, the view, the legal moves, presence
   * and the log after `after` (without it, the last 30 events).
   * @param {number | null} after
   */
  const tableAt = (after) =>
    /** @type {Promise<Schemas["TableRead"]>} */ (
      api(`/games/${id}/table${after == null ? "" : `?after=${after}&limit=1000`}`, { token: mine.token })
    );
  // The first read and the card catalogue at once, alongside the language: every round trip
  // counts on a slow network. A token the game no longer knows still shows the game.
  /** @type {Promise<Schemas["TableRead"] | null> | null} */
  let first = tableAt(null).catch(() => null);
  const early = first;
  await ready;
  document.title = t("table.title");
  /** @type {[Schemas["TableRead"] | null, unknown]} */
  const [firstRead] = await Promise.all([early, cards("base")]);
  /** @type {Schemas["GameSummary"]} */
  const summary = firstRead?.game ?? (await api(`/games/${id}`));
  const deck = await cards(summary.ruleset);
  const names = Object.fromEntries(summary.seats.map((s) => [s.seat, s.name]));
  let selected = null,
    sel = null,
    rotated = false,
    message = "",
    timer = 0;
  /** Whether the host's panel is open (it stays so across redraws). */
  let hostOpen = false;
  /** Whether the next drawing brings the maze into view (a card was just selected). */
  let reveal = false;
  // Cards ticked to discard with the selected one when passing (Saboteur 2 lets a player
  // discard several, §10), by their place in the hand: one Pass button for the chosen set, not
  // one per combination. Cleared when another card is selected or the hand changes.
  /** @type {Set<number>} */
  let alsoDiscard = new Set();
  // What is being typed survives the table's redraws; the whole conversation is kept by `seq`
  // (the log's first page, then each redraw's recent events).
  let draft = "";
  /** @type {Map<number, Schemas["EventRecord"]>} */
  const talkSeen = new Map();
  /** @param {Schemas["EventRecord"][]} events */
  const gather = (events) => {
    for (const e of events) {
      if (e.event.type === "talk_posted") talkSeen.set(e.seq, e);
      if (e.event.type === "talk_hidden") {
        const hidden = talkSeen.get(e.event.message);
        if (hidden && hidden.event.type === "talk_posted")
          talkSeen.set(hidden.seq, { ...hidden, event: { ...hidden.event, text: null } });
      }
    }
  };
  /** The whole log, as this reader may see it. */
  const wholeLog = async () => {
    /** @type {Schemas["EventRecord"][]} */
    const all = [];
    for (let after = 0; ; ) {
      const page = await logPage(after, 1000);
      all.push(...page.events);
      if (page.next_after == null) return all;
      after = page.next_after;
    }
  };
  /** The log read at the start (kept for the final score of a game over already). @type {Schemas["EventRecord"][] | null} */
  let startLog = await wholeLog();
  gather(startLog);
  const abort = new AbortController();
  /**
   * What the table was last read as. It is read again when the stream brings news and after
   * every write; a click that only selects, turns or ticks a card redraws from it, without a
   * request. A read is two round trips: the state, then the rest at once.
   */
  let data = null;
  let stale = true;
  /** Whether this browser is registering its key for the seat. */
  let registering = false;
  /**
   * What happened since the page was opened, the latest 40 events in words: those since the
   * table was last drawn at another version are told one by one (the bots' answers land
   * together) and marked on the board.
   */
  let drawnAt = 0;
  /** @type {Schemas["EventRecord"][]} */
  let news = [];
  /** Where in `news` the events not yet looked at begin (those marked on the board). */
  let unseen = 0;
  /**
   * The round whose end is shown until the player moves on to the next deal (at the game's end,
   * to the final score): its `round_ended`, the events in force from it up to the next deal,
   * and the table just before that deal (read once the deal happened).
   * @type {{ seq: number, ended: Schemas["EventRoundEnded"], events: Schemas["EventRecord"][], dealt: number | null, view: Schemas["View"] | null } | null}
   */
  let ending = null;
  /** Each seat's gold in each round, once the game is over and every value public (the final score). @type {number[][] | null} */
  let byRound = null;
  /**
   * How many of `news` are told so far: one more every 0.9 s, each outlined on the board as it
   * is told, so that a person follows the bots' answers one by one; "Show all" tells the rest.
   */
  let told = 0;
  let pacing = 0;
  const tellAll = () => {
    clearInterval(pacing);
    pacing = 0;
    told = news.length;
  };
  /** Adds events to the news: any still untold and the first new one told at once, the rest one by one. @param {Schemas["EventRecord"][]} fresh */
  const hear = (fresh) => {
    if (fresh.length) tellAll();
    unseen = told;
    news.push(...fresh);
    const drop = Math.max(0, news.length - 40);
    news = news.slice(drop);
    told = Math.max(0, told - drop);
    unseen = Math.max(0, unseen - drop);
    if (!fresh.length || pacing) return;
    told += 1;
    if (told < news.length)
      pacing = setInterval(() => {
        if (++told >= news.length) tellAll();
        render();
      }, 900);
  };
  /** Whether the player just moved on from a round's end (the next drawing starts at the top), and the last round's end moved on from (its `round_ended`). */
  let movedOn = false,
    movedPast = 0;
  /** The round whose route to the gold was last drawn: it is drawn from the start once, then still. */
  let routed = 0;
  /** The page leaves room at its end for the docked hand, as tall as it is drawn. */
  const docked = new ResizeObserver(([e]) =>
    main.style.setProperty("--dock", `${Math.ceil(e.target.getBoundingClientRect().height)}px`),
  );
  /** Where the player zoomed and panned the maze to (none: the whole maze). @type {{ box: number[] | null }} */
  const zoom = { box: null };
  /**
   * A read is one request: the table at one version with the log from 30 events before the
   * version drawn last (a second only for a log that ran more than 1000 events further).
   */
  async function read() {
    const e = first;
    first = null;
    const before = data?.st?.version;
    const known = data?.s ?? summary;
    const fresh = () => tableAt(before != null ? Math.max(0, before - 30) : null);
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
    const full = got.events.next_after == null ? got.events : await logPage(Math.max(0, st.version - 30), 30);
    const recent = { ...full, events: full.events.filter((x) => x.seq > st.version - 30 && x.seq <= st.version) };
    // A round that ended since the last read is shown at its end until the player moves on.
    const ended =
      before != null
        ? got.events.events.filter((x) => x.seq > before && x.event.type === "round_ended").at(-1)
        : undefined;
    let end =
      ended?.event.type === "round_ended"
        ? { seq: ended.seq, ended: ended.event, events: [], dealt: null, view: null }
        : ending;
    if (end) end = await readEnding(end, got);
    if (s.status === "finished" && !byRound)
      byRound = goldByRound(startLog?.at(-1)?.seq === st.version ? startLog : await wholeLog(), deck, st.view);
    startLog = null;
    const legal = got.legal?.commands ?? [];
    const shown = st.view.phase.awaited === st.view.seat && st.view.seat != null ? legal : [];
    // (A round's end the player moved on from while this was read stays behind.)
    ending = end && end.seq > movedPast ? end : null;
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
   * @param {NonNullable<typeof ending>} end @param {Schemas["TableRead"]} got
   * @returns {Promise<typeof ending>}
   */
  async function readEnding(end, got) {
    if (!got.state.view.rounds.some((r) => r.round === end.ended.round)) return null;
    if (end.view) return end;
    let records = got.events.events.filter((x) => x.seq >= end.seq);
    if (records[0]?.seq !== end.seq) records = (await logPage(end.seq - 1, 1000)).events;
    const kept = effective(records);
    if (!kept.some((x) => x.seq === end.seq)) return null;
    const deal = kept.find((x) => x.event.type === "round_started");
    const events = kept.filter((x) => !deal || x.seq < deal.seq);
    if (!deal) return { ...end, events };
    /** @type {Schemas["StateView"]} */
    const then = await api(`/games/${id}/state?at=${deal.seq - 1}`, { token: mine.token });
    return { ...end, events, dealt: deal.seq, view: then.view };
  }
  /** Reads the table again, then draws it. */
  const refresh = () => {
    stale = true;
    return render();
  };
  /**
   * One read at a time, until none is asked for: a read asked for while another runs starts
   * after it, so an older answer never lands after a newer one.
   * @type {Promise<void> | null}
   */
  let reading = null;
  /**
   * The newest event the stream brought: the table is read again only for what it has not read
   * (a write's own read already holds its events and the bots' answers).
   */
  let heard = 0;
  /** Whether the table drawn is older than what the stream said happened. */
  const behind = () => data?.st != null && heard > data.st.version;
  /**
   * Reads until the table is as new as the stream's news. A read that fails (the network, a
   * busy server) is tried again after a pause growing to 8 s, so that news is never left
   * unread for want of another event; the error shows after the third failure in a row.
   */
  const readAll = async () => {
    for (let failed = 0; stale || behind(); ) {
      stale = false;
      try {
        data = await read();
        failed = 0;
      } catch (e) {
        stale = true;
        failed += 1;
        if (failed === 3) {
          message = /** @type {Error} */ (e).message;
          if (data) draw();
        }
        await new Promise((r) => setTimeout(r, Math.min(8000, 250 * 2 ** failed)));
      }
    }
  };
  async function render() {
    // A redraw asked for while a read ends waits for the read it asked for, not an older one.
    while (stale || !data) {
      reading ??= readAll().finally(() => {
        reading = null;
      });
      await reading;
    }
    draw();
  }
  /** Draws the table from what was last read. */
  function draw() {
    const { s } = data;
    for (const seat of s.seats) names[seat.seat] = shownName(seat);
    const kids = [
      h(
        "h1",
        { class: "table-title" },
        t("table.heading", { id: id.slice(0, 8), ruleset: rulesetName(s.ruleset), status: statusName(s.status) }),
      ),
    ];
    const err = h("p", { class: "error", role: "alert" }, message);
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
          refresh,
          say: (m) => {
            message = m;
          },
        }),
      );
      kids.push(err);
      main.replaceChildren(...kids);
      return;
    }
    const { st, legal, log, presence, series } = data;
    if (!st || !log || !presence) return;
    const view = st.view;
    // Once the game is over every view is everyone's: remember which seat was ours.
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
    /** @type {Drawn} */
    const drawn = { s, st, legal, log, presence, series, view, me, over, signed };
    ensureKey(drawn);
    const { svg, zoomBar, why, hand, actions, paths, targets } = movesOf(drawn);
    const undo = undoBar(drawn);
    if (st.version !== drawnAt) {
      hear(
        drawnAt
          ? log.events.filter(
              (e) =>
                e.seq > drawnAt &&
                !["card_drawn", "command_accepted", "talk_posted", "seat_key_registered"].includes(e.event.type),
            )
          : [],
      );
      drawnAt = st.version;
    }
    markLast(svg, log.events, view, names);
    // Each change to this round's maze since the last look, marked (the newest also as the last move).
    const dealt = news
      .slice(0, told)
      .map((e) => e.event.type)
      .lastIndexOf("round_started");
    for (const [i, e] of news.slice(0, told).entries()) {
      const ev = e.event;
      if (i < unseen || i < dealt) continue;
      const cell =
        ev.type === "path_played" || ev.type === "path_removed" || ev.type === "goal_revealed" ? ev.at : null;
      if (!cell) continue;
      svg.append(
        el("rect", {
          class: i === told - 1 ? "new-move telling" : "new-move",
          x: cell.x + 0.08,
          y: cell.y + 0.08,
          width: 0.84,
          height: 0.84,
          "aria-hidden": "true",
        }),
      );
    }
    const deadline = st.table.deadline;
    const countdown = h("p", { class: "deadline", role: "timer", "aria-live": "off" });
    const tick = () => {
      countdown.textContent = !deadline
        ? ""
        : deadline.seat === me
          ? t("table.deadline_you", { time: clock(deadline.at - Date.now()) })
          : t("table.deadline", { who: seatName(names, deadline.seat), time: clock(deadline.at - Date.now()) });
    };
    tick();
    clearInterval(timer);
    if (deadline) timer = setInterval(tick, 1000);
    gather(log.events);
    const typing = document.activeElement instanceof HTMLInputElement && document.activeElement.name === "text";
    // Any other control with the focus keeps it across the redraw (the same kind, label and text).
    const was = document.activeElement;
    const focusKey = (/** @type {Element} */ e) =>
      `${e.tagName}|${e.getAttribute("aria-label") ?? ""}|${e.textContent}`;
    const focused = !typing && was && was !== main && main.contains(was) ? focusKey(was) : null;
    // (Which of the controls alike it was: two cards of a kind in the hand are two buttons.)
    const focusable = () =>
      [...main.querySelectorAll("button, a, input, select, [tabindex]")].filter((e) => focusKey(e) === focused);
    const nth = focused ? focusable().indexOf(/** @type {Element} */ (was)) : -1;
    const { talk, input } = talkOf(drawn);
    const host =
      mine.host && !over
        ? hostPanel({
            id,
            s,
            st,
            log,
            host: mine.host,
            names,
            open: hostOpen,
            refresh,
            toggled: (/** @type {boolean} */ open) => {
              hostOpen = open;
            },
            say: (/** @type {string} */ m) => {
              message = m;
            },
          })
        : null;
    const mySeat = view.seat != null ? st.table.seats[view.seat] : null;
    const reclaim = mySeat?.handed_to
      ? h(
          "p",
          {},
          `${t("table.bot_playing")} `,
          h(
            "button",
            {
              type: "button",
              onclick: async () => {
                try {
                  await api(`/games/${id}/seats/${view.seat}/reclaim`, {
                    method: "POST",
                    token: mine.token,
                    sign: signed("reclaim"),
                  });
                  message = "";
                } catch (e) {
                  message = e.message;
                }
                refresh();
              },
            },
            t("table.take_back"),
          ),
        )
      : null;
    const awaited = view.phase.awaited;
    const banner = over
      ? t(me != null && view.winners?.includes(me) ? "table.over_won" : "table.over")
      : awaited == null
        ? ""
        : awaited === me
          ? t("table.you_play")
          : t("table.they_play", { who: seatName(names, awaited) });
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
      ...(ending
        ? roundEndScreen(drawn, turnNow, countdown, actions)
        : liveTable(drawn, { svg, zoomBar, err, hand, why, actions, undo, reclaim, turnNow, countdown, talk, host })),
    );
    main.dataset.version = String(st.version);
    document.title = title;
    main.replaceChildren(...kids);
    if (typing) {
      input.focus();
      input.setSelectionRange(draft.length, draft.length);
    } else if (focused) {
      const alike = focusable();
      /** @type {HTMLElement | undefined} */
      (alike[nth] ?? alike[0])?.focus({ preventScroll: true });
    }
    // On a phone, a card tapped brings the maze into view, with the cells it lights, between
    // the turn banner and the docked hand.
    if (reveal && (paths.length || targets.length) && matchMedia("(max-width: 700px)").matches)
      svg.scrollIntoView({ block: "start", behavior: "instant" });
    reveal = false;
    // The log and the news show their newest line; the page leaves room for the docked hand.
    for (const list of main.querySelectorAll("ol.log, section.news ol")) list.scrollTop = list.scrollHeight;
    docked.disconnect();
    const dock = main.querySelector(".dock");
    if (dock) docked.observe(dock);
    else main.style.removeProperty("--dock");
    // Moved on from a round's end: the new deal from its top, the focus on the page.
    if (movedOn) {
      movedOn = false;
      scrollTo({ top: 0, behavior: "instant" });
      main.focus({ preventScroll: true });
    }
  }
  /**
   * What a drawing of a game is drawn from: the last read, the seat reading it (if any), whether
   * the game is over, and how the seat's acts are signed.
   * @typedef {{ s: Schemas["GameSummary"], st: Schemas["StateView"], legal: Schemas["Command"][], log: Schemas["EventPage"], presence: Schemas["PresenceView"],
   *   series: HTMLElement | null, view: Schemas["View"], me: number | null, over: boolean, signed: (act: string) => Signing | undefined }} Drawn
   */
  /**
   * A seat without a key (its token was issued again, or it came by an invite link) gets this
   * browser's, once: from then on its acts are signed. @param {Drawn} drawn
   */
  function ensureKey(drawn) {
    const { me, over, st } = drawn;
    const ownKey = me != null ? st.table.seats[me]?.key : undefined;
    // A key is given only to a game of the record version this browser takes seats under.
    if (mine.token && me != null && !over && !ownKey && !registering && st.table.record_version >= RECORD_VERSION) {
      registering = true;
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
            body: await keys.sent(key, id),
          });
          // Before the start the reply is the seat's commitment made again with this key: kept.
          tokens.set(
            id,
            "commitment" in kept ? { key, commitment: kept.commitment, commitmentReceipt: kept.receipt } : { key },
          );
          refresh();
        })
        .catch((e) => {
          message = e.message;
        });
    }
  }
  /**
   * The maze and what the selected card may do on it, the hand and the moves: the cells a path
   * card may go to, the targets an action aims at, the choices that play no card. @param {Drawn} drawn
   */
  function movesOf(drawn) {
    const { st, legal, view, me, signed } = drawn;
    const send = async (cmd) => {
      try {
        await api(`/games/${id}/commands`, {
          method: "POST",
          token: mine.token,
          body: cmd,
          headers: { "if-match": `"${st.version}"` },
          sign: signed("command"),
        });
        message = "";
        selected = null;
        sel = null;
        alsoDiscard = new Set();
      } catch (e) {
        message = e.message;
      }
      refresh();
    };
    /** The card a command plays, and the cards it discards. @param {Schemas["Command"]} c */
    const uses = (c) => ({ card: "card" in c ? c.card : undefined, discard: "discard" in c ? (c.discard ?? []) : [] });
    const forCard = legal.filter((c) => uses(c).card === selected || uses(c).discard.includes(selected));
    const paths = forCard.flatMap((c) => (c.type === "play_path" && !!c.rotated === rotated ? [c] : []));
    /** A play at a cell of the maze: a Map at a goal, a rock fall at a path card. @param {Schemas["Command"]} c */
    const atCell = (c) => (c.type === "play_action" && c.target != null && "x" in c.target ? c.target : null);
    /** What is at a cell, in words, for a target's label. @param {{x: number, y: number}} at */
    const there = (at) => {
      const goals = [...view.goals].sort((a, b) => a.y - b.y);
      const goal = goals.findIndex((g) => g.x === at.x && g.y === at.y);
      if (goal >= 0)
        return goals.length === 3
          ? t(`table.goal_${["top", "middle", "bottom"][goal]}`)
          : t("table.goal_n", { n: goal + 1 });
      const placed = view.board.find((p) => p.x === at.x && p.y === at.y);
      return placed ? t("table.card_at", { card: cardName(placed.card), x: at.x, y: -at.y }) : t("table.empty_cell");
    };
    const targets = forCard.flatMap((c) => {
      const at = atCell(c);
      return at
        ? [
            {
              at,
              label: t("table.target", {
                card: cardName(/** @type {string} */ ("card" in c ? c.card : "")),
                where: there(at),
              }),
              onPick: () => send(c),
            },
          ]
        : [];
    });
    const svg = board(view, deck, {
      legal: paths,
      onCell: (at) => send({ type: "play_path", card: selected, at, rotated }),
      targets,
      keep: zoom,
    });
    // A round over and not dealt again (the gold handed out, the game over): its route drawn.
    const overNow = ending ? null : view.rounds.find((r) => r.round === view.round);
    const way = overNow ? decided(overNow, view, deck).way : null;
    if (way) {
      drawRoute(svg, way);
      if (routed === overNow.round) svg.classList.add("still");
      routed = overNow.round;
    }
    const zoomTo = (/** @type {number | null} */ k) => {
      if (k == null) zoom.box = null;
      else {
        const b = zoom.box ?? (svg.getAttribute("viewBox") ?? "0 0 1 1").split(" ").map(Number);
        zoom.box = [b[0] + (b[2] * (1 - k)) / 2, b[1] + (b[3] * (1 - k)) / 2, b[2] * k, b[3] * k];
      }
      render();
    };
    const zoomBar = h(
      "p",
      { class: "zoom", "aria-label": t("table.zoom") },
      h("button", { type: "button", onclick: () => zoomTo(1 / 1.4) }, t("table.zoom_in")),
      " ",
      h("button", { type: "button", onclick: () => zoomTo(1.4) }, t("table.zoom_out")),
      " ",
      h("button", { type: "button", onclick: () => zoomTo(null) }, t("table.zoom_whole")),
    );
    // Why a selected path card lights no cell: a broken tool, or a trap, in front of the player.
    const blockers =
      me != null ? (view.in_front[me] ?? []).filter((c) => c.startsWith("break_") || c === "trapped") : [];
    const why =
      selected && deck[selected]?.kind === "path" && !paths.length && blockers.length
        ? h(
            "p",
            { role: "status", class: "why" },
            t("table.blocked", { cards: blockers.map((c) => cardName(c)).join(", ") }),
          )
        : null;
    // A card with no move but a pass is dimmed, and says so to a screen reader.
    const usable = (/** @type {Schemas["Card"]} */ c) =>
      legal.some((l) => l.type !== "pass" && (uses(l).card === c || uses(l).discard.includes(c)));
    const hand = h(
      "ul",
      { class: "hand docked", "aria-label": t("table.hand") },
      (view.hand ?? []).map((c, i) => {
        const icon = cardIcon(deck[c], sel === i && rotated);
        const only = legal.length && !usable(c);
        return h(
          "li",
          {},
          h(
            "button",
            {
              type: "button",
              class: only ? "unplayable" : null,
              title: explain(deck[c]),
              "aria-pressed": sel === i ? "true" : "false",
              onclick: () => {
                sel = sel === i ? null : i;
                selected = sel === null ? null : c;
                alsoDiscard = new Set();
                reveal = sel !== null;
                render();
              },
            },
            icon,
            describe(deck[c], sel === i && rotated),
            only ? h("span", { class: "sr-only" }, ` ${t("table.discard_only")}`) : null,
          ),
        );
      }),
    );
    const actions = h(
      "div",
      { role: "group", "aria-label": t("table.moves") },
      selected && deck[selected]?.kind === "path"
        ? h(
            "button",
            {
              type: "button",
              onclick: () => {
                rotated = !rotated;
                render();
              },
            },
            t(rotated ? "table.flip_turned" : "table.flip_upright"),
          )
        : null,
      targets.length ? h("p", {}, t("table.choose_target", { n: targets.length })) : null,
      forCard
        .filter((c) => c.type !== "play_path" && c.type !== "pass" && !atCell(c))
        .map((c) => h("button", { type: "button", onclick: () => send(c) }, describeCommand(c, names))),
      passChoice(),
      // Choices that play no card from the hand: a gold card to keep (§8), a theft, a pass.
      legal
        .filter((c) => c.type === "choose_gold" || (!uses(c).card && !uses(c).discard.length))
        .map((c) => h("button", { type: "button", onclick: () => send(c) }, describeCommand(c, names))),
    );
    /** The pass for the selected card: the cards that may go with it as checkboxes (by their
     * place in the hand: two of a kind are two choices), one button. */
    function passChoice() {
      const passes = forCard.filter((c) => c.type === "pass");
      if (!passes.length || !selected) return null;
      const discardable = new Set(passes.flatMap((c) => (c.type === "pass" ? c.discard : [])));
      const others = (view.hand ?? []).flatMap((c, i) => (i !== sel && discardable.has(c) ? [{ c, i }] : []));
      const wanted = [selected, ...others.filter(({ i }) => alsoDiscard.has(i)).map(({ c }) => c)].sort();
      const same = (c) => c.type === "pass" && [...c.discard].sort().join() === wanted.join();
      const chosen = passes.find(same);
      return h(
        "fieldset",
        { class: "pass" },
        h("legend", {}, t("table.pass")),
        others.map(({ c, i }) =>
          h(
            "label",
            {},
            h("input", {
              type: "checkbox",
              checked: alsoDiscard.has(i) ? "" : null,
              onchange: (/** @type {Event} */ ev) => {
                if (/** @type {HTMLInputElement} */ (ev.target).checked) alsoDiscard.add(i);
                else alsoDiscard.delete(i);
                render();
              },
            }),
            ` ${t("table.also_discard", { card: cardName(deck[c] ?? c) })}`,
          ),
        ),
        chosen
          ? h(
              "button",
              {
                type: "button",
                onclick: () => {
                  alsoDiscard = new Set();
                  send(chosen);
                },
              },
              describeCommand(chosen, names),
            )
          : h("p", {}, t("table.not_together")),
      );
    }
    return { svg, zoomBar, why, hand, actions, paths, targets };
  }
  /**
   * The undo request open, as the log tells it (asked, not yet declined, carried out or
   * overtaken by a move), and the buttons to ask for one or vote on it: its votes are offered
   * only to a seat that may still cast one.
   * @param {Drawn} drawn
   */
  function undoBar(drawn) {
    const { log, me, over, signed } = drawn;
    const request = openRequest(log.events);
    if (!request && message === t("table.undo_requested")) message = "";
    const mayVote = request != null && me != null && request.seat !== me && !request.approvals.includes(me);
    return mine.token && !over
      ? h(
          "p",
          {},
          request
            ? null
            : h(
                "button",
                {
                  type: "button",
                  onclick: async () => {
                    try {
                      await api(`/games/${id}/undo`, { method: "POST", token: mine.token, sign: signed("undo") });
                      message = t("table.undo_requested");
                    } catch (e) {
                      message = e.message;
                    }
                    refresh();
                  },
                },
                t("table.undo"),
              ),
          " ",
          mayVote
            ? h(
                "button",
                {
                  type: "button",
                  onclick: async () => {
                    try {
                      await api(`/games/${id}/undo/approve`, {
                        method: "POST",
                        token: mine.token,
                        sign: signed("approve"),
                      });
                    } catch (e) {
                      message = e.message;
                    }
                    refresh();
                  },
                },
                t("table.undo_approve"),
              )
            : null,
          " ",
          mayVote
            ? h(
                "button",
                {
                  type: "button",
                  onclick: async () => {
                    try {
                      await api(`/games/${id}/undo/decline`, {
                        method: "POST",
                        token: mine.token,
                        sign: signed("decline"),
                      });
                    } catch (e) {
                      message = e.message;
                    }
                    refresh();
                  },
                },
                t("table.undo_decline"),
              )
            : null,
        )
      : null;
  }
  /**
   * The table talk: what was said, and the form to say something (its draft kept). @param {Drawn} drawn
   */
  function talkOf(drawn) {
    const { s, signed } = drawn;
    const said = [...talkSeen.values()].sort((a, b) => a.seq - b.seq);
    const input = h("input", { name: "text", maxlength: "280", required: "", value: draft });
    input.addEventListener("input", () => {
      draft = input.value;
    });
    const talkForm = h(
      "form",
      { "aria-label": t("talk.form") },
      h("label", {}, `${t("talk.message")} `, input),
      mine.token
        ? ""
        : h(
            "label",
            {},
            ` ${t("lobby.name")} `,
            h("input", { name: "name", maxlength: "40", value: t("word.spectator") }),
          ),
      " ",
      h("button", { type: "submit" }, t("talk.say")),
    );
    talkForm.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const data = new FormData(/** @type {HTMLFormElement} */ (talkForm));
      const body = mine.token ? { text: data.get("text") } : { text: data.get("text"), name: data.get("name") };
      try {
        await api(`/games/${id}/talk`, {
          method: "POST",
          token: mine.token,
          body,
          sign: mine.token ? signed("talk") : undefined,
        });
        message = "";
        draft = "";
      } catch (e) {
        message = e.message;
      }
      refresh();
    });
    const talk =
      s.status === "finished"
        ? null
        : h(
            "section",
            { "aria-label": t("talk.label") },
            h("h2", {}, t("talk.label")),
            h(
              "ul",
              { class: "talk" },
              said.map((e) =>
                h(
                  "li",
                  {},
                  describeEvent(e, names),
                  mine.host && e.event.type === "talk_posted" && e.event.text != null
                    ? h(
                        "button",
                        {
                          type: "button",
                          onclick: async () => {
                            try {
                              await api(`/games/${id}/talk/${e.seq}/hide`, { method: "POST", token: mine.host });
                            } catch (err) {
                              message = err.message;
                            }
                            refresh();
                          },
                        },
                        t("talk.hide"),
                      )
                    : null,
                ),
              ),
            ),
            talkForm,
          );
    return { talk, input };
  }
  /**
   * A round's end, shown until the player moves on: its final maze and route, every role, the
   * gold and why; the next deal (at the game's end, the final score) on a button. While the gold
   * is handed out (or thefts made) the choice is made here.
   * @param {Drawn} drawn @param {HTMLElement | null} turnNow @param {HTMLElement} countdown @param {HTMLElement} actions
   */
  function roundEndScreen(drawn, turnNow, countdown, actions) {
    const { view, me, over } = drawn;
    const then = ending.view ?? view;
    const last = over && ending.dealt == null;
    const dock =
      ending.dealt != null || over
        ? h(
            "div",
            { class: "dock bar" },
            h(
              "button",
              {
                type: "button",
                class: "next",
                onclick: () => {
                  movedPast = ending?.seq ?? 0;
                  ending = null;
                  movedOn = true;
                  render();
                },
              },
              t(last ? "round.show_final" : "round.next"),
            ),
          )
        : h("div", { class: "dock bar" }, h("p", {}, t("round.wait")), turnNow, countdown, actions);
    const endSvg = board(then, deck);
    if (routed === ending.ended.round) endSvg.classList.add("still");
    routed = ending.ended.round;
    return [
      roundEnd({
        ended: ending.ended,
        events: ending.events,
        view: then,
        deck,
        names,
        me,
        svg: endSvg,
        last,
        extra: [last ? null : scoreboard(then, names, false)],
        dock,
      }),
    ];
  }
  /**
   * The game as it goes on (or is over): the final score, the maze pinned under the banner, the
   * hand and the moves docked at the bottom of the screen, what just happened in a panel of its
   * own size beside the maze (above it on a phone), the players, the talk and the log.
   * @param {Drawn} drawn @param {Record<string, HTMLElement | null>} parts
   */
  function liveTable(drawn, parts) {
    const { s, st, log, presence, series, view, me, over } = drawn;
    const { svg, zoomBar, err, hand, why, actions, undo, reclaim, turnNow, countdown, talk, host } = parts;
    // (A table wider than a phone scrolls in its own box, which the keyboard reaches too.)
    const final = over
      ? h(
          "div",
          { class: "final" },
          me != null
            ? h(
                "p",
                { role: "status", class: "result" },
                t(view.winners?.includes(me) ? "table.you_won" : "table.you_lost"),
              )
            : null,
          h(
            "div",
            { class: "wide", role: "region", tabindex: 0, "aria-label": t("score.final") },
            scoreboard(view, names, true, byRound),
          ),
        )
      : null;
    const dock =
      !over && (me != null || st.table.deadline)
        ? h(
            "div",
            { class: me != null ? "dock" : "dock bar" },
            me != null ? hand : null,
            h("div", { class: "dock-moves" }, turnNow, countdown, reclaim, why, actions, undo),
          )
        : null;
    const newsPanel = h(
      "section",
      { class: "news", "aria-label": t("table.news") },
      h("h2", {}, t("table.news")),
      h(
        "ol",
        { "aria-live": "polite", tabindex: 0, "aria-label": t("table.news") },
        told
          ? news
              .slice(0, told)
              .map((e, i) =>
                h(
                  "li",
                  { class: i === told - 1 && told < news.length ? "telling" : null },
                  describeEvent(e, names).replace(/^#\d+ /, ""),
                ),
              )
          : h("li", { class: "quiet" }, t("table.news_none")),
      ),
      told < news.length
        ? h(
            "button",
            {
              type: "button",
              onclick: () => {
                tellAll();
                render();
              },
            },
            t("table.show_all", { n: news.length - told }),
          )
        : null,
    );
    return [
      ...(final ? [final] : []),
      h(
        "div",
        { class: "layout" },
        h("section", { class: over ? "play" : "play pinned", "aria-label": t("table.table") }, svg, zoomBar, err, dock),
        newsPanel,
        h(
          "aside",
          {},
          view.role
            ? h("p", {}, t("table.your_role", { role: roleName(view.role) }))
            : me != null && view.roles?.[me]
              ? h("p", {}, t("table.your_role", { role: roleName(view.roles[me]) }))
              : me != null
                ? null
                : h("p", {}, t("table.watching")),
          view.my_gold
            ? h(
                "p",
                {},
                t("table.your_gold", {
                  n: view.my_gold.total,
                  cards: view.my_gold.cards.map((c) => cardName(c)).join(", ") || t("table.no_gold_yet"),
                }),
              )
            : null,
          view.inspected?.length
            ? h(
                "p",
                {},
                t("table.inspected", {
                  list: view.inspected
                    .map(({ seat, role }) => t("table.is_role", { who: seatName(names, seat), role: roleName(role) }))
                    .join("; "),
                }),
              )
            : null,
          h(
            "p",
            {},
            t("table.round_line", { round: view.round, phase: phaseName(view.phase.name), n: view.draw_pile_size }),
          ),
          players(
            view,
            names,
            st.table,
            over ? null : presence,
            new Set(s.seats.filter((x) => x.bot).map((x) => x.seat)),
          ),
          finishedRounds(view, names),
          view.winners?.length
            ? h("p", {}, t("table.winners", { list: view.winners.map((w) => seatName(names, w)).join(", ") }))
            : null,
          view.rounds?.length && !over ? scoreboard(view, names, over) : null,
          talk,
          h("h2", {}, t("table.log")),
          h(
            "ol",
            { class: "log", "aria-label": t("table.recent"), tabindex: 0 },
            log.events.map((e) => h("li", {}, describeEvent(e, names))),
          ),
          h(
            "p",
            {},
            h("a", { href: `/replay/${id}` }, t("lobby.replay")),
            " ",
            s.status === "finished" ? h("a", { href: `/audit/${id}` }, t("lobby.audit")) : null,
          ),
          series,
          s.status === "finished" && mine.host
            ? h(
                "p",
                {},
                h(
                  "button",
                  {
                    type: "button",
                    onclick: async () => {
                      try {
                        /** @type {Schemas["GameCreated"]} */
                        const next = await api(`/games/${id}/rematch`, { method: "POST", token: mine.host });
                        tokens.set(next.game_id, { host: next.host_token });
                        location.href = `/play/${next.game_id}`;
                      } catch (e) {
                        message = e.message;
                        refresh();
                      }
                    },
                  },
                  t("table.rematch"),
                ),
              )
            : null,
          host,
        ),
      ),
    ];
  }
  await refresh();
  let pending = null;
  const onNews = () => {
    if (!data?.st || behind()) refresh();
  };
  follow(
    id,
    mine.token,
    (raw) => {
      try {
        heard = Math.max(heard, Number(JSON.parse(raw).seq) || Infinity);
      } catch {
        heard = Infinity;
      }
      clearTimeout(pending);
      pending = setTimeout(() => {
        (reading ?? Promise.resolve()).then(onNews, onNews);
      }, 150);
    },
    abort.signal,
  );
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
