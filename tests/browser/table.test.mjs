// Browser tests of the table: talk, a turn clock and presence; its layout at 1366×800 and on a
// phone; a Map aimed at a goal; its load and a move's requests at a 150 ms round trip; and
// Saboteur 2's pass of two cards of a kind and its discard to take a broken tool away.

import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import {
  artifacts,
  axe,
  BASE,
  browser,
  countFlights,
  DESKTOP,
  findDeal,
  get,
  PHONE,
  post,
  setUp,
  shots,
} from "./harness.mjs";
import { againstBots, atTheTable, drawn, nextCommand, playOne, selectLit } from "./play.mjs";

setUp();

test("table talk, a turn clock and presence", async () => {
  const ctx = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await ctx.newPage();
  await page.goto(`${BASE}/`);
  await page.getByLabel("Bots", { exact: true }).fill("2");
  await page.getByLabel("Turn clock").selectOption("per_decision");
  await page.getByLabel("Seconds", { exact: true }).fill("600");
  await page.getByLabel("spectators may talk").check();
  await page.getByRole("button", { name: "Create" }).click();
  await page.waitForURL(/\/play\//);
  const id = page.url().split("/play/")[1];
  await page.getByRole("button", { name: "Start the game" }).click();
  await page.locator("svg.board").waitFor();
  // The clock: whoever is awaited has a deadline, counted down on the page.
  const timer = page.getByRole("timer");
  await timer.filter({ hasText: /\d+:\d\d to decide/ }).waitFor();
  const state = await get(`/games/${id}/state`);
  // The reader's own clock speaks to them; another's names its seat.
  const awaited = (await get(`/games/${id}`)).seats.find((s) => s.seat === state.table.deadline.seat);
  await timer
    .filter({ hasText: awaited.bot ? /^.+ has \d+:\d\d to decide$/ : /^You have \d+:\d\d to decide$/ })
    .waitFor();
  assert.equal(state.table.clock.seconds, 600);
  assert.ok(state.table.deadline.at > Date.now(), "the deadline is ahead");
  // Presence: this page follows the game live, so its seat shows as connected.
  await page.locator(".players li").filter({ hasText: "(you) (connected)" }).waitFor({ timeout: 10000 });
  // Talk: a player's message appears in the table talk; a spectator's reaches the player live.
  await page.getByLabel("Message").fill("hello table");
  await page.getByRole("button", { name: "Say" }).click();
  const talk = page.getByRole("region", { name: "Table talk" });
  await talk.getByText("said: “hello table”").waitFor();
  const watcherCtx = await browser.newContext({ locale: "en-US", viewport: PHONE });
  const watcher = await watcherCtx.newPage();
  await watcher.goto(`${BASE}/play/${id}`);
  // On a phone the talk is a tap away, in the maze's place.
  await watcher.getByRole("button", { name: "Table talk" }).click();
  await watcher.getByLabel("Name").fill("Kibitzer");
  await watcher.getByLabel("Message").fill("nice dig");
  // The player is halfway through a message when the spectator's arrives: the redraw keeps
  // what was typed, and the focus.
  await page.getByLabel("Message").click();
  await page.keyboard.type("half a thou");
  await watcher.getByRole("button", { name: "Say" }).click();
  await talk.getByText("Kibitzer (watching) said: “nice dig”").waitFor({ timeout: 10000 });
  // A line of the talk says who said what, as people speak: no event number before it.
  for (const line of await talk.getByRole("listitem").allTextContents())
    assert.doesNotMatch(line, /^#\d/, `a line of the talk: ${line}`);
  assert.equal(await page.getByLabel("Message").inputValue(), "half a thou", "the draft survives a redraw");
  await page.keyboard.type("ght");
  assert.equal(await page.getByLabel("Message").inputValue(), "half a thought", "the focus stays in the draft");
  await axe(page, "table with talk and clock");
  await shots(page, "talk");
  await watcherCtx.close();
  await ctx.close();
});

test("the table at 1366×800 and on a phone: the hand always in view, the news in a panel of its own size, the maze never moved nor under the banner", async () => {
  const created = await post("/games", undefined, { ruleset: "base", players: 5, seed: "6b".repeat(32) });
  const id = created.game_id;
  const joined = await post(`/games/${id}/seats`, undefined, { name: "Ada" });
  for (let i = 1; i < 5; i++) await post(`/games/${id}/bots`, created.host_token, { level: "heuristic" });
  await post(`/games/${id}/start`, created.host_token);
  const context = await browser.newContext({ locale: "en-US", viewport: { width: 1366, height: 800 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  await page.goto(`${BASE}/play/${id}#token=${joined.player_token}`);
  await page
    .getByRole("list", { name: "Players" })
    .filter({ hasText: /key [0-9a-f]{4} / })
    .waitFor();
  /** Where the parts are: the maze on the page and on the screen, its top row of cards, the banner, the hand, the news. */
  const layout = () =>
    page.evaluate(() => {
      const maze = /** @type {Element} */ (document.querySelector("section.play svg.board")).getBoundingClientRect();
      const rows = [...document.querySelectorAll("section.play svg.board g[role=img]")].map(
        (g) => g.getBoundingClientRect().top,
      );
      const news = /** @type {HTMLElement} */ (document.querySelector("section.news"));
      const list = /** @type {HTMLElement} */ (news.querySelector("ol"));
      const hand = /** @type {Element} */ (document.querySelector(".hand")).getBoundingClientRect();
      return {
        page: Math.round(maze.top + scrollY),
        top: maze.top,
        row: Math.min(...rows),
        banner: /** @type {Element} */ (document.querySelector(".turn-banner")).getBoundingClientRect().bottom,
        hand: { top: hand.top, bottom: hand.bottom },
        screen: innerHeight,
        news: news.getBoundingClientRect().height,
        scrolls: getComputedStyle(list).overflowY,
        told: list.querySelectorAll("li:not(.quiet)").length,
      };
    });
  const first = await layout();
  const seen = (/** @type {typeof first} */ l, /** @type {string} */ when) => {
    assert.ok(
      l.hand.top >= 0 && l.hand.bottom <= l.screen,
      `the hand is on the screen ${when}: ${JSON.stringify(l.hand)} of ${l.screen}`,
    );
    assert.ok(
      l.banner <= l.top && l.banner <= l.row,
      `the banner (down to ${l.banner}) is over neither the maze (${l.top}) nor its top row (${l.row}) ${when}`,
    );
  };
  seen(first, "at first");
  assert.equal(first.scrolls, "auto", "the news scroll inside their panel");
  // The bots' answers are told one by one: as the news grow, the maze stays where it is and
  // the panel keeps its size.
  let most = 0;
  for (let turn = 0; turn < 4; turn++) {
    await page
      .getByRole("status")
      .filter({ hasText: /^Your turn: select a card/ })
      .waitFor();
    const at = await page.locator("main").getAttribute("data-version");
    const posted = nextCommand(page);
    assert.ok(await playOne(page, "path"), "a card was played");
    await drawn(page, at, posted);
    for (let k = 0; k < 4; k++) {
      const now = await layout();
      assert.equal(now.page, first.page, `the maze stays where it was (turn ${turn})`);
      assert.equal(now.news, first.news, `the news panel keeps its size with ${now.told} lines`);
      seen(now, `with ${now.told} lines of news`);
      most = Math.max(most, now.told);
      await page.waitForTimeout(400);
    }
  }
  assert.ok(most >= 3, `the news grew to ${most} lines`);
  // Scrolled down to the log: the maze stays pinned under the banner, the hand docked.
  await page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));
  await page.waitForFunction(() => scrollY > 0);
  seen(await layout(), "scrolled to the end");
  await axe(page, "the table at 1366×800");
  await page.evaluate(() => scrollTo(0, 0));
  await page.screenshot({ path: join(artifacts, "table-1366.png") });
  // On a phone: the news above the maze in a panel of their own size, the hand docked; a card
  // selected brings the maze into view under the banner, its top row whole.
  await page.setViewportSize(PHONE);
  await page.reload();
  await page
    .getByRole("status")
    .filter({ hasText: /^Your turn: select a card/ })
    .waitFor();
  seen(await layout(), "on a phone");
  assert.ok(await selectLit(page), "a card lights cells");
  const phone = await layout();
  seen(phone, "on a phone, a card selected");
  assert.ok(phone.top < PHONE.height / 2, `the maze brought into view: ${phone.top}`);
  await axe(page, "the table on a phone");
  await page.screenshot({ path: join(artifacts, "table-phone-selected.png") });
  await context.close();
});

test("a Map is aimed at a goal lit on the board, named by its place, not by coordinates", async () => {
  // A fixed deal in which the player, first to play, holds a Map (third card of the hand).
  const { id, joined } = await againstBots("base", 3, "77", "heuristic");
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${BASE}/play/${id}#token=${joined.player_token}`);
  await page.getByText("You play now").first().waitFor();
  const hand = page.getByRole("list", { name: "Your hand" }).getByRole("button");
  // Zoom stays where the player left it when the table is drawn again (a card selected).
  const whole = await page.locator("svg.board").getAttribute("viewBox");
  await page.getByRole("button", { name: "Zoom in" }).click();
  const zoomed = await page.locator("svg.board").getAttribute("viewBox");
  assert.notEqual(zoomed, whole, "zoomed in");
  await hand.nth(0).click();
  assert.equal(await page.locator("svg.board").getAttribute("viewBox"), zoomed, "the zoom outlives a redraw");
  await hand.nth(0).click();
  await page.getByRole("button", { name: "Whole maze" }).click();
  assert.equal(await page.locator("svg.board").getAttribute("viewBox"), whole, "back to the whole maze");
  await hand.nth(2).click();
  const targets = page.locator("rect.cell-target");
  await targets.first().waitFor();
  assert.equal(await targets.count(), 3, "the three face-down goals are lit");
  const labels = await targets.evaluateAll((rects) => rects.map((r) => r.getAttribute("aria-label")));
  assert.deepEqual(labels.sort(), [
    "play map on the bottom goal",
    "play map on the middle goal",
    "play map on the top goal",
  ]);
  assert.equal(
    await page.getByLabel("Moves for the selected card").getByRole("button").filter({ hasText: /\(/ }).count(),
    0,
    "no coordinate buttons",
  );
  await page.getByRole("button", { name: "play map on the middle goal" }).press("Enter");
  await page.locator(".log li").filter({ hasText: /map/i }).first().waitFor();
  const state = await (
    await fetch(`${BASE}/games/${id}/state`, { headers: { authorization: `Bearer ${joined.player_token}` } })
  ).json();
  const seen = state.view.goals.filter((g) => g.card);
  assert.equal(seen.length, 1, "the player has seen one goal");
  assert.equal(seen[0].y, 0, "the middle one");
  // On the board it is marked as seen by this player only: still face down for the others.
  await page.locator(".board .seen-goal-label").filter({ hasText: "only you" }).waitFor();
  assert.equal(await page.locator(".board .seen-goal").count(), 1);
  await axe(page, "map targets");
  await context.close();
});

test("at a 150 ms round trip: the table's load, a card selected, the requests a move costs", async () => {
  const { id, joined } = await againstBots("base", 4, "5c", "heuristic");
  // A reader who asked for less motion: the cards laid do not travel, the changes are marked.
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP, reducedMotion: "reduce" });
  await context.addInitScript(countFlights);
  const page = await context.newPage();
  // The key first, unthrottled: registering it is once per seat, not per load.
  await page.goto(`${BASE}/play/${id}#token=${joined.player_token}`);
  await page
    .getByRole("list", { name: "Players" })
    .filter({ hasText: /key [0-9a-f]{4} / })
    .waitFor();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: 150,
    downloadThroughput: 1_250_000,
    uploadThroughput: 1_250_000,
  });
  /** @type {string[]} */
  const requests = [];
  page.on("request", (r) => requests.push(new URL(r.url()).pathname));
  await page.goto(`${BASE}/play/${id}`);
  // Interactive: the hand drawn, as the page's own clock saw it (from the navigation's start).
  const load = Math.round(
    await page.evaluate(
      () =>
        new Promise((done) => {
          const drawn = () =>
            document.querySelector(".hand button") ? done(performance.now()) : requestAnimationFrame(drawn);
          drawn();
        }),
    ),
  );
  await page.getByText("You play now").first().waitFor({ timeout: 20000 });
  // Selecting a card asks the server nothing.
  const before = requests.length;
  const t0 = Date.now();
  await page.getByRole("list", { name: "Your hand" }).getByRole("button").first().click();
  await page.locator(".hand button[aria-pressed=true]").waitFor();
  const select = Date.now() - t0;
  assert.deepEqual(requests.slice(before), [], "selecting a card makes no request");
  assert.ok(select <= 200, `a card selected in ${select} ms (budget 200 ms)`);
  await page.getByRole("list", { name: "Your hand" }).getByRole("button").first().click();
  // A move: its write, then one read of the table for the news it brings (the bots' answers
  // come in the same reply).
  const at = await page.locator("main").getAttribute("data-version");
  const sent = requests.length;
  const t1 = Date.now();
  assert.ok(await playOne(page, "path"), "a move");
  await page.waitForFunction((v) => document.querySelector("main")?.dataset.version !== v, at, { timeout: 20000 });
  const move = Date.now() - t1;
  await page.waitForTimeout(1500);
  const after = requests.slice(sent).filter((p) => p.startsWith("/games/"));
  const writes = after.filter((p) => p.endsWith("/commands")).length;
  assert.equal(writes, 1, `one write: ${after}`);
  // Each piece of news is read in one request (the game, the view, the moves, presence and
  // the log at one version).
  const reads = after.filter((p) => !p.endsWith("/commands"));
  assert.ok(
    reads.length >= 1 && reads.every((p) => p === `/games/${id}/table`),
    `every read is the table's, in one request: ${after.join(" ")}`,
  );
  assert.ok(after.length <= 4, `a move and its news cost few requests: ${after.join(" ")}`);
  const moved = await page.evaluate(() => ({ flights: window.flights, marks: window.marks }));
  assert.deepEqual([moved.flights, moved.marks > 0], [0, true], "no card travels under reduced motion");
  console.log(
    `at 150 ms RTT: table interactive in ${load} ms (${requests.length - (requests.length - before)} requests), card selected in ${select} ms, a move drawn in ${move} ms, ${after.length} requests for a move and its news: ${after.join(" ")}`,
  );
  await context.close();
});

test("your path card is on the maze within 100 ms of the tap, and the reply comes before three hard bots have answered", async () => {
  const { id, joined } = await againstBots("base", 4, "5c", "expert");
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await atTheTable(context, id, joined.player_token, 60000);
  const hand = page.getByRole("list", { name: "Your hand" }).getByRole("button");
  let cell = page.locator("rect.cell-legal").first();
  for (let i = 0; i < (await hand.count()) && !(await cell.count()); i++) {
    await hand.nth(i).click();
    await page.locator(".hand button[aria-pressed=true]").waitFor();
    if (!(await cell.count())) await hand.nth(i).click();
  }
  assert.ok(await cell.count(), "a path card lights a cell");
  cell = page.locator("rect.cell-legal").first();
  const where = /** @type {string} */ (await cell.getAttribute("aria-label")).match(/\(-?\d+, -?\d+\)/)?.[0];
  // The page's own clock, from the tap to the card drawn at that cell, and the versions drawn
  // at the tap and with the card: the same (the tap's, not the reply's).
  const seen = page.evaluate(
    ([where, cellLabel]) =>
      new Promise((done) => {
        let tapped = 0;
        let at = "";
        const version = () => document.querySelector("main")?.dataset.version ?? "";
        document.addEventListener(
          "click",
          (e) => {
            if (e.target instanceof Element && e.target.getAttribute("aria-label") === cellLabel) {
              tapped = performance.now();
              at = version();
            }
          },
          { capture: true },
        );
        const laid = () => document.querySelector(`svg.board [role=img][aria-label^="${where}:"]`);
        new MutationObserver((_, watching) => {
          if (tapped && laid()) {
            watching.disconnect();
            done({ ms: performance.now() - tapped, at, version: version() });
          }
        }).observe(document.body, { childList: true, subtree: true });
      }),
    [where, await cell.getAttribute("aria-label")],
  );
  const answer = nextCommand(page);
  const clicked = Date.now();
  await cell.click();
  const { ms, at, version } = await seen;
  const res = await answer;
  const replied = Date.now() - clicked;
  assert.equal(res.status(), 200, "the move is taken");
  // The server answers before the hard bots think: the reply holds the move alone.
  const outcome = await res.json();
  assert.ok(
    outcome.events.every((/** @type {{event: {bot?: unknown}}} */ e) => e.event.bot == null),
    `no bot's move in the reply: ${JSON.stringify(outcome.events.map((/** @type {{event: {type: string}}} */ e) => e.event.type))}`,
  );
  console.log(`your card drawn ${ms.toFixed(1)} ms after the tap; the reply, before the bots' moves, ${replied} ms`);
  assert.ok(ms < 100, `your card on the maze ${ms.toFixed(1)} ms after the tap (budget 100 ms)`);
  assert.equal(version, at, "drawn from the tap, before the reply");
  // Then the table as read: the card where it was drawn, and the bots' moves after it.
  await drawn(page, at, Promise.resolve(res));
  await page.locator(`svg.board [role=img][aria-label^="${where}:"]`).waitFor();
  await context.close();
});

test("undo is offered only for a move of one's own to take back, and bots declining it say why (§12)", async () => {
  const { id, joined } = await againstBots("base", 4, "5c", "heuristic");
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${BASE}/play/${id}#token=${joined.player_token}`);
  await page.getByText("You play now").first().waitFor({ timeout: 20000 });
  const undo = page.getByRole("button", { name: "Request undo" });
  assert.equal(await undo.count(), 0, "nothing to take back before the first move");
  // A card played, and one drawn after it: taking it back would unsee that card.
  const at = await page.locator("main").getAttribute("data-version");
  const answer = nextCommand(page);
  assert.ok(await playOne(page, "path"), "a move");
  await drawn(page, at, answer);
  await undo.click();
  const why = page.getByRole("status").filter({ hasText: /declined: a bot never takes back a move/ });
  await why.waitFor();
  assert.match(
    await why.textContent(),
    /^\S.* declined: a bot never takes back a move once a card drawn after it has been seen\./,
  );
  await page
    .locator(".log li")
    .filter({ hasText: /undo declined by/ })
    .first()
    .waitFor();
  // The request in the log, in moves (the player's and those made since), not versions.
  const asked = await page
    .locator(".log li")
    .filter({ hasText: /undo requested by/ })
    .first()
    .textContent();
  assert.match(asked, /^#\d+ undo requested by Ada: (one move|\d+ moves) to take back$/);
  await context.close();
});

test("the base game's pass discards one card: no second card of a kind is offered with it (§3.3)", async () => {
  // A fixed deal: the player, first to play, holds two "tunnel_nes" (the third and fourth cards).
  const { id, joined } = await againstBots("base", 3, "13", "random");
  const state = await (
    await fetch(`${BASE}/games/${id}/state`, { headers: { authorization: `Bearer ${joined.player_token}` } })
  ).json();
  assert.deepEqual(state.view.hand.slice(2, 4), ["tunnel_nes", "tunnel_nes"], "the deal");
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${BASE}/play/${id}#token=${joined.player_token}`);
  await page.getByText("You play now").first().waitFor({ timeout: 20000 });
  await page.getByRole("list", { name: "Your hand" }).getByRole("button").nth(2).click();
  const pass = page.locator("fieldset.pass");
  await pass.waitFor();
  assert.equal(await pass.getByRole("checkbox").count(), 0, "no second card offered with the pass");
  const at = await page.locator("main").getAttribute("data-version");
  const answer = nextCommand(page);
  await pass.getByRole("button").click();
  assert.equal((await answer).status(), 200, "the pass of one card is taken");
  await drawn(page, at, answer);
  await context.close();
});

test("Saboteur 2: a pass discards two cards of a kind, each card named as the hand names it (§10)", async () => {
  // A deal whose first player holds two cards of a kind (the same every run: the engine is
  // deterministic).
  const found = await findDeal({ ruleset: "saboteur2", from: 64, tries: 64 }, async (view, seat, auth, id) => {
    if (view.phase.awaited !== seat.seat) return null;
    const twin = view.hand.find((/** @type {string} */ c, /** @type {number} */ i) => view.hand.indexOf(c) !== i);
    const legal = (await (await fetch(`${BASE}/games/${id}/legal-moves`, { headers: auth })).json()).commands;
    const pass = legal.some(
      (/** @type {any} */ c) =>
        c.type === "pass" && c.discard.length === 2 && c.discard.every((/** @type {string} */ d) => d === twin),
    );
    return twin && pass ? { twin, at: view.hand.indexOf(twin) } : null;
  });
  assert.ok(found, "a deal with two cards of a kind to pass with");
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${BASE}/play/${found.id}#token=${found.seat.player_token}`);
  await page
    .getByRole("status")
    .filter({ hasText: /^Your turn/ })
    .waitFor();
  const hand = page.getByRole("list", { name: "Your hand" }).getByRole("button");
  const named = (await hand.allTextContents()).map((t) => t.split(",")[0].trim());
  await hand.nth(found.at).click();
  const pass = page.locator("fieldset.pass");
  await pass.waitFor();
  // Every card offered to go with it is named as the hand names it (after its picture).
  const offered = (await pass.locator("label").allTextContents()).map((l) => l.trim().replace(/^also discard /, ""));
  for (const card of offered)
    assert.ok(
      named.some((n) => n.endsWith(card)),
      `"${card}" is named so in the hand: ${JSON.stringify(named)}`,
    );
  // Each choice stands apart from the next, on a line or beside it: none run together.
  const boxes = await pass.locator("label").evaluateAll((ls) => ls.map((l) => l.getBoundingClientRect().toJSON()));
  assert.ok(boxes.length >= 2, `choices offered: ${boxes.length}`);
  for (const [i, b] of boxes.entries()) {
    const a = boxes[i - 1];
    if (!a) continue;
    const apart = b.top >= a.bottom ? b.top - a.bottom : b.left - a.right;
    assert.ok(apart >= 6, `"${offered[i - 1]}" and "${offered[i]}" ${apart.toFixed(1)} px apart`);
  }
  // The other card of the kind is a choice of its own; both go.
  const twin = offered.find((card) => named[found.at].endsWith(card));
  assert.ok(twin, `the other ${named[found.at]} is offered: ${JSON.stringify(offered)}`);
  await pass
    .getByRole("checkbox", { name: `also discard ${twin}` })
    .first()
    .check();
  const at = await page.locator("main").getAttribute("data-version");
  await pass.getByRole("button").click();
  await page.waitForFunction((v) => document.querySelector("main")?.dataset.version !== v, at);
  const auth = { authorization: `Bearer ${found.seat.player_token}` };
  const log = await (await fetch(`${BASE}/games/${found.id}/events?after=0&limit=1000`, { headers: auth })).json();
  const passed = log.events
    .map((e) => e.event)
    .filter((e) => e.type === "command_accepted" && e.command.type === "pass");
  assert.deepEqual(passed.at(-1)?.command.discard, [found.twin, found.twin], "both cards of the kind discarded");
  await axe(page, "a pass of two cards of a kind");
  await context.close();
});

test("Saboteur 2: two cards discarded to take away a broken tool, through the table (§9.2)", async () => {
  // A deal in which the first player holds a broken tool to play on the other: found by trying
  // seeds (the engine is deterministic, so the same one every run).
  let found = null;
  for (let k = 0; k < 64 && !found; k++) {
    const created = await post("/games", undefined, {
      ruleset: "saboteur2",
      players: 2,
      seed: k.toString(16).padStart(2, "0").repeat(32),
    });
    const id = created.game_id;
    const first = await post(`/games/${id}/seats`, undefined, { name: "Ann" });
    const second = await post(`/games/${id}/seats`, undefined, { name: "Ada" });
    await post(`/games/${id}/start`, created.host_token);
    const auth = { authorization: `Bearer ${first.player_token}` };
    const legal = await (await fetch(`${BASE}/games/${id}/legal-moves`, { headers: auth })).json();
    const blow = legal.commands.find(
      (c) => c.type === "play_action" && c.card.startsWith("break_") && c.target?.seat === second.seat,
    );
    if (!blow) continue;
    const res = await fetch(`${BASE}/games/${id}/commands`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify(blow),
    });
    assert.ok(res.ok, `the broken tool played: ${res.status}`);
    found = { id, player: second, broken: blow.card };
  }
  assert.ok(found, "a deal with a broken tool to play first");
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${BASE}/play/${found.id}#token=${found.player.player_token}`);
  await page
    .getByRole("status")
    .filter({ hasText: /^Your turn/ })
    .waitFor();
  // The broken tool is drawn on the player, the tool with a slash, its name its title.
  const picture = page.locator(`.players svg.in-front[data-card="${found.broken}"]`);
  assert.equal(await picture.count(), 1, "the broken tool is drawn on its player");
  const tool = found.broken.replace("break_", "");
  assert.equal(await picture.locator(`[data-tool="${tool}"]`).count(), 1, `a ${tool} drawn`);
  assert.match(await picture.locator("title").textContent(), new RegExp(tool, "i"));
  // A card selected offers to discard it with another to take the broken tool away.
  await page.getByRole("list", { name: "Your hand" }).getByRole("button").first().click();
  const remove = page
    .getByLabel("Moves for the selected card")
    .getByRole("button")
    .filter({ hasText: /^discard .+ to remove broken / });
  await remove.first().waitFor();
  const at = await page.locator("main").getAttribute("data-version");
  await remove.first().click();
  await page.waitForFunction((v) => document.querySelector("main")?.dataset.version !== v, at);
  const state = await (
    await fetch(`${BASE}/games/${found.id}/state`, {
      headers: { authorization: `Bearer ${found.player.player_token}` },
    })
  ).json();
  assert.deepEqual(state.view.in_front[found.player.seat], [], `${found.broken} taken away`);
  assert.equal(await picture.count(), 0, "and its picture with it");
  assert.equal(state.view.hand.length, 5, "two discarded, one drawn: the hand shrinks by one");
  await axe(page, "discard to remove");
  await context.close();
});
