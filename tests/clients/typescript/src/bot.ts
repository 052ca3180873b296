// An example third-party client, written as a developer outside the project would: the client
// is generated from the committed spec (openapi-typescript for the types, openapi-fetch for the
// calls), and this bot uses nothing else.
//
//   npm ci && npm run generate && npm run check && npm run play -- http://127.0.0.1:8080 base
//
// It creates a game, takes seat 0, gives the other seats to the server's bots, starts, follows
// the event stream (Server-Sent Events, resumed with Last-Event-ID), and plays a legal move
// whenever its seat is awaited until the game ends; then it prints the final score. Once, on
// purpose, it sends a move chosen at a stale version (412: it reloads) and a card it does not
// hold (422: it reads the problem's `code`). It keeps the signed receipt of every view and
// reply it is served, and once the game is over has the server check them against the game's
// record, as a player preparing a dispute would (`saboteur verify --receipts` does it offline).
import createClient from "openapi-fetch";
import type { components, paths } from "../generated/api.js";

type Command = components["schemas"]["Command"];
type Problem = components["schemas"]["Problem"];
type Receipt = components["schemas"]["Receipt"];
type StateView = components["schemas"]["StateView"];
type Ruleset = components["schemas"]["Ruleset"];

const [base = "http://127.0.0.1:8080", rulesetArg = "base", playersArg = "4"] = process.argv.slice(2);
const ruleset: Ruleset = rulesetArg === "saboteur2" ? "saboteur2" : "base";
const players = Number(playersArg);
const api = createClient<paths>({ baseUrl: base });
const receipts: Receipt[] = [];
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

function fail(what: string, error: Problem | undefined, status: number): never {
  throw new Error(`${what}: ${status} ${error?.code ?? ""} ${error?.detail ?? ""}`);
}

// Create the game, take a seat, seat bots, start.
const created = await api.POST("/games", { body: { ruleset, players } });
if (!created.data) fail("create", created.error, created.response.status);
const game = created.data.game_id;
const host = created.data.host_token;
const joined = await api.POST("/games/{id}/seats", { params: { path: { id: game } }, body: { name: "typescript example" } });
if (!joined.data) fail("join", joined.error, joined.response.status);
const me = joined.data.seat;
const token = joined.data.player_token;
for (let i = 1; i < players; i++) {
  const bot = await api.POST("/games/{id}/bots", { params: { path: { id: game } }, headers: bearer(host), body: { level: "heuristic" } });
  if (!bot.data) fail("add a bot", bot.error, bot.response.status);
}
const started = await api.POST("/games/{id}/start", { params: { path: { id: game } }, headers: bearer(host) });
if (!started.data) fail("start", started.error, started.response.status);
console.log(`game ${game} (${ruleset}, ${players} players): seat ${me}`);

async function state(): Promise<StateView> {
  const got = await api.GET("/games/{id}/state", { params: { path: { id: game } }, headers: bearer(token) });
  if (!got.data) fail("state", got.error, got.response.status);
  if (got.data.receipt) receipts.push(got.data.receipt);
  return got.data;
}

let shownStale = false;
let shownIllegal = false;

/** Plays once if the seat is awaited. Returns whether the game is over. */
async function turn(): Promise<boolean> {
  const now = await state();
  if (now.view.phase.name === "game_over") return true;
  if (now.view.phase.awaited !== me) return false;
  const legal = await api.GET("/games/{id}/legal-moves", { params: { path: { id: game } }, headers: bearer(token) });
  if (!legal.data) fail("legal moves", legal.error, legal.response.status);
  const moves: Command[] = legal.data.commands;
  if (moves.length === 0) return false;
  const move = moves[Math.floor(Math.random() * moves.length)];
  if (!shownStale && now.version > 1) {
    shownStale = true;
    const stale = await send(move, now.version - 1);
    if (stale === 412) console.log("412 precondition_failed: the move was chosen at an old version; reloaded");
    return false;
  }
  if (!shownIllegal && now.view.hand) {
    const held = new Set(now.view.hand);
    const missing = (["tunnel_nesw", "break_pickaxe", "map", "rockfall"] as const).find((c) => !held.has(c));
    if (missing) {
      shownIllegal = true;
      await send({ type: "pass", discard: [missing] }, now.version);
      return false;
    }
  }
  await send(move, now.version);
  return false;
}

/** Sends a command chosen at `version`; returns the status. 412 and 422 are expected answers. */
async function send(command: Command, version: number): Promise<number> {
  const sent = await api.POST("/games/{id}/commands", {
    params: { path: { id: game } },
    headers: { ...bearer(token), "If-Match": `"${version}"`, "Idempotency-Key": crypto.randomUUID() },
    body: command,
  });
  const status = sent.response.status;
  if (sent.data?.receipt) receipts.push(sent.data.receipt);
  if (sent.data) return status;
  if (status === 412 || status === 409) return status; // someone moved first: reload and retry
  if (status === 422 && sent.error) {
    console.log(`422 ${sent.error.code}: ${sent.error.detail}`);
    return status;
  }
  fail("command", sent.error, status);
}

// Follow the live stream; every event (or a quiet second) is a chance to play.
let lastEventId: string | undefined;
let over = await turn();
while (!over) {
  const controller = new AbortController();
  const headers: Record<string, string> = { ...bearer(token), Accept: "text/event-stream" };
  if (lastEventId) headers["Last-Event-ID"] = lastEventId;
  const stream = await fetch(`${base}/games/${game}/events/stream`, { headers, signal: controller.signal });
  if (!stream.ok || !stream.body) throw new Error(`stream: ${stream.status}`);
  const reader = stream.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let reading = reader.read();
  while (!over) {
    const quiet = new Promise<"quiet">((resolve) => setTimeout(() => resolve("quiet"), 1000));
    const next = await Promise.race([reading, quiet]);
    if (next !== "quiet") {
      if (next.done) break;
      reading = reader.read();
      buffer += decoder.decode(next.value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        for (const line of buffer.slice(0, end).split("\n")) {
          if (line.startsWith("id:")) lastEventId = line.slice(3).trim();
        }
        buffer = buffer.slice(end + 2);
      }
    }
    over = await turn();
  }
  reading.catch(() => undefined);
  controller.abort();
}

const end = await state();
const gold = end.view.gold ?? [];
console.log(`final score: ${gold.map((g, seat) => `seat ${seat} ${g}`).join(", ")}; winners ${end.view.winners.join(", ")}; events ${end.version}`);

// Check the receipts kept against the finished game's record (a request holds at most 64 KiB).
let agreed = 0;
for (let i = 0; i < receipts.length; i += 50) {
  const checked = await api.POST("/games/{id}/audit/receipts", { params: { path: { id: game } }, body: receipts.slice(i, i + 50) });
  if (!checked.data) fail("check receipts", checked.error, checked.response.status);
  if (!checked.data.ok) throw new Error(`receipts: ${checked.data.contradiction ?? checked.data.refused}`);
  agreed += checked.data.checked?.receipts ?? 0;
}
console.log(`receipts: ${agreed} kept, every one agrees with the record`);
