// Saboteur Server's TypeScript SDK: the API's types generated from its spec (openapi-typescript),
// calls through openapi-fetch, and a small layer over them.
//
//   import { connect, follow, ok, Receipts, Signer } from "saboteur-sdk";
//
//   const player = connect(base, token);                                   // openapi-fetch
//   const view = await ok(player.GET("/games/{id}/state", { params: { path: { id } } }));
//   const signer = new Signer(game);                                       // the seat's key
//   await signer.command(player, moves.version, moves.commands[0]);        // signed, as signed
//   for await (const record of follow(player, game, { table: true })) {}   // to the game's end
//   for await (const notice of followPlayer(anonymous, signer.key)) {}     // all of a key's games
//   await receipts.verify(anonymous, game, { [seat]: [signer.publicKey] }); // `saboteur verify`
import createClient from "openapi-fetch";
import type { Api } from "./client.js";
import type { components, paths } from "./generated/api.js";
import { API_VERSION } from "./generated/spec.js";

export type { Api } from "./client.js";
export type { components, operations, paths } from "./generated/api.js";
export { API_VERSION, EVENT_TYPES } from "./generated/spec.js";
export * from "./openings.js";
export * from "./players.js";
export * from "./problems.js";
export * from "./receipts.js";
export * from "./signing.js";
export * from "./stream.js";

/** The spec's schemas, by name: `Schemas["StateView"]`. */
export type Schemas = components["schemas"];
export type Command = Schemas["Command"];
export type Event = Schemas["Event"];
export type EventRecord = Schemas["EventRecord"];
export type NewerEvent = Schemas["NewerEvent"];
export type KeyList = Schemas["KeyList"];
export type LegalMoves = Schemas["LegalMoves"];
export type Outcome = Schemas["Outcome"];
export type Receipt = Schemas["Receipt"];
export type StateView = Schemas["StateView"];
export type TableRead = Schemas["TableRead"];

export interface ConnectOptions {
  /** The `fetch` every request goes through (by default the global one). */
  fetch?: typeof globalThis.fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

/** A client of the server at `baseUrl` (`http://127.0.0.1:8080`) that sends `token` as
 * `Authorization: Bearer` (without one, a spectator's) and `Api-Version`, the version this SDK
 * was generated from: an event of a type a later API version introduced comes as a `NewerEvent`
 * (`type: "newer"`), which the generated types name. */
export function connect(baseUrl: string, token?: string, options: ConnectOptions = {}): Api {
  const base = baseUrl.replace(/\/+$/, "");
  const fetcher: typeof globalThis.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const headers: Record<string, string> = { "Api-Version": API_VERSION, ...options.headers };
  if (token !== undefined) headers.Authorization = `Bearer ${token}`;
  const client = createClient<paths>({ baseUrl: base, fetch: fetcher, headers });
  return Object.assign(client, { baseUrl: base, token, fetch: fetcher });
}
