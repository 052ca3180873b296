// A thin layer over the client openapi-fetch makes from the generated types: every call gives
// the success body or throws `ApiProblem`, the live stream is read with eventsource-parser, and a
// seat's acts are signed with its Ed25519 key (Node's own crypto).
//
//   const api = createClient<paths>({ baseUrl });
//   const view = await ok(api.GET("/games/{id}/state", { params: { path: { id } } }));  // StateView
//   for await (const record of follow(baseUrl, id, token, lastEventId)) { ... }         // EventRecords
//   const signer = new Signer(id, seat);   // send signer.publicKey and signer.keyProof() when
//                                          // taking the seat, then
//   await ok(api.POST("/games/{id}/commands", { ...path, body: command,   // the model, signed
//     headers: { ...bearer(token), ...signer.headers(version, "command", command) } }));
import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import canonicalize from "canonicalize";
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { components } from "../generated/api.js";

export type EventRecord = components["schemas"]["EventRecord"];
type Problem = components["schemas"]["Problem"];

/** An RFC 9457 problem the server answered with. `code` is a plain string: compare it with the
 * values of the spec's `ProblemCode`, and treat a code this client does not know yet by its
 * `status`. `headers` are the response's (`retryAfter` is its `Retry-After`, for 429 and 503). */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly headers: Headers,
  ) {
    super(`${status} ${code}: ${detail}`);
  }

  get retryAfter(): string | null {
    return this.headers.get("retry-after");
  }
}

/** The connection of a stream was lost: resume with the last `seq` seen. */
export class StreamLost extends Error {
  constructor(readonly reason: unknown) {
    super(`the stream was lost: ${String(reason)}`);
  }
}

function problemOf(response: Response, body: unknown): ApiProblem {
  const problem = (typeof body === "object" && body !== null ? body : {}) as Partial<Problem>;
  const detail = problem.detail ?? (typeof body === "string" && body ? body : response.statusText);
  return new ApiProblem(response.status, problem.code ?? "", detail, response.headers);
}

/** What an openapi-fetch call resolves to. */
type Answer<D> = { data?: D; error?: unknown; response: Response };

/** The body of a 2xx answer; otherwise throws `ApiProblem`. Takes the call (a promise) or what it
 * resolved to, when the caller also wants the response (its status, its headers). */
export async function ok<D>(call: Promise<Answer<D>> | Answer<D>): Promise<D> {
  const { data, error, response } = await call;
  if (response.ok && data !== undefined) return data;
  throw problemOf(response, error);
}

/** The game's events, live (`GET /games/{id}/events/stream`), from after `lastEventId` (every
 * event from the first when it is undefined). Ends when the server ends the stream: after a
 * finished game's last event, or when `token` was issued again. Throws `ApiProblem` when the
 * stream is refused and `StreamLost` when the connection drops; `signal` closes it. */
export async function* follow(
  base: string,
  game: string,
  token: string | undefined,
  lastEventId: string | undefined,
  signal?: AbortSignal,
): AsyncGenerator<EventRecord> {
  const headers: Record<string, string> = { Accept: "text/event-stream" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (lastEventId) headers["Last-Event-ID"] = lastEventId;
  let response: Response;
  try {
    response = await fetch(`${base}/games/${encodeURIComponent(game)}/events/stream`, { headers, signal });
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new StreamLost(e);
  }
  if (!response.ok || !response.body) {
    const text = await response.text();
    let body: unknown = text;
    try { body = JSON.parse(text); } catch { /* not JSON: the text is the detail */ }
    throw problemOf(response, body);
  }
  const messages = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  try {
    for await (const message of messages) {
      // Keep-alive comments are not messages; an event always has data.
      if (message.data) yield JSON.parse(message.data) as EventRecord;
    }
  } catch (e) {
    if (signal?.aborted || e instanceof SyntaxError) throw e;
    throw new StreamLost(e);
  }
}

/** The record version this client signs for: its games' players sign `saboteur-act-v3`. A
 * game of another record version is refused (`checkRecord`). */
export const RECORD_VERSION = 7;

/** Refuses a game whose record version (`TableStatus.record_version`, or `game_created`'s) is
 * not the one this client signs: an older one binds signatures less (docs/clients.md). */
export function checkRecord(recordVersion: number): void {
  if (recordVersion !== RECORD_VERSION) {
    throw new Error(`the game is of record version ${recordVersion}; this client signs record version ${RECORD_VERSION} only`);
  }
}

/** A seat's Ed25519 key. Once the seat has registered it (`public_key` when taking the seat, or
 * `PUT /games/{id}/seats/{seat}/key`, each time with its `keyProof()`), every act of the seat
 * carries its signature of the act's canonical statement: the RFC 8785 JSON of the scheme, the
 * act's name, the game, the seat, the version the act was chosen at, the body as a value (the
 * very model openapi-fetch sends) and the event the act is about (docs/clients.md, "Signing
 * your acts"). */
export class Signer {
  /** How many acts it signed. */
  acts = 0;
  /** The public key as the server takes it: 64 hex digits. */
  readonly publicKey: string;
  private readonly key: KeyObject;

  constructor(readonly game: string, public seat: number) {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    this.key = privateKey;
    this.publicKey = Buffer.from(publicKey.export({ format: "jwk" }).x ?? "", "base64url").toString("hex");
  }

  /** Takes the reply to taking the seat: its signed commitment must name this key, or nothing is
   * signed for the seat (a reply rewritten to name the operator's key). Sets and returns `seat`. */
  joined(reply: { seat: number; commitment?: { public_key?: string | null } | null }): number {
    const named = reply.commitment?.public_key;
    if (named !== this.publicKey) {
      throw new Error(`the reply to taking the seat commits to the key ${String(named)}, not the key sent (${this.publicKey})`);
    }
    this.seat = reply.seat;
    return this.seat;
  }

  /** The proof that this key's holder sends it, for `game` (by default the signer's): the
   * signature of the RFC 8785 JSON of the scheme, the game and the key, 128 hex digits. It goes
   * with `public_key` wherever that is sent (a seat taken, a rematch's seat claimed, a new key
   * registered). */
  keyProof(game: string = this.game): string {
    const statement = canonicalize({ scheme: "saboteur-key-v1", game, key: this.publicKey }) ?? "";
    return sign(null, Buffer.from(statement), this.key).toString("hex");
  }

  /** The proof for registering this key for `seat` during play (record version 7): the
   * signature of the RFC 8785 JSON of the scheme (`saboteur-key-v2`), the game, the key, the seat
   * and `version` (the game's version read since the seat's token was reissued), sent with
   * `key_proof_version: version`. */
  keyProofAt(version: number): string {
    const statement = canonicalize({ scheme: "saboteur-key-v2", game: this.game, key: this.publicKey, seat: this.seat, version }) ?? "";
    return sign(null, Buffer.from(statement), this.key).toString("hex");
  }

  /** The two headers that sign `act` with `body` (the request's model; none for an act without
   * a body), chosen at `version`, about the event `about` (an undo's command, a vote's request,
   * a reclaim's hand-over, as the table's status lists them; null for the other acts). */
  headers(version: number, act: string, body?: unknown, about: number | null = null): Record<string, string> {
    const statement = canonicalize({ scheme: "saboteur-act-v3", act, game: this.game, seat: this.seat, version, body: body ?? null, about }) ?? "";
    this.acts++;
    return { "Seat-Signature": sign(null, Buffer.from(statement), this.key).toString("hex"), "Seat-Signature-Version": String(version) };
  }
}
