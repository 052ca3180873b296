// Browser tests of the expert's analysis in the replay: where a player lands on opening the
// replay of their own game, and what the page shows while the analysis is weighed.

import assert from "node:assert/strict";
import { test } from "node:test";
import { BASE, browser, DESKTOP, get, post, setUp } from "./harness.mjs";

setUp();

test("a player's replay of their finished game opens on their own seat: the replay at once, a sign of the expert's work, then its analysis beside the board", async () => {
  // A game the player's seat finished in the hands of a bot (handed over by the host).
  const created = await post("/games", undefined, { ruleset: "base", players: 3 });
  const id = created.game_id;
  const joined = await post(`/games/${id}/seats`, undefined, { name: "Ada" });
  for (let i = 0; i < 2; i++) await post(`/games/${id}/bots`, created.host_token, { level: "random" });
  await post(`/games/${id}/start`, created.host_token);
  await post(`/games/${id}/seats/${joined.seat}/handover`, created.host_token, { level: "random" });
  for (let i = 0; i < 300 && (await get(`/games/${id}`)).status !== "finished"; i++)
    await new Promise((r) => setTimeout(r, 100));
  assert.equal((await get(`/games/${id}`)).status, "finished", "the bots finished the game");
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${BASE}/`);
  await page.evaluate(
    ([id, token, seat]) => localStorage.setItem(`saboteur:${id}`, JSON.stringify({ token, seat })),
    [id, joined.player_token, joined.seat],
  );
  // The analysis held back until the page has shown the replay and said it is being weighed.
  /** @type {() => void} */
  let release = () => {};
  const held = new Promise((r) => {
    release = () => r(undefined);
  });
  await page.route(`**/games/${id}/analysis?seat=*`, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`${BASE}/replay/${id}`);
  await page.getByText(/^Step \d+ of/).waitFor();
  assert.equal(new URL(page.url()).searchParams.get("as"), String(joined.seat), "the player's own seat");
  const working = page.getByRole("status").filter({ hasText: "The expert is weighing the moves" });
  await working.waitFor();
  release();
  const section = page.getByRole("region", { name: "The expert's view of Ada's moves" });
  await section.waitFor();
  await section.getByText(/Moves: \d+\./).waitFor();
  assert.equal(await working.count(), 0, "the sign of work goes with the analysis");
  // Beside the board, not under it: the section starts above the board's bottom.
  const [board, aside] = await Promise.all([page.locator("svg.board").first().boundingBox(), section.boundingBox()]);
  assert.ok(
    board && aside && aside.y < board.y + board.height && aside.x >= board.x + board.width - 1,
    `beside the board: ${JSON.stringify({ board, aside })}`,
  );
  await context.close();
});
