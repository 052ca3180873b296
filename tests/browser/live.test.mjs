// Browser tests of a table kept up to date: a stream that goes silent (stuck somewhere between
// the page and the server) is opened again, and the page catches up with what it missed.

import assert from "node:assert/strict";
import { test } from "node:test";
import { BASE, browser, DESKTOP, post, setUp } from "./harness.mjs";

setUp();

test("a stream stuck silent is opened again after 15 s, and the page shows what it missed", async () => {
  const created = await post("/games", undefined, { ruleset: "base", players: 3 });
  const id = created.game_id;
  const ada = await post(`/games/${id}/seats`, undefined, { name: "Ada" });
  const bo = await post(`/games/${id}/seats`, undefined, { name: "Bo" });
  await post(`/games/${id}/bots`, created.host_token, { level: "random" });
  await post(`/games/${id}/start`, created.host_token);
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
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
