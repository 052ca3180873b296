// Browser tests of the audit view on records made to be doubted: a move changed in the
// database, a key registered for the reader's seat that this browser never held, and an undo,
// a vote and a reclaim each signed about the event it names.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { axe, BASE, browser, DESKTOP, database, get, post, setUp } from "./harness.mjs";

setUp();

test("the audit view names a record changed in the database, at the move it names", async () => {
  // A game of bots, played to its end at the start; then the operator changes a move in the
  // store (the trigger dropped, the hash left as it was), with Python's sqlite3.
  const created = await post("/games", undefined, { ruleset: "base", players: 3, seed: "3d".repeat(32) });
  const id = created.game_id;
  for (let i = 0; i < 3; i++) await post(`/games/${id}/bots`, created.host_token, { level: "random" });
  await post(`/games/${id}/start`, created.host_token);
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${BASE}/audit/${id}`);
  await page.getByText(/^Verified:/).waitFor();
  const account = page.getByRole("region", { name: "Move by move" });
  await account.getByRole("heading", { name: "Round 1" }).waitFor();
  assert.ok((await account.getByText("✓ legal").count()) > 5, "each move marked legal");
  const bundle = await get(`/games/${id}/audit`);
  const seq = bundle.events.find((e) => e.event_type === "command_accepted" && e.seq > 10).seq;
  const changed = spawnSync(
    "python3",
    [
      "-c",
      `
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("DROP TRIGGER IF EXISTS events_no_update")
db.execute("UPDATE events SET payload = json_set(payload, '$.seat', (json_extract(payload, '$.seat') + 1) % 3) WHERE game_id = ? AND seq = ?", (sys.argv[2], int(sys.argv[3])))
db.commit()
`,
      database,
      id,
      String(seq),
    ],
    { encoding: "utf8" },
  );
  assert.equal(changed.status, 0, changed.stderr);
  await page.reload();
  const verdict = page.getByRole("status").filter({ hasText: /^Discrepancy:/ });
  await verdict.waitFor();
  assert.match(await verdict.textContent(), new RegExp(`event ${seq}`));
  await page.getByRole("link", { name: `See the table just before event ${seq}` }).waitFor();
  const disputed = account.locator("li.disputed");
  assert.equal(await disputed.getAttribute("value"), String(seq));
  assert.match(await disputed.textContent(), /✗/);
  await axe(page, "audit of a changed record");
  await context.close();
});

test("the audit view names a key registered for the reader's seat that this browser never held", async () => {
  // Door 3 of the threat model: a key the player never held registered first (here the seat is
  // taken with it), then the player's own key registered over it, signed by the first. The
  // browser holds only its own key: the record's last key is its own, yet the first was not.
  const { generateKeyPairSync, sign, createHash } = await import("node:crypto");
  const canonicalize = (await import("canonicalize")).default;
  const pair = () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    return { privateKey, hex: Buffer.from(publicKey.export({ format: "jwk" }).x, "base64url").toString("hex") };
  };
  const print = (hex) =>
    createHash("sha256").update(Buffer.from(hex, "hex")).digest("hex").slice(0, 16).match(/.{4}/g).join(" ");
  const other = pair(),
    own = pair();
  const created = await post("/games", undefined, { ruleset: "base", players: 3, seed: "5e".repeat(32) });
  const id = created.game_id;
  // Each key sent with its proof of possession: the key's signature of the game's key statement.
  const proof = (p) =>
    sign(null, Buffer.from(canonicalize({ scheme: "saboteur-key-v1", game: id, key: p.hex })), p.privateKey).toString(
      "hex",
    );
  const taken = await post(`/games/${id}/seats`, undefined, {
    name: "Ann",
    public_key: other.hex,
    key_proof: proof(other),
  });
  for (let i = 0; i < 2; i++) await post(`/games/${id}/bots`, created.host_token, { level: "random" });
  await post(`/games/${id}/start`, created.host_token);
  const { version } = await get(`/games/${id}`);
  // During play the new key's proof names the seat and the version it is made at.
  const dated = canonicalize({ scheme: "saboteur-key-v2", game: id, key: own.hex, seat: taken.seat, version });
  const body = {
    public_key: own.hex,
    key_proof: sign(null, Buffer.from(dated), own.privateKey).toString("hex"),
    key_proof_version: version,
  };
  const statement = canonicalize({
    scheme: "saboteur-act-v3",
    act: "key",
    game: id,
    seat: taken.seat,
    version,
    body,
    about: null,
  });
  const res = await fetch(`${BASE}/games/${id}/seats/${taken.seat}/key`, {
    method: "PUT",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${taken.player_token}`,
      "seat-signature": sign(null, Buffer.from(statement), other.privateKey).toString("hex"),
      "seat-signature-version": String(version),
    },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 200, await res.text());
  // The host hands the seat to a bot, which plays the game to its end.
  await post(`/games/${id}/seats/${taken.seat}/handover`, created.host_token, { level: "random" });
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${BASE}/`);
  const key = { private: own.privateKey.export({ format: "der", type: "pkcs8" }).toString("base64"), public: own.hex };
  await page.evaluate(
    ([id, mine]) => localStorage.setItem(`saboteur:${id}`, JSON.stringify(mine)),
    [id, { token: taken.player_token, seat: taken.seat, key, keys: [own.hex] }],
  );
  for (let i = 0; i < 200 && (await get(`/games/${id}`)).status !== "finished"; i++)
    await new Promise((r) => setTimeout(r, 100));
  assert.equal((await get(`/games/${id}`)).status, "finished", "the bots played the game to its end");
  await page.goto(`${BASE}/audit/${id}`);
  const here = page.getByRole("region", { name: "Checked in this browser" }).getByRole("status");
  await here.waitFor();
  const checked = await here.textContent();
  assert.match(
    checked,
    new RegExp(`registers a key for your seat that this browser never held \\(${print(other.hex)}\\)`),
  );
  assert.doesNotMatch(checked, /Your seat's key in the record is this browser's/);
  assert.match(await here.getAttribute("class"), /error/);
  await context.close();
});

test("the audit view checks in the browser an undo, a vote and a reclaim, each signed about the event it names", async () => {
  // Record version 5: a signed undo names the command it takes back, a vote the request, a
  // reclaim the hand-over. Two players' keys sign here as their clients would; the browser
  // checks every signature of the finished game again, each statement rebuilt from the record.
  const { generateKeyPairSync, sign } = await import("node:crypto");
  const canonicalize = (await import("canonicalize")).default;
  const pair = () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    return { privateKey, hex: Buffer.from(publicKey.export({ format: "jwk" }).x, "base64url").toString("hex") };
  };
  // Two players and no bot, so the request waits for the other player's vote.
  const created = await post("/games", undefined, { ruleset: "saboteur2", players: 2, seed: "7a".repeat(32) });
  const id = created.game_id;
  const proof = (p) =>
    sign(null, Buffer.from(canonicalize({ scheme: "saboteur-key-v1", game: id, key: p.hex })), p.privateKey).toString(
      "hex",
    );
  const keys = [pair(), pair()];
  const seats = [];
  for (const k of keys)
    seats.push({
      ...(await post(`/games/${id}/seats`, undefined, { name: "Ann", public_key: k.hex, key_proof: proof(k) })),
      k,
    });
  await post(`/games/${id}/start`, created.host_token);
  /** A seat's act signed about what the table's status lists for it. */
  const act = async (seat, path, name, body) => {
    const state = await (
      await fetch(`${BASE}/games/${id}/state`, { headers: { authorization: `Bearer ${seat.player_token}` } })
    ).json();
    const status = state.table.seats[seat.seat];
    const about =
      name === "undo"
        ? status.undoable
        : name === "approve"
          ? state.table.undo_request
          : name === "reclaim"
            ? status.handed_at
            : null;
    const statement = canonicalize({
      scheme: "saboteur-act-v3",
      act: name,
      game: id,
      seat: seat.seat,
      version: state.version,
      body: body ?? null,
      about,
    });
    const res = await fetch(`${BASE}/games/${id}${path}`, {
      method: "POST",
      headers: {
        ...(body ? { "content-type": "application/json" } : {}),
        authorization: `Bearer ${seat.player_token}`,
        "seat-signature": sign(null, Buffer.from(statement), seat.k.privateKey).toString("hex"),
        "seat-signature-version": String(state.version),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.json() };
  };
  // Seat 0 moves (the others answer until it is its turn), then asks to take it back.
  for (let moved = false; !moved; ) {
    for (const seat of seats) {
      const legal = await (
        await fetch(`${BASE}/games/${id}/legal-moves`, { headers: { authorization: `Bearer ${seat.player_token}` } })
      ).json();
      if (!legal.commands.length) continue;
      const played = await act(seat, "/commands", "command", legal.commands[0]);
      assert.equal(played.status, 200, JSON.stringify(played.body));
      moved = seat === seats[0];
      break;
    }
  }
  const asked = await act(seats[0], "/undo", "undo");
  assert.equal(asked.status, 202, JSON.stringify(asked.body));
  const voted = await act(seats[1], "/undo/approve", "approve");
  assert.equal(voted.status, 200, JSON.stringify(voted.body));
  await post(`/games/${id}/seats/${seats[0].seat}/handover`, created.host_token, { level: "random" });
  const reclaimed = await act(seats[0], `/seats/${seats[0].seat}/reclaim`, "reclaim");
  assert.equal(reclaimed.status, 200, JSON.stringify(reclaimed.body));
  for (const seat of seats)
    await post(`/games/${id}/seats/${seat.seat}/handover`, created.host_token, { level: "random" });
  for (let i = 0; i < 200 && (await get(`/games/${id}`)).status !== "finished"; i++)
    await new Promise((r) => setTimeout(r, 100));
  assert.equal((await get(`/games/${id}`)).status, "finished", "the bots played the game to its end");
  const kinds = new Set(
    (await (await fetch(`${BASE}/games/${id}/events?after=0&limit=1000`)).json()).events.map((e) => e.event.type),
  );
  for (const k of ["undo_requested", "undo_approved", "undone", "seat_reclaimed"])
    assert.ok(kinds.has(k), `the record holds ${k}`);
  const context = await browser.newContext({ locale: "en-US", viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${BASE}/`);
  const key = {
    private: keys[0].privateKey.export({ format: "der", type: "pkcs8" }).toString("base64"),
    public: keys[0].hex,
  };
  await page.evaluate(
    ([id, mine]) => localStorage.setItem(`saboteur:${id}`, JSON.stringify(mine)),
    [id, { token: seats[0].player_token, seat: seats[0].seat, key, keys: [keys[0].hex] }],
  );
  await page.goto(`${BASE}/audit/${id}`);
  const here = page.getByRole("region", { name: "Checked in this browser" }).getByRole("status");
  await here.waitFor();
  const checked = await here.textContent();
  assert.doesNotMatch(checked, /signature does not verify/, checked);
  const n = Number(checked.match(/(\d+) players' signatures in the record verify/)?.[1]);
  assert.ok(n >= 4, `the commands, the undo, the vote and the reclaim verify: ${checked}`);
  assert.doesNotMatch((await here.getAttribute("class")) ?? "", /error/);
  await context.close();
});
