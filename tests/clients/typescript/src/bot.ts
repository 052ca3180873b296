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
// clock in which this client holds two seats; it talks at the table, asks for an undo (and
// votes on it with its other seat), has the host issue a seat's token again (the stream opened
// with the old token ends; it resumes with the new one), and drops its stream once on purpose.
// Either way it follows the live stream (resumed with Last-Event-ID, every event exactly once),
// plays a legal move whenever one of its seats is awaited, shows a 412 (a move chosen at an old
// version) and a 422 (a card it does not hold), keeps every signed receipt and the server's keys
// from first contact, and once the game is over checks the receipts: on the server, and, in
// `online`, offline with `saboteur verify` ($SABOTEUR_BIN) against the downloaded bundle.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import createClient from "openapi-fetch";
import type { components, paths } from "../generated/api.js";
import { ApiProblem, follow, ok } from "./client.js";

type Command = components["schemas"]["Command"];
type Receipt = components["schemas"]["Receipt"];
type StateView = components["schemas"]["StateView"];

const [base = "http://127.0.0.1:8080", mode = "base", playersArg = "4"] = process.argv.slice(2);
const online = mode === "online";
const players = Number(playersArg);
const api = createClient<paths>({ baseUrl: base });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const receipts: Receipt[] = [];
const keep = (body: { receipt?: Receipt | null }) => { if (body.receipt) receipts.push(body.receipt); };

// The server's keys, kept from first contact: receipts are checked against these.
const keys = await ok(api.GET("/keys"));
const created = await ok(api.POST("/games", {
  body: {
    ruleset: online ? "saboteur2" : mode === "saboteur2" ? "saboteur2" : "base",
    players,
    options: online ? { clock: { kind: "per_decision", seconds: 120 } } : {},
  },
}));
const game = created.game_id;
const host = created.host_token;
const path = { params: { path: { id: game } } };

interface Seat { seat: number; token: string; moves: number }
const seats: Seat[] = [];
for (const name of ["typescript example", "typescript partner"].slice(0, online ? 2 : 1)) {
  const joined = await ok(api.POST("/games/{id}/seats", { ...path, body: { name } }));
  seats.push({ seat: joined.seat, token: joined.player_token, moves: 0 });
}
for (let i = seats.length; i < players; i++) {
  await ok(api.POST("/games/{id}/bots", { ...path, headers: bearer(host), body: { level: "heuristic" } }));
}
keep(await ok(api.POST("/games/{id}/start", { ...path, headers: bearer(host) })));
console.log(`game ${game} (${mode}, ${players} players): seats ${seats.map((s) => s.seat).join(", ")}`);

async function state(seat: Seat): Promise<StateView> {
  const view = await ok(api.GET("/games/{id}/state", { ...path, headers: bearer(seat.token) }));
  keep(view);
  return view;
}

/** Sends a command chosen at `version`; 409, 412 and 422 are answers a player meets. */
async function send(seat: Seat, command: Command, version: number): Promise<void> {
  try {
    keep(await ok(api.POST("/games/{id}/commands", {
      ...path,
      headers: { ...bearer(seat.token), "If-Match": `"${version}"`, "Idempotency-Key": crypto.randomUUID() },
      body: command,
    })));
    seat.moves++;
  } catch (e) {
    if (!(e instanceof ApiProblem)) throw e;
    if (e.status === 412) console.log(`412 ${e.code}: the move was chosen at an old version; reloaded`);
    else if (e.status === 422) console.log(`422 ${e.code}: ${e.detail}`);
    else if (e.status !== 409) throw e;
  }
}

let shownStale = false, shownIllegal = false, said = false, heard = false, undoAsked = false, reissued = false, dropped = false;

/** Plays once if `seat` is awaited. Returns whether the game is over. */
async function act(seat: Seat): Promise<boolean> {
  const now = await state(seat);
  if (now.view.phase.name === "game_over") return true;
  if (now.view.phase.awaited !== seat.seat) return false;
  const moves = (await ok(api.GET("/games/{id}/legal-moves", { ...path, headers: bearer(seat.token) }))).commands;
  if (moves.length === 0) return false;
  const move = moves[Math.floor(Math.random() * moves.length)];
  if (!shownStale && now.version > 2) {
    shownStale = true;
    await send(seat, move, now.version - 1);
    return false;
  }
  const held = new Set(now.view.hand ?? []);
  const missing = (["tunnel_nesw", "break_pickaxe", "map", "rockfall"] as const).find((c) => !held.has(c));
  if (!shownIllegal && held.size && missing) {
    shownIllegal = true;
    await send(seat, { type: "pass", discard: [missing] }, now.version);
    return false;
  }
  await send(seat, move, now.version);
  if (online) await tableActs(seat);
  return false;
}

/** The acts of online play, each once, after a move of `seat`. */
async function tableActs(seat: Seat): Promise<void> {
  if (!said) {
    said = true;
    keep(await ok(api.POST("/games/{id}/talk", { ...path, headers: bearer(seat.token), body: { text: "gl hf" } })));
  } else if (!undoAsked && seat.moves >= 2) {
    undoAsked = true;
    const asked = await api.POST("/games/{id}/undo", { ...path, headers: bearer(seat.token) });
    keep(await ok(Promise.resolve(asked)));
    console.log(`undo requested: ${asked.response.status}`);
    if (asked.response.status === 202) {
      for (const other of seats.filter((s) => s !== seat)) {
        try {
          keep(await ok(api.POST("/games/{id}/undo/approve", { ...path, headers: bearer(other.token) })));
          console.log(`undo approved by seat ${other.seat}`);
        } catch (e) {
          if (!(e instanceof ApiProblem)) throw e;
          console.log(`vote: ${e.status} ${e.code}`);
        }
      }
    }
  } else if (!reissued && seat.moves >= 4) {
    reissued = true;
    const first = seats[0];
    const fresh = await ok(api.POST("/games/{id}/seats/{seat}/token", { params: { path: { id: game, seat: first.seat } }, headers: bearer(host) }));
    first.token = fresh.player_token;
    console.log(`token of seat ${first.seat} issued again at version ${fresh.version}`);
  }
}

async function actAll(): Promise<boolean> {
  let over = false;
  for (const seat of seats) over = (await act(seat)) || over;
  return over;
}

// Follow the stream with the first seat's token, to its end: every event is a chance to play.
// The server ends the stream after a finished game's last event (and a stream whose token was
// issued again); every other end is a dropped connection, resumed with Last-Event-ID.
let last: string | undefined;
let seen = 0;
let over = await actAll();
for (let followed = false; !followed;) {
  const token = seats[0].token;
  const stop = new AbortController();
  let left = false;
  try {
    for await (const record of follow(base, game, token, last, stop.signal)) {
      if (record.seq !== seen + 1) throw new Error(`event ${record.seq} after ${seen}: the stream skipped or repeated`);
      seen = record.seq;
      last = String(record.seq);
      const event = record.event;
      if (event.type === "talk_posted" && event.text === "gl hf") heard = true;
      if (event.type === "token_reissued") console.log(`stream resumed with the new token at event ${record.seq}`);
      if (!over) over = await actAll();
      if (online && !dropped && seen >= 40) {
        dropped = true;
        console.log(`stream dropped after event ${seen}; resuming with Last-Event-ID`);
        left = true;
        break;
      }
      // The old token's stream is over for this seat; resume with the new one.
      if (seats[0].token !== token) { left = true; break; }
    }
  } finally {
    stop.abort();
  }
  if (!left) followed = (await state(seats[0])).view.phase.name === "game_over";
  if (!over) over = await actAll();
}
const end = await state(seats[0]);
const gold = end.view.gold ?? [];
console.log(`final score: ${gold.map((g, seat) => `seat ${seat} ${g}`).join(", ")}; winners ${end.view.winners.join(", ")}; events ${end.version}`);
if (seen !== end.version) throw new Error(`the stream showed ${seen} of ${end.version} events`);
console.log(`stream: every one of ${seen} events once, in order`);
if (online && !(heard && undoAsked && reissued && dropped)) throw new Error("the online acts did not all happen");

// Check the receipts kept against the finished game's record (a request holds at most 64 KiB).
let agreed = 0;
for (let i = 0; i < receipts.length; i += 50) {
  const checked = await ok(api.POST("/games/{id}/audit/receipts", { ...path, body: receipts.slice(i, i + 50) }));
  if (!checked.ok) throw new Error(`receipts: ${checked.contradiction ?? checked.refused}`);
  agreed += checked.checked?.receipts ?? 0;
}
console.log(`receipts: ${agreed} kept, every one agrees with the record`);

if (online) {
  // Offline, as a player settling a dispute would: the bundle, the receipts, the kept keys.
  const bundle = await fetch(`${base}/games/${game}/audit`);
  if (!bundle.ok) throw new Error(`audit bundle: ${bundle.status}`);
  const folder = mkdtempSync(join(tmpdir(), "saboteur-verify-"));
  const files = { bundle: join(folder, "bundle.json"), receipts: join(folder, "receipts.json"), keys: join(folder, "keys.json") };
  writeFileSync(files.bundle, await bundle.text());
  writeFileSync(files.receipts, JSON.stringify(receipts));
  writeFileSync(files.keys, JSON.stringify(keys));
  execFileSync(process.env.SABOTEUR_BIN ?? "saboteur", ["verify", "--file", files.bundle, "--receipts", files.receipts, "--keys", files.keys], { stdio: "pipe" });
  console.log(`verify: ok (${receipts.length} receipts)`);
}
