// A seat's own hidden values checked against the game's chain while the game runs (record
// version 6): each event served to a seat carries `openings`, the commitment the chain holds in
// place of each value only that seat sees, and its salt (docs/threat-model.md, "What each
// public value reveals"). The table refuses to draw a value its chain does not commit to.
import canonicalize from "canonicalize";
import { t } from "./i18n.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */

const encoder = new TextEncoder();

/** A value shown that the game's chain does not commit to: the server's record contradicts it. */
export class OpeningMismatch extends Error {}

/** Bytes with their length before them (8 bytes, big-endian). @param {Uint8Array} bytes */
function field(bytes) {
  const out = new Uint8Array(8 + bytes.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(bytes.length));
  out.set(bytes, 8);
  return out;
}

/**
 * The commitment to `value` under `salt` (hex): hex SHA-256 of `saboteur commitment v1`, the
 * salt and the value's canonical JSON, each length-prefixed.
 * @param {string} salt @param {unknown} value
 */
export async function commitment(salt, value) {
  const parts = [
    field(encoder.encode("saboteur commitment v1")),
    field(Uint8Array.from(salt.match(/../g) ?? [], (b) => Number.parseInt(b, 16))),
    field(encoder.encode(canonicalize(value) ?? "null")),
  ];
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", all));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The value at an RFC 6901 JSON pointer, or undefined. @param {unknown} value @param {string} pointer */
function pointed(value, pointer) {
  let here = value;
  for (const raw of pointer.split("/").slice(1)) {
    if (typeof here !== "object" || here === null) return undefined;
    here = /** @type {Record<string, unknown>} */ (here)[raw.replaceAll("~1", "/").replaceAll("~0", "~")];
  }
  return here;
}

/**
 * Whether every number in `value` is a safe integer: JSON.parse rounds a larger one (a bot's
 * 64-bit seed), so a value holding one cannot be checked here.
 * @param {unknown} value @returns {boolean}
 */
const exact = (value) =>
  typeof value === "number"
    ? Number.isSafeInteger(value)
    : typeof value !== "object" || value === null || Object.values(value).every(exact);

/**
 * Checks the openings of event records as served: each must open, with its salt, to the value
 * the event shows (but for a value holding a number too large for JavaScript's, which is passed
 * over). Throws an `OpeningMismatch` that says so at the first that does not.
 * @param {Schemas["EventRecord"][]} records
 */
export async function checkOpenings(records) {
  for (const record of records) {
    for (const o of record.openings ?? []) {
      if (o.salt == null) continue;
      const shown = pointed(record.event, o.path);
      if (shown !== undefined && !exact(shown)) continue;
      if (shown === undefined || (await commitment(o.salt, shown)) !== o.commitment)
        throw new OpeningMismatch(t("table.opening_mismatch", { seq: record.seq }));
    }
  }
}
