// A seat's Ed25519 key, and its acts sent signed (docs/clients.md, "Signing your acts").
//
// Every act of a seat with a key carries `Seat-Signature`, the signature of the act's statement
// (the RFC 8785 JSON of `scheme`, `act`, `game`, `seat`, `version`, `body` and `about`), and
// `Seat-Signature-Version`. `Signer.send` writes the body as the canonical JSON it signed and
// sends exactly those bytes.
import { createHash, createPrivateKey, generateKeyPairSync, type KeyObject, randomBytes, randomUUID, sign } from "node:crypto";
import canonicalize from "canonicalize";
import type { components } from "./generated/api.js";
import { API_VERSION } from "./generated/spec.js";
import type { Api } from "./client.js";
import { check } from "./problems.js";

type Command = components["schemas"]["Command"];
/** What a reply to taking a seat or revealing its share commits to, as far as the seat checks. */
type SeatCommitment = { public_key?: string | null; entropy?: string | null; share_commitment?: string | null };
type Outcome = components["schemas"]["Outcome"];

/** The record version this client signs for: its games' seats sign `saboteur-act-v3`. */
export const RECORD_VERSION = 7;

export const SCHEME = "saboteur-act-v3";

/** Refuses a game whose record version (`TableStatus.record_version`, or `game_created`'s) is
 * not the one this client signs: an older one binds signatures less. */
export function checkRecord(recordVersion: number): void {
  if (recordVersion !== RECORD_VERSION) {
    throw new Error(`the game is of record version ${recordVersion}; this client signs record version ${RECORD_VERSION} only`);
  }
}

/** The RFC 8785 canonical JSON of `value`. */
export function canonical(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError("not a JSON value");
  return text;
}

/** What `send` takes besides the act. */
export interface SendOptions {
  /** The event the act is about (an undo's command, a vote's request, a reclaim's hand-over, as
   * the table's status lists them); null (the default) for the other acts. */
  about?: number | null;
  /** More headers to send (`If-Match`, `Idempotency-Key`, …). */
  headers?: Record<string, string>;
  /** False to send the act unsigned (the server refuses it from a seat with a key). */
  signed?: boolean;
}

/** The commitment to a share (64 hex digits): SHA-256 of `saboteur share commitment v1` then the
 * share's 32 bytes, as 64 lowercase hex digits (`JoinGame.share_commitment`). */
export function shareCommitment(entropy: string): string {
  const share = Buffer.from(entropy, "hex");
  if (share.length !== 32 || !/^[0-9a-fA-F]{64}$/.test(entropy)) throw new TypeError("a share is 32 bytes written as 64 hex digits");
  return createHash("sha256").update("saboteur share commitment v1").update(share).digest("hex");
}

/** A seat's share in the seed (`entropy`) and the commitment to it. Send `commitment` as
 * `share_commitment` when taking the seat; once the host's start closed the lobby (202, or the
 * game's `reveal_by`), reveal `entropy` (`PUT /games/{id}/seats/{seat}/share`) and give the reply
 * to `Signer.revealed`. Nobody sees the share before every seat has committed. */
export class Share {
  readonly commitment: string;
  /** 32 bytes from the operating system's generator, unless `entropy` is given. */
  constructor(readonly entropy: string = randomBytes(32).toString("hex")) {
    this.commitment = shareCommitment(entropy);
  }
}

/** The server's signed reply to taking a seat commits to another key (or share) than the one
 * sent: the reply was rewritten, or the seat taken with another key. Nothing should be signed for
 * such a seat. */
export class CommitmentMismatch extends Error {
  override name = "CommitmentMismatch";
}

/** A seat's Ed25519 key (made when not given, or a PKCS #8 PEM or a private `KeyObject`). Send
 * `publicKey` and `keyProof()` when taking the seat, then give the reply to `joined` (it checks
 * the reply's commitment and sets `seat`); from then on every act of the seat goes through
 * `send`, `outcome` or `command`. `acts` counts the acts signed; `kept` holds each statement
 * signed with its signature, as `verify --statements` reads them (`receipts.verify(..., {
 * statements: signer.kept })`): with the refusals' receipts they show a legal move the server
 * refused. */
export class Signer {
  acts = 0;
  readonly kept: { statement: unknown; signature: string }[] = [];
  /** The public key as the server takes it: 64 hex digits. */
  readonly publicKey: string;
  readonly key: KeyObject;

  constructor(readonly game: string, public seat = 0, key?: KeyObject | string) {
    this.key = key === undefined ? generateKeyPairSync("ed25519").privateKey
      : typeof key === "string" ? createPrivateKey(key) : key;
    const jwk = this.key.export({ format: "jwk" });
    if (jwk.crv !== "Ed25519" || jwk.x === undefined) throw new TypeError("not an Ed25519 private key");
    this.publicKey = Buffer.from(jwk.x, "base64url").toString("hex");
  }

  /** Takes the reply to taking (or claiming) the seat: checks that its signed `commitment` names
   * this key, and `entropy` when one was sent (the share), or the commitment to `committed` when
   * that was sent instead, and sets `seat`. Throws `CommitmentMismatch` when it names another: a
   * reply rewritten to name another key (the operator's) must not be played on. Returns the
   * seat. */
  joined(reply: { seat: number; commitment?: SeatCommitment | null }, entropy?: string, committed?: Share): number {
    const named = reply.commitment?.public_key ?? undefined;
    if (named !== this.publicKey) {
      throw new CommitmentMismatch(`the reply to taking the seat commits to the key ${String(named)}, not the key sent (${this.publicKey})`);
    }
    const share = reply.commitment?.entropy ?? undefined;
    if (entropy !== undefined && share !== entropy) {
      throw new CommitmentMismatch(`the reply commits to the share ${String(share)}, not the share sent (${entropy})`);
    }
    const said = reply.commitment?.share_commitment ?? undefined;
    if (committed !== undefined && (said !== committed.commitment || share !== undefined)) {
      throw new CommitmentMismatch(`the reply commits to the share commitment ${String(said)}, not the one sent (${committed.commitment})`);
    }
    this.seat = reply.seat;
    return this.seat;
  }

  /** Takes the reply to revealing `share` (`ShareRevealed`): checks that its signed `commitment`
   * names this key, the share and its commitment (else `CommitmentMismatch`: keep the reply,
   * `saboteur verify --commitment` names a deal drawn without the share). Returns the seats
   * still awaited. */
  revealed(reply: { commitment?: SeatCommitment | null; waiting: number[] }, share: Share): number[] {
    const c = reply.commitment;
    const named = [c?.public_key, c?.entropy, c?.share_commitment];
    const sent = [this.publicKey, share.entropy, share.commitment];
    if (named.some((v, i) => v !== sent[i])) {
      throw new CommitmentMismatch(`the reply to revealing the share commits to ${named.join(", ")}, not to the key, share and commitment sent (${sent.join(", ")})`);
    }
    return reply.waiting;
  }

  /** The proof of possession that goes with `publicKey`: the signature of the RFC 8785 JSON of
   * `{"scheme": "saboteur-key-v1", "game", "key"}`, for `game` (by default the signer's). */
  keyProof(game: string = this.game): string {
    const statement = canonical({ scheme: "saboteur-key-v1", game, key: this.publicKey });
    return sign(null, Buffer.from(statement), this.key).toString("hex");
  }

  /** The proof of possession for registering `publicKey` for `seat` during play (after the host
   * reissued the seat's token, which drops its key): the signature of the RFC 8785 JSON of
   * `{"scheme": "saboteur-key-v2", "game", "key", "seat", "version"}`, `version` the game's
   * version read since the reissue. Send it with `key_proof_version: version`. */
  keyProofAt(version: number): string {
    const statement = canonical({ scheme: "saboteur-key-v2", game: this.game, key: this.publicKey, seat: this.seat, version });
    return sign(null, Buffer.from(statement), this.key).toString("hex");
  }

  /** The statement signed for `act` with `body` (none for an act without one), chosen at
   * `version`, about the event `about`. */
  statement(act: string, version: number, body?: unknown, about: number | null = null): string {
    return canonical({ scheme: SCHEME, act, game: this.game, seat: this.seat, version, body: body ?? null, about });
  }

  /** The two headers that sign an act, as strings. */
  headers(act: string, version: number, body?: unknown, about: number | null = null): Record<string, string> {
    const statement = this.statement(act, version, body, about);
    const signature = sign(null, Buffer.from(statement), this.key).toString("hex");
    this.acts++;
    this.kept.push({ statement: JSON.parse(statement), signature });
    return { "Seat-Signature": signature, "Seat-Signature-Version": String(version) };
  }

  /** Sends `act` of the seat with the player's client `api` to `/games/{game}{suffix}`, signed
   * at `version` (unsigned with `signed: false`), with `body` written as the canonical JSON the
   * statement holds. Before the start (`leave`, `name`, `key`) `version` is the game's
   * `lobby_version`, which every change to the lobby raises: signed at one gone by, the act is
   * refused (412, `PreconditionFailed`); read the game and sign again. Resolves to the success;
   * throws its `ApiProblem` otherwise. */
  async send(api: Api, method: string, suffix: string, act: string, version: number, body?: unknown,
    options: SendOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { Accept: "application/json", "Api-Version": API_VERSION, ...options.headers };
    if (api.token !== undefined) headers.Authorization = `Bearer ${api.token}`;
    if (options.signed ?? true) Object.assign(headers, this.headers(act, version, body, options.about ?? null));
    let content: string | undefined;
    if (body !== undefined && body !== null) {
      content = canonical(body);
      headers["Content-Type"] = "application/json";
    }
    const url = `${api.baseUrl}/games/${encodeURIComponent(this.game)}${suffix}`;
    return check(await api.fetch(url, { method, headers, body: content }));
  }

  /** A signed `POST` whose reply is an `Outcome` (talk, undo, votes, reclaim, …). */
  async outcome(api: Api, suffix: string, act: string, version: number, body?: unknown,
    options: SendOptions = {}): Promise<Outcome> {
    const reply = await this.send(api, "POST", suffix, act, version, body, options);
    return (await reply.json()) as Outcome;
  }

  /** Plays `command`, chosen at `version` (sent as `If-Match`), signed, with an
   * `Idempotency-Key` (a new one unless given: send the same one again to retry safely). */
  async command(api: Api, version: number, command: Command,
    options: { idempotencyKey?: string; signed?: boolean } = {}): Promise<Outcome> {
    const headers = { "If-Match": `"${version}"`, "Idempotency-Key": options.idempotencyKey ?? randomUUID() };
    return this.outcome(api, "/commands", "command", version, command, { headers, signed: options.signed });
  }
}
