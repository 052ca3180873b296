// Browser tests of the table on a phone (390×844, touch): the maze, the whole hand and whose
// turn it is on one screen without scrolling; the players, the talk and the log a tap away, one
// at a time in the maze's place, by buttons a keyboard and a screen reader use too; and none of
// that on a desktop.

import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { artifacts, axe, BASE, browser, PHONE, setUp } from "./harness.mjs";
import { againstBots, selectLit } from "./play.mjs";

setUp();

/**
 * Where the table's parts are on the screen, and how far the page scrolls.
 * @param {import("playwright-core").Page} page
 */
const where = (page) =>
  page.evaluate(() => {
    const box = (/** @type {string} */ sel) => {
      const e = document.querySelector(sel);
      const r = e?.getBoundingClientRect();
      return r?.width && r.height ? { top: r.top, bottom: r.bottom, left: r.left, right: r.right } : null;
    };
    return {
      screen: { width: innerWidth, height: innerHeight },
      scrolled: scrollY,
      scrolls: document.documentElement.scrollHeight - innerHeight,
      banner: box(".turn-banner"),
      maze: box("section.play svg.board"),
      hand: box(".hand"),
      cards: [...document.querySelectorAll(".hand button")].map((b) => {
        const r = b.getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
      }),
      dock: box(".dock"),
      players: box("ul.players"),
      talk: box("input[name=text]"),
      log: box("ol.log"),
      replay: box("a[href^='/replay/']"),
    };
  });

/** Whether box `b` lies wholly on a screen of `s`. @param {{ top: number, bottom: number, left: number, right: number } | null} b @param {{ width: number, height: number }} s */
const onScreen = (b, s) => !!b && b.top >= 0 && b.left >= 0 && b.bottom <= s.height + 0.5 && b.right <= s.width + 0.5;

/**
 * A phone's page of Ada's seat at a table of `ruleset` with four medium bots, once it is her
 * turn. @param {string} ruleset
 */
async function yourTurnOnAPhone(ruleset) {
  const { id, joined } = await againstBots(ruleset, 5, "6b", "heuristic");
  const context = await browser.newContext({ locale: "en-US", viewport: PHONE, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  await page.goto(`${BASE}/play/${id}#token=${joined.player_token}`);
  await page
    .getByRole("status")
    .filter({ hasText: /^Your turn: select a card/ })
    .waitFor();
  return { context, page };
}

test("on a phone the maze, the whole hand and whose turn it is fit one screen; the players, the talk and the log are a tap away", async () => {
  const { context, page } = await yourTurnOnAPhone("base");
  await page
    .getByRole("list", { name: "Players", includeHidden: true })
    .filter({ hasText: /key [0-9a-f]{4} / })
    .waitFor({ state: "attached" });
  const at = await where(page);
  assert.equal(at.scrolled, 0, "the page at its top");
  assert.ok(at.scrolls <= 0, `nothing to scroll: ${at.scrolls} px more than the screen`);
  assert.ok(onScreen(at.banner, at.screen), `whose turn it is, on the screen: ${JSON.stringify(at.banner)}`);
  assert.ok(onScreen(at.maze, at.screen), `the maze's box on the screen: ${JSON.stringify(at.maze)}`);
  assert.ok(onScreen(at.hand, at.screen), `the whole hand on the screen: ${JSON.stringify(at.hand)}`);
  assert.equal(at.cards.length, 6, "six cards in the hand");
  for (const c of at.cards) assert.ok(onScreen(c, at.screen), `each card whole: ${JSON.stringify(c)}`);
  assert.ok(
    at.maze && at.banner && at.dock && at.banner.bottom <= at.maze.top && at.maze.bottom <= at.dock.top,
    `the banner over the maze, the maze over the docked hand: ${JSON.stringify([at.banner, at.maze, at.dock])}`,
  );
  assert.ok(at.maze && at.maze.bottom - at.maze.top >= 250, `the maze is ${at.maze?.bottom - at.maze?.top} px tall`);
  await page.screenshot({ path: join(artifacts, "phone-table.png") });

  // The buttons choosing what shows in the maze's place: the maze pressed.
  const bar = page.getByRole("group", { name: "Table" });
  const pressed = () =>
    bar
      .getByRole("button")
      .evaluateAll((bs) => bs.flatMap((b) => (b.getAttribute("aria-pressed") === "true" ? [b.textContent] : [])));
  assert.deepEqual(await bar.getByRole("button").allTextContents(), ["The maze", "Players", "Table talk", "Log"]);
  assert.deepEqual(await pressed(), ["The maze"]);
  assert.equal(await page.locator("ul.players").isVisible(), false, "the players hidden behind their button");

  // One tap each: the panel in view, in the maze's place, the hand still docked, nothing scrolled.
  for (const [name, part] of /** @type {const} */ ([
    ["Players", "players"],
    ["Table talk", "talk"],
    ["Log", "log"],
  ])) {
    await bar.getByRole("button", { name }).tap();
    assert.deepEqual(await pressed(), [name]);
    const now = await where(page);
    assert.equal(now.maze, null, `the maze gives way to ${name}`);
    const shown = now[part];
    assert.ok(
      shown && shown.top >= 0 && now.dock && shown.top < now.dock.top - 40,
      `${name} in view above the hand: ${JSON.stringify(shown)}, the hand from ${now.dock?.top}`,
    );
    assert.ok(onScreen(now.hand, now.screen), `the hand still on the screen with ${name}`);
    assert.equal(now.scrolled, 0, `the page still at its top with ${name}`);
    if (part === "log")
      assert.ok(onScreen(now.replay, now.screen), `the link to the replay in view: ${JSON.stringify(now.replay)}`);
    await page.screenshot({ path: join(artifacts, `phone-table-${part}.png`) });
  }
  await axe(page, "the table on a phone, the log shown");

  // By the keyboard: the focus stays on the button pressed, the panel shown; a redraw keeps both.
  const players = bar.getByRole("button", { name: "Players" });
  await players.focus();
  await page.keyboard.press("Enter");
  assert.deepEqual(await pressed(), ["Players"]);
  assert.equal(await players.evaluate((b) => b === document.activeElement), true, "the focus on the button");
  await page.getByRole("list", { name: "Players" }).waitFor();
  await bar.getByRole("button", { name: "Table talk" }).press("Space");
  await page.getByLabel("Message").fill("hello from the phone");
  await page.getByRole("button", { name: "Say" }).click();
  await page.locator("ul.talk").getByText("said: “hello from the phone”").waitFor();
  assert.deepEqual(await pressed(), ["Table talk"], "the talk still shown after the redraw");

  // A card selected shows the maze again, its lit cells in view over the hand.
  await bar.getByRole("button", { name: "Players" }).tap();
  assert.ok(await selectLit(page, true), "a card lights cells");
  assert.deepEqual(await pressed(), ["The maze"], "the maze shown for the card selected");
  const cell = await page.locator("rect.cell-legal").first().boundingBox();
  const selected = await where(page);
  assert.ok(
    cell && selected.dock && cell.y >= 0 && cell.y + cell.height <= selected.dock.top,
    `a lit cell in view over the hand: ${JSON.stringify(cell)}`,
  );
  await page.screenshot({ path: join(artifacts, "phone-table-selected.png") });
  await context.close();
});

test("on a phone a card's moves and a Saboteur 2 pass with every card it may take keep the maze's room, each button in view", async () => {
  const { context, page } = await yourTurnOnAPhone("saboteur2");
  const quiet = await where(page);
  // A card selected: a pass discards one to three cards (§9.2), so each of the five others is
  // offered to go with it.
  await page.getByRole("list", { name: "Your hand" }).getByRole("button").first().tap();
  const pass = page.getByRole("group", { name: "Pass" });
  await pass.waitFor();
  assert.equal(await pass.getByRole("checkbox").count(), 5, "every other card offered to go with the pass");
  const at = await where(page);
  const tall = (/** @type {{ top: number, bottom: number } | null} */ b) => (b ? b.bottom - b.top : 0);
  assert.ok(
    tall(at.maze) >= 250,
    `the maze is ${tall(at.maze)} px tall with the pass shown (${tall(quiet.maze)} before)`,
  );
  // Every move of the card, the pass's button among them, whole on the screen.
  const moves = page.getByRole("group", { name: "Moves for the selected card" }).getByRole("button");
  assert.ok((await moves.count()) >= 2, "the card's moves and its pass");
  for (const box of await moves.evaluateAll((bs) => bs.map((b) => b.getBoundingClientRect().toJSON())))
    assert.ok(onScreen(box, at.screen), `a move's button on the screen: ${JSON.stringify(box)}`);
  assert.equal(at.scrolled, 0, "the page still at its top");
  await page.screenshot({ path: join(artifacts, "phone-table-pass.png") });
  await axe(page, "the table on a phone, a pass with its choices");
  await context.close();
});

test("on a desktop every panel shows beside the maze, and no buttons choose among them", async () => {
  const { id, joined } = await againstBots("base", 3, "6b", "heuristic");
  const context = await browser.newContext({ locale: "en-US", viewport: { width: 1366, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${BASE}/play/${id}#token=${joined.player_token}`);
  await page.getByRole("list", { name: "Players" }).waitFor();
  assert.equal(await page.getByRole("group", { name: "Table" }).count(), 0, "no buttons choosing a panel");
  for (const part of ["section.play svg.board", "ul.players", "input[name=text]", "ol.log"])
    assert.ok(await page.locator(part).isVisible(), `${part} shown`);
  await context.close();
});
