// What just happened at the table, told one event at a time (the bots' answers land together)
// in a panel of its own, each change to the maze outlined as it is told, each card laid
// travelling to its cell from the hand or the player who laid it.

import { el, h } from "./dom.js";
import { t } from "./i18n.js";
import { cardShape } from "./svg.js";
import { eventSentence } from "./words.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */
/** @typedef {import("./table.js").TablePage} TablePage */

/** Tells every event of the news at once. @param {TablePage} page */
export function tellAll(page) {
  clearInterval(page.pacing);
  page.pacing = 0;
  page.told = page.news.length;
}

/**
 * Adds events to the news: any still untold and the first new one told at once, the rest one by
 * one. @param {TablePage} page @param {Schemas["EventRecord"][]} fresh
 */
function hear(page, fresh) {
  if (fresh.length) tellAll(page);
  page.unseen = page.told;
  page.news.push(...fresh);
  const drop = Math.max(0, page.news.length - 40);
  page.news = page.news.slice(drop);
  page.told = Math.max(0, page.told - drop);
  page.unseen = Math.max(0, page.unseen - drop);
  if (!fresh.length || page.pacing) return;
  page.told += 1;
  if (page.told < page.news.length)
    page.pacing = setInterval(() => {
      if (++page.told >= page.news.length) tellAll(page);
      page.render();
    }, 900);
}

/**
 * The news of a table drawn at another version than last time: what happened since (none the
 * first time), but the bookkeeping (a command's acceptance, a card drawn, the talk, a key).
 * @param {TablePage} page @param {Schemas["StateView"]} st @param {Schemas["EventPage"]} log
 */
export function heardSince(page, st, log) {
  if (st.version === page.drawnAt) return;
  const since = page.drawnAt;
  hear(
    page,
    since
      ? log.events.filter(
          (e) =>
            e.seq > since &&
            !["card_drawn", "command_accepted", "talk_posted", "seat_key_registered"].includes(e.event.type),
        )
      : [],
  );
  page.drawnAt = st.version;
}

/** Whether the reader asked for less motion. */
const still = () => matchMedia("(prefers-reduced-motion: reduce)").matches;

/**
 * A card laid on the maze travels to its cell, once, from where it came: the reader's hand, or
 * the row of the player who laid it; not when the reader asked for less motion.
 * @param {TablePage} page @param {SVGSVGElement} svg @param {Schemas["EventRecord"]} e
 * @param {number | null} me the reader's seat
 */
function fly(page, svg, e, me) {
  const ev = e.event;
  if (ev.type !== "path_played" || e.seq <= page.flown || still()) return;
  page.flown = e.seq;
  const card = el("g", { class: "flying", "aria-hidden": "true", "data-seat": ev.seat });
  card.append(cardShape(page.deck[ev.card], ev.at.x, ev.at.y, ev.rotated));
  svg.append(card);
  requestAnimationFrame(() => {
    const from = ev.seat === me ? document.querySelector(".hand") : document.querySelectorAll(".players > li")[ev.seat];
    const ctm = svg.getScreenCTM();
    if (!from || !ctm || !card.isConnected) return card.remove();
    const r = from.getBoundingClientRect();
    const p = new DOMPoint(r.x + r.width / 2, r.y + r.height / 2).matrixTransform(ctm.inverse());
    const [dx, dy] = [p.x - ev.at.x - 0.5, p.y - ev.at.y - 0.5];
    const flight = card.animate(
      [
        { transform: `translate(${dx}px, ${dy}px)`, opacity: 0.6 },
        { transform: "translate(0px, 0px)", opacity: 1 },
      ],
      { duration: 600, easing: "ease-out" },
    );
    flight.onfinish = () => card.remove();
  });
}

/**
 * Each change to this round's maze since the last look, marked (the newest also as the last
 * move); the card being told travels to its cell (`fly`). The maze drawn is the latest deal's,
 * even while the news still tells the round before it: nothing from before that deal is marked
 * on it.
 * @param {TablePage} page @param {SVGSVGElement} svg @param {number | null} me the reader's seat
 */
export function markNews(page, svg, me) {
  const { news, told, unseen } = page;
  const dealt = news.map((e) => e.event.type).lastIndexOf("round_started");
  for (const [i, e] of news.slice(0, told).entries()) {
    const ev = e.event;
    if (i < unseen || i < dealt) continue;
    const cell = ev.type === "path_played" || ev.type === "path_removed" || ev.type === "goal_revealed" ? ev.at : null;
    if (!cell) continue;
    if (i === told - 1) fly(page, svg, e, me);
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
}

/** The news panel: the events told so far, the one being told marked, and "Show all". @param {TablePage} page */
export function newsPanel(page) {
  const { news, told, names } = page;
  return h(
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
                eventSentence(e, names, page.takenBack),
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
              tellAll(page);
              page.render();
            },
          },
          t("table.show_all", { n: news.length - told }),
        )
      : null,
  );
}
