// A client of the previous release (API 0.12.0), kept as it was: the whole bot docs/clients.md
// gave then, with the wrapper beside it (client.ts) and the spec it was generated from
// (openapi.json). tests/clients/run.sh generates the types from that spec and plays a game with
// it against this server: a minor version must not break it. Do not update these files; replace
// them with the next release's when it is published.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import createClient from "openapi-fetch";
import type { components, paths } from "../generated/api.js";
import { ApiProblem, checkRecord, follow, ok, Signer, StreamLost } from "./client.js";

const base = "http://127.0.0.1:8080";
const api = createClient<paths>({ baseUrl: base });
const keys = await ok(api.GET("/keys")); // the server's keys, from first contact
const created = await ok(api.POST("/games", { body: { ruleset: "base", players: 3 } }));
const path = { params: { path: { id: created.game_id } } };
const hostAuth = { Authorization: `Bearer ${created.host_token}` };
const signer = new Signer(created.game_id, 0); // an Ed25519 key: its public key goes with the seat
const me = await ok(api.POST("/games/{id}/seats", {
  ...path, body: { name: "me", public_key: signer.publicKey, key_proof: signer.keyProof() },
}));
signer.seat = me.seat;
const auth = { Authorization: `Bearer ${me.player_token}` };
for (let i = 0; i < 2; i++) {
  await ok(api.POST("/games/{id}/bots", { ...path, headers: hostAuth, body: { level: "random" } }));
}
await ok(api.POST("/games/{id}/start", { ...path, headers: hostAuth }));
// A game of a record version this client does not sign is refused before any act.
checkRecord((await ok(api.GET("/games/{id}/state", { ...path, headers: auth }))).table.record_version);

const receipts: components["schemas"]["Receipt"][] = [];
let last: string | undefined; // the last event seen, for Last-Event-ID
// The stream ends after the game's last event; any other end is a drop.
for (let ended = false; !ended;) {
  try {
    for await (const record of follow(base, created.game_id, me.player_token, last)) {
      last = String(record.seq);
      ended = record.event.type === "game_ended";
      const view = await ok(api.GET("/games/{id}/state", { ...path, headers: auth }));
      if (view.receipt) receipts.push(view.receipt);
      if (view.view.phase.awaited !== me.seat) continue;
      const moves = await ok(api.GET("/games/{id}/legal-moves", { ...path, headers: auth }));
      try {
        // Signed: the model's statement, the model sent as openapi-fetch writes it.
        const outcome = await ok(api.POST("/games/{id}/commands", {
          ...path,
          headers: { ...auth, "If-Match": `"${moves.version}"`, ...signer.headers(moves.version, "command", moves.commands[0]) },
          body: moves.commands[0],
        }));
        if (outcome.receipt) receipts.push(outcome.receipt);
      } catch (e) {
        // 409, 412: the game moved on, and the stream shows how.
        if (!(e instanceof ApiProblem) || (e.status !== 409 && e.status !== 412)) throw e;
      }
    }
  } catch (e) {
    if (!(e instanceof StreamLost)) throw e; // the connection dropped: resume after `last`
  }
}

const bundle = await fetch(`${base}/games/${created.game_id}/audit`);
writeFileSync("bundle.json", await bundle.text());
writeFileSync("receipts.json", JSON.stringify(receipts));
writeFileSync("keys.json", JSON.stringify(keys));
// --player-key: every act of my seat must be signed by my key (give each key you registered).
const verify = spawnSync("saboteur", ["verify", "--file", "bundle.json", "--receipts", "receipts.json",
  "--keys", "keys.json", "--player-key", `${me.seat}:${signer.publicKey}`], { stdio: "inherit" });
if (verify.status !== 0) throw new Error("saboteur verify found a discrepancy");
console.log(`game over: ${receipts.length} receipts verified`);
