// The game's two screens: a round's end, until the player moves on, and the game as it goes
// on (or is over), with the players, the talk and the log beside the maze.

import { board } from "./board.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { api, roundEnds, tokens } from "./net.js";
import { newsPanel } from "./news.js";
import { finishedRounds, players, scoreboard } from "./parts.js";
import { roundEnd } from "./roundend.js";
import { cardName, describeEvent, phaseName, roleName, seatName } from "./words.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */
/** @typedef {import("./table.js").TablePage} TablePage */
/** @typedef {import("./table.js").Ending} Ending */
/** @typedef {import("./play.js").Drawn} Drawn */

/**
 * A round's end, shown until the player moves on: its final maze and route, every role, the
 * gold and why; the next deal (at the game's end, the final score) on a button. While the gold
 * is handed out (or thefts made) the choice is made here.
 * @param {TablePage} page @param {Ending} ending @param {Drawn} drawn @param {HTMLElement | null} turnNow
 * @param {HTMLElement} countdown @param {HTMLElement} actions
 */
export function roundEndScreen(page, ending, drawn, turnNow, countdown, actions) {
  const { deck, names } = page;
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
                page.movedPast = page.ending?.seq ?? 0;
                page.ending = null;
                roundEnds.set(page.id, 0);
                page.movedOn = true;
                // The new deal opens on its maze (a phone showing a panel in its place).
                page.panel = "maze";
                page.render();
              },
            },
            t(last ? "round.show_final" : "round.next"),
          ),
        )
      : h("div", { class: "dock bar" }, h("p", {}, t("round.wait")), turnNow, countdown, actions);
  const endSvg = board(then, deck);
  if (page.routed === ending.ended.round) endSvg.classList.add("still");
  page.routed = ending.ended.round;
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
      extra: [
        last
          ? null
          : h(
              "div",
              { class: "wide", role: "region", tabindex: 0, "aria-label": t("score.title") },
              scoreboard(then, names, false),
            ),
      ],
      dock,
    }),
  ];
}

/**
 * The game as it goes on (or is over): the final score, the maze pinned under the banner, the
 * hand and the moves docked at the bottom of the screen, what just happened in a panel of its
 * own size beside the maze (above it on a phone), the players, the talk and the log (on a
 * phone, in the maze's place, a button away).
 * @param {TablePage} page @param {Drawn} drawn @param {Record<string, Element | null>} parts
 */
export function liveTable(page, drawn, parts) {
  const { st, view, me, over } = drawn;
  const { svg, zoomBar, err, hand, why, actions, undo, reclaim, turnNow, countdown } = parts;
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
          scoreboard(view, page.names, true, page.byRound),
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
  const news = newsPanel(page);
  const shown = [...PANELS.keys()].filter((k) => k !== "talk" || parts.talk);
  if (!shown.includes(page.panel)) page.panel = "maze";
  return [
    ...(final ? [final] : []),
    h(
      "div",
      { class: "layout", "data-panel": page.panel },
      panelBar(page, shown),
      h(
        "section",
        { class: over ? "play" : "play pinned", id: "panel-maze", "aria-label": t("table.table") },
        svg,
        zoomBar,
        err,
        dock,
      ),
      news,
      aside(page, drawn, parts),
    ),
  ];
}

/** The panels a phone shows one at a time under the news, and each one's button's words. */
const PANELS = new Map([
  ["maze", "board.maze"],
  ["players", "players.label"],
  ["talk", "talk.label"],
  ["log", "table.log"],
]);

/**
 * On a phone, the maze or one panel beside it at a time (the players, the talk, the log and its
 * links), chosen by a row of buttons, the one shown pressed; the hand stays docked under either.
 * A wider screen shows them all, and no buttons. @param {TablePage} page @param {string[]} shown
 */
function panelBar(page, shown) {
  const bar = h("div", { class: "panels", role: "group", "aria-label": t("table.table") });
  const choose = (/** @type {string} */ k) => {
    page.panel = k;
    const layout = bar.closest(".layout");
    if (layout instanceof HTMLElement) layout.dataset.panel = k;
    for (const b of bar.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b.dataset.panel === k));
  };
  for (const k of shown)
    bar.append(
      h(
        "button",
        {
          type: "button",
          "data-panel": k,
          "aria-controls": `panel-${k}`,
          "aria-pressed": String(page.panel === k),
          onclick: () => choose(k),
        },
        t(/** @type {string} */ (PANELS.get(k))),
      ),
    );
  return bar;
}

/**
 * Beside the maze, in three panels (a phone shows one at a time): the reader's role and gold,
 * what they saw of others' roles, the round, the players, the rounds finished, the winners, the
 * score; the talk; the log, the links to the replay and the audit, the series, the host's
 * rematch and panel.
 * @param {TablePage} page @param {Drawn} drawn @param {Record<string, Element | null>} parts
 */
function aside(page, drawn, parts) {
  const { id, names } = page;
  const { s, st, log, presence, series, view, me, over } = drawn;
  const { talk, host } = parts;
  return h(
    "aside",
    {},
    h(
      "div",
      { class: "panel", id: "panel-players" },
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
      players(view, names, st.table, over ? null : presence, new Set(s.seats.filter((x) => x.bot).map((x) => x.seat))),
      finishedRounds(view, names),
      view.winners?.length
        ? h("p", {}, t("table.winners", { list: view.winners.map((w) => seatName(names, w)).join(", ") }))
        : null,
      view.rounds?.length && !over ? scoreboard(view, names, over) : null,
    ),
    talk ? h("div", { class: "panel", id: "panel-talk" }, talk) : null,
    h(
      "div",
      { class: "panel", id: "panel-log" },
      h("h2", {}, t("table.log")),
      h(
        "ol",
        { class: "log", "aria-label": t("table.recent"), tabindex: 0 },
        log.events.map((e) => h("li", {}, describeEvent(e, names, page.takenBack))),
      ),
      h(
        "p",
        {},
        h("a", { href: `/replay/${id}` }, t("lobby.replay")),
        " ",
        s.status === "finished" ? h("a", { href: `/audit/${id}` }, t("lobby.audit")) : null,
      ),
      series,
      s.status === "finished" && page.mine.host ? rematch(page) : null,
      host,
    ),
  );
}

/** The host's rematch: a new game with the same seats, this page going to it. @param {TablePage} page */
function rematch(page) {
  return h(
    "p",
    {},
    h(
      "button",
      {
        type: "button",
        onclick: async () => {
          try {
            /** @type {Schemas["GameCreated"]} */
            const next = await api(`/games/${page.id}/rematch`, { method: "POST", token: page.mine.host });
            tokens.set(next.game_id, { host: next.host_token });
            location.href = `/play/${next.game_id}`;
          } catch (e) {
            page.message = /** @type {Error} */ (e).message;
            page.refresh();
          }
        },
      },
      t("table.rematch"),
    ),
  );
}
