// Browser tests of the lobby and the waiting room: the lobby's assets and form, a rematch's
// series, a Saboteur 2 game set up from it, the host's acts on a waiting game (a seat freed,
// the game cancelled, invite links), a game of an older record refused a seat, the players'
// shares committed to before the start and revealed by their pages, and when a game under way
// last moved.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import {
  axe,
  BASE,
  browser,
  createFromLobby,
  DESKTOP,
  EN,
  esc,
  get,
  PHONE,
  post,
  setUp,
  shots,
  waitOrTell,
} from "./harness.mjs";
import { againstBots } from "./play.mjs";
import { strings } from "./strings.mjs";

setUp();

test("the lobby's assets stay within budget, compressed and revalidated", async () => {
  let total = 0;
  let sent = 0;
  for (const path of [
    "/",
    "/assets/bundle.js",
    "/assets/lang-en.js",
    "/assets/lang-en-problems.js",
    "/assets/style.css",
  ]) {
    // fetch asks for gzip and unpacks it: the body is the file, Content-Length what was sent.
    const res = await fetch(BASE + path);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get("content-encoding"), "gzip", path);
    const tag = res.headers.get("etag");
    assert.match(tag ?? "", /^"[0-9a-f]{32}"$/, path);
    total += (await res.arrayBuffer()).byteLength;
    sent += Number(res.headers.get("content-length"));
    // Held already: 304, no body.
    const again = await fetch(BASE + path, { headers: { "if-none-match": tag } });
    assert.equal(again.status, 304, path);
    assert.equal((await again.arrayBuffer()).byteLength, 0, path);
    // A client that takes no gzip gets the file as it is.
    const plain = await fetch(BASE + path, { headers: { "accept-encoding": "identity" } });
    assert.equal(plain.headers.get("content-encoding"), null, path);
    assert.equal(Number(plain.headers.get("content-length")), (await plain.arrayBuffer()).byteLength, path);
  }
  console.log(`lobby assets: ${total} bytes uncompressed, ${sent} sent gzipped (budget 204800 uncompressed)`);
  assert.ok(total < 200 * 1024);
  assert.ok(sent < total / 2, `${sent} of ${total}`);
  assert.match((await fetch(`${BASE}/assets/bundle.js`)).headers.get("content-type"), /javascript/);
});

test("the lobby's form: the clock's fields only with a clock, the increment only with a bank clock", async () => {
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${BASE}/`);
  const clock = page.getByLabel("Turn clock");
  const seconds = page.getByLabel("Seconds", { exact: true });
  const increment = page.getByLabel("Increment", { exact: true });
  const abandon = page.getByLabel(/^Bot takes over after/);
  await clock.waitFor();
  for (const [kind, shown] of [
    ["", []],
    ["per_decision", [seconds, abandon]],
    ["bank", [seconds, increment, abandon]],
    ["per_decision", [seconds, abandon]],
    ["", []],
  ]) {
    await clock.selectOption(kind);
    for (const [name, field] of Object.entries({ seconds, increment, abandon }))
      assert.equal(await field.isVisible(), shown.includes(field), `${name} with the clock "${kind}"`);
  }
  await axe(page, "the lobby with a bank clock chosen");
  await context.close();
});

test("the lobby's form and the waiting room's remember the player's name and the bots' level between visits", async () => {
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${BASE}/`);
  const name = page.getByLabel("Your name");
  const level = page.getByLabel("Bot level");
  assert.equal(await name.inputValue(), "Player", "the first visit's name");
  assert.equal(await level.inputValue(), "heuristic", "the first visit's level");
  await name.fill("Zoë");
  await level.selectOption("expert");
  await page.getByRole("button", { name: "Create" }).click();
  await page.waitForURL(/\/play\//);
  await page.goto(`${BASE}/`);
  await name.waitFor();
  assert.equal(await name.inputValue(), "Zoë", "the name chosen last time");
  assert.equal(await level.inputValue(), "expert", "the level chosen last time");
  // Another game's waiting room offers a seat under the same name.
  const other = await post("/games", undefined, { ruleset: "base", players: 3 });
  await page.goto(`${BASE}/play/${other.game_id}`);
  await page.getByRole("button", { name: "Join a seat" }).waitFor();
  assert.equal(await page.getByLabel("Your name").inputValue(), "Zoë");
  await context.close();
});

test("a rematch: the series in the lobby, the table and the replay", async () => {
  // A game of bots is over as soon as it starts (the bots answer at once); its host plays a
  // rematch with the same bots.
  const first = await post("/games", undefined, { ruleset: "base", players: 3 });
  for (let i = 0; i < 3; i++) await post(`/games/${first.game_id}/bots`, first.host_token, { level: "random" });
  await post(`/games/${first.game_id}/start`, first.host_token);
  assert.equal((await get(`/games/${first.game_id}`)).status, "finished");
  const second = await post(`/games/${first.game_id}/rematch`, first.host_token);
  const ctx = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await ctx.newPage();
  await page.goto(`${BASE}/replay/${first.game_id}`);
  const series = page.getByRole("region", { name: "Series" });
  await series.getByRole("link", { name: second.game_id.slice(0, 8) }).waitFor();
  await series.getByText(/Running totals: .*\d/).waitFor();
  await series.getByRole("link", { name: second.game_id.slice(0, 8) }).click();
  await page.waitForURL(new RegExp(`/replay/${second.game_id}`));
  await page
    .getByRole("region", { name: "Series" })
    .getByText(`${second.game_id.slice(0, 8)} (this game)`)
    .waitFor();
  // The series at the finished game's table: its bots named by their level in the reader's
  // words ("easy bot 1"), not as the server named them ("random bot 1").
  await page.goto(`${BASE}/play/${first.game_id}`);
  const totals = page.getByRole("region", { name: "Series" }).getByText(/Running totals: .*\d/);
  await totals.waitFor();
  assert.match(await totals.textContent(), /easy bot 1 \d+, easy bot 2 \d+, easy bot 3 \d+/);
  await page.goto(`${BASE}/`);
  await page.getByRole("row").filter({ hasText: "rematch of" }).first().waitFor();
  await axe(page, "lobby with a rematch");
  await ctx.close();
});

test("a Saboteur 2 game from the lobby", async () => {
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  await createFromLobby(page, { ruleset: "saboteur2", players: 3, bots: 2 });
  await page.getByRole("button", { name: "Start the game" }).click();
  await page.locator("svg.board").waitFor();
  // A pass is one button for the chosen set of cards (§10), not one per combination.
  await page.getByText("You play now").first().waitFor({ timeout: 15000 });
  await page.getByRole("list", { name: "Your hand" }).getByRole("button").first().click();
  const moves = page.getByLabel("Moves for the selected card");
  const passes = moves.getByRole("button").filter({ hasText: /^pass, discarding/ });
  await passes.first().waitFor();
  assert.equal(await passes.count(), 1, "one pass button for the selected card");
  const also = moves.getByRole("checkbox");
  assert.ok((await also.count()) >= 1, "the other cards may be ticked to go with it");
  await also.first().check();
  await moves
    .getByRole("button")
    .filter({ hasText: /^pass, discarding .+ and .+/ })
    .waitFor();
  assert.equal(await passes.count(), 1, "still one pass button, for the two cards");
  assert.match(await passes.first().textContent(), /^pass, discarding .+ and .+/);
  await shots(page, "saboteur2");
  await page.goto(`${BASE}/`);
  await page.locator("tbody tr").first().waitFor();
  await axe(page, "lobby");
  await shots(page, "lobby");
  await context.close();
});

test("the host frees a seat a stranger took in the waiting room", async () => {
  const created = await post("/games", undefined, { ruleset: "base", players: 3 });
  const id = created.game_id;
  await post(`/games/${id}/seats`, undefined, { name: "Squatter" });
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${BASE}/`);
  await page.evaluate(
    ([id, host]) => localStorage.setItem(`saboteur:${id}`, JSON.stringify({ host })),
    [id, created.host_token],
  );
  await page.goto(`${BASE}/play/${id}`);
  await page.getByRole("button", { name: "Free the seat: Squatter" }).click();
  await page.getByRole("button", { name: "Free the seat: Squatter" }).waitFor({ state: "detached" });
  const summary = await get(`/games/${id}`);
  assert.equal(summary.seats.length, 0, "the seat is free again");
  await axe(page, "waiting room of a host");
  await context.close();
});

test("the host cancels a lobby from the waiting room, asked once more; the page then says so", async () => {
  const created = await post("/games", undefined, { ruleset: "base", players: 3 });
  const id = created.game_id;
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${BASE}/`);
  await page.evaluate(
    ([id, host]) => localStorage.setItem(`saboteur:${id}`, JSON.stringify({ host })),
    [id, created.host_token],
  );
  await page.goto(`${BASE}/play/${id}`);
  const cancel = page.getByRole("button", { name: "Cancel the game" });
  // Said no to: nothing happens.
  page.once("dialog", (d) => d.dismiss());
  await cancel.click();
  assert.equal((await get(`/games/${id}`)).status, "lobby", "a dismissed question cancels nothing");
  page.once("dialog", (d) => d.accept());
  await cancel.click();
  await page.getByText("The host cancelled this game before it started.").waitFor();
  assert.equal((await get(`/games/${id}`)).status, "cancelled");
  assert.equal(await page.getByRole("button", { name: "Start the game" }).count(), 0, "nothing left to start");
  await axe(page, "a cancelled game");
  await context.close();
});

/**
 * A new game of `players` seats in its waiting room, as its host sees it (the host's token kept
 * in this browser, as the lobby's form keeps it).
 * @param {number} players
 */
async function hostsRoom(players) {
  const created = await post("/games", undefined, { ruleset: "base", players });
  const id = created.game_id;
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  await page.goto(`${BASE}/`);
  await page.evaluate(
    ([id, host]) => localStorage.setItem(`saboteur:${id}`, JSON.stringify({ host })),
    [id, created.host_token],
  );
  await page.goto(`${BASE}/play/${id}`);
  return { created, id, context, page };
}

test("the lobby says what the game is, in a few lines, in the reader's language, with the rules a click away", async () => {
  for (const [code, viewport] of [
    ["en", DESKTOP],
    ["pl", PHONE],
    ["is", DESKTOP],
  ]) {
    const d = await strings(code);
    const context = await browser.newContext({ locale: code, viewport });
    const page = await context.newPage();
    await page.goto(`${BASE}/`);
    const about = page.locator("main p.about");
    await about.waitFor();
    assert.equal(await about.textContent(), `${d["lobby.about"]} ${d["nav.rules"]}`);
    const lines = await about.evaluate(
      (e) => e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight),
    );
    assert.ok(lines <= (viewport === PHONE ? 9 : 3.5), `${code}: ${lines.toFixed(1)} lines`);
    await about.getByRole("link", { name: d["nav.rules"] }).click();
    await page.waitForURL(/\/rules$/);
    await context.close();
  }
});

test("an invite link stays through the waiting room's redraws and a reload, and goes with its freed seat", async () => {
  const { context, page } = await hostsRoom(4);
  // Asked for at once, as a hurried host does, then the room redrawn by a bot taking a seat.
  await page.getByRole("button", { name: "Create an invite link" }).click();
  const link = page.getByRole("link", { name: /[#&]token=/ });
  const href = await link.getAttribute("href");
  await page.getByRole("button", { name: "Seat a bot" }).click();
  await page.getByRole("button", { name: /^Free the seat: \w+ bot \d/ }).waitFor();
  assert.equal(await link.getAttribute("href"), href, "the link survives the redraw");
  await page.reload();
  assert.equal(await page.getByRole("link", { name: /[#&]token=/ }).getAttribute("href"), href, "and a reload");
  // The invited seat freed: its link goes, and a second invite makes a new one, for a guest
  // the host names: the seat takes the name, the link says whose it is, and it copies.
  await page.getByRole("button", { name: "Free the seat: Guest" }).click();
  await page.getByRole("link", { name: /[#&]token=/ }).waitFor({ state: "detached" });
  await page.getByRole("textbox", { name: "The guest's name" }).fill("Bea");
  await page.getByRole("button", { name: "Create an invite link" }).click();
  const named = page.getByRole("list", { name: "Invite links" }).getByRole("listitem");
  await named.filter({ hasText: /^Seat \d+, Bea: / }).waitFor();
  const second = await page.getByRole("link", { name: /[#&]token=/ }).getAttribute("href");
  assert.notEqual(second, href);
  await page.getByRole("button", { name: "Free the seat: Bea" }).waitFor();
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await named.getByRole("button", { name: "Copy" }).click();
  await page.getByText("The link is copied: send it to your guest.").waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), BASE + second);
  await context.close();
});

test("the waiting room is live: a bot seated, a guest arriving and renaming are shown without a reload, and what the host is typing survives each redraw", async () => {
  const { created, id, context, page } = await hostsRoom(4);
  await page.getByText(/^Seats: 0\/4/).waitFor();
  const guest = page.getByRole("textbox", { name: "The guest's name" });
  await guest.pressSequentially("Bea");
  // Others act while the host types, each through the API (no click of this page's): each
  // shows on the page by itself.
  await post(`/games/${id}/bots`, created.host_token, { level: "random" });
  await page.getByText(/^Seats: 1\/4/).waitFor();
  await guest.pressSequentially("tr");
  const dora = await post(`/games/${id}/seats`, undefined, { name: "Dora" });
  await page.getByText(/^Seats: 2\/4: .*\bDora\b/).waitFor();
  const renamed = await fetch(`${BASE}/games/${id}/seats/${dora.seat}/name`, {
    method: "PUT",
    headers: { "content-type": "application/json", authorization: `Bearer ${dora.player_token}` },
    body: JSON.stringify({ name: "Dorothea" }),
  });
  assert.ok(renamed.ok, `the guest's new name: ${renamed.status}`);
  await page.getByText(/^Seats: 2\/4: .*\bDorothea\b/).waitFor();
  assert.equal(await guest.inputValue(), "Beatr", "every keystroke kept through three redraws");
  assert.ok(await guest.evaluate((e) => e === document.activeElement), "the field keeps the focus");
  await page.keyboard.type("ice");
  await page.getByRole("button", { name: "Create an invite link" }).click();
  await page
    .getByRole("list", { name: "Invite links" })
    .getByText(/^Seat \d+, Beatrice: /)
    .waitFor();
  assert.equal(await guest.inputValue(), "", "the name went with its link");
  await context.close();
});

test("a game whose record is of an older version is refused a seat: the page says why and no seat is taken", async () => {
  // A server that created a new game under record version 6 (keys registered after a reissue
  // proved without a date): the first event says so, and the browser reads it before it takes a
  // seat.
  const created = await post("/games", undefined, { ruleset: "base", players: 3 });
  const id = created.game_id;
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  let read = 0;
  await page.route(`**/games/${id}/events?after=0&limit=1`, async (route) => {
    const res = await route.fetch();
    const events = await res.json();
    assert.equal(events.events[0].event.record_version, 7, "the server creates games under record version 7");
    events.events[0].event.record_version = 6;
    read++;
    await route.fulfill({ response: res, json: events });
  });
  await page.goto(`${BASE}/play/${id}`);
  await page.getByRole("button", { name: "Join a seat" }).click();
  const alert = page.getByRole("alert").filter({ hasText: /older record/ });
  await alert.waitFor();
  assert.match(await alert.textContent(), /version 6; this browser takes seats under version 7/);
  assert.equal(read, 1, "the record version was read before the seat");
  assert.equal((await get(`/games/${id}`)).seats.length, 0, "no seat was taken");
  // The same game as the server recorded it: the seat is taken.
  await page.unroute(`**/games/${id}/events?after=0&limit=1`);
  await page.getByRole("button", { name: "Join a seat" }).click();
  for (let i = 0; i < 50 && !(await get(`/games/${id}`)).seats.length; i++)
    await new Promise((r) => setTimeout(r, 100));
  assert.equal((await get(`/games/${id}`)).seats.length, 1, "a seat in a game of record version 6");
  await context.close();
});

test("a table the server shows with a card its chain does not commit to is refused, in words", async () => {
  // Record version 6: each event served to a seat carries the openings of its own cards. A
  // server that shows the player another card in the hand than the one its chain committed to
  // is caught by the page, which says so instead of drawing the table.
  const created = await post("/games", undefined, { ruleset: "base", players: 3 });
  const id = created.game_id;
  const joined = await post(`/games/${id}/seats`, undefined, { name: "Ada" });
  for (let i = 0; i < 2; i++) await post(`/games/${id}/bots`, created.host_token, { level: "random" });
  await post(`/games/${id}/start`, created.host_token);
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  let tampered = 0;
  await page.route(`**/games/${id}/table**`, async (route) => {
    const res = await route.fetch();
    const read = await res.json();
    const dealt = read.events.events.find((r) => r.event.type === "round_started");
    if (dealt) {
      assert.ok(
        dealt.openings.some((o) => o.path === `/hands/${joined.seat}` && o.salt),
        "the hand is opened",
      );
      const hand = dealt.event.hands[joined.seat];
      hand[0] = hand[0] === "map" ? "rockfall" : "map";
      tampered++;
    }
    await route.fulfill({ response: res, json: read });
  });
  await page.goto(`${BASE}/play/${id}#token=${joined.player_token}`);
  const alert = page.getByRole("alert").filter({ hasText: /does not commit to/ });
  await alert.waitFor();
  assert.ok(tampered > 0, "the deal was read and changed");
  assert.match(await alert.textContent(), /event \d+/);
  // The same table as the server sent it is drawn.
  await page.unroute(`**/games/${id}/table**`);
  await page.reload();
  await page.getByRole("list", { name: "Your hand" }).waitFor();
  await context.close();
});

test("a reply to taking a seat that names another key than the one sent is refused, in words", async () => {
  // The server's signed commitment must name the key (and the share) this browser sent: a reply
  // rewritten to name the operator's key is not taken up.
  const created = await post("/games", undefined, { ruleset: "base", players: 3 });
  const id = created.game_id;
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  let forged = 0;
  await page.route(`**/games/${id}/seats`, async (route) => {
    if (route.request().method() !== "POST") return route.continue();
    const res = await route.fetch();
    const joined = await res.json();
    assert.equal(joined.commitment.public_key, JSON.parse(route.request().postData() ?? "{}").public_key);
    joined.commitment.public_key = "ab".repeat(32);
    forged++;
    await route.fulfill({ response: res, json: joined });
  });
  await page.goto(`${BASE}/play/${id}`);
  await page.getByRole("button", { name: "Join a seat" }).click();
  const alert = page.getByRole("alert").filter({ hasText: /names another key or share/ });
  await alert.waitFor();
  assert.equal(forged, 1, "the reply was read and changed");
  const kept = await page.evaluate((game) => localStorage.getItem(`saboteur:${game}`), id);
  assert.ok(!kept || !JSON.parse(kept).token, `nothing kept of the seat: ${kept}`);
  await context.close();
});

test("the lobby on a phone: each game a card whose links, seats and winners are all on the screen; on a desktop each field of the form under its own label", async () => {
  // A finished game (bots alone play it out at the start) and its rematch, waiting.
  const first = await post("/games", undefined, { ruleset: "base", players: 3 });
  for (let i = 0; i < 3; i++) await post(`/games/${first.game_id}/bots`, first.host_token, { level: "random" });
  await post(`/games/${first.game_id}/start`, first.host_token);
  await post(`/games/${first.game_id}/rematch`, first.host_token);
  const pl = await strings("pl");
  const phone = await browser.newContext({ locale: "pl-PL", viewport: PHONE, hasTouch: true, isMobile: true });
  const page = await phone.newPage();
  await page.goto(`${BASE}/`);
  const finished = page.locator("section[aria-labelledby=games-finished] tbody tr");
  await finished.first().waitFor();
  const width = await page.evaluate(() => window.innerWidth);
  assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= width, "nothing wider than the phone");
  for (const link of await page.locator("table.games a").all()) {
    const box = await link.boundingBox();
    assert.ok(box && box.x >= 0 && box.x + box.width <= width, `${await link.textContent()} on the screen`);
  }
  // The winners' cell names itself (its column's head, drawn before it), and the links are words.
  const named = await finished
    .first()
    .locator("td", { hasText: "łatwy bot" })
    .last()
    .evaluate((td) => getComputedStyle(td, "::before").content);
  assert.equal(named, `"${pl["lobby.col_winners"]}: "`);
  const row = await finished.first().innerText();
  assert.ok(row.includes(pl["lobby.audit"]) && row.includes(pl["lobby.replay"]) && !row.includes("http"), row);
  const tallest = Math.max(
    ...(await finished.evaluateAll((rows) => rows.map((r) => r.getBoundingClientRect().height))),
  );
  assert.ok(tallest < 170, `a game's card is ${tallest} px tall`);
  await phone.close();
  const desktop = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const form = (await desktop.newPage()).locator("form.create");
  await form.page().goto(`${BASE}/`);
  await form.waitFor();
  for (const label of await form.locator(":scope > label:not(:has(input[type=checkbox]))").all()) {
    const [text, control] = await label.evaluate((l) => {
      const range = document.createRange();
      range.selectNodeContents(l.firstChild ?? l);
      const c = /** @type {Element} */ (l.querySelector("input, select"));
      return [range.getBoundingClientRect().bottom, c.getBoundingClientRect().top];
    });
    assert.ok(control >= text - 1, `${await label.innerText()}: its field under its words`);
  }
  await desktop.close();
});

test("a game under way says when it last moved, and after a day with no move that it stalled, in the reader's words", async () => {
  // A person seated with two bots: the game cannot end without them.
  const { id, joined: gone } = await againstBots("base", 3, "5d", "random");
  // The bots play up to the person's turn, and the game stands still.
  for (let tries = 0; (await get(`/games/${id}/state`)).view.phase.awaited !== gone.seat; tries++) {
    assert.ok(tries < 200, "the person's turn comes");
    await new Promise((r) => setTimeout(r, 50));
  }
  const game = await get(`/games/${id}`);
  assert.equal(game.status, "active");
  const moved = Date.parse(game.updated_at);
  assert.ok(moved >= Date.parse(game.created_at), JSON.stringify(game));
  /** The game's row among those under way, the next pages asked for until it shows. */
  async function row(page) {
    const rows = "section[aria-labelledby=games-active] tbody tr";
    const found = page.locator(rows, { has: page.locator(`a[href="/play/${id}"]`) });
    const more = page.locator("section[aria-labelledby=games-active] > button");
    await page.locator(rows).first().waitFor();
    while (!(await found.count())) {
      assert.ok(await more.isVisible(), "the game is listed under way");
      const listed = await page.locator(rows).count();
      await more.click();
      await page.waitForFunction(([rows, n]) => document.querySelectorAll(rows).length > n, [rows, listed]);
    }
    return found;
  }
  // What a person reads: the time in their language's words (its plural forms and cases).
  for (const [locale, lang, hours, said, stalled] of [
    ["en-US", "en", 0, "just now", false],
    ["pl-PL", "pl", 50, "2 dni temu", true],
    ["is-IS", "is", 5, "fyrir 5 klukkustundum", false],
    ["lv-LV", "lv", 21, "pirms 21 stundas", false],
  ]) {
    const words = await strings(lang);
    const context = await browser.newContext({ locale, viewport: DESKTOP });
    const page = await context.newPage();
    if (hours) await page.clock.setFixedTime(moved + hours * 3600 * 1000 + 1000);
    await page.goto(`${BASE}/`);
    const found = await row(page);
    const heads = await page.locator("section[aria-labelledby=games-active] th").allInnerTexts();
    assert.ok(heads.includes(words["lobby.col_moved"]), `${lang}: ${heads}`);
    const time = found.locator(`td[data-label="${words["lobby.col_moved"]}"] time[datetime="${game.updated_at}"]`);
    assert.equal(await time.innerText(), said, lang);
    const text = await found.innerText();
    assert.equal(text.includes(words["lobby.stalled"]), stalled, `${lang}: ${text}`);
    await context.close();
  }
});

test("the players' shares are committed to before any is seen: the host's start closes the lobby, each page reveals its share by itself (one out of sight too), and the game starts", async () => {
  const [hostSide, guestSide] = [0, 1].map(() => browser.newContext({ locale: "en-US", viewport: DESKTOP }));
  const host = await (await hostSide).newPage();
  const guest = await (await guestSide).newPage();
  // Every status line each page draws, however briefly it stays.
  for (const page of [host, guest])
    await page.addInitScript(() => {
      window.said = [];
      new MutationObserver((changes) => {
        for (const n of changes.flatMap((c) => [...c.addedNodes]))
          if (n instanceof Element)
            for (const p of [n, ...n.querySelectorAll("[role=status]")])
              if (p.matches("[role=status]")) window.said.push(p.textContent);
      }).observe(document, { childList: true, subtree: true });
    });
  const id = await createFromLobby(host, { players: 3, bots: 1 });
  await guest.goto(`${BASE}/play/${id}`);
  await guest.getByLabel("Your name").fill("Gunnar");
  await guest.getByRole("button", { name: "Join a seat" }).click();
  await guest.getByRole("button", { name: "Leave the game" }).waitFor();
  // Each seat taken with its share's commitment alone: the share stays in its browser.
  const kept = await Promise.all(
    [host, guest].map((p) => p.evaluate((game) => JSON.parse(localStorage.getItem(`saboteur:${game}`) ?? "{}"), id)),
  );
  const lobby = await get(`/games/${id}`);
  for (const k of kept) {
    assert.match(k.share, /^[0-9a-f]{64}$/);
    assert.equal(k.commitment.entropy ?? null, null, "no share named before the start");
    assert.equal(lobby.seats.find((x) => x.seat === k.seat).share, "committed");
  }
  // The guest's page out of sight: it still reveals within the shares' time.
  await guest.evaluate(() => Object.defineProperty(document, "visibilityState", { get: () => "hidden" }));
  await host.getByRole("button", { name: "Start the game" }).click();
  const pages = { host, guest };
  for (const page of [host, guest]) await waitOrTell(page.locator("svg.board"), pages, id, { timeout: 20000 });
  // Both pages said the lobby was closed, until when, and for whom.
  const line = new RegExp(
    `^${esc(EN["table.shares_awaited"]).replace("\\{time\\}", "\\d\\d:\\d\\d:\\d\\d").replace("\\{names\\}", ".+")}$`,
  );
  for (const page of [host, guest]) {
    const said = await page.evaluate(() => window.said);
    assert.ok(
      said.some((x) => line.test(x)),
      `the closed lobby's line: ${said}`,
    );
  }
  // The record: both seats' commitments, both shares, each opening its commitment.
  const log = await get(`/games/${id}/events?after=0&limit=1000`);
  const mixed = log.events.find((r) => r.event.type === "seed_mixed").event;
  const seats = kept.map((k) => k.seat).sort();
  assert.deepEqual(
    mixed.committed.map((c) => c.seat),
    seats,
  );
  assert.deepEqual(
    mixed.contributions.map((c) => c.seat),
    seats,
  );
  for (const k of kept) {
    assert.equal(mixed.committed.find((c) => c.seat === k.seat).commitment, k.commitment.share_commitment);
    assert.equal(mixed.contributions.find((c) => c.seat === k.seat).entropy, k.share);
  }
  for (const c of mixed.contributions) {
    const opened = createHash("sha256")
      .update(Buffer.concat([Buffer.from("saboteur share commitment v1", "ascii"), Buffer.from(c.entropy, "hex")]))
      .digest("hex");
    assert.equal(opened, mixed.committed.find((x) => x.seat === c.seat).commitment, `seat ${c.seat}'s share`);
  }
  // What each page kept: the commitment signed again, now naming its share.
  for (const page of [host, guest]) {
    const held = await page.evaluate((game) => JSON.parse(localStorage.getItem(`saboteur:${game}`) ?? "{}"), id);
    assert.equal(held.commitment.entropy, held.share);
    assert.equal(held.commitmentReceipt.kind, "commitment");
  }
  await (await hostSide).close();
  await (await guestSide).close();
});
