// An example third-party client, written as a developer outside the project would: the types are
// generated from the committed spec (openapi-typescript), the calls made with openapi-fetch;
// `client.ts` turns each answer into its body or an `ApiProblem`, and reads the live stream with
// eventsource-parser.
//
//   npm ci && npm run generate && npm run check
//   npm run play -- http://127.0.0.1:8080 base 4
//   SABOTEUR_BIN=saboteur npm run play -- http://127.0.0.1:8080 online 4
//
// `base`: a game of one seat and the server's bots. `online`: a Saboteur 2 game with a turn
// clock in which this client holds two seats; it talks at the table, asks for an undo (the bots
// decline when the move showed its player a card), asks again after a move that drew nothing
// (the bots approve, and its other seat votes), has the host issue a seat's token again (the
// stream opened with the old token ends; it resumes with the new one), and drops its stream
// once on purpose.
//
// Either way the live stream drives it (resumed with Last-Event-ID, every event exactly once):
// when the stream reaches the newest version the client knows of, it reads the state of its
// seats and plays a legal move for each one awaited. It shows a 412 (a move chosen at an old
// version) and a 422 (a card it does not hold), keeps every signed receipt and the server's keys
// from first contact, and once the game is over checks the receipts: on the server, and, in
// `online`, offline with `saboteur verify` ($SABOTEUR_BIN) against the downloaded bundle, with
// `--player-key` for every key it registered for each of its seats (every act of those seats
// must be signed by one of them).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import createClient from "openapi-fetch";
import type { components, paths } from "../generated/api.js";
import { ApiProblem, checkRecord, type EventRecord, follow, ok, Signer, StreamLost } from "./client.js";

type Command = components["schemas"]["Command"];
type Outcome = components["schemas"]["Outcome"];
type Receipt = components["schemas"]["Receipt"];
type StateView = components["schemas"]["StateView"];

const GREETING = "gl hf";
const [base = "http://127.0.0.1:8080", mode = "base", playersArg = "4"] = process.argv.slice(2);
const online = mode === "online";
const players = Number(playersArg);
const api = createClient<paths>({ baseUrl: base });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

const receipts: Receipt[] = [];
// The newest version this client knows of, from the replies it got: the stream is followed up
// to it before the client decides again.
let known = 0;
/** Keeps the receipt the server signed for what it served, and the version it is at. */
function keep(body: { receipt?: Receipt | null; version: number }): void {
  if (body.receipt) receipts.push(body.receipt);
  known = Math.max(known, body.version);
}

// The server's keys, kept from first contact: receipts are checked against these.
const keys = await ok(api.GET("/keys"));
const created = await ok(api.POST("/games", {
  body: {
    ruleset: online || mode === "saboteur2" ? "saboteur2" : "base",
    players,
    // A turn clock generous enough for any bot: every command is recorded with its time.
    options: online ? { clock: { kind: "per_decision", seconds: 120 } } : {},
  },
}));
const game = created.game_id;
const host = created.host_token;
const path = { params: { path: { id: game } } };

// `keys`: every public key registered for the seat (the one sent when taking it, then any
// registered again), which `saboteur verify --player-key` holds the seat's acts to.
interface Seat { seat: number; token: string; moves: number; signer: Signer; keys: string[] }
const seats: Seat[] = [];
// Acts signed with keys given up (a token issued again drops the seat's key), and keys used.
let retiredActs = 0, keysUsed = 0;
for (const name of ["typescript example", "typescript partner"].slice(0, online ? 2 : 1)) {
  // Each seat with its own key: from the start, every act of the seat is signed.
  const signer = new Signer(game, seats.length);
  const body = { name, public_key: signer.publicKey, key_proof: signer.keyProof() };
  const joined = await ok(api.POST("/games/{id}/seats", { ...path, body }));
  signer.joined(joined); // the reply must commit to this key (CommitmentMismatch)
  seats.push({ seat: joined.seat, token: joined.player_token, moves: 0, signer, keys: [signer.publicKey] });
  keysUsed++;
}
/** The headers of `seat`'s act `act` with the request's model `body`, signed at `version` (by
 * default the newest known) about the event `about`, and the call's own. */
function signedBy(seat: Seat, act: string, body?: unknown, version = known, headers: Record<string, string> = {}, about: number | null = null) {
  return { ...bearer(seat.token), ...headers, ...seat.signer.headers(version, act, body, about) };
}
for (let i = seats.length; i < players; i++) {
  await ok(api.POST("/games/{id}/bots", { ...path, headers: bearer(host), body: { level: "heuristic" } }));
}
keep(await ok(api.POST("/games/{id}/start", { ...path, headers: bearer(host) })));
// A game of another record version than this client signs is refused before any act.
checkRecord((await state(seats[0])).table.record_version);
console.log(`game ${game} (${online ? "saboteur2" : mode}, ${players} players): seats ${seats.map((s) => s.seat).join(", ")}`);

async function state(seat: Seat): Promise<StateView> {
  const view = await ok(api.GET("/games/{id}/state", { ...path, headers: bearer(seat.token) }));
  keep(view);
  return view;
}

/** Sends a command chosen at `version`; 409, 412 and 422 are answers a player meets. Returns
 * whether it was accepted. */
async function send(seat: Seat, command: Command, version: number): Promise<boolean> {
  const headers = { "If-Match": `"${version}"`, "Idempotency-Key": crypto.randomUUID() };
  if (!shownUnsigned) {
    // Unsigned, a keyed seat's command is refused: 401, nothing changes.
    shownUnsigned = true;
    try {
      await ok(api.POST("/games/{id}/commands", { ...path, headers: { ...bearer(seat.token), ...headers }, body: command }));
      throw new Error("an unsigned command was accepted");
    } catch (e) {
      if (!(e instanceof ApiProblem)) throw e;
      console.log(`${e.status} ${e.code}: an unsigned command`);
    }
  }
  try {
    // The model signed as a value and sent by openapi-fetch as it likes.
    keep(await ok(api.POST("/games/{id}/commands", {
      ...path,
      headers: signedBy(seat, "command", command, version, headers),
      body: command,
    })));
    seat.moves++;
    return true;
  } catch (e) {
    if (!(e instanceof ApiProblem)) throw e;
    if (e.status === 412) console.log(`412 ${e.code}: the move was chosen at an old version`);
    else if (e.status === 422) console.log(`422 ${e.code}: ${e.detail}`);
    else if (e.status !== 409) throw e;
    return false;
  }
}

let shownStale = false, shownIllegal = false, shownUnsigned = false, said = false, heard = false;
let undoAsked = false, askedAgain = false, reissued = false, dropped = false;
let timed = 0, timeouts = 0;

/** Plays once if `seat` is awaited. Returns whether the game is over. */
async function act(seat: Seat): Promise<boolean> {
  const now = await state(seat);
  if (now.view.phase.name === "game_over") return true;
  if (now.view.phase.awaited !== seat.seat) return false;
  const moves = await ok(api.GET("/games/{id}/legal-moves", { ...path, headers: bearer(seat.token) }));
  if (moves.commands.length === 0) return false;
  const move = moves.commands[Math.floor(Math.random() * moves.commands.length)];
  if (!shownStale && moves.decision_version > 1) {
    // A version before the last decision-changing event is stale: 412, nothing changes.
    shownStale = true;
    await send(seat, move, moves.decision_version - 1);
  }
  const held = new Set(now.view.hand ?? []);
  const missing = (["tunnel_nesw", "break_pickaxe", "map"] as const).find((c) => !held.has(c));
  if (!shownIllegal && held.size && missing) {
    // A card this seat does not hold: 422, nothing changes.
    shownIllegal = true;
    await send(seat, { type: "pass", discard: [missing] }, moves.version);
  }
  if ((await send(seat, move, moves.version)) && online) await tableActs(seat, now.view.draw_pile_size > 0);
  return false;
}

async function actAll(): Promise<boolean> {
  let over = false;
  for (const seat of seats) over = (await act(seat)) || over;
  return over;
}

/** The acts of online play, each once, after a move of `seat` (which `drew` a card). */
async function tableActs(seat: Seat, drew: boolean): Promise<void> {
  if (!said) {
    said = true;
    const body = { text: GREETING };
    keep(await ok(api.POST("/games/{id}/talk", { ...path, headers: signedBy(seat, "talk", body), body })));
  } else if (!undoAsked && seat.moves >= 2) {
    undoAsked = true;
    await askUndo(seat);
  } else if (!reissued && seat.moves >= 4) {
    reissued = true;
    const first = seats[0];
    const fresh = await ok(api.POST("/games/{id}/seats/{seat}/token", {
      params: { path: { id: game, seat: first.seat } },
      headers: bearer(host),
    }));
    first.token = fresh.player_token;
    known = Math.max(known, fresh.version);
    console.log(`token of seat ${first.seat} issued again at version ${fresh.version}`);
    // A new token drops the seat's key: its holder registers a new one (unsigned, as the seat
    // has none now), proved for the seat from the reissue on, and signs with it from then on.
    retiredActs += first.signer.acts;
    first.signer = new Signer(game, first.seat);
    const registered = await ok(api.PUT("/games/{id}/seats/{seat}/key", {
      params: { path: { id: game, seat: first.seat } },
      headers: bearer(first.token),
      body: { public_key: first.signer.publicKey, key_proof: first.signer.keyProofAt(known), key_proof_version: known },
    }));
    // During play the key is recorded (an outcome); before the start the seat's commitment
    // is made again with it (and its receipt kept).
    if ("version" in registered) keep(registered);
    else if (registered.receipt) receipts.push(registered.receipt);
    first.keys.push(first.signer.publicKey);
    keysUsed++;
    console.log(`key of seat ${first.seat} registered again at version ${known}`);
  } else if (!askedAgain && !drew && seat === seats[seats.length - 1]) {
    // A move that drew nothing showed its player nothing hidden, so the bots (who play after
    // this seat) approve taking it back, and the vote of the other seat is awaited.
    askedAgain = true;
    await askUndo(seat);
  }
}

/** Where an undo request stands after a reply's events. */
function settled(records: EventRecord[]): string {
  const events = records.map((r) => r.event);
  if (events.some((e) => e.type === "undone")) return "taken back";
  const declined = events.find((e) => e.type === "undo_declined");
  if (declined) return `declined by seat ${declined.seat}`;
  return events.some((e) => e.type === "undo_requested") ? "votes awaited" : "pending";
}

/** Asks to take back `seat`'s last command. 200: settled at once (taken back, or declined by a
 * bot, which declines when the command showed its player a hidden card); 202: the votes of
 * other players are awaited, here the other seat this client holds. */
async function askUndo(seat: Seat): Promise<void> {
  // The statement names the command taken back, as the table's status lists it.
  const now = await state(seat);
  const command = now.table.seats[seat.seat]?.undoable ?? null;
  const asked = await api.POST("/games/{id}/undo", { ...path, headers: signedBy(seat, "undo", undefined, now.version, {}, command) });
  let outcome: Outcome;
  try {
    outcome = await ok(asked);
  } catch (e) {
    // 409: the move ended the game, or another request is pending; any other refusal fails.
    if (!(e instanceof ApiProblem) || e.status !== 409) throw e;
    console.log(`undo refused: ${e.status} ${e.code}`);
    return;
  }
  keep(outcome);
  console.log(`undo requested: ${asked.response.status} (${settled(outcome.events)})`);
  if (asked.response.status !== 202) return;
  for (const other of seats.filter((s) => s !== seat)) {
    try {
      // The vote names the request it answers.
      const asked = await state(other);
      const voted = await api.POST("/games/{id}/undo/approve", {
        ...path,
        headers: signedBy(other, "approve", undefined, asked.version, {}, asked.table.undo_request ?? null),
      });
      const result = await ok(voted);
      keep(result);
      console.log(`undo approved by seat ${other.seat}: ${voted.response.status} (${settled(result.events)})`);
    } catch (e) {
      // Settled meanwhile (a vote of another player): nothing to vote on. Any other refusal
      // (a statement the server does not take) is a failure.
      if (!(e instanceof ApiProblem) || e.status !== 409) throw e;
      console.log(`vote of seat ${other.seat}: ${e.status} ${e.code}`);
    }
  }
}

/** What the client looks for in the stream, besides the chance to play. */
function notice(record: EventRecord): void {
  const event = record.event;
  if (event.type === "talk_posted" && event.text === GREETING) heard = true;
  if (event.type === "token_reissued") console.log(`stream resumed with the new token at event ${record.seq}`);
  if (event.type === "command_accepted" && event.at != null) timed++;
  if (event.type === "turn_timed_out") timeouts++;
}

// Follow the stream with the first seat's token, to the game's end. Whenever the stream has
// shown every event up to the newest version the client knows of, its seats decide. The server
// ends the stream after a finished game's last event, and a stream whose token was issued
// again; any other end is a dropped connection. Either way the client reconnects with
// Last-Event-ID, the last sequence number it saw.
let last: string | undefined;
let seen = 0;
let over = false;
let ended = false;
for (let fruitless = 0; !ended;) {
  const token = seats[0].token;
  const before = seen;
  const stop = new AbortController();
  try {
    for await (const record of follow(base, game, token, last, stop.signal)) {
      if (record.seq !== seen + 1) throw new Error(`event ${record.seq} after ${seen}: the stream skipped or repeated`);
      seen = record.seq;
      last = String(seen);
      ended = record.event.type === "game_ended";
      notice(record);
      if (!over && seen >= known) over = await actAll();
      if (online && !dropped && seen >= 40 && seats[0].token === token) {
        dropped = true;
        stop.abort();
        console.log(`stream dropped after event ${seen}; resuming with Last-Event-ID`);
        break;
      }
    }
    if (!stop.signal.aborted && seats[0].token !== token) console.log(`stream of the old token ended by the server after event ${seen}`);
  } catch (e) {
    if (!(e instanceof StreamLost)) throw e;
    console.log(`stream lost after event ${seen} (${String(e.reason)}); resuming with Last-Event-ID`);
  } finally {
    stop.abort();
  }
  fruitless = seen === before ? fruitless + 1 : 0;
  if (fruitless > 3) throw new Error(`the stream ends without events after event ${seen}`);
}

const end = await state(seats[0]);
const gold = end.view.gold ?? [];
console.log(`final score: ${gold.map((g, seat) => `seat ${seat} ${g}`).join(", ")}; winners ${end.view.winners.join(", ")}; events ${end.version}`);
if (seen !== end.version) throw new Error(`the stream showed ${seen} of ${end.version} events`);
console.log(`stream: every one of ${seen} events once, in order`);
if (online) {
  if (!(heard && undoAsked && reissued && dropped)) throw new Error("the online acts did not all happen");
  console.log(`clock: ${timed} commands recorded with their time, ${timeouts} timeouts`);
}

const signedActs = retiredActs + seats.reduce((n, s) => n + s.signer.acts, 0);
console.log(`signed: ${signedActs} acts with ${keysUsed} key${keysUsed === 1 ? "" : "s"}`);
// Check the receipts kept against the finished game's record (a request holds at most 64 KiB).
let agreed = 0;
for (let i = 0; i < receipts.length; i += 50) {
  const checked = await ok(api.POST("/games/{id}/audit/receipts", { ...path, body: receipts.slice(i, i + 50) }));
  if (!checked.ok) throw new Error(`receipts: ${checked.contradiction ?? checked.refused}`);
  agreed += checked.checked?.receipts ?? 0;
}
console.log(`receipts: ${agreed} kept, every one agrees with the record`);

if (online) {
  // Offline, as a player settling a dispute would: the bundle as downloaded, the receipts, the
  // keys kept from first contact, and `--player-key SEAT:KEY` for every key registered for each
  // seat held: every act of those seats must be signed by one of the seat's keys.
  const bundle = await fetch(`${base}/games/${game}/audit`);
  if (!bundle.ok) throw new Error(`audit bundle: ${bundle.status}`);
  const folder = mkdtempSync(join(tmpdir(), "saboteur-verify-"));
  const files = { bundle: join(folder, "bundle.json"), receipts: join(folder, "receipts.json"), keys: join(folder, "keys.json") };
  writeFileSync(files.bundle, await bundle.text());
  writeFileSync(files.receipts, JSON.stringify(receipts));
  writeFileSync(files.keys, JSON.stringify(keys));
  const playerKeys = seats.flatMap((s) => s.keys.flatMap((key) => ["--player-key", `${s.seat}:${key}`]));
  const checked = spawnSync(process.env.SABOTEUR_BIN ?? "saboteur", ["verify", "--file", files.bundle, "--receipts", files.receipts, "--keys", files.keys, ...playerKeys], { encoding: "utf8" });
  if (checked.status !== 0) throw new Error(`saboteur verify: ${checked.error?.message ?? ""}${checked.stdout ?? ""}${checked.stderr ?? ""}`);
  console.log(`verify: ok (${receipts.length} receipts)`);
  // Each seat's keys named by their fingerprints: the option was checked, seat by seat.
  const lines = checked.stdout.split("\n");
  for (const s of seats) {
    const said = `every act of seat ${s.seat} is signed by the key ${s.keys.map(fingerprint).join(" or ")}`;
    if (!lines.includes(said)) throw new Error(`saboteur verify did not say "${said}": ${checked.stdout}`);
    console.log(`verify: ${said}`);
  }
}

/** A key's fingerprint, as the server and `saboteur verify` show it: the first 16 hex digits of
 * the SHA-256 of its 32 bytes, in groups of four. */
function fingerprint(key: string): string {
  const digest = createHash("sha256").update(Buffer.from(key, "hex")).digest("hex").slice(0, 16);
  return [0, 4, 8, 12].map((i) => digest.slice(i, i + 4)).join(" ");
}
