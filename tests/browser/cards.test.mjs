// Browser tests of the cards' art: the maze's cards drawn as cards (cut in earth, framed, their
// tunnels dug, a dead end blocked by rubble, the start's ladder, the goals' backs and faces) from
// art defined once on the page, the hand's cards as faces, read from the screen's pixels as well
// as from the drawing; at 1366×800 and on a phone, with axe.

import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { inflateSync } from "node:zlib";
import { artifacts, axe, BASE, browser, PHONE, setUp } from "./harness.mjs";
import { againstBots } from "./play.mjs";

setUp();

/**
 * The pixels of a PNG (8 bits a channel, RGB or RGBA, not interlaced, as Chromium's screenshots
 * are): its width and a function giving the [r, g, b] at (x, y). @param {Buffer} png
 */
function pixels(png) {
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const channels = png[25] === 6 ? 4 : 3;
  assert.equal(png[24], 8, "8 bits a channel");
  const idat = [];
  for (let at = 8; at < png.length; ) {
    const size = png.readUInt32BE(at);
    if (png.toString("latin1", at + 4, at + 8) === "IDAT") idat.push(png.subarray(at + 8, at + 8 + size));
    at += size + 12;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const out = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let i = 0; i < stride; i++) {
      const x = raw[y * (stride + 1) + 1 + i];
      const a = i >= channels ? out[y * stride + i - channels] : 0;
      const b = y ? out[(y - 1) * stride + i] : 0;
      const c = y && i >= channels ? out[(y - 1) * stride + i - channels] : 0;
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c)
          ? a
          : Math.abs(p - b) <= Math.abs(p - c)
            ? b
            : c;
      const add = [0, a, b, (a + b) >> 1, paeth][filter];
      out[y * stride + i] = (x + add) & 255;
    }
  }
  return {
    width,
    /** @param {number} x @param {number} y */
    at: (x, y) => [...out.subarray(y * stride + x * channels, y * stride + x * channels + 3)],
  };
}

/** How light a colour is (0–255). @param {number[]} rgb */
const light = ([r, g, b]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;

/**
 * The colours a person sees on a card of the maze, at points given in the card's own unit
 * square. @param {import("playwright-core").Page} page @param {string} label the card's accessible name
 * @param {Array<[number, number]>} points
 */
async function seen(page, label, points) {
  // The card's outline spans its cell from 0.03 to 0.97.
  const box = await page.evaluate((name) => {
    const card = [...document.querySelectorAll("svg.board g[role=img]")].find(
      (g) => g.getAttribute("aria-label") === name,
    );
    const r = card?.querySelector(".card-frame > rect, .card-back > rect")?.getBoundingClientRect();
    return r ? { x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height } : null;
  }, label);
  assert.ok(box, `${label} is on the screen`);
  const shot = pixels(await page.screenshot({ clip: box }));
  const k = shot.width / box.width;
  const to = (/** @type {number} */ u, /** @type {number} */ side) => Math.floor(((u - 0.03) / 0.94) * side * k);
  return points.map(([u, v]) => shot.at(to(u, box.width), to(v, box.height)));
}

/**
 * The player's table in `context`, once it stands still: their turn shown and their key
 * registered (the table drawn again once more).
 * @param {import("playwright-core").BrowserContext} context @param {string} id @param {string} token
 */
async function seated(context, id, token) {
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  await page.goto(`${BASE}/play/${id}#token=${token}`);
  await page.getByText("You play now").first().waitFor();
  await page
    .getByRole("list", { name: "Players", includeHidden: true })
    .filter({ hasText: /key [0-9a-f]{4} / })
    .waitFor({ state: "attached" });
  return page;
}

test("the maze's cards and the hand drawn as cards, from art defined once on the page", async () => {
  // A fixed deal: the player first to play, holding a dead end (second card) and a Map (third).
  const { id, joined } = await againstBots("base", 3, "77", "heuristic");
  const context = await browser.newContext({ locale: "en-US", viewport: { width: 1366, height: 800 } });
  const page = await seated(context, id, joined.player_token);
  /** What the page draws the cards with: the shared art, and what each card refers to. */
  const drawing = () =>
    page.evaluate(() => {
      const refs = (/** @type {Element} */ g) =>
        [...g.querySelectorAll("[fill^='url('], use")].map((e) => e.getAttribute("fill") ?? e.getAttribute("href"));
      const cards = [...document.querySelectorAll("svg.board g[role=img]")].map((g) => ({
        label: g.getAttribute("aria-label") ?? "",
        refs: refs(g),
        framed: !!g.querySelector(".card-frame, .card-back"),
        text: g.textContent,
      }));
      const hand = [...document.querySelectorAll(".hand button")].map((b) => ({
        name: b.textContent,
        refs: refs(b),
        face: b.querySelector("svg .card-face, svg .card-frame")?.getAttribute("data-art") ?? null,
      }));
      return {
        art: document.querySelectorAll("#card-art").length,
        defs: [...document.querySelectorAll("#card-art defs > [id]")].map((d) => `${d.tagName}#${d.id}`),
        // Nothing is defined on a card, nor anywhere else than in the shared art.
        elsewhere: document.querySelectorAll(
          "pattern:not(#card-art *), linearGradient:not(#card-art *), radialGradient:not(#card-art *)",
        ).length,
        cards,
        hand,
      };
    });
  const first = await drawing();
  assert.equal(first.art, 1, "the art is on the page once");
  for (const d of [
    "pattern#art-earth",
    "pattern#art-back",
    "linearGradient#art-shade",
    "linearGradient#art-paper",
    "radialGradient#art-gold",
    "radialGradient#art-stone",
    "g#art-rubble",
    "g#art-ladder",
  ])
    assert.ok(first.defs.includes(d), `${d} defined: ${first.defs}`);
  assert.equal(first.elsewhere, 0, "no pattern nor gradient drawn per card");
  // The start: a card cut in earth, shaded, its ladder in the middle.
  const start = first.cards.find((c) => c.label.endsWith("start card"));
  assert.ok(start?.framed, "the start card is framed");
  for (const r of ["url(#art-earth)", "url(#art-shade)", "#art-ladder"])
    assert.ok(start.refs.includes(r), `the start card shows ${r}: ${start.refs}`);
  // The goals, face down: the cards' back, its lattice and a question mark.
  const goals = first.cards.filter((c) => /goal/.test(c.label));
  assert.equal(goals.length, 3, "three goals");
  for (const g of goals) {
    assert.deepEqual(g.refs, ["url(#art-back)"], `${g.label}: the cards' back`);
    assert.equal(g.text, "?", `${g.label}: the back's mark`);
  }
  // The hand: path cards cut in earth, the dead end blocked by rubble; the Map a face on paper.
  assert.deepEqual(
    first.hand.map((c) => c.face),
    ["path", "path", "action", "path", "path", "path"],
  );
  for (const c of first.hand.filter((c) => c.face === "path"))
    assert.ok(c.refs.includes("url(#art-earth)"), `${c.name}: cut in earth`);
  assert.ok(first.hand[1].refs.includes("#art-rubble"), `the dead end is blocked: ${first.hand[1].refs}`);
  assert.ok(first.hand[2].refs.includes("url(#art-paper)"), `the Map is a face: ${first.hand[2].refs}`);
  // What a person sees: on the start, a light tunnel floor between dark walls, cut in brown earth;
  // on a goal's back, deep blue.
  const [floor, wall, earth, ladder] = await seen(page, "(0, 0): start card", [
    [0.5, 0.12],
    [0.36, 0.12],
    [0.17, 0.2],
    [0.41, 0.5],
  ]);
  assert.ok(light(floor) > 170, `the tunnel's floor is light: ${floor}`);
  assert.ok(light(wall) < 60, `its walls are dark: ${wall}`);
  assert.ok(light(earth) > 60 && light(earth) < 160 && earth[0] > earth[2] + 30, `the earth is brown: ${earth}`);
  assert.ok(ladder[0] > ladder[2] + 40, `the ladder is wood: ${ladder}`);
  const [back] = await seen(page, goals[1].label, [[0.25, 0.5]]);
  assert.ok(back[2] > back[0] + 20 && light(back) < 90, `the back is deep blue: ${back}`);
  await page.screenshot({ path: join(artifacts, "cards-desktop.png") });

  // The dead end laid by the start: lit cells drawn over the cards, then the card laid, blocked.
  const hand = page.getByRole("list", { name: "Your hand" }).getByRole("button");
  await hand.nth(1).click();
  const cell = page.locator("rect.cell-legal").first();
  await cell.waitFor();
  const onTop = await cell.evaluate((r) => {
    const b = r.getBoundingClientRect();
    return document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2) === r;
  });
  assert.ok(onTop, "a lit cell is drawn over the art");
  await cell.click();
  await page
    .getByRole("status")
    .filter({ hasText: /^Your turn: select a card/ })
    .waitFor();
  const laid = await drawing();
  const deadEnd = laid.cards.find((c) => /dead end/.test(c.label));
  assert.ok(deadEnd?.refs.includes("#art-rubble"), `the dead end on the maze is blocked: ${JSON.stringify(deadEnd)}`);
  assert.equal(laid.art, 1, "the art is still on the page once after redraws");
  assert.equal(laid.elsewhere, 0, "and nothing defined per card");
  assert.equal(await page.locator("svg.board rect.last-move").count(), 1, "the last move outlined");

  // A goal looked at with the Map: its face, gold with a star or stone with a boulder.
  await hand.filter({ hasText: "map" }).click();
  await page.getByRole("button", { name: "play map on the middle goal" }).press("Enter");
  await page.locator(".board .seen-goal").waitFor();
  const face = await page
    .locator("svg.board g[role=img]")
    .filter({ has: page.locator(".seen-goal") })
    .evaluate((g) => ({
      art: g.querySelector(".card-frame")?.getAttribute("data-art"),
      fill: g.querySelector(".card-frame rect")?.getAttribute("fill"),
      star: !!g.querySelector("use[href='#art-star']"),
      boulder: !!g.querySelector(".boulder"),
    }));
  assert.ok(
    face.art === "gold"
      ? face.fill === "url(#art-gold)" && face.star && !face.boulder
      : face.art === "stone" && face.fill === "url(#art-stone)" && face.boulder && !face.star,
    `the goal seen: ${JSON.stringify(face)}`,
  );
  await axe(page, "the cards' art at 1366×800");
  await context.close();
});

test("on a phone the maze's cards stay readable: each card a finger wide, its tunnels plain", async () => {
  const { id, joined } = await againstBots("base", 3, "77", "heuristic");
  const context = await browser.newContext({ locale: "en-US", viewport: PHONE, hasTouch: true, isMobile: true });
  const page = await seated(context, id, joined.player_token);
  const size = await page.evaluate(() => {
    const svg = /** @type {SVGSVGElement} */ (document.querySelector("svg.board"));
    const scale = svg.getScreenCTM()?.a ?? 0;
    const floor = Number(
      document.querySelector("svg.board .tunnel path:nth-of-type(2)")?.getAttribute("stroke-width") ?? 0,
    );
    return { card: scale, floor: floor * scale };
  });
  assert.ok(size.card >= 28, `a card is ${size.card} px wide`);
  assert.ok(size.floor >= 5, `a tunnel's floor is ${size.floor} px wide`);
  const [floor, earth] = await seen(page, "(0, 0): start card", [
    [0.5, 0.12],
    [0.17, 0.2],
  ]);
  assert.ok(light(floor) - light(earth) > 60, `the tunnel stands out from the earth: ${floor} on ${earth}`);
  await axe(page, "the cards' art on a phone");
  await page.screenshot({ path: join(artifacts, "cards-phone.png") });
  await context.close();
});
