// Browser tests of a table kept up to date: a stream that goes silent (stuck somewhere between
// the page and the server) is opened again, and the page catches up with what it missed; a
// read of the table under way when a card is played does not take the card back off the maze,
// a card the server refuses goes back to the hand, and a card whose drawing fails is played all
// the same; a read of the table that is never answered is given up, and the page reads again;
// news drawn while a person holds a card pressed does not take their click away.

import assert from "node:assert/strict";
import { test } from "node:test";
import { BASE, browser, DESKTOP, EN, post, setUp, thrownSoFar } from "./harness.mjs";
import { againstBots, atTheTable, drawn, selectLit } from "./play.mjs";

setUp();

/**
 * A started base game of Ada and Bo, two people, and a random bot, and a desktop page (not yet
 * at the table) for Ada.
 */
async function twoPeopleAndABot() {
  const created = await post("/games", undefined, { ruleset: "base", players: 3 });
  const id = created.game_id;
  const ada = await post(`/games/${id}/seats`, undefined, { name: "Ada" });
  const bo = await post(`/games/${id}/seats`, undefined, { name: "Bo" });
  await post(`/games/${id}/bots`, created.host_token, { level: "random" });
  await post(`/games/${id}/start`, created.host_token);
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  return { id, ada, bo, context, page: await context.newPage() };
}

test("a stream stuck silent is opened again after 15 s, and the page shows what it missed", async () => {
  const { id, ada, bo, context, page } = await twoPeopleAndABot();
  // The page's first stream is answered never: no event, no keep-alive.
  const streams = [];
  await page.route(`**/games/${id}/events/stream*`, async (route) => {
    streams.push(Date.now());
    if (streams.length === 1) return;
    await route.continue();
  });
  await page.goto(`${BASE}/play/${id}#token=${ada.player_token}`);
  // The seat's key registered (a write of the page's own, which reads the table after it).
  await page
    .getByRole("list", { name: "Players" })
    .filter({ hasText: /key [0-9a-f]{4} / })
    .waitFor();
  await page.waitForTimeout(500);
  const opened = Date.now();
  // Another player speaks while this page hears nothing.
  await post(`/games/${id}/talk`, bo.player_token, { text: "can anyone hear me?" });
  await page.locator("ul.talk").getByText("can anyone hear me?").waitFor({ timeout: 30000 });
  const caught = Date.now() - opened;
  console.log(`a silent stream: opened again after ${streams[1] - streams[0]} ms, the page caught up in ${caught} ms`);
  assert.ok(streams.length >= 2, "the stream was opened again");
  assert.ok(streams[1] - streams[0] >= 14000, `not before its silence was long: ${streams[1] - streams[0]} ms`);
  await context.close();
});

test("a read of the table never answered is given up after 15 s, and the page reads again and shows what it missed", async () => {
  const { id, joined } = await againstBots("base", 4, "5c", "heuristic", { spectator_talk: true });
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  // The page's clock, moved on by the test: its timers run as usual until then.
  await context.clock.install();
  const page = await atTheTable(context, id, joined.player_token);
  // The next read of the table reaches nowhere: no answer, no error.
  let hung = false;
  await page.route(`**/games/${id}/table*`, async (route) => {
    if (hung) return route.continue();
    hung = true;
  });
  const givenUp = page.waitForEvent("requestfailed", (r) => r.url().includes(`/games/${id}/table`));
  await post(`/games/${id}/talk`, undefined, { text: "anyone there?", name: "Cy" });
  const said = page.locator("ul.talk").getByText("anyone there?");
  // The stream brought the news; the read it asked for waits.
  await assert.rejects(said.waitFor({ timeout: 2000 }), "not shown while the read waits");
  assert.ok(hung, "the page read the table");
  await context.clock.fastForward(15000);
  const failed = await givenUp;
  console.log(`a read never answered: given up (${failed.failure()?.errorText})`);
  await said.waitFor({ timeout: 10000 });
  assert.deepEqual(thrownSoFar(), []);
  await context.close();
});

test("a path card played while the table is being read stays on the maze until the move's answer is read", async () => {
  // A fixed deal: the player first to play, with a path card to lay; spectators may talk.
  const { id, joined } = await againstBots("base", 4, "5c", "heuristic", { spectator_talk: true });
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await atTheTable(context, id, joined.player_token);
  page.setDefaultTimeout(15000);
  // The next read of the table is answered by the server at once but given to the page only
  // when the test says; the move is held on its way to the server until then.
  /** @param {(v?: unknown) => void} _ */
  const unset = (_) => {};
  let [releaseRead, releaseMove, readHeld, moveHeld] = [unset, unset, unset, unset];
  const reading = new Promise((r) => {
    readHeld = r;
  });
  const moving = new Promise((r) => {
    moveHeld = r;
  });
  let armed = true;
  await page.route(`**/games/${id}/table*`, async (route) => {
    if (!armed) return route.continue();
    armed = false;
    const response = await route.fetch();
    readHeld();
    await new Promise((r) => {
      releaseRead = r;
    });
    await route.fulfill({ response });
  });
  await page.route(`**/games/${id}/commands`, async (route) => {
    moveHeld();
    await new Promise((r) => {
      releaseMove = r;
    });
    await route.continue();
  });
  // A spectator speaks: the stream brings it, and the page reads the table (held).
  await post(`/games/${id}/talk`, undefined, { text: "good luck", name: "Cy" });
  await reading;
  assert.ok(await selectLit(page), "a path card lights a cell");
  const cell = page.locator("rect.cell-legal").first();
  const where = /** @type {string} */ (await cell.getAttribute("aria-label")).match(/\(-?\d+, -?\d+\)/)?.[0];
  const at = await page.locator("main").getAttribute("data-version");
  // Whether the card, once drawn at its cell, was ever drawn away again.
  await page.evaluate((where) => {
    const laid = () => !!document.querySelector(`svg.board [role=img][aria-label^="${where}:"]`);
    const w = /** @type {{ seenLaid?: boolean, vanished?: boolean }} */ (/** @type {unknown} */ (window));
    new MutationObserver(() => {
      if (laid()) w.seenLaid = true;
      else if (w.seenLaid) w.vanished = true;
    }).observe(document.body, { childList: true, subtree: true });
  }, where);
  const answer = page.waitForResponse((r) => r.url().endsWith("/commands") && r.request().method() === "POST");
  await cell.click();
  await moving;
  // The read sent before the move comes back first, without the card.
  releaseRead();
  await page.waitForTimeout(300);
  const between = await page.evaluate(() => {
    const w = /** @type {{ seenLaid?: boolean, vanished?: boolean }} */ (/** @type {unknown} */ (window));
    return { seenLaid: !!w.seenLaid, vanished: !!w.vanished };
  });
  releaseMove();
  const res = await answer;
  assert.equal(res.status(), 200, "the move is taken");
  await drawn(page, at, Promise.resolve(res));
  await page.locator(`svg.board [role=img][aria-label^="${where}:"]`).waitFor();
  assert.deepEqual(between, { seenLaid: true, vanished: false }, "the card stayed where it was played");
  await context.close();
});

test("a path card the server refuses goes back to the hand, the maze as it was, and the page says why in a player's words", async () => {
  const { id, joined } = await againstBots("base", 4, "5c", "heuristic");
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await atTheTable(context, id, joined.player_token);
  page.setDefaultTimeout(15000);
  // The move reaches the server as chosen at version 1, long gone: the server's own 412.
  await page.route(`**/games/${id}/commands`, async (route) => {
    const response = await route.fetch({ headers: { ...route.request().headers(), "if-match": '"1"' } });
    await route.fulfill({ response });
  });
  const hand = page.getByRole("list", { name: "Your hand" }).getByRole("button");
  const held = await hand.allTextContents();
  const at = await page.locator("main").getAttribute("data-version");
  assert.ok(await selectLit(page), "a path card lights a cell");
  const cell = page.locator("rect.cell-legal").first();
  const where = /** @type {string} */ (await cell.getAttribute("aria-label")).match(/\(-?\d+, -?\d+\)/)?.[0];
  const laid = page.locator(`svg.board [role=img][aria-label^="${where}:"]`);
  const answer = page.waitForResponse((r) => r.url().endsWith("/commands") && r.request().method() === "POST");
  await cell.click();
  assert.equal((await answer).status(), 412, "the server refused the move");
  const alert = page.getByRole("alert").filter({ hasText: EN["problem.precondition_failed"] });
  await alert.waitFor();
  // At once, not when a move's hold on the table's reads runs out (10 s).
  await laid.waitFor({ state: "detached", timeout: 5000 });
  assert.deepEqual(await hand.allTextContents(), held, "the card back in the hand, the hand as it was");
  assert.equal(await page.locator("main").getAttribute("data-version"), at, "nothing recorded");
  await context.close();
});

test("a path card whose drawing at once fails is played all the same, and the failure is thrown where it is seen", async () => {
  const { id, joined } = await againstBots("base", 4, "6d", "heuristic");
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await atTheTable(context, id, joined.player_token);
  page.setDefaultTimeout(15000);
  const at = await page.locator("main").getAttribute("data-version");
  assert.ok(await selectLit(page), "a path card lights a cell");
  // At the tap, before the page's own handler runs, the table's next drawing is made to fail
  // (once: the page's own method comes back with the throw).
  await page.evaluate(() => {
    const main = /** @type {HTMLElement & { replaceChildren: (...n: (Node | string)[]) => void }} */ (
      document.getElementById("main")
    );
    document.addEventListener(
      "click",
      () => {
        main.replaceChildren = () => {
          delete (/** @type {{ replaceChildren?: unknown }} */ (main).replaceChildren);
          throw new Error("a drawing that fails");
        };
      },
      { capture: true, once: true },
    );
  });
  const answer = page.waitForResponse((r) => r.url().endsWith("/commands") && r.request().method() === "POST");
  await page.locator("rect.cell-legal").first().click();
  const res = await answer;
  assert.ok(res.ok(), `the move was sent and recorded: ${res.status()}`);
  await drawn(page, at, Promise.resolve(res));
  const thrown = thrownSoFar();
  assert.ok(
    thrown.some((e) => e.includes("a drawing that fails")),
    `the drawing's failure was thrown: ${thrown.join("; ")}`,
  );
  await context.close();
});

test("news read while a card is pressed is drawn once it is released: the click selects the card; a right button holds nothing", async () => {
  const { id, ada, bo, context, page } = await twoPeopleAndABot();
  await page.goto(`${BASE}/play/${id}#token=${ada.player_token}`);
  await page
    .getByRole("list", { name: "Players" })
    .filter({ hasText: /key [0-9a-f]{4} / })
    .waitFor();
  const card = page.getByRole("list", { name: "Your hand" }).getByRole("button").first();
  const box = await card.boundingBox();
  assert.ok(box, "the hand's first card is on the screen");
  const at = await page.locator("main").getAttribute("data-version");
  // The mouse button goes down on the card; another player speaks, and the page reads it.
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  const read = page.waitForResponse((r) => r.url().includes(`/games/${id}/table`));
  await post(`/games/${id}/talk`, bo.player_token, { text: "your move, Ada" });
  await read;
  // A page that drew now would take the pressed card away from under the button: given the
  // time to, it shows the news with the button still down.
  const redrawn = await page
    .waitForFunction((v) => document.querySelector("main")?.dataset.version !== v, at, { timeout: 2000 })
    .then(() => true)
    .catch(() => false);
  assert.equal(redrawn, false, "nothing redrawn while the button is down");
  await page.mouse.up();
  await page.locator(".hand button[aria-pressed=true]").waitFor();
  await page.locator("ul.talk").getByText("your move, Ada").waitFor();
  assert.notEqual(await page.locator("main").getAttribute("data-version"), at, "the news drawn after the release");
  // Another button's press ends in no click (its release may go to a context menu): the news
  // is drawn while it is down.
  await page.mouse.down({ button: "right" });
  await post(`/games/${id}/talk`, bo.player_token, { text: "still there?" });
  await page.locator("ul.talk").getByText("still there?").waitFor();
  await page.mouse.up({ button: "right" });
  await context.close();
});

test("the last move's mark pulses once, when the move is new, and stays still through a redraw for other news", async () => {
  // A fixed deal: the player first to play, with a path card to lay; spectators may talk.
  const { id, joined } = await againstBots("base", 3, "77", "heuristic", { spectator_talk: true });
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await atTheTable(context, id, joined.player_token);
  page.setDefaultTimeout(15000);
  // Every mark of the last move the page draws, in turn: what it names and whether it is still.
  await page.evaluate(() => {
    const w = /** @type {{ marks?: Array<[string, boolean]> }} */ (/** @type {unknown} */ (window));
    w.marks = [];
    new MutationObserver((records) => {
      for (const r of records)
        for (const n of r.addedNodes)
          if (n instanceof Element)
            for (const m of n.querySelectorAll("rect.last-move"))
              w.marks?.push([m.getAttribute("aria-label") ?? "", m.classList.contains("still")]);
    }).observe(document.body, { childList: true, subtree: true });
  });
  const marks = () =>
    page.evaluate(() => /** @type {{ marks: Array<[string, boolean]> }} */ (/** @type {unknown} */ (window)).marks);
  /** Ada lays a path card, and the bots answer. */
  const move = async () => {
    assert.ok(await selectLit(page), "a path card lights a cell");
    const at = await page.locator("main").getAttribute("data-version");
    const answer = page.waitForResponse((r) => r.url().endsWith("/commands") && r.request().method() === "POST");
    await page.locator("rect.cell-legal").first().click();
    await drawn(page, at, answer);
    await page.getByText("You play now").first().waitFor();
  };
  await move();
  // A spectator speaks, and the page draws the table again for it.
  const before = (await marks()).length;
  await post(`/games/${id}/talk`, undefined, { text: "nice tunnel", name: "Cy" });
  await page.locator("ul.talk").getByText("nice tunnel").waitFor();
  const redrawn = (await marks()).slice(before - 1);
  assert.ok(redrawn.length > 1, "the board drawn again for the message");
  for (const [label, still] of redrawn.slice(1)) {
    assert.equal(label, redrawn[0][0], "the same move marked");
    assert.equal(still, true, `the mark of ${label} drawn again stays still`);
  }
  const running = await page.locator("rect.last-move").evaluate((m) => m.getAnimations().length);
  assert.equal(running, 0, "the mark drawn for the message does not pulse");
  // The next move's mark pulses again: each move's first mark is new, every later one still.
  await move();
  const seen = await marks();
  assert.ok(new Set(seen.map(([label]) => label)).size >= 2, `two moves marked: ${seen.join(" / ")}`);
  seen.forEach(([label, still], i) => {
    const first = i === 0 || seen[i - 1][0] !== label;
    assert.equal(still, !first, `${label} (${first ? "new" : "drawn again"})`);
  });
  await context.close();
});
