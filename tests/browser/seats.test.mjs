// Browser tests of a player's own seat before the start: its acts in a waiting room that moves
// on while the page shows it (signed at the lobby's version, which every change raises), a move
// to another place in the order of play, and a rematch's seat taken back with the commitment to
// a new share, revealed by the page.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
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

test("a player moves to another place in the order of play from the waiting room: the new seat's commitment is kept, and the page acts from that seat", async () => {
  const { game_id: id } = await post("/games", undefined, { ruleset: "base", players: 4 });
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  await page.goto(`${BASE}/play/${id}`);
  await page.getByRole("button", { name: "Join a seat" }).click();
  await listed(id, (g) => g.seats.length === 1);
  await post(`/games/${id}/seats`, undefined, { name: "Bo" });
  const place = page.getByRole("combobox", { name: /^Your place in the order of play \(of 4\):/ });
  // Seat 1 is Bo's: the page offers its own place and the free ones (1, 3 and 4).
  await page.waitForFunction(() => document.querySelectorAll("form.place option").length === 3);
  assert.deepEqual(await place.locator("option").allTextContents(), ["1", "3", "4"]);
  await place.selectOption("3");
  await page.getByRole("button", { name: "Move there" }).click();
  const moved = await listed(id, (g) => g.seats.some((s) => s.seat === 2 && s.name !== "Bo"));
  assert.deepEqual(moved.seats.map((s) => s.seat).sort(), [1, 2], "seat 0 is free");
  // The page redraws its place as the seat it now holds (the attribute, which the reader's
  // choice before the click does not set), once it has kept the reply.
  await page.waitForFunction(
    () => document.querySelector("form.place option[selected]")?.getAttribute("value") === "2",
  );
  const kept = await page.evaluate((id) => JSON.parse(localStorage.getItem(`saboteur:${id}`) ?? "{}"), id);
  assert.equal(kept.seat, 2);
  assert.equal(kept.commitment.seat, 2, "the new seat's commitment is kept");
  // The page's next act is its new seat's.
  await page.getByRole("textbox", { name: "Your name at the table:" }).fill("Zed");
  await page.getByRole("button", { name: "Save the name" }).click();
  await listed(id, (g) => g.seats.some((s) => s.seat === 2 && s.name === "Zed"));
  assert.equal(await page.getByRole("alert").filter({ hasText: /\S/ }).count(), 0, "no refusal shown");
  await context.close();
});

test("a rematch's seat taken back by its player's page with the commitment to a new share: the host closes the lobby, the page reveals the share, and the record's share opens it", async () => {
  // The first game: a player and two bots; the host hands the player's seat to a bot, and the
  // bots play it out.
  const first = await post("/games", undefined, { ruleset: "base", players: 3 });
  const ada = await post(`/games/${first.game_id}/seats`, undefined, { name: "Ada" });
  for (let i = 0; i < 2; i++) await post(`/games/${first.game_id}/bots`, first.host_token, { level: "random" });
  await post(`/games/${first.game_id}/start`, first.host_token);
  await post(`/games/${first.game_id}/seats/${ada.seat}/handover`, first.host_token, { level: "random" });
  await listed(first.game_id, (g) => g.status === "finished");
  const second = await post(`/games/${first.game_id}/rematch`, first.host_token);
  const id = second.game_id;
  // The player's browser holds the first game's seat, as it would had it played there.
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  await context.addInitScript(
    ([game, token, seat]) => {
      if (location.protocol.startsWith("http"))
        localStorage.setItem(`saboteur:${game}`, JSON.stringify({ token, seat }));
    },
    [first.game_id, ada.player_token, ada.seat],
  );
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  await page.goto(`${BASE}/play/${id}`);
  await page.getByRole("button", { name: "Take my seat" }).click();
  await page.getByRole("button", { name: "Leave the game" }).waitFor();
  const kept = await page.evaluate((game) => JSON.parse(localStorage.getItem(`saboteur:${game}`) ?? "{}"), id);
  assert.equal(kept.seat, ada.seat);
  assert.match(kept.share, /^[0-9a-f]{64}$/);
  assert.equal(kept.commitment.entropy ?? null, null, "no share named before the close");
  const lobby = await listed(id, (g) => g.seats.length === 3 && !g.seats.some((s) => s.reserved));
  assert.equal(lobby.seats.find((s) => s.seat === ada.seat).share, "committed");
  // The host closes the lobby; the page reveals by itself, and its share starts the game.
  await post(`/games/${id}/close`, second.host_token);
  await page.locator("svg.board").waitFor({ timeout: 20000 });
  const log = await get(`/games/${id}/events?after=0&limit=1000`);
  const mixed = log.events.find((r) => r.event.type === "seed_mixed").event;
  const committed = mixed.committed.find((c) => c.seat === ada.seat);
  assert.equal(committed?.commitment, kept.commitment.share_commitment);
  const share = mixed.contributions.find((c) => c.seat === ada.seat)?.entropy;
  assert.equal(share, kept.share, "the share the page kept is the one mixed");
  const opened = createHash("sha256")
    .update(Buffer.concat([Buffer.from("saboteur share commitment v1", "ascii"), Buffer.from(share, "hex")]))
    .digest("hex");
  assert.equal(opened, committed.commitment);
  await context.close();
});
