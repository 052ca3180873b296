// The replay viewer (/replay/{id}): any moment of a game through anyone's eyes (any seat, a
// spectator, or everyone once it is over), with the hands that audience saw, a clickable log,
// autoplay and the rounds marked on the timeline; `?v=` and `?as=` link to a moment.

import { alternative, analysisOf, analysisSection, markCostly, spans } from "./analysis.js";
import { board, markLast } from "./board.js";
import { h, main } from "./dom.js";
import { t } from "./i18n.js";
import { api, cards, keys, tokens } from "./net.js";
import { hands, players, seriesSection } from "./parts.js";
import { describeEvent, eventSentence, movesTakenBack, seatName, shownName } from "./words.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */

/** The keys and the autoplay of the replay on screen: given up when another replay is drawn. */
let replayRun = new AbortController();
/** @param {string} id @param {Promise<void>} [ready] the language loaded */
export async function replay(id, ready) {
  await ready;
  replayRun.abort();
  replayRun = new AbortController();
  const run = replayRun.signal;
  document.title = t("replay.title");
  const q = new URLSearchParams(location.search);
  /** @type {Schemas["GameSummary"]} */
  const summary = await api(`/games/${id}`);
  const deck = await cards(summary.ruleset);
  const names = Object.fromEntries(summary.seats.map((s) => [s.seat, shownName(s)]));
  const { eyes, as, token } = eyesOf(id, summary, q);
  const eyesName = (/** @type {string} */ e) =>
    e === "everyone" ? t("replay.everyone") : e === "spectator" ? t("replay.spectator") : seatName(names, Number(e));
  const events = await wholeLog(id, token);
  // The seats' keys by fingerprint, as the log names them.
  await Promise.all(
    events
      .filter((e) => e.event?.type === "seat_key_registered")
      .map((e) => keys.fingerprint(/** @type {any} */ (e.event).key)),
  );
  const max = summary.version;
  let v = Math.min(max, Math.max(1, Number(q.get("v") ?? max)));
  const marks = events.filter((e) => /^(round_started|goal_revealed|undone)$/.test(e.event?.type ?? ""));
  const { rounds, slider } = timeline(events, max, v);
  // The moves: a move is its command and what it caused, up to the next command.
  const commands = events.filter((e) => e.event?.type === "command_accepted").map((e) => e.seq);
  const back = movesTakenBack(events);
  const { play, speed, stop } = autoplay(events, max, () => v, show, run);
  const label = h("output", { "aria-live": "polite" });
  // The board in the layout's main column; the analysis and the log beside it.
  const stage = h("div", { class: "play" });
  const log = logOf(events, names, back, (seq) => {
    stop();
    show(seq);
  });
  // Through a seat's eyes once the game is over: that seat's moves, weighed by the expert.
  // Searched on the server (seconds, the first time): the replay is shown at once, the
  // analysis beside it once it comes, a sign of the work meanwhile.
  /** @type {Schemas["Analysis"] | null} */
  let analysis = null;
  /** @type {import("./analysis.js").Span[]} */
  let weighed = [];
  const { expert, analysing } = expertOf(id, summary, as);
  const cache = new Map();
  /** Shows version `n` (kept within the game's), its step said and its line of the log marked. @param {number} n */
  async function show(n) {
    v = Math.min(max, Math.max(1, n));
    slider.value = String(v);
    /** @type {Schemas["StateView"]} */
    const st = cache.get(v) ?? (await api(`/games/${id}/state?at=${v}&as=${as}`, { token }));
    cache.set(v, st);
    const drawn = board(st.view, deck);
    markLast(
      drawn,
      events.filter((e) => e.seq <= v),
      st.view,
      names,
    );
    // What the step did, said beside the board it shows.
    sayStep(label, events, commands, v, names, back);
    stage.replaceChildren(
      h("p", { class: "step" }, label),
      ...(analysis ? [alternative(analysis, weighed, v, drawn, names) ?? ""] : []),
      drawn,
      players(st.view, names),
      hands(st.view, names, deck),
    );
    showLine(log, v);
    const url = new URL(location.href);
    url.searchParams.set("v", String(v));
    url.searchParams.set("as", as);
    history.replaceState(null, "", url);
    document.dispatchEvent(new CustomEvent("replay-shown", { detail: v }));
  }
  slider.addEventListener("input", () => show(Number(slider.value)));
  document.addEventListener(
    "keydown",
    (e) => {
      if (e.key === "ArrowRight") {
        e.preventDefault();
        show(v + 1);
      }
      if (e.key === "ArrowLeft") {
        e.preventDefault();
        show(v - 1);
      }
    },
    { signal: run },
  );
  const through = h(
    "select",
    {
      "aria-label": t("replay.eyes"),
      onchange: () => {
        const url = new URL(location.href);
        url.searchParams.set("as", through.value);
        url.searchParams.set("v", String(v));
        history.replaceState(null, "", url);
        replay(id);
      },
    },
    eyes.map((e) => h("option", { value: e, selected: e === as }, eyesName(e))),
  );
  main.replaceChildren(
    h("h1", {}, t("replay.heading", { id: id.slice(0, 8), eyes: eyesName(as) })),
    h("p", {}, h("label", {}, `${t("replay.eyes")} `, through)),
    h(
      "p",
      {},
      h("button", { type: "button", onclick: () => show(v - 1) }, `◀ ${t("replay.back")}`),
      " ",
      play,
      " ",
      speed,
      " ",
      h("button", { type: "button", onclick: () => show(v + 1) }, `${t("replay.forward")} ▶`),
      " ",
      slider,
      rounds,
    ),
    h(
      "p",
      {},
      `${t("replay.jump")} `,
      marks.map((e) =>
        h("button", { type: "button", onclick: () => show(e.seq) }, `${t(`mark.${e.event.type}`)} #${e.seq}`),
      ),
    ),
    h(
      "div",
      { class: "layout" },
      stage,
      h("aside", {}, expert, h("h2", {}, t("table.log")), log, await seriesSection(id, names, (g) => `/replay/${g}`)),
    ),
  );
  await show(v);
  const found = await analysing;
  if (run.aborted) return;
  if (!found) return expert.replaceChildren();
  [analysis, weighed] = [found, spans(found, events)];
  weighedIn(expert, log, found, weighed, names, (seq) => {
    stop();
    show(seq);
  });
  await show(v);
}

/**
 * The seat's analysis asked for (not waited on), and its place beside the board, which says the
 * expert is at work meanwhile. @param {string} id @param {Schemas["GameSummary"]} summary @param {string} as
 */
function expertOf(id, summary, as) {
  const expert = h(
    "div",
    {},
    summary.status === "finished" && /^\d+$/.test(as)
      ? h("p", { class: "analysis", role: "status", "aria-busy": "true" }, t("analysis.working"))
      : null,
  );
  return { expert, analysing: analysisOf(id, summary, as) };
}

/**
 * The seat's analysis in its place beside the board, its costly moves marked in the log.
 * @param {HTMLElement} expert @param {HTMLElement} log @param {Schemas["Analysis"]} found
 * @param {import("./analysis.js").Span[]} weighed @param {Record<number, string>} names
 * @param {(seq: number) => void} go
 */
function weighedIn(expert, log, found, weighed, names, go) {
  markCostly(log, found, weighed);
  expert.replaceChildren(analysisSection(found, weighed, names, go));
}

/**
 * Says the step shown: which move of the game's it is, what the step did, and the step's
 * number among the events. @param {HTMLElement} label @param {Schemas["EventRecord"][]} events
 * @param {number[]} commands the moves' first events @param {number} v @param {Record<number, string>} names
 * @param {Map<number, number>} back the moves each undo takes back
 */
function sayStep(label, events, commands, v, names, back) {
  const m = commands.filter((s) => s <= v).length;
  // At a move's bookkeeping (whose move, a card drawn), what the move did.
  const quiet = (/** @type {Schemas["EventRecord"]} */ e) => ["command_accepted", "card_drawn"].includes(e.event?.type);
  const here = events.find((e) => e.seq === v);
  const did = here && quiet(here) && m ? events.find((e) => e.seq > commands[m - 1] && e.seq <= v && !quiet(e)) : null;
  const step = did ?? here;
  label.replaceChildren(
    (m ? t("replay.move_of", { m, max: commands.length }) : t("replay.before_moves")) +
      (step ? ` — ${eventSentence(step, names, back)}` : ""),
    " ",
    h("span", { class: "step-n" }, t("replay.version_of", { v, max: events.at(-1)?.seq ?? v })),
  );
}

/**
 * Whose eyes the replay may be seen through: anyone's once the game is over; before, the public
 * view or this browser's seat. The eyes asked for (`?as=`), else this browser's seat, else the first, and the token that
 * sees through them (this browser's seat's own).
 * @param {string} id @param {Schemas["GameSummary"]} summary @param {URLSearchParams} q
 */
function eyesOf(id, summary, q) {
  const mine = tokens.get(id);
  const eyes =
    summary.status === "finished"
      ? ["everyone", "spectator", ...summary.seats.map((s) => String(s.seat))]
      : ["spectator", ...(mine.token && mine.seat != null ? [String(mine.seat)] : [])];
  const asked = q.get("as");
  // A player of the game lands on their own seat (and, once it is over, its analysis).
  const own = mine.token && mine.seat != null && eyes.includes(String(mine.seat)) ? String(mine.seat) : null;
  const as = asked && eyes.includes(asked) ? asked : (own ?? eyes[0]);
  const token = mine.token && as === String(mine.seat) ? mine.token : undefined;
  return { eyes, as, token };
}

/** The whole log, as those eyes see it. @param {string} id @param {string | undefined} token */
async function wholeLog(id, token) {
  /** @type {Schemas["EventRecord"][]} */
  const events = [];
  for (let after = 0; ; ) {
    /** @type {Schemas["EventPage"]} */
    const p = await api(`/games/${id}/events?after=${after}&limit=500`, { token });
    events.push(...p.events);
    if (p.next_after == null || !p.events.length) break;
    after = p.next_after;
  }
  return events;
}

/**
 * The timeline: a slider over every version, the rounds' starts marked on it.
 * @param {Schemas["EventRecord"][]} events @param {number} max @param {number} v the version shown first
 */
function timeline(events, max, v) {
  const rounds = h(
    "datalist",
    { id: "replay-rounds" },
    events
      .filter((e) => e.event?.type === "round_started")
      .map((e) => h("option", { value: e.seq, label: t("replay.round", { n: /** @type {any} */ (e.event).round }) })),
  );
  const slider = h("input", {
    type: "range",
    min: 1,
    max,
    value: v,
    "aria-label": t("replay.version"),
    class: "replay-slider",
    list: "replay-rounds",
  });
  return { rounds, slider };
}

/**
 * Autoplay: a move every 0.7 s (at the speed chosen) to the end, until paused: each stop shows
 * a whole move (its command and what it caused, up to the next command), and a round's end
 * before the next deal; the keys and the buttons still go one step at a time.
 * @param {Schemas["EventRecord"][]} events @param {number} max @param {() => number} now the version shown
 * @param {(n: number) => Promise<void>} show @param {AbortSignal} run given up with the replay
 */
function autoplay(events, max, now, show, run) {
  const ends = [
    ...events.filter((e) => e.event?.type === "command_accepted" && e.seq > 1).map((e) => e.seq - 1),
    ...events.filter((e) => e.event?.type === "round_ended").map((e) => e.seq),
    max,
  ].sort((a, b) => a - b);
  const nextStop = (/** @type {number} */ from) => ends.find((e) => e > from) ?? max;
  let playing = 0;
  const speed = h(
    "select",
    { "aria-label": t("replay.speed") },
    [
      ["0.5", "½×"],
      ["1", "1×"],
      ["2", "2×"],
      ["4", "4×"],
    ].map(([k, t]) => h("option", { value: k, selected: k === "1" }, t)),
  );
  const play = h("button", { type: "button", "aria-pressed": "false" }, t("replay.play"));
  const stop = () => {
    clearInterval(playing);
    playing = 0;
    play.textContent = t("replay.play");
    play.setAttribute("aria-pressed", "false");
  };
  const start = () => {
    clearInterval(playing);
    play.textContent = t("replay.pause");
    play.setAttribute("aria-pressed", "true");
    playing = setInterval(() => {
      if (now() >= max) stop();
      else show(nextStop(now()));
    }, 700 / Number(speed.value));
  };
  play.addEventListener("click", () => {
    if (playing) return stop();
    if (now() >= max) show(1);
    start();
  });
  speed.addEventListener("change", () => {
    if (playing) start();
  });
  run.addEventListener("abort", stop);
  return { play, speed, stop };
}

/**
 * The log: every line goes to its moment. @param {Schemas["EventRecord"][]} events
 * @param {Record<number, string>} names @param {Map<number, number>} back the moves each undo takes back
 * @param {(seq: number) => void} go
 */
function logOf(events, names, back, go) {
  return h(
    "ol",
    { class: "log", "aria-label": t("table.log"), tabindex: 0 },
    events.map((e) =>
      h(
        "li",
        { "data-seq": e.seq },
        h("button", { type: "button", class: "log-line", onclick: () => go(e.seq) }, describeEvent(e, names, back)),
      ),
    ),
  );
}

/**
 * Marks the line of version `v` in the log, brought into the log's own view; the page stays
 * where the reader is. @param {HTMLElement} log @param {number} v
 */
function showLine(log, v) {
  for (const li of log.children)
    li.classList.toggle("current", Number(/** @type {HTMLElement} */ (li).dataset.seq) === v);
  const line = log.querySelector(".current");
  if (line) {
    const [at, box] = [line.getBoundingClientRect(), log.getBoundingClientRect()];
    if (at.top < box.top || at.bottom > box.bottom) log.scrollTop += at.top - box.top - (box.height - at.height) / 2;
  }
}
