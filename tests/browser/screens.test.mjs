// Browser tests of what a person sees at a round's end and after it: the end opened at its top
// under its own banner on a phone, every column of its tables in reach, its words as a player
// says them (in Polish), the next deal's maze with nothing of the last round outlined on it;
// and the hand's cards each named once.

import assert from "node:assert/strict";
import { test } from "node:test";
import { BASE, browser, countFlights, DESKTOP, fill, findDeal, PHONE, post, setUp } from "./harness.mjs";
import { strings } from "./strings.mjs";

setUp();

/**
 * Plays game `id` through the API, each seat's first legal move (a path card where it has one,
 * a gold card to keep when asked), as fast as the server answers, until round `until` is dealt.
 * @param {string} id @param {{ seat: number, player_token: string }[]} seats @param {number} until
 */
async function playUntilDealt(id, seats, until) {
  for (let turns = 0; turns < 400; turns++) {
    const view = (await (await fetch(`${BASE}/games/${id}/state`)).json()).view;
    if (view.round >= until) return;
    const seat = seats.find((s) => s.seat === view.phase.awaited);
    assert.ok(seat, `a seat of the test's is awaited: ${JSON.stringify(view.phase)}`);
    const auth = { authorization: `Bearer ${seat.player_token}` };
    const legal = (await (await fetch(`${BASE}/games/${id}/legal-moves`, { headers: auth })).json()).commands;
    const move = legal.find((c) => c.type === "play_path") ?? legal.find((c) => c.type === "choose_gold") ?? legal[0];
    const res = await fetch(`${BASE}/games/${id}/commands`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify(move),
    });
    assert.ok(res.ok, `a move: ${res.status} ${await res.text()}`);
  }
  assert.fail(`round ${until} dealt within 400 moves`);
}

test("a round's end on a phone in Polish: at its top under its own banner, its columns in reach, its words a player's; the next deal outlines nothing of the last round", async () => {
  const d = await strings("pl");
  const created = await post("/games", undefined, { ruleset: "base", players: 3, seed: "3c".repeat(32) });
  const id = created.game_id;
  const seats = [];
  for (const name of ["Ann", "Bob", "Cyd"]) seats.push(await post(`/games/${id}/seats`, undefined, { name }));
  await post(`/games/${id}/start`, created.host_token);
  // The page watches (a spectator sees a round's end as the players do); the seats play
  // through the API, the whole round at once, as bots answering a move would.
  const context = await browser.newContext({ locale: "pl-PL", viewport: PHONE, hasTouch: true, isMobile: true });
  await context.addInitScript(countFlights);
  const page = await context.newPage();
  page.setDefaultTimeout(20000);
  await page.goto(`${BASE}/play/${id}`);
  // Read the log, as a player does during a round: a tap away, in the maze's place, and the
  // page read down as far as it goes.
  await page.getByRole("button", { name: d["table.log"] }).tap();
  await page.getByRole("heading", { name: d["table.log"] }).waitFor();
  await page.evaluate(() => scrollTo(0, document.documentElement.scrollHeight));
  await playUntilDealt(id, seats, 2);
  const end = page.getByRole("region", { name: d["table.round_over"] });
  const next = end.getByRole("button", { name: d["round.next"] });
  await next.waitFor();
  // At its top, under a banner that speaks of it.
  const top = await end.evaluate((e) => e.getBoundingClientRect().top);
  assert.ok(top >= 0 && top < PHONE.height / 2, `the round's end opens at its top: ${top}`);
  assert.equal(await page.locator(".turn-banner").textContent(), fill(d["round.heading"], { round: 1 }));
  // Every column of both tables on the screen, the reasons and the gold in full.
  const offScreen = await end
    .locator("th, td")
    .evaluateAll(
      (cells, width) => cells.filter((c) => c.getBoundingClientRect().right > width + 1).length,
      PHONE.width,
    );
  assert.equal(offScreen, 0, "no cell of the round's tables off the screen");
  const heads = await end.locator("thead th").allTextContents();
  for (const h of [d["round.why"], d["score.player"]]) assert.ok(heads.includes(h), `the column ${h}: ${heads}`);
  // What each got and why, in the words of the Polish rulebook ("karty bryłek złota"), the
  // sides named as teams.
  const rows = await end
    .getByRole("table", { name: fill(d["round.payouts"], { round: 1 }) })
    .locator("tbody tr")
    .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent ?? "")));
  assert.equal(rows.length, 3, "a row per player");
  for (const [, , gold, why] of rows) {
    assert.match(gold, /^(\d+|karty bryłek złota: \d+ \(ukryte\))$/, `the gold: ${gold}`);
    assert.match(
      why,
      /^(dociera do złota; )?(w (zwycięskiej|przegranej) drużynie|nie została żadna karta bryłek złota|zepsute narzędzie .+)$/,
      `why: ${why}`,
    );
  }
  // On to the next deal: its maze shows nothing of the last round outlined, even while the
  // news still tells that round's moves.
  await page.evaluate(() => {
    window.marks = 0;
  });
  await next.click();
  await end.waitFor({ state: "detached" });
  const maze = page.locator("section.play svg.board");
  await maze.waitFor();
  await page.waitForTimeout(2500);
  assert.equal(await maze.locator("rect.new-move, rect.last-move").count(), 0, "no move outlined on the new maze");
  assert.equal(await page.evaluate(() => window.marks), 0, "nor outlined a moment since");
  await context.close();
});

test("each card of the hand is named once: a door, a ladder or a crystal says so in its name alone", async () => {
  // A Saboteur 2 deal whose first player holds such a card (the same every run: the engine is
  // deterministic).
  const found = await findDeal({ ruleset: "saboteur2", from: 128, tries: 32 }, (view) => {
    const kinds = new Set(view.hand.map((/** @type {string} */ c) => c.replace(/(_[nesw]+)+$/, "").split("_")[0]));
    return ["door", "ladder", "crystal"].some((k) => kinds.has(k)) ? { hand: view.hand } : null;
  });
  assert.ok(found, "a deal with doors, ladders or crystals in a hand");
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${BASE}/play/${found.id}#token=${found.seat.player_token}`);
  const hand = page.getByRole("list", { name: "Your hand" }).getByRole("button");
  await hand.first().waitFor();
  // The words on each card's button (its picture and a screen reader's note aside).
  const named = await hand.evaluateAll((bs) =>
    bs.map((b) =>
      [...b.childNodes]
        .filter((n) => n.nodeType === Node.TEXT_NODE)
        .map((n) => n.textContent)
        .join(""),
    ),
  );
  assert.equal(named.length, found.hand.length, "every card in the hand");
  named.forEach((words, i) => {
    const [name, ...more] = words.split(", ");
    for (const part of more) assert.ok(!name.includes(part), `"${part}" said twice: ${words}`);
    const card = found.hand[i];
    if (card.startsWith("door_")) assert.match(words, /^(blue|green) door \S$/, `${card}: ${words}`);
    if (card.startsWith("ladder_")) assert.match(words, /^ladder \S$/, `${card}: ${words}`);
    if (card.startsWith("crystal_")) assert.match(words, /^(tunnel|dead end) with crystal( \S)?$/, `${card}: ${words}`);
  });
  await context.close();
});
