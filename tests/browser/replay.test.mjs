// Browser tests of what is read of games: one played by two people and a bot, and one of twelve
// bots watched live to its end, then each replayed step by step, weighed by the expert, audited,
// and every page shown in six languages.

import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import {
  artifacts,
  axe,
  BASE,
  browser,
  createFromLobby,
  DESKTOP,
  EN,
  get,
  PHONE,
  post,
  setUp,
  shots,
  shownAs,
  waitOrTell,
} from "./harness.mjs";
import { drawn, nextCommand, playOne } from "./play.mjs";
import { strings } from "./strings.mjs";

setUp();

let gameId;

test("create a game with bots, invite a second player, start and play", async () => {
  const host = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await host.newPage();
  gameId = await createFromLobby(page, { players: 3, bots: 1 });
  // Tokens are kept per game in the browser: a reload returns to the same table, as host.
  await page.reload();
  await page.getByRole("button", { name: "Create an invite link" }).click();
  const link = await page.getByRole("list", { name: "Invite links" }).getByRole("link").getAttribute("href");
  assert.match(link, /#seat=\d+&token=[0-9a-f]{64}$/, "the token travels in the fragment");
  const guestContext = await browser.newContext({ locale: "en-US", viewport: PHONE });
  const guest = await guestContext.newPage();
  await guest.goto(BASE + link);
  await guest.getByText("Seats: 3/3").waitFor();
  assert.ok(!guest.url().includes("token="), "the token leaves the address bar once kept");
  // The guest, invited as "Guest", says who they are (signed, once the browser's key is the
  // seat's): the game lists the name, and the host's room shows it.
  const myName = guest.getByRole("textbox", { name: "Your name at the table:" });
  assert.equal(await myName.inputValue(), "Guest");
  await myName.fill("Cleo");
  await guest.getByRole("button", { name: "Save the name" }).click();
  await guest.getByText(/^Seats: 3\/3: .*\bCleo\b/).waitFor();
  assert.ok(
    (await get(`/games/${gameId}`)).seats.some((s) => s.name === "Cleo"),
    "the game lists the name",
  );
  await page.reload();
  await page.getByText(/^Seats: 3\/3: .*\bCleo\b/).waitFor();
  await axe(page, "lobby-table");
  await page.getByRole("button", { name: "Start the game" }).click();
  await page.locator("svg.board").waitFor();
  await axe(page, "table");
  const summary = await get(`/games/${gameId}`);
  const bot = summary.seats.find((s) => s.bot);
  assert.ok(bot, "a bot holds a seat");
  // Host and guest play in turn, as people would, until both a path card and an action card
  // were played; the guest's page follows the bot's moves live from the event stream.
  const played = new Set();
  for (let turn = 0; turn < 40 && !(played.has("path") && played.has("action")); turn++) {
    await Promise.race([page, guest].map((p) => p.getByText("Your turn").waitFor({ timeout: 15000 })));
    const who = (await page.getByText("Your turn").count()) ? page : guest;
    const at = await who.locator("main").getAttribute("data-version");
    const posted = nextCommand(who);
    const kind = await playOne(who, played.has("action") ? "path" : "action");
    assert.ok(kind, "a card was played");
    played.add(kind);
    await drawn(who, at, posted);
  }
  // A random deal may keep both people's tools broken (the whole games below play every kind).
  assert.ok(played.has("path") || played.has("action"), `a card was played: ${[...played]}`);
  // On the guest's phone the log is a tap away, in the maze's place.
  await guest.getByRole("group", { name: "Table" }).getByRole("button", { name: "Log" }).click();
  await guest
    .locator(".log li")
    .filter({ hasText: `by ${shownAs(bot)}` })
    .first()
    .waitFor({ timeout: 10000 });
  await shots(page, "table");
  await shots(guest, "guest");
  await axe(guest, "table (phone)");
  // No vote is open: no seat is offered one.
  assert.equal(
    await page.getByRole("button", { name: "Approve undo" }).count(),
    0,
    "no vote offered while none is open",
  );
  // An undo request right after one's own move, before anyone acts: the guest (seat 2) plays,
  // the host (seat 0, a person) has not moved yet. The bot votes at once; the host answers.
  await Promise.race([page, guest].map((p) => p.getByText("Your turn").waitFor({ timeout: 15000 })));
  if (await page.getByText("Your turn").count()) {
    assert.ok(await playOne(page, "path"), "the host played");
    await guest.getByText("Your turn").waitFor({ timeout: 15000 });
  }
  assert.ok(await playOne(guest, "path"), "the guest played");
  await page.getByText("Your turn").waitFor();
  // The host has no move of its own to take back now (a person moved since): none is offered.
  assert.equal(
    await page.getByRole("button", { name: "Request undo" }).count(),
    0,
    "no undo without a move to take back",
  );
  await guest.getByRole("button", { name: "Request undo" }).click();
  await guest.getByRole("alert").filter({ hasText: "Undo requested" }).waitFor();
  // The requester is never offered a vote on their own request.
  assert.equal(await guest.getByRole("button", { name: "Approve undo" }).count(), 0, "no vote on one's own request");
  const both = { host: page, guest };
  await waitOrTell(
    page
      .locator(".log li")
      .filter({ hasText: /undo requested/ })
      .first(),
    both,
    gameId,
    {
      timeout: 10000,
    },
  );
  const settled = page.locator(".log li").filter({ hasText: /undo declined|undone/ });
  if (!(await settled.count())) await page.getByRole("button", { name: "Approve undo" }).click();
  await waitOrTell(settled.first(), both, gameId, { timeout: 10000 });
  console.log(`undo request answered: ${await settled.first().textContent()}`);
  // Answered: the requester's "Undo requested" goes, and no vote is offered any more.
  await guest.getByRole("alert").filter({ hasText: "Undo requested" }).waitFor({ state: "detached", timeout: 10000 });
  await page.getByRole("button", { name: "Approve undo" }).waitFor({ state: "detached" });
  await host.close();
  await guestContext.close();
});

test("replay: keyboard steps, deep links, timing", async () => {
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${BASE}/replay/${gameId}?v=2&as=spectator`);
  await page.getByText(/^Step 2 of/).waitFor();
  const t0 = Date.now();
  const shown = page.evaluate(
    () => new Promise((r) => document.addEventListener("replay-shown", () => r(performance.now()), { once: true })),
  );
  const start = await page.evaluate(() => performance.now());
  await page.keyboard.press("ArrowRight");
  const end = await shown;
  console.log(`replay step: ${(end - start).toFixed(1)} ms to visible (budget 100 ms; wall ${Date.now() - t0} ms)`);
  await page.getByText(/^Step 3 of/).waitFor();
  assert.match(page.url(), /v=3/);
  await page.keyboard.press("ArrowLeft");
  await page.getByText(/^Step 2 of/).waitFor();
  // Autoplay steps on by itself until paused, a whole move at a time: it stops on a move's last
  // event (what its command caused, up to the next command) or a round's end.
  const stops = page.evaluate(
    () =>
      new Promise((r) => {
        const seen = [];
        document.addEventListener("replay-shown", (e) => {
          seen.push(/** @type {CustomEvent} */ (e).detail);
          if (seen.length === 5) r(seen);
        });
        setTimeout(() => r(seen), 8000);
      }),
  );
  await page.getByRole("button", { name: "Play", exact: true }).click();
  const stepped = /** @type {number[]} */ (await stops);
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  const kinds = new Map(
    (await get(`/games/${gameId}/events?after=0&limit=1000`)).events.map((e) => [e.seq, e.event.type]),
  );
  assert.ok(
    stepped.length >= 3 && stepped.every((n, i) => i === 0 || n > stepped[i - 1]),
    `autoplay goes forward: ${stepped}`,
  );
  for (const [i, n] of stepped.entries()) {
    assert.ok(
      kinds.get(n + 1) === "command_accepted" || kinds.get(n) === "round_ended" || !kinds.has(n + 1),
      `autoplay stopped on step ${n}, a ${kinds.get(n)} inside a move`,
    );
    const moves = [...kinds].filter(([s, k]) => s > (stepped[i - 1] ?? n - 1) && s <= n && k === "command_accepted");
    assert.ok(moves.length <= 1, `autoplay passed over a move before step ${n}`);
  }
  assert.match(await page.locator("output").textContent(), /^(Move \d+ of \d+|Before the first move)/);
  assert.ok(
    stepped.some((n, i) => i > 0 && n > stepped[i - 1] + 1),
    `autoplay passed over bookkeeping: ${stepped}`,
  );
  const paused = await page.locator("output").textContent();
  await page.waitForTimeout(1500);
  assert.equal(await page.locator("output").textContent(), paused, "paused, it stays");
  // Faster at 4×; any line of the log goes to its moment; the rounds are marked on the timeline.
  await page.getByLabel("Speed").selectOption("4");
  await page.getByRole("button", { name: "Play", exact: true }).click();
  const at = Number((await page.locator("output").textContent()).match(/Step (\d+)/)[1]);
  await page.waitForFunction(
    (at) => Number(document.querySelector("output")?.textContent?.match(/Step (\d+)/)?.[1]) >= at + 4,
    at,
    { timeout: 2500 },
  );
  await page.getByRole("button", { name: "Pause", exact: true }).click();
  const line = page.getByRole("list", { name: "Log" }).getByRole("button").nth(1);
  await line.click();
  await page.getByText(/^Step 2 of/).waitFor();
  assert.match(await page.locator("li.current").textContent(), /^#2 /);
  assert.ok((await page.locator("datalist#replay-rounds option").count()) >= 1, "round starts marked");
  await axe(page, "replay");
  await shots(page, "replay");
  await context.close();
  // On a phone, a step moves the log's own view, never the page: the board stays where it is.
  const phone = await browser.newContext({ locale: "en-US", viewport: PHONE, hasTouch: true, isMobile: true });
  const small = await phone.newPage();
  await small.goto(`${BASE}/replay/${gameId}?v=2&as=spectator`);
  await small.getByText(/^Step 2 of/).waitFor();
  const before = await small.evaluate(() => scrollY);
  for (const v of [3, 4, 5, 6]) {
    await small.getByRole("button", { name: /^Forward/ }).tap();
    await small.getByText(new RegExp(`^Step ${v} of`)).waitFor();
  }
  assert.equal(await small.evaluate(() => scrollY), before, "the page did not scroll");
  await phone.close();
});

let finishedId;

test("a 12-player game of bots is watched live to its end, then replayed", async () => {
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  // Random bots dig badly, so rounds run until the cards run out: a long game (500+ events).
  finishedId = await createFromLobby(page, { ruleset: "saboteur2", players: 12, bots: 12, level: "random" });
  // The table must stay responsive while the game plays live: no long task over 200 ms.
  await page.evaluate(() => {
    window.longest = 0;
    window.longTasks = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        window.longest = Math.max(window.longest, e.duration);
        window.longTasks++;
      }
    }).observe({ type: "longtask", buffered: true });
  });
  await page.getByRole("button", { name: "Start the game" }).click();
  // Watched live, the game's last round's end is shown first, then the final score.
  const final = page.getByRole("region", { name: "Round over" }).getByRole("button", { name: "Show the final score" });
  await Promise.race([page.getByText(/Winners:/), final].map((l) => l.waitFor({ timeout: 120000 }).catch(() => {})));
  if (await final.count()) await final.click();
  await page.getByText(/Winners:/).waitFor({ timeout: 10000 });
  await page.getByText("You are watching (public view).").waitFor();
  const { longest, longTasks } = await page.evaluate(() => ({ longest: window.longest, longTasks: window.longTasks }));
  const summary = await get(`/games/${finishedId}`);
  console.log(
    `live 12-player game (${summary.version} events): longest task ${longest.toFixed(0)} ms, ${longTasks} tasks over 50 ms (budget 200 ms)`,
  );
  assert.ok(longest <= 200, `a long task of ${longest} ms`);
  await shots(page, "finished");
  // A replay step on the whole game: from the key press to the board shown.
  await page.goto(`${BASE}/replay/${finishedId}?v=10&as=spectator`);
  await page.getByText(/^Step 10 of/).waitFor();
  const times = [];
  for (let i = 0; i < 10; i++) {
    const t = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const t0 = performance.now();
          document.addEventListener(
            "replay-shown",
            () => requestAnimationFrame(() => resolve(performance.now() - t0)),
            { once: true },
          );
          document.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight" }));
        }),
    );
    times.push(t);
  }
  const max = await page.locator("input[type=range]").getAttribute("max");
  times.sort((a, b) => a - b);
  console.log(
    `replay step on a ${max}-event game: median ${times[5].toFixed(1)} ms, worst ${times[9].toFixed(1)} ms to visible (budget 100 ms)`,
  );
  assert.ok(times[5] < 100);
  // Doors and ladders are drawn and named: open the replay where the first of each was laid.
  const catalogue = await get("/catalogue");
  const deck = Object.fromEntries(
    catalogue.rulesets.find((r) => r.ruleset === "saboteur2").cards.map((c) => [c.card, c]),
  );
  const events = [];
  for (let after = 0; ; ) {
    const page = await get(`/games/${finishedId}/events?after=${after}&limit=500`);
    events.push(...page.events);
    if (page.next_after == null || !page.events.length) break;
    after = page.next_after;
  }
  const laid = (test) => events.find((e) => e.event.type === "path_played" && test(deck[e.event.card]));
  const door = laid((c) => c?.doors?.length);
  assert.ok(door, "a door card was laid in a 12-player game");
  await page.goto(`${BASE}/replay/${finishedId}?v=${door.seq}&as=spectator`);
  await page.getByText(new RegExp(`^Step ${door.seq} of`)).waitFor();
  assert.ok(await page.locator("svg.board [aria-label*=door]").count(), "the door is named on the board");
  // The move just made is marked on the board and named.
  assert.match(
    await page.locator("svg.board rect.last-move").getAttribute("aria-label"),
    new RegExp(`^last on the board: #${door.seq} path played`),
  );
  const ladder = laid((c) => c?.ladder);
  if (ladder) {
    await page.goto(`${BASE}/replay/${finishedId}?v=${ladder.seq}&as=spectator`);
    await page.getByText(new RegExp(`^Step ${ladder.seq} of`)).waitFor();
    assert.ok(await page.locator("svg.board [aria-label*=ladder]").count(), "the ladder is named on the board");
  }
  console.log(
    `door laid at version ${door.seq}; ladder ${ladder ? `at version ${ladder.seq}` : "never laid in this game"}`,
  );
  // Once over, any moment through anyone's eyes: every hand, one seat's hand, or none.
  await page.goto(`${BASE}/replay/${finishedId}?v=10`);
  await page.getByText(/^Step 10 of/).waitFor();
  const handsShown = (n) =>
    page.waitForFunction((n) => document.querySelectorAll("section[aria-label^='Hand of']").length === n, n);
  await handsShown(12);
  const seat3 = (await get(`/games/${finishedId}/state?at=10&as=3`)).view.hand;
  await page.getByLabel("Through the eyes of").selectOption("3");
  await handsShown(1);
  await page.getByText(/^Step 10 of/).waitFor();
  assert.match(page.url(), /as=3/);
  assert.equal(await page.locator("section[aria-label^='Hand of'] li").count(), seat3.length);
  // A step after the switch stays with the eyes chosen (the replay drawn before lets go of the keys).
  await page.keyboard.press("ArrowRight");
  await page.getByText(/^Step 11 of/).waitFor();
  // (A replay left listening would fetch its own step and write its eyes into the address.)
  await page.waitForLoadState("networkidle");
  assert.match(page.url(), /as=3/);
  await handsShown(1);
  await page.getByLabel("Through the eyes of").selectOption("spectator");
  await page.getByText("Hands are hidden from a spectator.").waitFor();
  await axe(page, "replay through a seat's eyes");
  await shots(page, "saboteur2-replay");
  await context.close();
});

test("replay: a seat's moves weighed by the expert, once the game is over", async () => {
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  const analysis = await get(`/games/${finishedId}/analysis?seat=3`);
  // Listed costliest first.
  const costly = analysis.decisions
    .filter((d) => d.cost >= (analysis.unit === "coin" ? 0.5 : 0.05))
    .sort((x, y) => y.cost - x.cost);
  await page.goto(`${BASE}/replay/${finishedId}?as=3`);
  const section = page.getByRole("region", { name: /^The expert's view of/ });
  await section.waitFor();
  await section.getByText(`Moves: ${analysis.decisions.length}.`, { exact: false }).waitFor();
  assert.equal(await section.getByRole("listitem").count(), costly.length, "every costly move listed");
  assert.equal(await page.locator(".log .costly").count(), costly.length, "and marked in the log");
  // A step of one of the seat's moves says what the expert would have played there.
  const d = costly[0] ?? analysis.decisions[0];
  if (costly.length) {
    await section.getByRole("button").first().click();
    await page.getByText(`Step ${d.version + 2} of`, { exact: false }).waitFor();
    await page.getByText(/This move cost/).waitFor();
  } else {
    await page.goto(`${BASE}/replay/${finishedId}?as=3&v=${d.version + 2}`);
    await page.locator(".caption").waitFor();
  }
  const caption = await page.locator(".caption").textContent();
  assert.match(caption ?? "", /^The expert would have played/);
  // A move to a cell is drawn on the board, named.
  const where =
    d.suggested.type === "play_path" ||
    (d.suggested.type === "play_action" && d.suggested.target && "x" in d.suggested.target);
  if (costly.length && where) await page.getByRole("img", { name: /^The expert's move:/ }).waitFor();
  await axe(page, "analysed replay");
  await shots(page, "analysed-replay");
  // Through a spectator's eyes there is no seat to weigh.
  await page.goto(`${BASE}/replay/${finishedId}?as=spectator&v=5`);
  await page.getByText(/^Step 5 of/).waitFor();
  assert.equal(await page.getByRole("region", { name: /^The expert's view of/ }).count(), 0);
  // The lobby lists it among the finished games, with its date and its winners: named by the
  // list itself, with no read of any game's state.
  const reads = [];
  page.on("request", (r) => {
    if (/\/games\/[^/]+\/state/.test(r.url())) reads.push(r.url());
  });
  await page.goto(`${BASE}/`);
  const finished = page.getByRole("region", { name: "Finished" });
  const row = finished.getByRole("row").filter({ hasText: finishedId.slice(0, 8) });
  const over = await get(`/games/${finishedId}/state`);
  const summary = await get(`/games/${finishedId}`);
  const names = Object.fromEntries(summary.seats.map((s) => [s.seat, shownAs(s)]));
  const won = new Intl.ListFormat("en", { type: "conjunction" }).format(over.view.winners.map((w) => names[w]));
  await row.getByRole("cell").nth(4).filter({ hasText: won }).waitFor();
  assert.equal(await row.locator("time").getAttribute("datetime"), summary.created_at, "the date it was created");
  assert.deepEqual(reads, [], "the lobby reads no game's state for its list");
  assert.ok(
    await page
      .getByRole("region", { name: "Waiting for players" })
      .or(page.getByRole("region", { name: "Under way" }))
      .count(),
  );
  await context.close();
});

test("audit view", async () => {
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${BASE}/audit/${gameId}`);
  await page
    .getByRole("alert")
    .filter({ hasText: /not over/ })
    .waitFor();
  await page.goto(`${BASE}/audit/${finishedId}`);
  await page.getByText(/^Verified:/).waitFor();
  // The verdict comes first; the evidence (hashes, keys, the command line) is folded under
  // "For experts" until opened, the seed and its commitment each explained in a sentence.
  const experts = page.getByText(/^For experts/);
  assert.ok(
    await page.evaluate(() => {
      const verdict = document.querySelector("p.verdict");
      const hex = document.querySelector("code.hex");
      return !!verdict && !!hex && (verdict.compareDocumentPosition(hex) & Node.DOCUMENT_POSITION_FOLLOWING) !== 0;
    }),
    "the verdict before any hash",
  );
  assert.equal(await page.getByText(/saboteur verify --file/).isVisible(), false, "the command line folded");
  await experts.click();
  await page.getByText(/^Before anyone played, the server published a fingerprint/).waitFor();
  await page.getByText(/saboteur verify --file/).waitFor();
  await page.getByRole("heading", { name: "Signing keys" }).waitFor();
  await page.getByText(/^Transparency log entry \d+/).waitFor();
  // Receipts pasted (a spectator's view and a replay, fetched apart) agree with the record.
  const served = [await get(`/games/${finishedId}/state`), await get(`/games/${finishedId}/state?at=5`)];
  await page.getByLabel("Or paste receipts (a JSON array)").fill(JSON.stringify(served));
  await page.getByRole("button", { name: "Check the pasted receipts" }).click();
  await page.getByText("2 receipts agree with the record.").waitFor();
  // Move by move, in words, each moment linked to the table then; winners by name.
  const account = page.getByRole("region", { name: "Move by move" });
  await account.getByRole("heading", { name: "Round 1" }).waitFor();
  assert.ok((await account.getByRole("listitem").count()) > 10, "the moves are listed");
  assert.match(
    await account.getByRole("link").first().getAttribute("href"),
    new RegExp(`^/replay/${finishedId}\\?v=\\d+&as=everyone$`),
  );
  assert.doesNotMatch(await page.getByText(/^Winners:/).textContent(), /seat \d/, "winners by name");
  await axe(page, "audit");
  await shots(page, "audit");
  assert.doesNotMatch(await page.locator("main").innerText(), /^(null|undefined)$/m, "nothing drawn as null");
  await page.evaluate(() => scrollTo(0, 0));
  await page.screenshot({ path: join(artifacts, "audit-top-desktop.png") });
  await context.close();
  // On a phone, nothing runs off the side: hashes and keys wrap.
  const phone = await browser.newContext({ locale: "en-US", viewport: PHONE, hasTouch: true, isMobile: true });
  const small = await phone.newPage();
  await small.goto(`${BASE}/audit/${finishedId}`);
  await small.getByRole("region", { name: "Move by move" }).waitFor();
  const overflow = await small.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  assert.ok(overflow <= 0, `the audit view fits a phone (${overflow} px too wide)`);
  await phone.close();
});

/** The strings of every page in a language, as the keys' families name them: one left untranslated shows as its key. */
const KEY = new RegExp(`\\b(?:${[...new Set(Object.keys(EN).map((k) => k.split(".")[0]))].join("|")})\\.[a-z_0-9]+\\b`);

/** What a page shows and says to screen readers and in tooltips. @param {import("playwright-core").Page} page */
const shown = (page) =>
  page.evaluate(() =>
    [
      document.body.innerText,
      document.title,
      ...[...document.querySelectorAll("[aria-label],[title]")].flatMap((e) => [
        e.getAttribute("aria-label") ?? "",
        e.getAttribute("title") ?? "",
      ]),
    ].join("\n"),
  );

test("six languages: chosen from the browser's, every page and card in them, switched and kept", async () => {
  for (const [code, viewport] of [
    ["en", DESKTOP],
    ["is", PHONE],
    ["lv", DESKTOP],
    ["nl", PHONE],
    ["es", DESKTOP],
    ["pl", PHONE],
  ]) {
    const d = await strings(code);
    // A seat in a running Saboteur 2 game, to see a hand and its cards named.
    const created = await post("/games", undefined, { ruleset: "saboteur2", players: 3, seed: "c4".repeat(32) });
    const joined = await post(`/games/${created.game_id}/seats`, undefined, { name: "Ada" });
    for (let i = 0; i < 2; i++)
      await post(`/games/${created.game_id}/bots`, created.host_token, { level: "heuristic" });
    await post(`/games/${created.game_id}/start`, created.host_token);
    const context = await browser.newContext({
      locale: code === "en" ? "en-GB" : `${code}-${code.toUpperCase()}`,
      viewport,
      ...(viewport === PHONE ? { hasTouch: true, isMobile: true } : {}),
    });
    const page = await context.newPage();
    const pages = [
      ["/", () => page.getByRole("heading", { name: d["lobby.create"] }).waitFor()],
      ["/rules", () => page.getByRole("heading", { level: 1, name: d["rules.title"] }).waitFor()],
      [
        `/play/${created.game_id}#token=${joined.player_token}`,
        () => page.getByRole("list", { name: d["table.hand"] }).getByRole("button").first().waitFor(),
      ],
      [
        `/replay/${finishedId}?as=everyone&v=40`,
        () => page.getByText(d["replay.version_of"].replace("{v}", "40").replace("{max}", "")).first().waitFor(),
      ],
      [`/audit/${finishedId}`, () => page.getByRole("region", { name: d["audit.account"] }).waitFor()],
    ];
    for (const [path, ready] of pages) {
      await page.goto(BASE + path);
      await ready();
      assert.equal(await page.locator("html").getAttribute("lang"), code, `${path} in ${code}`);
      const text = await shown(page);
      assert.doesNotMatch(text, KEY, `${path} in ${code}: a string left as its key: ${text.match(KEY)?.[0]}`);
      assert.doesNotMatch(text, /^(null|undefined)$/m, `${path} in ${code}: something drawn as null`);
      await axe(page, `${path} in ${code}`);
      if (code === "es" && path === "/rules") await shots(page, "rules-spanish");
    }
    // The hand: each card by its name in the language (no identifiers), with its tooltip.
    await page.goto(`${BASE}/play/${created.game_id}#token=${joined.player_token}`);
    const hand = page.getByRole("list", { name: d["table.hand"] }).getByRole("button");
    await hand.first().waitFor();
    for (const b of await hand.all()) {
      const name = (await b.textContent()).trim();
      assert.doesNotMatch(name, /_/, `a card named by its identifier in ${code}: ${name}`);
      if (code !== "en")
        assert.ok(!Object.values(EN).includes(name.split(",")[0]), `a card named in English in ${code}: ${name}`);
      assert.ok((await b.getAttribute("title"))?.length > 10, `a card's tooltip in ${code}`);
    }
    // The bots the server named by level and place are named in the language ("hard bot 2"),
    // on a phone a tap away.
    if (viewport === PHONE)
      await page
        .getByRole("group", { name: d["table.table"] })
        .getByRole("button", { name: d["players.label"] })
        .click();
    const players = await page.getByRole("list", { name: d["players.label"] }).textContent();
    const bot = d["players.bot_name"].replace("{level}", d["level.heuristic"]).replace("{n}", "2");
    assert.ok(players.includes(bot), `the bot of seat 1 as ${bot} in ${code}: ${players}`);
    if (code !== "en") assert.doesNotMatch(players, /heuristic bot/, `a bot named in English in ${code}`);
    if (code === "pl") await shots(page, "table-polish");
    await context.close();
  }
  // A Polish browser switches to Icelandic: the page is drawn again in it, and it is kept.
  const [pl, is] = [await strings("pl"), await strings("is")];
  const context = await browser.newContext({ locale: "pl-PL", viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${BASE}/`);
  await page.getByRole("heading", { name: pl["lobby.create"] }).waitFor();
  await page.getByLabel(pl["nav.language"]).selectOption("is");
  await page.getByRole("heading", { name: is["lobby.create"] }).waitFor();
  assert.equal(await page.locator("html").getAttribute("lang"), "is");
  await page.getByRole("navigation").getByRole("link", { name: is["nav.rules"] }).click();
  await page.getByRole("heading", { level: 1, name: is["rules.title"] }).waitFor();
  const again = await context.newPage();
  await again.goto(`${BASE}/`);
  await again.getByRole("heading", { name: is["lobby.create"] }).waitFor();
  await context.close();
});
