// Browser tests of whole games through the table, one seat a person's and the others bots':
// a base game with its gold choices, the rounds' ends checked against the record, the final
// score; the words for a round that pays nobody in every language; games on a phone and a
// desktop in English, and one on a phone in each other language.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  axe,
  BASE,
  browser,
  countFlights,
  DESKTOP,
  EN,
  esc,
  fill,
  get,
  here,
  PHONE,
  post,
  setUp,
  shots,
  shownAs,
} from "./harness.mjs";
import { againstBots, playOne, playToTheEnd, ui, untilAsked } from "./play.mjs";
import { roundEndIn, roundEndShown } from "./rounds.mjs";
import { strings } from "./strings.mjs";

setUp();

test("a whole base game through the table, gold choices included, to the player's result", async () => {
  // A fixed deal (the player is a gold digger in rounds 1 and 3, which the diggers win, the
  // lobby's bots recorded after the deal), so that the player chooses gold cards (§8), which the
  // table must offer: the game is played by clicks only, to the game-over screen.
  const created = await post("/games", undefined, { ruleset: "base", players: 3, seed: "70".repeat(32) });
  const id = created.game_id;
  const joined = await post(`/games/${id}/seats`, undefined, { name: "Ada" });
  for (let i = 0; i < 2; i++) await post(`/games/${id}/bots`, created.host_token, { level: "heuristic" });
  await post(`/games/${id}/start`, created.host_token);
  const summary = await get(`/games/${id}`);
  const botNames = summary.seats.filter((s) => s.bot).map((s) => s.name);
  assert.equal(new Set(botNames).size, 2, `bots read apart: ${botNames}`);
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  await context.addInitScript(countFlights);
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  await page.goto(`${BASE}/play/${id}#token=${joined.player_token}`);
  // The seat came without a key: the browser registers its own first (an event of its own).
  await page
    .getByRole("list", { name: "Players" })
    .filter({ hasText: /key [0-9a-f]{4} / })
    .waitFor();
  const { kept, turns, pathsLaid, toldNews, paced, roundEnds } = await playedThrough(page, id, joined.player_token);
  const final = await get(`/games/${id}/state`);
  console.log(
    `a whole game in ${turns} turns of the player; rounds: ${JSON.stringify(final.view.rounds.map((r) => r.winners))}`,
  );
  assert.ok(kept > 0, "the player chose gold at least once");
  assert.ok(toldNews > 0, "the bots' moves were told");
  assert.ok(paced > 0, "the bots' moves were told one by one, and all at once on asking");
  // Every round's end was shown before the next deal (the last before the final score).
  assert.deepEqual(
    roundEnds.map((r) => r.round),
    [1, 2, 3],
    `rounds' ends shown: ${JSON.stringify(roundEnds)}`,
  );
  assert.deepEqual(
    roundEnds.map((r) => r.button),
    ["Next round", "Next round", "Show the final score"],
  );
  assert.ok(
    roundEnds.some((r) => r.route),
    "a route to the gold was drawn",
  );
  assert.ok(
    roundEnds.slice(0, 2).some((r) => r.hidden),
    "another seat's gold shown as cards, its values hidden, during the game",
  );
  await signedByTheBrowser(page, id);
  await finalScoreShown(page, id, summary, final);
  await shots(page, "game-over");
  await axe(page, "game over");
  // Each card laid travelled to its cell, the player's from the hand and the bots' from their rows.
  const flights = await page.evaluate(() => window.flights);
  assert.ok(flights > 0, `${flights} cards travelled, ${pathsLaid} laid by the player`);
  // The audit view checks, in the browser, what it kept: the server's keys, the receipts, the
  // players' signatures, and that the seat's key in the record is this browser's.
  await page.goto(`${BASE}/audit/${id}`);
  const here = page.getByRole("region", { name: "Checked in this browser" }).getByRole("status");
  await here.waitFor();
  const checked = await here.textContent();
  assert.match(checked, /Your seat's key in the record is this browser's/);
  assert.match(checked, /(\d+) of the \1 receipts this browser kept are signed by the server's keys/);
  assert.match(checked, /[1-9]\d* players' signatures in the record verify/);
  assert.match(await page.getByText(/^Verified:/).textContent(), /[1-9]\d* players' signatures checked again/);
  await context.close();
});

/**
 * Plays the game on `page` by clicks to its result, each round's end checked against the
 * record (`roundEndShown`, a reload on the first): the gold choices made, the player's turns,
 * the paths laid, the turns after which the bots' moves were told, one by one or all at once,
 * and the rounds' ends shown.
 * @param {import("playwright-core").Page} page @param {string} id @param {string} token
 */
async function playedThrough(page, id, token) {
  const result = page.getByRole("status").filter({ hasText: /You won!|You did not win/ });
  let kept = 0,
    turns = 0,
    pathsLaid = 0,
    marked = 0,
    toldNews = 0,
    paced = 0;
  /** The rounds whose end the table showed, with what it showed. */
  const roundEnds = [];
  const version = () => page.locator("main").getAttribute("data-version");
  const onward = page.getByRole("region", { name: "Round over" }).getByRole("button", { name: ui(EN).onward });
  for (;;) {
    const turn = page.getByRole("status").filter({ hasText: /^Your turn/ });
    await untilAsked(page, { ...ui(EN), turn: /^Your turn/, result: /You won!|You did not win/ }, 20000);
    if (await result.count()) break;
    // A round's end stays on the screen, the final maze and the gold, until the player moves on.
    if (await onward.count()) {
      const heading = page.getByRole("region", { name: "Round over" }).getByRole("heading", { level: 2 });
      if (!roundEnds.length) {
        // A reload while a round's end is shown shows it again, until the player moves on.
        const was = await heading.textContent();
        await page.reload();
        await onward.waitFor();
        assert.equal(await heading.textContent(), was, "the same round's end after a reload");
      }
      roundEnds.push(await roundEndShown(page, id, token, roundEnds.length === 0));
      if (roundEnds.length === 1) {
        // Moved on from, it stays behind after a reload.
        await page.reload();
        await page.getByText(/^Round 2, /).waitFor();
        assert.equal(await page.getByRole("region", { name: "Round over" }).count(), 0, "no round's end moved on from");
      }
      continue;
    }
    assert.ok(++turns < 400, "the game ends");
    const at = await version();
    // Whose turn it is, at the top and in the tab's title.
    assert.equal(await page.locator(".turn-banner").textContent(), "You play now");
    assert.match(await page.title(), /^You play now/);
    if (/choose the gold/.test(await turn.textContent())) {
      const keep = page
        .getByLabel("Moves for the selected card")
        .getByRole("button")
        .filter({ hasText: /^keep / });
      assert.ok(await keep.count(), "the table offers the gold cards to keep");
      await keep.first().click();
      kept++;
    } else {
      const kind = await playOne(page, "path");
      assert.ok(kind, "a card was played");
      if (kind === "path") pathsLaid++;
    }
    // The table shows the game after the move (and the bots' answers) before the next turn.
    await page.waitForFunction((v) => document.querySelector("main")?.dataset.version !== v, at, { timeout: 20000 });
    // The bots' answers are told one by one; a round's end stays on the table until dismissed.
    const news = page.getByRole("region", { name: "What just happened" });
    if ((await news.count()) && /by /.test(await news.textContent())) toldNews++;
    // The answers are told one at a time; "Show all" tells the rest at once.
    const showAll = news.getByRole("button", { name: /^Show all/ });
    if (await showAll.count()) {
      const before = await news.locator("li").count();
      if (
        await showAll.click({ timeout: 500 }).then(
          () => true,
          () => false,
        )
      ) {
        await showAll.waitFor({ state: "detached" });
        if ((await news.locator("li").count()) > before) paced++;
      }
    }
    // After a path laid, the newest change to this round's maze is marked and named.
    if (pathsLaid === 1 && !marked) {
      marked = await page.locator("svg.board rect.last-move").count();
      assert.ok(marked, "the last move is marked on the board");
      assert.match(await page.locator("svg.board rect.last-move").getAttribute("aria-label"), /^last on the board: /);
    }
  }
  return { kept, turns, pathsLaid, toldNews, paced, roundEnds };
}

/**
 * The seat came by a link without a key: the browser registered its own, shown at the seat by
 * its fingerprint, and signed every act after it; the game over is the player's own.
 * @param {import("playwright-core").Page} page @param {string} id
 */
async function signedByTheBrowser(page, id) {
  const bundle = await get(`/games/${id}/audit`);
  const registered = bundle.events.findIndex((e) => e.event_type === "seat_key_registered" && e.payload.seat === 0);
  assert.ok(registered > 0, "the browser registered a key for the seat");
  const own = bundle.events
    .slice(registered)
    .filter((e) => e.event_type === "command_accepted" && e.payload.seat === 0 && !e.payload.bot);
  assert.ok(
    own.length > 0 && own.every((e) => e.payload.signature?.signature?.length === 128),
    "every command of the seat is signed",
  );
  assert.match(
    await page.getByRole("list", { name: "Players" }).textContent(),
    /key [0-9a-f]{4} [0-9a-f]{4} [0-9a-f]{4} [0-9a-f]{4}/,
  );
  assert.equal(await page.getByText("You are watching").count(), 0, "the player's own seat at game over");
  assert.equal(await page.getByRole("button", { name: "Request undo" }).count(), 0, "no undo once over");
  assert.match(await page.locator(".turn-banner").textContent(), /^Game over/);
}

/**
 * The final score on `page`: every seat ranked by its gold, each round's gold as the record
 * has it, the rounds won, and each finished round's line saying who won it, or why nobody did.
 * @param {import("playwright-core").Page} page @param {string} id @param {any} summary the game
 * @param {any} final the game's last state
 */
async function finalScoreShown(page, id, summary, final) {
  // The final score: every seat ranked by its gold (ties share a place), the rounds each won,
  // the winners marked.
  const score = page.getByRole("table", { name: "Final score" }).first();
  await score.scrollIntoViewIfNeeded();
  await shots(page, "scoreboard");
  const rows = await score
    .locator("tbody tr")
    .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent ?? "")));
  assert.deepEqual(await score.locator("thead th").allTextContents(), [
    "Place",
    "Player",
    "Round 1",
    "Round 2",
    "Round 3",
    "Total",
    "Rounds won",
  ]);
  assert.equal(rows.length, final.view.gold.length, "a row per seat");
  const golds = rows.map((r) => Number(r[5]));
  assert.deepEqual(
    golds,
    [...final.view.gold].sort((a, b) => b - a),
    "ranked by gold",
  );
  for (const r of rows)
    assert.equal(Number(r[0]), 1 + golds.filter((g) => g > Number(r[5])).length, `the place of ${r[1]}`);
  assert.equal(rows.filter((r) => /winner/.test(r[1])).length, final.view.winners.length, "the winners are marked");
  // The gold each seat got in each round, as the record has it (every value public at the end).
  const audited = await get(`/games/${id}/audit`);
  assert.ok(!audited.events.some((e) => e.event_type === "undone"), "nothing taken back in this game");
  const perRound = [0, 1, 2].map(() => final.view.gold.map(() => 0));
  let round = 0;
  for (const { event_type: type, payload } of audited.events) {
    if (type === "round_started") round = payload.round;
    if (type === "gold_kept") perRound[round - 1][payload.seat] += Number(payload.card.slice(5));
    if (type === "saboteurs_paid")
      for (const p of payload.payments)
        perRound[round - 1][p.seat] += p.cards.reduce((n, c) => n + Number(c.slice(5)), 0);
  }
  const byName = Object.fromEntries(summary.seats.map((x) => [shownAs(x), x.seat]));
  for (const r of rows) {
    const seat = byName[r[1].replace(/ \(you\)| — winner/g, "")];
    assert.ok(seat != null, `a seat named ${r[1]}`);
    assert.deepEqual(
      r.slice(2, 5).map(Number),
      perRound.map((g) => g[seat]),
      `${r[1]}'s gold in each round`,
    );
    assert.equal(Number(r[5]), Number(r[2]) + Number(r[3]) + Number(r[4]), `${r[1]}'s rounds add up to the total`);
  }
  // Each finished round says who won it, or why nobody did.
  const summaries = await page.getByRole("region", { name: "Finished rounds" }).locator("li").allTextContents();
  assert.equal(summaries.length, final.view.rounds.length, "a line per round");
  final.view.rounds.forEach((r, i) => {
    const why = r.winners.length
      ? /won by (?!nobody)/
      : r.gold_reached_by == null
        ? /won by nobody \(the gold was not reached, so the saboteurs won, and nobody was a saboteur\)/
        : /reached the gold, but nobody wins the round: every player on the winning side was trapped/;
    assert.match(summaries[i], why, `round ${r.round}: ${summaries[i]}`);
  });
  const roundsWon = rows.reduce((n, r) => n + Number(r[6]), 0);
  assert.equal(
    roundsWon,
    final.view.rounds.reduce((n, r) => n + r.winners.length, 0),
    "the rounds each seat won",
  );
}

test("a round whose gold was reached but that pays nobody says why, in the round's line and the log, in every language (§10.2)", async () => {
  // A Saboteur 2 round whose winning side had nobody to pay (all trapped, or none of that
  // side in play), drawn by the client's own modules as served, in each language.
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  // A blank page of the server's origin, on which the modules load one by one (of the npm
  // packages they import, bundled in the client, Fluent is served as esbuild bundles it, and
  // canonicalize stubbed: these strings do not sign).
  const { buildSync } = await import("esbuild");
  const fluent = buildSync({
    stdin: { contents: 'export * from "@fluent/bundle";', resolveDir: here },
    bundle: true,
    format: "esm",
    write: false,
  }).outputFiles[0].text;
  await page.route(`${BASE}/fluent.js`, (route) => route.fulfill({ contentType: "text/javascript", body: fluent }));
  const imports = {
    canonicalize: "data:text/javascript,export default JSON.stringify",
    "@fluent/bundle": "/fluent.js",
  };
  await page.route(`${BASE}/modules`, (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<!doctype html><html><head><script type="importmap">${JSON.stringify({ imports })}</script></head><body><main id="main"></main></body></html>`,
    }),
  );
  await page.goto(`${BASE}/modules`);
  for (const code of ["en", "is", "lv", "nl", "es", "pl"]) {
    const d = await strings(code);
    const [line, logged] = await page.evaluate(async (code) => {
      const i18n = await import("/assets/i18n.js");
      await i18n.load(code);
      const { finishedRounds } = await import("/assets/parts.js");
      const { describeEvent } = await import("/assets/words.js");
      const round = { round: 2, gold_reached_by: 0, winners: [], roles: ["green_digger", "blue_digger"] };
      const names = { 0: "Ann", 1: "Bob" };
      return [
        finishedRounds(/** @type {any} */ ({ rounds: [round] }), names)?.querySelector("li")?.textContent,
        describeEvent({ seq: 40, event: { type: "round_ended", ...round } }, names),
      ];
    }, code);
    const why = d["round.nobody_why"];
    const roles = `Ann ${d["role.green_digger"]}, Bob ${d["role.blue_digger"]}`;
    const gold = fill(d["table.gold_reached"], { who: "Ann" });
    assert.equal(line, fill(d["table.round_summary_nobody"] ?? "", { round: 2, gold, why, roles }), `${code}: ${line}`);
    assert.ok(
      logged.endsWith(fill(d["event.round_ended_nobody"] ?? "", { round: 2, reached: "Ann", why })),
      `${code}: ${logged}`,
    );
    if (code === "en") {
      const reason =
        "but nobody wins the round: every player on the winning side was trapped (trapped players get nothing), or that side had no player";
      assert.equal(
        line,
        `Round 2: Ann reached the gold, ${reason}; roles: Ann green gold-digger, Bob blue gold-digger`,
      );
      assert.match(logged, new RegExp(`round 2 over: Ann reached the gold, ${esc(reason)}$`));
    }
  }
  await context.close();
});

for (const [ruleset, players, viewport, seed] of [
  ["base", 10, PHONE, "a1"],
  ["saboteur2", 12, DESKTOP, "b2"],
]) {
  test(`a whole ${ruleset} game at ${players} players through the table on ${viewport === PHONE ? "a phone" : "a desktop"}`, async () => {
    const { id, joined } = await againstBots(ruleset, players, seed);
    const context = await browser.newContext(
      viewport === PHONE
        ? { locale: "en-US", viewport, hasTouch: true, isMobile: true }
        : { locale: "en-US", viewport },
    );
    const page = await context.newPage();
    page.setDefaultTimeout(15000);
    await page.goto(`${BASE}/play/${id}#token=${joined.player_token}`);
    // (On a phone the players are a tap away: their list is drawn, not shown.)
    await page
      .getByRole("list", { name: "Players", includeHidden: true })
      .filter({ hasText: /key [0-9a-f]{4} / })
      .waitFor({ state: "attached" });
    if (viewport === PHONE) {
      // The hand is in reach while the maze is in view.
      const hand = await page.getByRole("list", { name: "Your hand" }).boundingBox();
      assert.ok(hand && hand.y + hand.height <= PHONE.height + 1, `the hand is on the screen: ${JSON.stringify(hand)}`);
    }
    // Each round's end checked against the record (the first with axe too).
    const ends = [];
    const { turns, made } = await playToTheEnd(page, EN, false, async () => {
      ends.push(await roundEndShown(page, id, joined.player_token, ends.length === 0));
    });
    console.log(
      `${ruleset} at ${players}: ${turns} turns of the player: ${JSON.stringify([...made])}; rounds' ends: ${JSON.stringify(ends)}`,
    );
    assert.deepEqual(
      ends.map((r) => r.round),
      [1, 2, 3],
      "every round's end shown",
    );
    // The final score, a column a round, fits the screen (it scrolls in its own box if need be).
    await page.getByRole("table", { name: "Final score" }).waitFor();
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.ok(overflow <= 0, `the final score fits the screen (${overflow} px too wide)`);
    assert.match(await page.locator(".turn-banner").textContent(), /^Game over/);
    const verdict = await get(`/games/${id}/audit/verdict`);
    assert.ok(verdict.ok, `the game verifies: ${verdict.discrepancy}`);
    assert.ok(
      verdict.report.signatures_checked >= turns,
      `every move signed: ${verdict.report.signatures_checked} of ${turns}`,
    );
    await axe(page, `${ruleset} at ${players}, game over`);
    await context.close();
  });
}

// One whole game in each other language, on a phone: every round's end and the final score in
// the language, the game verified. (English plays the games above.)
for (const [code, ruleset, players, seed] of [
  ["is", "base", 10, "c3"],
  ["lv", "saboteur2", 12, "d4"],
  ["nl", "saboteur2", 12, "e5"],
  ["es", "base", 10, "f6"],
  ["pl", "base", 10, "a7"],
]) {
  test(`a whole ${ruleset} game on a phone in ${code}: every round's end and the final score in it, with their amounts`, async () => {
    const d = await strings(code);
    const { id, joined } = await againstBots(ruleset, players, seed);
    const context = await browser.newContext({
      locale: `${code}-${code.toUpperCase()}`,
      viewport: PHONE,
      hasTouch: true,
      isMobile: true,
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15000);
    await page.goto(`${BASE}/play/${id}#token=${joined.player_token}`);
    // The language's strings load after the page does: the table drawn in it marks the page.
    await page.getByRole("list", { name: d["table.hand"] }).waitFor();
    assert.equal(await page.locator("html").getAttribute("lang"), code);
    const rounds = [];
    const { turns } = await playToTheEnd(page, d, false, async () => {
      rounds.push(await roundEndIn(page, d, id, joined.player_token));
    });
    assert.deepEqual(rounds, [1, 2, 3], "every round's end shown");
    // The final score: every seat's gold as the record has it.
    const score = page.getByRole("table", { name: d["score.final"] });
    await score.waitFor();
    const auth = { headers: { authorization: `Bearer ${joined.player_token}` } };
    const final = (await (await fetch(`${BASE}/games/${id}/state`, auth)).json()).view;
    const totals = await score
      .locator("tbody tr")
      .evaluateAll((trs) => trs.map((tr) => Number(tr.children[tr.children.length - 2]?.textContent)));
    const sorted = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b);
    assert.deepEqual(sorted(totals), sorted(final.gold), "every seat's gold in the final score");
    await axe(page, `game over in ${code}`);
    const banner = (await page.locator(".turn-banner").textContent()) ?? "";
    assert.ok(
      [d["table.over"], d["table.over_won"]].some((s) => banner.startsWith(s.split("{")[0])),
      `the game over, in the language: ${banner}`,
    );
    const verdict = await get(`/games/${id}/audit/verdict`);
    assert.ok(verdict.ok, `the game verifies: ${verdict.discrepancy}`);
    assert.ok(turns > 0, "the player played");
    await context.close();
  });
}
