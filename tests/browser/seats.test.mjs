// Browser tests of a player's own seat in a waiting room that moves on while the page shows it:
// a seat's acts before the start are signed at the lobby's version, which every change raises.

import assert from "node:assert/strict";
import { test } from "node:test";
import { BASE, browser, DESKTOP, get, post, setUp } from "./harness.mjs";

setUp();

/** Waits until `holds` says yes of the game as the server lists it; the last listing. */
async function listed(id, holds) {
  for (let tries = 0; ; tries++) {
    const game = await get(`/games/${id}`);
    if (holds(game)) return game;
    assert.ok(tries < 100, `the game never came to hold: ${JSON.stringify(game)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("a player's new name and leaving go through although the lobby moved on since the page read it, each signed again at the lobby's version", async () => {
  const { game_id: id } = await post("/games", undefined, { ruleset: "base", players: 5 });
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  // The page's clock, stopped below: the waiting room reads the lobby no more by itself.
  await context.clock.install();
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  /** @type {string[]} */
  const refused = [];
  page.on("response", (res) => {
    if (res.status() === 412) refused.push(`${res.request().method()} ${new URL(res.url()).pathname}`);
  });
  await page.goto(`${BASE}/play/${id}`);
  await page.getByRole("button", { name: "Join a seat" }).click();
  const myName = page.getByRole("textbox", { name: "Your name at the table:" });
  await myName.waitFor();
  const read = await listed(id, (g) => g.seats.length === 1);
  await page.clock.pauseAt(Date.now() + 500);
  // Two more players join through the API: the lobby's version moves on, the page does not see it.
  await post(`/games/${id}/seats`, undefined, { name: "Bo" });
  await post(`/games/${id}/seats`, undefined, { name: "Cy" });
  const moved = await get(`/games/${id}`);
  assert.ok(moved.lobby_version > read.lobby_version, `the lobby moved on: ${JSON.stringify(moved)}`);
  await myName.fill("Zed");
  await page.getByRole("button", { name: "Save the name" }).click();
  await listed(id, (g) => g.seats.some((s) => s.seat === 0 && s.name === "Zed"));
  assert.deepEqual(refused, [`PUT /games/${id}/seats/0/name`], "refused once at the old version, then taken");
  // Once more: another player joins, and the page's player leaves.
  await post(`/games/${id}/seats`, undefined, { name: "Dee" });
  await page.getByRole("button", { name: "Leave the game" }).click();
  const left = await listed(id, (g) => !g.seats.some((s) => s.seat === 0));
  assert.deepEqual(
    left.seats.map((s) => s.name),
    ["Bo", "Cy", "Dee"],
  );
  assert.equal(refused.length, 2, `the leave refused once too: ${refused}`);
  assert.equal(await page.getByRole("alert").filter({ hasText: /\S/ }).count(), 0, "no refusal shown");
  await context.close();
});
