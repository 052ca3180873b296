// A seat's own hidden values checked against the game's chain while the game runs.
//
// In a game of record version 6 on the chain hashes each event sealed: every value some audience
// may not see stands in it as a commitment (docs/threat-model.md, "What each public value
// reveals"). An event served to a seat carries `openings`: for each value of it that the seat
// sees and others do not, its place (a JSON pointer), the commitment the chain holds and its
// salt. `checkOpenings` recomputes each commitment from the value the seat was shown and refuses
// a mismatch; `follow` calls it on every event it yields.
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";

/** The server showed a seat a value that is not the one its chain commits to. */
export class OpeningMismatch extends Error {
  override name = "OpeningMismatch";
}

function field(data: Uint8Array): Buffer {
  const length = Buffer.alloc(8);
  length.writeBigUInt64BE(BigInt(data.length));
  return Buffer.concat([length, data]);
}

/** The commitment to `value` under `salt`: hex SHA-256 of `saboteur commitment v1`, the salt and
 * the value's canonical JSON (RFC 8785, as the chain hashes it), each length-prefixed (8 bytes,
 * big-endian). */
export function commitment(salt: Uint8Array, value: unknown): string {
  const bytes = Buffer.from(canonicalize(value) ?? "null", "utf8");
  return createHash("sha256")
    .update(field(Buffer.from("saboteur commitment v1")))
    .update(field(salt))
    .update(field(bytes))
    .digest("hex");
}

/** The value at an RFC 6901 JSON pointer, or `undefined`. */
function at(value: unknown, pointer: string): unknown {
  let here = value;
  for (const raw of pointer.split("/").slice(1)) {
    const token = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (typeof here !== "object" || here === null) return undefined;
    here = (here as Record<string, unknown>)[token];
  }
  return here;
}

interface Opening {
  path: string;
  commitment: string;
  salt?: string;
}

/** Whether every number in `value` is a safe integer: `JSON.parse` rounds a larger one (a bot's
 * 64-bit seed), so a value holding one cannot be checked here. */
function exact(value: unknown): boolean {
  if (typeof value === "number") return Number.isSafeInteger(value);
  return typeof value !== "object" || value === null || Object.values(value).every(exact);
}

/** Checks every opening of an event record as served (`EventRecord` or `StreamRecord` JSON):
 * each commitment must open, with its salt, to the value the event shows at its place (but for
 * a value holding a number too large for JavaScript's, a bot's seed, which is passed over).
 * Returns how many were given; throws `OpeningMismatch` naming the first that does not open. */
export function checkOpenings(record: { seq?: unknown; event?: unknown; openings?: unknown }): number {
  const openings = Array.isArray(record.openings) ? (record.openings as Opening[]) : [];
  for (const opening of openings) {
    if (opening.salt === undefined) continue;
    const shown = at(record.event, opening.path);
    if (shown === undefined) throw new OpeningMismatch(`event ${String(record.seq)}: no value at ${opening.path}`);
    if (!exact(shown)) continue;
    if (commitment(Buffer.from(opening.salt, "hex"), shown) !== opening.commitment) {
      throw new OpeningMismatch(
        `event ${String(record.seq)}: the value shown at ${opening.path} is not the one the game's chain commits to`,
      );
    }
  }
  return openings.length;
}
