// Browser tests of games of more than one person: two whole games by two people, side by side,
// and the host's acts through the table on a game with guests.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { axe, BASE, browser, createFromLobby, DESKTOP, EN, get, PHONE, setUp } from "./harness.mjs";
import { playOne, playToTheEnd } from "./play.mjs";
import { strings } from "./strings.mjs";

setUp();

// The two games by two people wait on each other's moves far more than they compute: they are
// played side by side, each in its own browser contexts, on the one server.
describe("whole games by two people", { concurrency: true }, () => {
  test("two people play a whole Saboteur 2 game at two players, set up through the lobby and an invite link, one in Polish on a phone", async () => {
    const pl = await strings("pl");
    const hostContext = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
    const host = await hostContext.newPage();
    host.setDefaultTimeout(15000);
    const id = await createFromLobby(host, { ruleset: "saboteur2", players: 2, bots: 0 });
    await host.getByRole("button", { name: "Create an invite link" }).click();
    const link = await host.getByRole("link", { name: /[#&]token=/ }).getAttribute("href");
    const guestContext = await browser.newContext({ locale: "pl-PL", viewport: PHONE, hasTouch: true, isMobile: true });
    const guest = await guestContext.newPage();
    guest.setDefaultTimeout(15000);
    await guest.goto(BASE + link);
    await guest.getByRole("heading", { level: 1 }).waitFor();
    await host.getByRole("button", { name: "Start the game" }).click();
    // Both play at once, each when it is their turn, each in their language, to the end.
    const [a, b] = await Promise.all([playToTheEnd(host), playToTheEnd(guest, pl)]);
    console.log(
      `two people, Saboteur 2 at 2: ${a.turns} and ${b.turns} turns: ${JSON.stringify([...a.made])} ${JSON.stringify([...b.made])}`,
    );
    assert.ok(a.turns > 3 && b.turns > 3, "both played");
    const verdict = await get(`/games/${id}/audit/verdict`);
    assert.ok(verdict.ok, `the game verifies: ${verdict.discrepancy}`);
    assert.ok(
      verdict.report.signatures_checked >= a.turns + b.turns,
      `every move signed: ${verdict.report.signatures_checked}`,
    );
    assert.match(await host.locator(".turn-banner").textContent(), /^Game over/);
    assert.ok(
      (await guest.locator(".turn-banner").textContent()).startsWith(pl["table.over"]),
      "the guest's game over, in Polish",
    );
    // Nobody reads as away at game over (the streams end with the game), the host's own page
    // included, and after a reload too.
    assert.doesNotMatch(await host.locator(".players").textContent(), /\(away\)/);
    await host.reload();
    await host.locator(".players").waitFor();
    assert.doesNotMatch(await host.locator(".players").textContent(), /\(away\)|\(connected\)/);
    await axe(guest, "two people, the guest's game over");
    await hostContext.close();
    await guestContext.close();
  });

  test("two people and an expert bot play a whole base game at three players: one by the keyboard alone, one in Spanish on a phone", async () => {
    const es = await strings("es");
    const hostContext = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
    const host = await hostContext.newPage();
    host.setDefaultTimeout(15000);
    // The bot is the expert ("hard"), which searches: it plays a whole game at a table of people.
    const id = await createFromLobby(host, { ruleset: "base", players: 3, bots: 1, keys: true, level: "expert" });
    await host.getByRole("button", { name: "Create an invite link" }).press("Enter");
    const link = await host.getByRole("link", { name: /[#&]token=/ }).getAttribute("href");
    const guestContext = await browser.newContext({ locale: "es-ES", viewport: PHONE, hasTouch: true, isMobile: true });
    const guest = await guestContext.newPage();
    guest.setDefaultTimeout(15000);
    await guest.goto(BASE + link);
    await guest.getByRole("heading", { level: 1 }).waitFor();
    await host.getByRole("button", { name: "Start the game" }).press("Enter");
    const [a, b] = await Promise.all([playToTheEnd(host, EN, true), playToTheEnd(guest, es)]);
    console.log(
      `two people and an expert bot, base at 3: ${a.turns} and ${b.turns} turns: ${JSON.stringify([...a.made])} ${JSON.stringify([...b.made])}`,
    );
    assert.ok(a.turns > 3 && b.turns > 3, "both played");
    const verdict = await get(`/games/${id}/audit/verdict`);
    assert.ok(verdict.ok, `the game verifies: ${verdict.discrepancy}`);
    // The bot's moves were the expert's, each chosen again by the audit.
    const log = await get(`/games/${id}/events?limit=1000`);
    const levels = new Set(log.events.filter((e) => e.event.bot).map((e) => e.event.bot.level));
    assert.deepEqual([...levels], ["expert"]);
    assert.match(await host.locator(".turn-banner").textContent(), /^Game over/);
    assert.ok(
      (await guest.locator(".turn-banner").textContent()).startsWith(es["table.over"]),
      "the guest's game over, in Spanish",
    );
    await hostContext.close();
    await guestContext.close();
  });
});

test("the host's acts through the table: a bot seated, a player leaving, a rollback with its reason, a seat handed to a bot and back, a new link", async () => {
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  const id = await createFromLobby(page, { ruleset: "base", players: 3, bots: 0 });
  // A guest joins by the invite link, then leaves before the start.
  await page.getByRole("button", { name: "Create an invite link" }).click();
  const link = await page.getByRole("link", { name: /[#&]token=/ }).getAttribute("href");
  const guestContext = await browser.newContext({ locale: "en-US", viewport: PHONE });
  const guest = await guestContext.newPage();
  await guest.goto(BASE + link);
  await guest.getByText(/^Seats: 2\/3/).waitFor();
  await guest.getByRole("button", { name: "Leave the game" }).click();
  await guest.getByText(/^Seats: 1\/3/).waitFor();
  await guestContext.close();
  // Another guest takes a seat by a second link (and stays, without a page: the game waits for
  // them); the host seats a bot from the table, and starts.
  await page.reload();
  await page.getByRole("button", { name: "Create an invite link" }).click();
  const other = new URLSearchParams(
    (await page.getByRole("link", { name: /[#&]token=/ }).getAttribute("href")).split("#")[1],
  );
  await page.reload();
  await page.getByText(/^Seats: 2\/3/).waitFor();
  await page.getByRole("button", { name: "Seat a bot" }).click();
  await page.getByText(/^Seats: 3\/3/).waitFor();
  await page.getByRole("button", { name: "Start the game" }).click();
  // Until the host has moved once: the other guest's turns are played through the API.
  const turn = page.getByRole("status").filter({ hasText: /^Your turn/ });
  for (let played = false; !played; ) {
    await page.locator("main[data-version]").waitFor();
    const at = await page.locator("main").getAttribute("data-version");
    const state = await get(`/games/${id}/state`);
    if (state.view.phase.awaited === Number(other.get("seat"))) {
      const auth = { authorization: `Bearer ${other.get("token")}` };
      const legal = await (await fetch(`${BASE}/games/${id}/legal-moves`, { headers: auth })).json();
      const res = await fetch(`${BASE}/games/${id}/commands`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify(legal.commands[0]),
      });
      assert.ok(res.ok, `the other guest's move: ${res.status}`);
    } else {
      await turn.waitFor();
      assert.ok(await playOne(page, "path"), "the host played");
      played = true;
    }
    await page.waitForFunction((v) => document.querySelector("main")?.dataset.version !== v, at);
  }
  // A rollback to before a move, with its reason, recorded for everyone to read.
  await page.locator("details.host summary").click();
  const rollback = page.getByRole("form", { name: "Roll back" });
  const options = await rollback.getByRole("combobox").locator("option").count();
  assert.ok(options >= 1, "earlier moves to go back to");
  await rollback.getByRole("textbox").fill("a misclick");
  await rollback.getByRole("button", { name: "Roll back" }).click();
  // Said in moves, as a player counts them (the default is before the latest move).
  const undone = page
    .locator(".log li")
    .filter({ hasText: /undone: / })
    .first();
  await undone.waitFor();
  assert.match(await undone.textContent(), /^#\d+ undone: (one move|\d+ moves) taken back \(a misclick\)$/);
  // The host's own seat handed to a bot, then taken back (the panel stays open across redraws).
  await page.getByRole("button", { name: /^Hand Player to a bot$/ }).click();
  await page.getByText("A bot is playing your seat.").waitFor();
  await page.getByRole("button", { name: "Take my seat back" }).click();
  await page.getByText("A bot is playing your seat.").waitFor({ state: "detached" });
  await axe(page, "host panel");
  // A new link for a seat: the old token no longer acts.
  await page.getByRole("button", { name: "New link for Player" }).click();
  const fresh = await page
    .locator("details.host a")
    .filter({ hasText: /[#&]token=/ })
    .getAttribute("href");
  assert.match(fresh, /#seat=\d+&token=[0-9a-f]{64}$/);
  const log = await get(`/games/${id}/events?after=0&limit=1000`);
  const kinds = new Set(log.events.map((e) => e.event.type));
  for (const k of ["undone", "seat_handed_to_bot", "seat_reclaimed", "token_reissued"])
    assert.ok(kinds.has(k), `the record holds ${k}`);
  // The new link's holder opens it: their browser registers its key, proved for the seat from
  // the new token on (record version 7: a proof made earlier would not do).
  const reissued = Math.max(...log.events.filter((e) => e.event.type === "token_reissued").map((e) => e.seq));
  const holder = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  await (await holder.newPage()).goto(new URL(fresh, BASE).href);
  let registered;
  for (let i = 0; i < 100 && !registered; i++) {
    const after = await get(`/games/${id}/events?after=${reissued}&limit=1000`);
    registered = after.events.find((e) => e.event.type === "seat_key_registered");
    if (!registered) await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(registered, "the new holder's key is registered");
  assert.ok(
    registered.event.at >= reissued && registered.event.at < registered.seq,
    `its proof is dated from the new token on: ${JSON.stringify(registered)}`,
  );
  await holder.close();
  await context.close();
});
