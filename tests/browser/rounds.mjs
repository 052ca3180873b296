// A round's end as the table shows it, for the browser tests: checked against the record (the
// final maze, the route to the gold, each seat's role, gold and why), in English or any language.

import assert from "node:assert/strict";
import { axe, BASE, EN, esc, fill, get, shots, shownAs } from "./harness.mjs";
import { ui } from "./play.mjs";

/**
 * Round `round` of game `id` in the record, as seat `token` reads it: the whole log, the round's
 * `round_ended`, the last event before the next deal (or the game's last) and the view then.
 * @param {string} id @param {string} token @param {number} round
 */
async function roundRecord(id, token, round) {
  const auth = { headers: { authorization: `Bearer ${token}` } };
  /** @type {any[]} */
  const log = [];
  for (let after = 0; ; ) {
    const page = await (await fetch(`${BASE}/games/${id}/events?after=${after}&limit=1000`, auth)).json();
    log.push(...page.events);
    if (page.next_after == null) break;
    after = page.next_after;
  }
  const ended = log.find((e) => e.event.type === "round_ended" && e.event.round === round);
  assert.ok(ended, `round ${round} ended in the record`);
  const dealt = log.find((e) => e.seq > ended.seq && e.event.type === "round_started");
  const last = dealt ? dealt.seq - 1 : log.at(-1).seq;
  const then = (await (await fetch(`${BASE}/games/${id}/state?at=${last}`, auth)).json()).view;
  return { log, ended, last, then };
}

/**
 * What the round's end shows as seat `i`'s gain in the language `d`, from the events after its
 * `round_ended` (`span`): Saboteur 2's coins; the base game's gold, or the count of gold cards
 * whose values the reader may not see (`hidden`).
 * @param {Record<string, string>} d @param {any[]} span @param {number} i @param {boolean} s2
 */
function goldShown(d, span, i, s2) {
  if (s2) {
    const coins = span.reduce(
      (n, e) =>
        n +
        (e.type === "coins_paid"
          ? e.coins[i]
          : e.type === "coin_stolen" && e.from != null
            ? (e.seat === i) - (e.from === i)
            : 0),
      0,
    );
    return { text: String(coins), hidden: false };
  }
  const cards = span.flatMap((e) =>
    e.type === "gold_kept" && e.seat === i
      ? [e.card]
      : e.type === "saboteurs_paid"
        ? e.payments
            .filter((p) => p.seat === i)
            .flatMap((p) => (Array.isArray(p.cards) ? p.cards : Array(p.cards.count).fill(null)))
        : [],
  );
  return cards.some((c) => c == null)
    ? { text: fill(d["round.cards_hidden"], { n: cards.length }), hidden: true }
    : { text: String(cards.reduce((n, c) => n + Number(c.slice(5)), 0)), hidden: false };
}

/**
 * A round's end as a reader of the language `d` sees it, checked against the record: the region
 * and its heading in the language, the final maze, a row per seat with its role named, no string
 * left as its key, nothing off the screen; then on, to the next deal or the final score. Its round.
 * @param {import("playwright-core").Page} page @param {Record<string, string>} d
 * @param {string} id @param {string} token
 */
export async function roundEndIn(page, d, id, token) {
  const end = page.getByRole("region", { name: d["table.round_over"] });
  const heading = (await end.getByRole("heading", { level: 2 }).textContent()) ?? "";
  const as = (/** @type {string} */ key) => new RegExp(`^${esc(d[key]).replace(esc("{round}"), "(\\d+)")}$`);
  const round = Number((heading.match(as("round.heading")) ?? heading.match(as("round.heading_last")))?.[1]);
  assert.ok(round >= 1, `the round's heading in the language: ${heading}`);
  const { log, ended, last, then } = await roundRecord(id, token, round);
  assert.equal(
    await end.locator("svg.board g[role=img]").count(),
    then.board.length + then.goals.filter((g) => !g.revealed).length,
    "the final maze",
  );
  const rows = await end
    .getByRole("table", { name: fill(d["round.payouts"], { round }) })
    .locator("tbody tr")
    .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent ?? "")));
  assert.deepEqual(
    rows.map((r) => r[1]),
    ended.event.roles.map((r) => d[`role.${r}`]),
    "every seat's role, named in the language",
  );
  // And what each got, as the record says, in the language's words where the values are hidden.
  const span = log.filter((e) => e.seq > ended.seq && e.seq <= last).map((e) => e.event);
  const s2 = then.ruleset === "saboteur2";
  assert.deepEqual(
    rows.map((r) => r[2]),
    rows.map((_, i) => goldShown(d, span, i, s2).text),
    "every seat's gold this round",
  );
  assert.doesNotMatch(
    (await end.textContent()) ?? "",
    /\b(round|table|score|role|event|move)\.[a-z_]+\b/,
    "no string left as its key",
  );
  // What runs off the screen, if anything: the first elements no scrolling box holds.
  const [overflow, wide] = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const held = (/** @type {Element} */ e) => {
      for (let a = e.parentElement; a; a = a.parentElement)
        if (["auto", "hidden", "scroll", "clip"].includes(getComputedStyle(a).overflowX)) return true;
      return false;
    };
    const out = [...document.querySelectorAll("body *")]
      .filter((e) => e.getBoundingClientRect().right > width + 1 && !held(e))
      .slice(0, 3)
      .map((e) => `${e.tagName.toLowerCase()}.${e.getAttribute("class") ?? ""}: ${(e.textContent ?? "").slice(0, 40)}`);
    return [document.documentElement.scrollWidth - width, out];
  });
  assert.ok(overflow <= 0, `the round's end fits the screen (${overflow} px too wide: ${wide.join(" | ")})`);
  // Opened at its top, under a banner that speaks of it (not of the next deal's turn), every
  // column of its tables on the screen without scrolling sideways (the reasons, the totals).
  const top = await end.evaluate((e) => e.getBoundingClientRect().top);
  assert.ok(top >= 0 && top < (page.viewportSize()?.height ?? 0) / 2, `the round's end opens at its top: ${top}`);
  const banner = (await page.locator(".turn-banner").textContent()) ?? "";
  if (heading.match(as("round.heading")))
    assert.equal(banner, fill(d["round.heading"], { round }), "the banner speaks of the round's end");
  else assert.ok(banner.startsWith(d["table.over"].split("{")[0]), `the last round's banner: the game over: ${banner}`);
  const hidden = await end
    .locator(".wide")
    .evaluateAll((ws) => ws.map((w) => w.scrollWidth - w.clientWidth).filter((px) => px > 1));
  assert.deepEqual(hidden, [], "no column of the round's tables off the screen");
  await end.getByRole("button", { name: ui(d).onward }).click();
  await end.waitFor({ state: "detached" });
  return round;
}

/**
 * Checks a round's end as the table shows it against the record, read through the eyes of the
 * seat `token` plays: the final maze with the route from the start card (or a ladder) to the
 * gold, every dwarf card, the gold each seat got and why (values hidden from the reader shown
 * as a count of cards; Saboteur 2's coins are public); then moves on (the next deal, or the
 * final score). Returns what was shown.
 * @param {import("playwright-core").Page} page @param {string} id @param {string} token @param {boolean} check whether to run axe on it too
 */
export async function roundEndShown(page, id, token, check) {
  const end = page.getByRole("region", { name: "Round over" });
  const round = Number(
    (await end.getByRole("heading", { level: 2 }).textContent())?.match(/^Round (\d+) is over/)?.[1],
  );
  const { log, ended, last, then } = await roundRecord(id, token, round);
  if (check) await shots(page, "round-end");
  const s2 = then.ruleset === "saboteur2";
  const names = Object.fromEntries((await get(`/games/${id}`)).seats.map((x) => [x.seat, shownAs(x)]));
  // The final maze, as it stood before the next deal: every card of it.
  assert.equal(
    await end.locator("svg.board g[role=img]").count(),
    then.board.length + then.goals.filter((g) => !g.revealed).length,
    "the final maze",
  );
  const { gold_reached_by: reached, winners, roles } = ended.event;
  const outcome = await end.locator("p.outcome").textContent();
  const team = (/** @type {string} */ role) => winners.some((w) => roles[w] === role);
  if (!s2) {
    assert.equal(
      outcome,
      reached != null
        ? `${names[reached]} reached the gold: the gold-diggers win.`
        : winners.length
          ? "The gold was not reached: the saboteurs win."
          : "The gold was not reached, and nobody was a saboteur: nobody gets gold.",
    );
  } else if (reached == null || !(team("green_digger") || team("blue_digger") || team("boss"))) {
    // (A round whose winning team was all trapped counts nobody of it.)
    assert.match(outcome, reached == null ? /^The gold was not reached: the saboteurs win\.$/ : /reached the gold/);
  } else {
    const side =
      team("green_digger") && team("blue_digger")
        ? "both teams win"
        : team("green_digger")
          ? "the green gold-diggers win"
          : team("blue_digger")
            ? "the blue gold-diggers win"
            : "";
    assert.ok(outcome.startsWith(`${names[reached]} reached the gold: ${side}`), `the side that won: ${outcome}`);
    assert.match(
      outcome,
      /\. The route to the gold passes (no door|: (green door|blue door|green door and blue door))\.$/,
      `the doors on the route: ${outcome}`,
    );
  }
  // The route from the start card (or a ladder) to the gold, a card at each step, each step to a neighbour.
  const route = end.locator("svg.board polyline.route");
  if (reached != null) {
    const gold = then.board.find((p) => p.card === "goal_gold");
    assert.ok(gold, "the gold lies face up in the maze");
    const cells = (await route.getAttribute("points")).split(" ").map((p) => p.split(",").map((v) => Number(v) - 0.5));
    const at = ([x, y]) => then.board.find((c) => c.x === x && c.y === y);
    assert.ok(
      at(cells[0])?.card === "start" || at(cells[0])?.card.startsWith("ladder"),
      `the route starts at the start card or a ladder: ${at(cells[0])?.card}`,
    );
    assert.deepEqual(cells.at(-1), [gold.x, gold.y], "and ends at the gold");
    cells.forEach(([x, y], i) => {
      assert.ok(at([x, y]), `a card at the route's (${x}, ${y})`);
      if (i)
        assert.equal(
          Math.abs(x - cells[i - 1][0]) + Math.abs(y - cells[i - 1][1]),
          1,
          "each step to a neighbouring card",
        );
    });
    assert.match(await route.getAttribute("aria-label"), /^the route from the start card to the gold, \d+ cards long$/);
  } else assert.equal(await route.count(), 0, "no route when the gold was not reached");
  // Every dwarf card, and the gold each seat got: a number where the reader may see it, else
  // the count of gold cards (their values stay hidden until the end, §7.3); and why.
  const rows = await end
    .getByRole("table", { name: `Round ${round}: what each player got` })
    .locator("tbody tr")
    .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent ?? "")));
  assert.equal(rows.length, roles.length, "a row per seat");
  const span = log.filter((e) => e.seq > ended.seq && e.seq <= last).map((e) => e.event);
  let hidden = false;
  rows.forEach((r, i) => {
    assert.equal(r[1], EN[`role.${roles[i]}`], `seat ${i}'s role revealed`);
    const gold = goldShown(EN, span, i, s2);
    hidden ||= gold.hidden;
    assert.equal(r[2], gold.text, `seat ${i}'s gold this round`);
    if (i === reached) assert.match(r[3], /^reached the gold; /);
    const why =
      s2 && then.in_front[i].includes("trapped")
        ? /trapped: nothing this round/
        : s2 && roles[i] === "geologist"
          ? /geologist: /
          : winners.includes(i)
            ? /on the winning side|no gold card was left|left out|the boss wins|the profiteer always wins/
            : /not on the winning side/;
    assert.match(r[3], why, `why seat ${i} got what it got: ${r[3]}`);
    for (const e of span)
      if (e.type === "coin_stolen" && e.seat === i && e.from != null)
        assert.match(r[3], new RegExp(`stole 1 from ${esc(names[e.from])}`));
  });
  if (hidden) await end.getByText("The values of other players' gold cards stay hidden until the game ends.").waitFor();
  // Nothing runs off the side of the screen (a phone's too): a wide table scrolls in its box.
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  assert.ok(overflow <= 0, `the round's end fits the screen (${overflow} px too wide)`);
  const button = end.getByRole("button", { name: ui(EN).onward });
  const label = await button.textContent();
  if (check) {
    await axe(page, "a round's end");
    await shots(page, `round-end${s2 ? "-saboteur2" : ""}`);
  }
  await button.click();
  await end.waitFor({ state: "detached" });
  // (The round's line is drawn with the players: on a phone, a tap away.)
  if (label === "Next round") await page.getByText(new RegExp(`^Round ${round + 1}, `)).waitFor({ state: "attached" });
  else await page.getByRole("table", { name: "Final score" }).waitFor();
  return { round, button: label, route: reached != null, hidden };
}
