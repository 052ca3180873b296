// The SDK against a live server: typed problems, signed acts, the stream and receipts.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { before, describe, test } from "node:test";
import {
  API_VERSION, ApiProblem, BadSignature, checkOpenings, CommitmentMismatch, connect, EVENT_TYPES, follow, NotFound, ok, OpeningMismatch,
  parseRecord, PreconditionFailed, problemClass, RECORD_VERSION, ServerError, Share, shareCommitment, SignatureRequired, Signer,
  type StreamRecord,
  UnknownEvent, followPlayer, type Api,
} from "../src/index.js";
import { awaitedMoves, base, binary, dropping, newTable, type Table } from "./table.js";

test("a problem is typed, and a 412 carries its refusal's receipt", async (t) => {
  const table = await newTable();
  await assert.rejects(ok(table.player.GET("/games/{id}/state", { params: { path: { id: "no-such-game" } } })),
    (e) => e instanceof NotFound && e.status === 404 && e.code === "not_found");
  const moves = await awaitedMoves(table);
  if (moves.decision_version <= 1) return t.skip("no version before the last decision");
  await assert.rejects(table.signer.command(table.player, moves.decision_version - 1, moves.commands[0]!), (e) => {
    assert.ok(e instanceof PreconditionFailed);
    assert.equal(e.status, 412);
    assert.equal(e.code, "precondition_failed");
    assert.equal(e.receipt?.kind, "refusal");
    return true;
  });
  // A code newer than the client is thrown as its status's class.
  assert.equal(problemClass(412, "some_new_code"), PreconditionFailed);
  assert.equal(problemClass(599, "x"), ServerError);
  assert.equal(problemClass(401, "bad_signature"), BadSignature);
});

test("a signed command is accepted, and recorded with its signature", async () => {
  const table = await newTable();
  const moves = await awaitedMoves(table);
  const outcome = await table.signer.command(table.player, moves.version, moves.commands[0]!);
  assert.equal(table.signer.acts, 1);
  const mine = outcome.events.find((r) => r.event.type === "command_accepted" && r.event.seat === table.seat);
  assert.ok(mine, "the reply holds the command accepted");
  const page = await ok(table.player.GET("/games/{id}/events", {
    params: { path: { id: table.game }, query: { after: mine.seq - 1, limit: 1 } },
  }));
  const accepted = page.events[0]?.event;
  assert.equal(accepted?.type, "command_accepted");
  assert.ok(accepted.type === "command_accepted" && accepted.signature, "the record keeps the signature");
});

test("an unsigned command and a forged one are refused", async () => {
  const table = await newTable();
  const moves = await awaitedMoves(table);
  const command = moves.commands[0]!;
  await assert.rejects(table.signer.command(table.player, moves.version, command, { signed: false }),
    (e) => e instanceof SignatureRequired && e.status === 401 && e.code === "signature_required");
  const forger = new Signer(table.game, table.seat); // another key than the seat's
  await assert.rejects(forger.command(table.player, moves.version, command),
    (e) => e instanceof BadSignature && e instanceof ApiProblem && e.code === "bad_signature");
});

test("a seat checks its own cards against the chain; a value it is not committed to is refused", async () => {
  const table = await newTable();
  const state = await ok(table.player.GET("/games/{id}/state", { params: { path: { id: table.game } } }));
  assert.equal(state.table.record_version, RECORD_VERSION);
  assert.equal(RECORD_VERSION, 7);
  const query = { params: { path: { id: table.game }, query: { after: 0, limit: 1000 } } };
  const mine = (await ok(table.player.GET("/games/{id}/events", query))).events;
  const opened = mine.reduce((n, record) => n + checkOpenings(record), 0);
  assert.ok(opened >= 2, "the deal and the draws open to the seat");
  const dealt = structuredClone(mine.find((r) => r.event.type === "round_started")!);
  assert.deepEqual(dealt.openings?.map((o) => o.path).sort(), [`/hands/${table.seat}`, `/roles/${table.seat}`]);
  const hand = (dealt.event as { hands: string[][] }).hands[table.seat]!;
  hand[0] = hand[0] === "map" ? "rockfall" : "map";
  assert.throws(() => checkOpenings(dealt), OpeningMismatch);
  assert.throws(() => parseRecord(JSON.stringify(dealt)), OpeningMismatch);
  const theirs = (await ok(table.anonymous.GET("/games/{id}/events", query))).events;
  assert.ok(theirs.every((r) => !r.openings?.length), "a spectator is given no salt");
});

/** Follows the game (table on) with a client whose first stream is cut, keeping every record and
 * receipt, and plays the seat's first legal move whenever it is awaited, signed; the first time,
 * it first sends a signed pass that discards nothing (refused: a pass discards a card) and keeps
 * the refusal. */
async function playToTheEnd(t: Table, records: StreamRecord[], fetcher: typeof fetch): Promise<void> {
  const reader = connect(base, t.token, { fetch: fetcher });
  let tried = false;
  for await (const record of follow(reader, t.game, { table: true })) {
    records.push(t.receipts.keep(record));
    const legal = record.table?.legal;
    if (record.table?.state.view.phase.awaited !== t.seat || !legal?.commands.length) continue;
    if (!tried) {
      tried = true;
      const refused = await t.signer.send(t.player, "POST", "/commands", "command", legal.version, { type: "pass", discard: [] })
        .then(() => null, (e: unknown) => e);
      assert.ok(refused instanceof ApiProblem && refused.status === 422 && refused.body !== null, String(refused));
      t.receipts.keep(refused);
    }
    try {
      t.receipts.keep(await t.signer.command(t.player, legal.version, legal.commands[0]!));
    } catch (e) {
      t.receipts.keep(e);
      if (!(e instanceof ApiProblem) || (e.status !== 409 && e.status !== 412)) throw e;
    }
  }
}

describe("a whole game, its stream cut once", () => {
  let table: Table;
  const records: StreamRecord[] = [];
  const cutter = dropping(3000);
  before(async () => {
    table = await newTable();
    await playToTheEnd(table, records, cutter.fetch);
  });

  test("the follower resumes after a drop with every event once, in order", async () => {
    assert.equal(cutter.drops, 1);
    const seqs = records.map((r) => r.seq);
    assert.deepEqual(seqs, Array.from(seqs, (_, i) => i + 1), "every event once, in order");
    assert.equal(records.at(-1)?.event.type, "game_ended");
    const state = await ok(table.player.GET("/games/{id}/state", { params: { path: { id: table.game } } }));
    assert.equal(state.version, seqs.at(-1));
  });

  test("the table rides on the newest event", () => {
    const tables = records.filter((r) => r.table !== undefined);
    assert.ok(tables.length > 0, "a stream opened with table=true carries the table");
    for (const r of tables) assert.equal(r.table?.version, r.seq);
    assert.ok(records.at(-1)?.table, "the newest event carries the table");
  });

  test("the receipts kept are accepted by saboteur verify", async () => {
    assert.ok(table.receipts.length > 3);
    const said = await table.receipts.verify(table.anonymous, table.game, { [table.seat]: [table.signer.publicKey] },
      { binary, statements: table.signer.kept });
    assert.match(said, new RegExp(`every act of seat ${table.seat} is signed by the key`));
    // The refused pass, kept with its body and statement, is decided again: rightly refused.
    assert.match(said, new RegExp(`of seat ${table.seat}'s signed command was right: the rules refuse it too`));
    // The standalone verifier, built from the verifier crate alone beside the server's binary,
    // checks the same receipts of the sealed chain (record version 6 on), without a subcommand.
    const alone = join(dirname(binary), "saboteur-verify");
    assert.ok(existsSync(alone), `${alone}: the standalone verifier is built beside the server`);
    const again = await table.receipts.verify(table.anonymous, table.game, { [table.seat]: [table.signer.publicKey] }, { binary: alone });
    assert.match(again, new RegExp(`every act of seat ${table.seat} is signed by the key`));
  });
});

test("a reply that commits to another key or share is refused", () => {
  const signer = new Signer("g");
  const theirs = new Signer("g").publicKey;
  assert.throws(() => signer.joined({ seat: 1, commitment: { public_key: theirs } }), CommitmentMismatch);
  assert.equal(signer.seat, 0);
  const mine = { seat: 1, commitment: { public_key: signer.publicKey, entropy: "aa".repeat(32) } };
  assert.throws(() => signer.joined(mine, "bb".repeat(32)), /not the share sent/);
  assert.equal(signer.joined(mine, "aa".repeat(32)), 1);
  assert.equal(signer.seat, 1);
});

test("a share committed then revealed starts the game, and the record mixes it beside its commitment", async () => {
  const anonymous = connect(base);
  const created = await ok(anonymous.POST("/games", { body: { ruleset: "base", players: 3 } }));
  const game = created.game_id;
  const path = { params: { path: { id: game } } };
  const signer = new Signer(game);
  const share = new Share();
  assert.equal(share.commitment, shareCommitment(share.entropy));
  const me = await ok(anonymous.POST("/games/{id}/seats", {
    ...path, body: { name: "sdk", public_key: signer.publicKey, key_proof: signer.keyProof(), share_commitment: share.commitment },
  }));
  assert.equal(signer.joined(me, undefined, share), me.seat);
  const host = connect(base, created.host_token);
  for (let i = 0; i < 2; i++) await ok(host.POST("/games/{id}/bots", { ...path, body: { level: "random" } }));
  // A start waits for the share; the host closes the lobby, the seat's share awaited.
  await assert.rejects(ok(host.POST("/games/{id}/start", path)), /close the lobby/);
  const closed = await ok(host.POST("/games/{id}/close", path));
  assert.deepEqual(closed.waiting, [me.seat]);
  const player = connect(base, me.player_token);
  const revealed = await ok(player.PUT("/games/{id}/seats/{seat}/share", {
    params: { path: { id: game, seat: me.seat } }, body: { entropy: share.entropy },
  }));
  assert.deepEqual(signer.revealed(revealed, share), []);
  assert.equal(revealed.started, true);
  assert.throws(() => signer.revealed(revealed, new Share()), CommitmentMismatch);
  const page = await ok(anonymous.GET("/games/{id}/events", { params: { path: { id: game }, query: { after: 0 } } }));
  const mixed = page.events.map((e) => e.event as { type: string; committed?: unknown; contributions?: unknown })
    .find((e) => e.type === "seed_mixed");
  assert.deepEqual(mixed?.committed, [{ seat: me.seat, commitment: share.commitment }]);
  assert.deepEqual(mixed?.contributions, [{ seat: me.seat, entropy: share.entropy }]);
});

test("an unknown event type is yielded, not thrown", async () => {
  const record = parseRecord('{"seq": 7, "event": {"type": "dragon_woke", "seat": 1}}');
  assert.equal(record.seq, 7);
  assert.equal(record.table, undefined);
  assert.ok(record.event instanceof UnknownEvent);
  assert.equal(record.event.name, "dragon_woke");
  assert.deepEqual(record.event.fields, { type: "dragon_woke", seat: 1 });
  const known = parseRecord('{"seq": 8, "event": {"type": "card_drawn", "seat": 0, "card": null}}');
  assert.ok(!(known.event instanceof UnknownEvent) && EVENT_TYPES.has("card_drawn"));
  // On the stream: followed past it to the game's end.
  const sent = [
    'id: 1\nevent: dragon_woke\ndata: {"seq": 1, "event": {"type": "dragon_woke"}}\n\n',
    ": keep-alive\n\n",
    'id: 2\nevent: game_cancelled\ndata: {"seq": 2, "event": {"type": "game_cancelled"}}\n\n',
  ].join("");
  const fake: typeof fetch = async () => new Response(sent, { headers: { "Content-Type": "text/event-stream" } });
  const seen: string[] = [];
  for await (const r of follow(connect("http://server.invalid", undefined, { fetch: fake }), "g")) {
    seen.push(r.event instanceof UnknownEvent ? `unknown ${r.event.name}` : r.event.type);
  }
  assert.deepEqual(seen, ["unknown dragon_woke", "game_cancelled"]);
});

test("an older client is served newer event types wrapped", async () => {
  // A client that says it was generated from API 0.10.0: `game_cancelled` (0.11.0) comes
  // wrapped as a `NewerEvent`; the SDK's own clients, of this version, read it as the event.
  const anonymous = connect(base);
  const created = await ok(anonymous.POST("/games", { body: { ruleset: "base", players: 3 } }));
  const host = connect(base, created.host_token);
  await ok(host.POST("/games/{id}/cancel", { params: { path: { id: created.game_id } } }));
  const old = connect(base, undefined, { headers: { "Api-Version": "0.10.0" } });
  const path = { params: { path: { id: created.game_id } } };
  const events = (await ok(old.GET("/games/{id}/events", path))).events;
  const wrapped = events[events.length - 1]?.event;
  assert.ok(wrapped?.type === "newer", JSON.stringify(wrapped));
  assert.deepEqual([wrapped.event_type, wrapped.since, wrapped.event], ["game_cancelled", "0.11.0", { type: "game_cancelled" }]);
  const mine = (await ok(anonymous.GET("/games/{id}/events", path))).events;
  assert.equal(mine[mine.length - 1]?.event.type, "game_cancelled");
  assert.equal(API_VERSION, (await anonymous.GET("/games")).response.headers.get("Api-Version"));
  const record = parseRecord('{"seq": 2, "event": {"type": "newer", "event_type": "x", "since": "9.0.0", "event": {"type": "x"}}}');
  assert.ok(!(record.event instanceof UnknownEvent) && record.event.type === "newer");
});

test("one player's stream plays three games", async () => {
  // One key in three games, followed on one connection: each started, every turn of the key's
  // seat announced once and played, each ended.
  const anonymous = connect(base);
  const key = new Signer("").key;
  const signers = new Map<string, { signer: Signer; player: Api }>();
  for (let i = 0; i < 3; i++) {
    const created = await ok(anonymous.POST("/games", { body: { ruleset: "base", players: 3 } }));
    const path = { params: { path: { id: created.game_id } } };
    const signer = new Signer(created.game_id, 0, key);
    const me = await ok(anonymous.POST("/games/{id}/seats", {
      ...path, body: { name: "many", public_key: signer.publicKey, key_proof: signer.keyProof() },
    }));
    signer.joined(me);
    const host = connect(base, created.host_token);
    for (let b = 0; b < 2; b++) await ok(host.POST("/games/{id}/bots", { ...path, body: { level: "random" } }));
    await ok(host.POST("/games/{id}/start", path));
    signers.set(created.game_id, { signer, player: connect(base, me.player_token) });
  }
  const started = new Set<string>();
  const ended = new Set<string>();
  let turns = 0;
  for await (const notice of followPlayer(anonymous, key)) {
    const mine = signers.get(notice.game_id);
    assert.ok(mine !== undefined, JSON.stringify(notice));
    if (notice.kind === "started") started.add(notice.game_id);
    if (notice.kind === "your_turn") {
      assert.ok(!ended.has(notice.game_id));
      turns++;
      const moves = await ok(mine.player.GET("/games/{id}/legal-moves", { params: { path: { id: notice.game_id } } }));
      const first = moves.commands[0];
      try {
        if (first !== undefined) await mine.signer.command(mine.player, moves.version, first);
      } catch (e) {
        if (!(e instanceof PreconditionFailed)) throw e; // the game moved on: the stream says what next
      }
    }
    if (notice.kind === "ended") {
      ended.add(notice.game_id);
      if (ended.size === signers.size) break;
    }
  }
  assert.deepEqual([...started].sort(), [...signers.keys()].sort());
  assert.deepEqual([...ended].sort(), [...signers.keys()].sort());
  assert.ok(turns >= 3, `${turns} turns`);
});

test("after a reissue a key is registered with a proof dated since it; an older proof is refused", async () => {
  const table = await newTable();
  const path = { params: { path: { id: table.game, seat: table.seat } } };
  const fresh = await ok(table.host.POST("/games/{id}/seats/{seat}/token", path));
  const player = connect(base, fresh.player_token);
  const signer = new Signer(table.game, table.seat);
  const refused = [
    { public_key: signer.publicKey, key_proof: signer.keyProof() },
    { public_key: signer.publicKey, key_proof: signer.keyProofAt(fresh.version - 1), key_proof_version: fresh.version - 1 },
  ];
  for (const body of refused) {
    await assert.rejects(ok(player.PUT("/games/{id}/seats/{seat}/key", { ...path, body })),
      (e) => e instanceof ApiProblem && e.status === 400 && e.code === "bad_key_proof");
  }
  const body = { public_key: signer.publicKey, key_proof: signer.keyProofAt(fresh.version), key_proof_version: fresh.version };
  const outcome = await ok(player.PUT("/games/{id}/seats/{seat}/key", { ...path, body }));
  assert.ok("events" in outcome, "during play the key is recorded");
  const registered = outcome.events[0]?.event;
  assert.ok(registered?.type === "seat_key_registered");
  assert.deepEqual([registered.key, registered.at], [signer.publicKey, fresh.version]);
});
