// A player's stream (`GET /players/{key}/stream`): one connection for every game where the
// player's key holds a seat, announcing what asks for the player — a game started, the seat
// awaited (`your_turn`, with the version to play at), an undo to vote on, a game over.
//
// `followPlayer` asks the server for a challenge, signs its statement with the player's key,
// opens the stream, and yields each notice once. After a dropped connection it asks for a new
// challenge and opens the stream again; the server then announces each game's present state,
// and the notices already yielded are not yielded again. A notice kind this client does not
// know (a minor version may add some) is yielded like the others, its `kind` a plain string.
import { createPrivateKey, type KeyObject, sign } from "node:crypto";
import type { components } from "./generated/api.js";
import type { Api } from "./client.js";
import { ApiProblem, ok } from "./problems.js";
import { connection, READ_TIMEOUT, StreamLost } from "./stream.js";

type Kind = components["schemas"]["PlayerNoticeKind"];

/** One notice: what asks for the player in one game. */
export interface PlayerNotice {
  /** `started`, `your_turn`, `undo_vote`, `ended`, `cancelled`, or a kind added later. */
  readonly kind: Kind | (string & {});
  readonly game_id: string;
  /** The seat the key holds there. */
  readonly seat: number;
  /** The game's version when it was seen; for `your_turn`, the version to play at. */
  readonly version: number;
  /** For `undo_vote`: the undo request's event, which a signed vote names. */
  readonly about: number | null;
}

export interface FollowPlayerOptions {
  /** How many reconnections in a row without news before `StreamLost` (5 by default). */
  retries?: number;
  /** Seconds of silence after which the connection is taken as lost (`READ_TIMEOUT`). */
  readTimeout?: number;
  /** Ends the stream (the iterator throws the signal's reason). */
  signal?: AbortSignal;
}

function parseNotice(data: string): PlayerNotice {
  const d = JSON.parse(data) as Record<string, unknown>;
  const number = (v: unknown, name: string): number => {
    if (typeof v !== "number") throw new SyntaxError(`a notice without ${name}: ${data.slice(0, 200)}`);
    return v;
  };
  return {
    kind: String(d.kind),
    game_id: String(d.game_id),
    seat: number(d.seat, "seat"),
    version: number(d.version, "version"),
    about: d.about === null || d.about === undefined ? null : number(d.about, "about"),
  };
}

/** The public key of an Ed25519 private key as the server takes it: 64 hex digits. */
function publicHex(key: KeyObject): string {
  const jwk = key.export({ format: "jwk" });
  if (jwk.crv !== "Ed25519" || jwk.x === undefined) throw new TypeError("not an Ed25519 private key");
  return Buffer.from(jwk.x, "base64url").toString("hex");
}

/** One connection: a new challenge, signed, and the stream it opens, until it ends or drops (a
 * server that cannot be reached is a drop too); a refusal throws its problem. */
async function* once(api: Api, url: URL, privateKey: KeyObject, publicKey: string,
  options: FollowPlayerOptions): AsyncGenerator<PlayerNotice, void, undefined> {
  let challenge: { challenge: string; statement: string };
  try {
    challenge = await ok(api.POST("/players/challenge", { body: { public_key: publicKey } }));
  } catch (e) {
    if (e instanceof ApiProblem || options.signal?.aborted) throw e;
    return;
  }
  const headers = {
    Accept: "text/event-stream",
    "Player-Challenge": challenge.challenge,
    "Player-Signature": sign(null, Buffer.from(challenge.statement), privateKey).toString("hex"),
  };
  const reading = { readTimeout: options.readTimeout ?? READ_TIMEOUT, signal: options.signal };
  yield* connection(api, url, headers, reading, parseNotice);
}

/** Every notice of the games where `key` (a private `KeyObject` or a PKCS #8 PEM, as a
 * `Signer`'s) holds a seat, live, each once, for as long as the caller reads. Throws the
 * `ApiProblem` of a refused challenge or stream, and `StreamLost` after `retries`
 * reconnections in a row without news. */
export async function* followPlayer(api: Api, key: KeyObject | string,
  options: FollowPlayerOptions = {}): AsyncGenerator<PlayerNotice, void, undefined> {
  const privateKey = typeof key === "string" ? createPrivateKey(key) : key;
  const publicKey = publicHex(privateKey);
  const url = new URL(`${api.baseUrl}/players/${publicKey}/stream`);
  const seen = new Set<string>();
  const retries = options.retries ?? 5;
  let fruitless = 0;
  for (;;) {
    let news = false;
    for await (const notice of once(api, url, privateKey, publicKey, options)) {
      const id = JSON.stringify([notice.kind, notice.game_id, notice.seat, notice.version, notice.about]);
      if (seen.has(id)) continue;
      seen.add(id);
      news = true;
      yield notice;
    }
    fruitless = news ? 0 : fruitless + 1;
    if (fruitless > retries) throw new StreamLost(`the player's stream ends without news (${publicKey.slice(0, 8)})`);
    await new Promise((resolve) => setTimeout(resolve, 100 * fruitless));
  }
}
