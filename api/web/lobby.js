// The lobby (/): the games waiting for players, under way and finished (with their winners and
// dates), and the form that creates one (with bots, a clock, the host's options), seating its
// creator.
import { h, main } from "./dom.js";
import { language, list as listOf, phrase, t } from "./i18n.js";
import { api, choices, takeSeat, tokens } from "./net.js";
import { levelPicker } from "./parts.js";
import { rulesetName, shownName } from "./words.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */

/** @param {Promise<void>} ready the language loaded */
export async function lobby(ready) {
  await ready;
  document.title = t("lobby.title");
  const form = createForm();
  const sections = await Promise.all(
    /** @type {const} */ (["lobby", "active", "finished"]).map((status) => section(status)),
  );
  // What the game is, in two lines, for a newcomer (the rules a click away).
  const about = h("p", { class: "about" }, `${t("lobby.about")} `, h("a", { href: "/rules" }, t("nav.rules")));
  main.replaceChildren(h("h1", {}, t("lobby.games")), about, form, ...sections);
}

/**
 * The games of one status, oldest first, a page at a time: waiting for players, under way, or
 * finished (with their winners).
 * @param {"lobby" | "active" | "finished"} status
 */
async function section(status) {
  const list = h("tbody");
  const heads = [t("lobby.col_game"), t("lobby.ruleset"), t("lobby.col_date"), t("lobby.col_seats"), ""];
  if (status === "finished") heads.splice(4, 0, t("lobby.col_winners"));
  if (status === "active") heads.splice(3, 0, t("lobby.col_moved"));
  const more = h("button", { type: "button", hidden: true }, t("lobby.more"));
  /** @type {string | null} */
  let cursor = null;
  async function page() {
    const q = new URLSearchParams({ limit: "20", status });
    if (cursor) q.set("cursor", cursor);
    /** @type {Schemas["GameList"]} */
    const data = await api(`/games?${q}`);
    for (const g of data.games) list.append(gameRow(g, heads));
    cursor = data.next_cursor ?? null;
    more.hidden = !cursor;
  }
  more.addEventListener("click", page);
  const id = `games-${status}`;
  await page();
  // A section with no game is left out.
  return h(
    "section",
    { "aria-labelledby": id, hidden: !list.children.length },
    h("h2", { id }, t(`lobby.section_${status}`)),
    h(
      "div",
      { class: "table-scroll" },
      h(
        "table",
        { class: "games" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            heads.map((x) => h("th", { scope: "col" }, x)),
          ),
        ),
        list,
      ),
    ),
    more,
  );
}

/** How long a game under way may stand still before the list calls it stalled. */
const STALLED_MS = 24 * 60 * 60 * 1000;

/**
 * When a game under way last moved, as a person says it ("just now", "5 minutes ago"), and
 * "stalled" after a day without a move: a player has gone, and the game waits for them.
 * @param {string} at RFC 3339
 */
function lastMove(at) {
  const ago = Math.max(0, Date.now() - Date.parse(at));
  const minutes = Math.floor(ago / 60000);
  const [unit, n] =
    minutes < 1
      ? ["now", 0]
      : minutes < 60
        ? ["minute", minutes]
        : minutes < 24 * 60
          ? ["hour", Math.floor(minutes / 60)]
          : ["day", Math.floor(minutes / (24 * 60))];
  const time = h(
    "time",
    { datetime: at, title: new Date(at).toLocaleString(language()) },
    phrase("lobby.moved_ago", { unit, n }),
  );
  return ago >= STALLED_MS ? [time, ` — ${t("lobby.stalled")}`] : time;
}

/**
 * A game's row in the list: its seats, whether it is a rematch, what this browser holds of it.
 * Each cell carries its column's head, which a phone shows beside it (the row drawn as a card).
 * @param {Schemas["GameList"]["games"][number]} g @param {string[]} heads
 */
function gameRow(g, heads) {
  const mine = tokens.get(g.id);
  // The winners of a finished game, as the list names them.
  const names = Object.fromEntries(g.seats.map((s) => [s.seat, shownName(s)]));
  const winners = listOf((g.winners ?? []).map((w) => names[w] ?? t("word.seat", { n: w })));
  const cells = [
    h("a", { href: `/play/${g.id}` }, g.id.slice(0, 8)),
    rulesetName(g.ruleset),
    h("time", { datetime: g.created_at }, new Date(g.created_at).toLocaleDateString(language())),
    ...(g.status === "active" ? [lastMove(g.updated_at)] : []),
    [
      `${g.seats.length}/${g.players}: ${g.seats.map((s) => shownName(s) + (s.bot && shownName(s) === s.name ? ` ${t("lobby.bot")}` : "")).join(", ")}`,
      g.previous
        ? [` — ${t("lobby.rematch_of")} `, h("a", { href: `/play/${g.previous}` }, g.previous.slice(0, 8))]
        : null,
    ],
    ...(g.status === "finished" ? [winners] : []),
    [
      mine.token ? t("lobby.your_seat") : mine.host ? t("lobby.host") : "",
      " ",
      h("a", { href: `/replay/${g.id}` }, t("lobby.replay")),
      g.status === "finished" ? [" ", h("a", { href: `/audit/${g.id}` }, t("lobby.audit"))] : null,
    ],
  ];
  return h(
    "tr",
    {},
    cells.map((c, i) => h("td", heads[i] ? { "data-label": heads[i] } : {}, [c].flat(2))),
  );
}

/** The form that creates a game: the ruleset, the seats, bots, the clock, the host's options. */
function createForm() {
  const err = h("p", { class: "error", role: "alert" });
  const option = (/** @type {string} */ value, /** @type {string} */ text) => h("option", { value }, text);
  // The name and the bots' level chosen last time.
  const kept = choices.get();
  const level = /** @type {HTMLSelectElement} */ (levelPicker({ name: "level" }));
  if ([...level.options].some((o) => o.value === kept.level)) level.value = /** @type {string} */ (kept.level);
  const clock = h(
    "select",
    { name: "clock" },
    option("", t("lobby.clock_none")),
    option("per_decision", t("lobby.clock_per_decision")),
    option("bank", t("lobby.clock_bank")),
  );
  // The clock's fields, shown only with a clock (the increment only with a bank clock).
  const seconds = h(
    "label",
    {},
    `${t("lobby.seconds")} `,
    h("input", { name: "seconds", type: "number", min: 5, value: 300 }),
  );
  const increment = h(
    "label",
    {},
    `${t("lobby.increment")} `,
    h("input", { name: "increment", type: "number", min: 0, value: 20 }),
  );
  const abandon = h(
    "label",
    {},
    `${t("lobby.abandon_before")} `,
    h("input", { name: "abandon", type: "number", min: 0, max: 20, value: 3 }),
    ` ${t("lobby.abandon_after")}`,
  );
  const clockFields = [seconds, increment, abandon].map((l) => h("span", { class: "clock-field" }, l, " "));
  const showClock = () => {
    const kind = /** @type {HTMLSelectElement} */ (clock).value;
    clockFields[0].hidden = clockFields[2].hidden = !kind;
    clockFields[1].hidden = kind !== "bank";
  };
  clock.addEventListener("change", showClock);
  showClock();
  const form = h(
    "form",
    { "aria-label": t("lobby.create"), class: "create" },
    h("h2", {}, t("lobby.create")),
    h(
      "label",
      {},
      `${t("lobby.ruleset")} `,
      h(
        "select",
        { name: "ruleset" },
        option("base", rulesetName("base")),
        option("saboteur2", rulesetName("saboteur2")),
      ),
    ),
    " ",
    h(
      "label",
      {},
      `${t("lobby.players")} `,
      h("input", { name: "players", type: "number", min: 2, max: 12, value: 3 }),
    ),
    " ",
    h(
      "label",
      {},
      `${t("lobby.name")} `,
      h("input", { name: "name", value: kept.name || t("lobby.default_name"), maxlength: 40 }),
    ),
    " ",
    h("label", {}, `${t("lobby.bots")} `, h("input", { name: "bots", type: "number", min: 0, max: 12, value: 2 })),
    " ",
    h("label", {}, `${t("lobby.level")} `, level),
    " ",
    h("label", {}, `${t("lobby.clock")} `, clock),
    " ",
    ...clockFields,
    h("label", {}, h("input", { name: "forfeit", type: "checkbox" }), ` ${t("lobby.forfeit")}`),
    " ",
    h("label", {}, h("input", { name: "spectators", type: "checkbox" }), ` ${t("lobby.spectators")}`),
    " ",
    h("button", { type: "submit" }, t("lobby.create_button")),
    err,
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = new FormData(/** @type {HTMLFormElement} */ (form));
    try {
      await create(f);
    } catch (e) {
      err.textContent = /** @type {Error} */ (e).message;
    }
  });
  return form;
}

/**
 * Creates the game the form asks for, seats its creator (unless bots take every seat: a game to
 * watch) and the bots, and goes to its table. @param {FormData} f
 */
async function create(f) {
  const players = Number(f.get("players"));
  /** @type {Schemas["Options"]} */
  const options = {};
  if (f.get("forfeit")) options.broken_tools_forfeit_gold = true;
  if (f.get("spectators")) options.spectator_talk = true;
  const seconds = Number(f.get("seconds"));
  if (f.get("clock") === "per_decision") options.clock = { kind: "per_decision", seconds };
  if (f.get("clock") === "bank")
    options.clock = { kind: "bank", seconds, increment_seconds: Number(f.get("increment")) };
  if (options.clock && Number(f.get("abandon")) > 0) options.abandon_after = Number(f.get("abandon"));
  /** @type {Schemas["GameCreated"]} */
  const created = await api("/games", { method: "POST", body: { ruleset: f.get("ruleset"), players, options } });
  const id = created.game_id;
  tokens.set(id, { host: created.host_token });
  choices.set({ name: String(f.get("name") || "") || undefined, level: String(f.get("level")) });
  const bots = Math.min(players, Number(f.get("bots")));
  if (bots < players) {
    // The creator takes a seat unless bots take them all (a game to watch).
    await takeSeat(id, `/games/${id}/seats`, { name: f.get("name") || t("lobby.default_name") });
  }
  for (let i = 0; i < bots; i++) {
    await api(`/games/${id}/bots`, { method: "POST", token: created.host_token, body: { level: f.get("level") } });
  }
  location.href = `/play/${id}`;
}
