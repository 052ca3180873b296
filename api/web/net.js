// Everything this browser says to the server and keeps of it: the API, the SSE stream, the
// seats' tokens and keys, the receipts and the server's keys.
import canonicalize from "canonicalize";
import { has, t } from "./i18n.js";

/** The API's schemas, generated from openapi/openapi.json (api/types/api.d.ts). */
/** @typedef {import("../types/api").components["schemas"]} Schemas */

/**
 * What signs a seat's act: the game, the seat, the version it was chosen at, the act's name,
 * the seat's key and the game's record version (before 3, the old scheme).
 * @typedef {{ game: string, seat: number, version: number, act: string, key?: Key, record?: number, about?: number | null }} Signing
 * @typedef {{ private: string, public: string }} Key
 */

/**
 * A refusal in the player's language: the problem's stable `code` names the sentence; a code
 * this client does not know yet shows the server's own `detail`.
 * @param {any} data the problem+json body @param {Response} res
 */
function refusal(data, res) {
  const code = data?.code;
  const retry = res.headers.get("retry-after");
  if (code && has(`problem.${code}`)) return t(`problem.${code}`, { seconds: retry ?? "1" });
  return data?.detail ?? `${res.status} ${res.statusText}`;
}

/** How long the table's reads wait for their answer before they are given up, in
 * milliseconds: a request stuck somewhere between would otherwise hold the page's read, and the
 * page would draw nothing new until reloaded. The page reads again after a pause. (Reads that
 * may take long, an audit's verdict or an analysis, wait as long as the server takes.) */
export const READ_WAIT_MS = 15000;

/**
 * Calls the API; a problem+json error is thrown with its sentence (and its `status`); a call unanswered after
 * `wait` ms (when given) is given up with its own. The caller names the
 * response's schema where it keeps the result, so `tsc` checks every field it reads.
 * A seat's act is signed with the seat's key when `sign` names one (docs/clients.md, "Signing
 * your acts"): the canonical statement of the act ([`statement`]).
 * @param {string} path
 * @param {{ method?: string, token?: string, body?: unknown, headers?: Record<string, string>, sign?: Signing, wait?: number }} [options]
 * @returns {Promise<any>}
 */
export async function api(path, { method = "GET", token, body, headers = {}, sign, wait } = {}) {
  const hd = { ...headers };
  if (token) hd.authorization = `Bearer ${token}`;
  const sent = body === undefined ? undefined : JSON.stringify(body);
  if (sent !== undefined) hd["content-type"] = "application/json";
  if (sign?.key) {
    const signed = statement(sign, body, sent);
    const signature = await keys.sign(sign.key, signed);
    hd["seat-signature"] = signature;
    hd["seat-signature-version"] = String(sign.version);
    statements.keep(sign.game, signed, signature);
  }
  const gaveUp = new AbortController();
  const timer = wait === undefined ? undefined : setTimeout(() => gaveUp.abort(), wait);
  let res, text;
  try {
    res = await fetch(path, { method, headers: hd, body: sent, signal: gaveUp.signal });
    text = await res.text();
  } catch (e) {
    throw gaveUp.signal.aborted ? new Error(t("net.no_answer")) : e;
  } finally {
    clearTimeout(timer);
  }
  const data = text ? JSON.parse(text) : null;
  // Refusals of this browser's writes carry a receipt too: kept with the problem they sign
  // (why it refused, which `verify --statements` judges).
  if (data?.receipt) receipts.keep(res.ok ? data.receipt : data);
  // The table read at once carries its view's.
  if (data?.state?.receipt) receipts.keep(data.state.receipt);
  if (!res.ok) throw Object.assign(new Error(refusal(data, res)), { status: res.status });
  return data;
}

/** The record version of the games this browser takes seats in: their players sign
 * `saboteur-act-v3`, each act bound to its moment and to what it is about. */
export const RECORD_VERSION = 7;

/**
 * What a player signs for an act: the RFC 8785 (JCS) canonical JSON of the act's scheme, name,
 * game, seat, version, body (the value sent, null without one) and, from record version 5 on,
 * the event it is about (`about`: an undo's command, a vote's request, a reclaim's hand-over);
 * in a game of record version 3 or 4 the same without `about`; in a game of record version 1
 * or 2, the six lines of `saboteur-act-v1` with the body as sent.
 * @param {Signing} sign @param {unknown} body @param {string | undefined} sent
 */
export function statement(sign, body, sent) {
  const record = sign.record ?? RECORD_VERSION;
  if (record < 3) {
    return ["saboteur-act-v1", sign.game, sign.seat, sign.version, sign.act, sent ?? ""].join("\n");
  }
  /** @type {Record<string, unknown>} */
  const act = {
    scheme: record >= 5 ? "saboteur-act-v3" : "saboteur-act-v2",
    act: sign.act,
    game: sign.game,
    seat: sign.seat,
    version: sign.version,
    body: body === undefined ? null : body,
  };
  if (record >= 5) act.about = sign.about ?? null;
  return canonicalize(act) ?? "";
}

/**
 * Refuses to take a seat in game `id` when its record (`game_created.record_version`) is older
 * than [`RECORD_VERSION`]: a server that created it so would have its players sign acts bound
 * less to their moment (docs/threat-model.md). Throws the reason, in the reader's language.
 * @param {string} id @param {(key: string, args?: Record<string, string | number>) => string} t
 */
async function seatable(id, t) {
  /** @type {Schemas["EventPage"]} */
  const page = await api(`/games/${id}/events?after=0&limit=1`);
  const created = page.events[0]?.event;
  const record = created?.type === "game_created" ? (created.record_version ?? 1) : 0;
  if (record < RECORD_VERSION) throw new Error(t("join.old_record", { version: record, current: RECORD_VERSION }));
}

/** A receipt as kept: alone, or (a refusal's) with the problem it signs.
 * @typedef {Schemas["Receipt"] | (Record<string, unknown> & { receipt: Schemas["Receipt"] })} KeptReceipt */

/** The receipts served to this browser, per game: the last 1000, oldest first. */
export const receipts = {
  /** @param {string} id @returns {KeptReceipt[]} */
  get: (id) => JSON.parse(localStorage.getItem(`saboteur:receipts:${id}`) ?? "[]"),
  /** @param {KeptReceipt} r */
  keep: (r) => {
    const game = "receipt" in r ? r.receipt.game_id : r.game_id;
    try {
      const all = [...receipts.get(game), r].slice(-1000);
      localStorage.setItem(`saboteur:receipts:${game}`, JSON.stringify(all));
    } catch {
      /* storage full or unavailable: the game goes on */
    }
  },
};

/** The statements this browser signed, per game, each with its signature (the last 1000): with
 * the refusals' receipts, `verify --statements` decides each refused move again. */
export const statements = {
  /** @param {string} id @returns {{ statement: unknown, signature: string }[]} */
  get: (id) => JSON.parse(localStorage.getItem(`saboteur:statements:${id}`) ?? "[]"),
  /** @param {string} id @param {string} signed the statement's text @param {string} signature */
  keep: (id, signed, signature) => {
    let statement;
    try {
      statement = JSON.parse(signed);
    } catch {
      return; // the six lines of record versions 1 and 2: nothing refused names them
    }
    try {
      const all = [...statements.get(id), { statement, signature }].slice(-1000);
      localStorage.setItem(`saboteur:statements:${id}`, JSON.stringify(all));
    } catch {
      /* storage full or unavailable: the game goes on */
    }
  },
};

export const hex = (/** @type {Uint8Array} */ bytes) =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** This browser's Ed25519 keys for its seats: made when a seat is taken, kept with its token. */
export const keys = {
  /** A new key: the private key (PKCS #8, base64) and the public key (64 hex digits); null where the browser has no Ed25519. @returns {Promise<Key | null>} */
  async make() {
    try {
      const pair = /** @type {CryptoKeyPair} */ (
        await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])
      );
      const priv = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
      const pub = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
      return { private: btoa(String.fromCharCode(...priv)), public: hex(pub) };
    } catch {
      return null;
    }
  },
  /** The signature of `text` (UTF-8), 128 hex digits. @param {Key} key @param {string} text */
  async sign(key, text) {
    const der = Uint8Array.from(atob(key.private), (c) => c.charCodeAt(0));
    const k = await crypto.subtle.importKey("pkcs8", der, { name: "Ed25519" }, false, ["sign"]);
    return hex(new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, k, new TextEncoder().encode(text))));
  },
  /**
   * What a seat is taken with: the public key and its proof of possession for game `game` (the
   * key's signature of the RFC 8785 JSON of `{"scheme": "saboteur-key-v1", "game", "key"}`);
   * nothing without a key. During play (`at`: the seat and the game's version, record version
   * 7 on) the proof names them too (`{"scheme": "saboteur-key-v2", "game", "key", "seat",
   * "version"}`), sent with that version as `key_proof_version`: it holds only for this seat,
   * from its last reissued token on.
   * @param {Key | null} key @param {string} game @param {{ seat: number, version: number }} [at]
   * @returns {Promise<{ public_key?: string, key_proof?: string, key_proof_version?: number }>}
   */
  async sent(key, game, at) {
    if (!key) return {};
    const statement = at
      ? { scheme: "saboteur-key-v2", game, key: key.public, seat: at.seat, version: at.version }
      : { scheme: "saboteur-key-v1", game, key: key.public };
    const proof = await keys.sign(key, canonicalize(statement) ?? "");
    return { public_key: key.public, key_proof: proof, ...(at ? { key_proof_version: at.version } : {}) };
  },
  /** Fingerprints already worked out, by key. @type {Map<string, string>} */
  prints: new Map(),
  /** A key's fingerprint: the first 16 hex digits of the SHA-256 of its bytes, in fours. @param {string} key */
  async fingerprint(key) {
    if (!keys.prints.has(key)) {
      const bytes = Uint8Array.from(key.match(/../g) ?? [], (b) => parseInt(b, 16));
      const digest = hex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))).slice(0, 16);
      keys.prints.set(key, digest.match(/..../g)?.join(" ") ?? digest);
    }
    return keys.prints.get(key) ?? "";
  },
};

/**
 * The server's signing keys as this browser first saw them, and every key seen since: kept
 * and never dropped, so that a key the server later withdraws still checks its receipts.
 */
export const serverKeys = {
  /** @returns {Schemas["PublishedKey"][]} */
  get: () => JSON.parse(localStorage.getItem("saboteur:server-keys") ?? "[]"),
  /**
   * Adds the keys the server publishes now to those kept: a key published with an endorsement
   * is kept only when the key before it signed it (the chain from the first key kept).
   */
  async keep() {
    try {
      /** @type {Schemas["KeyList"]} */
      const now = await api("/keys");
      const kept = serverKeys.get();
      for (const [i, k] of now.keys.entries()) {
        if (kept.some((x) => x.id === k.id && x.public_key === k.public_key)) continue;
        if (await endorsed(now.keys[i - 1], k)) kept.push(k);
        else console.warn(`key ${k.id} is not endorsed by the key before it: not kept`);
      }
      localStorage.setItem("saboteur:server-keys", JSON.stringify(kept));
    } catch {
      /* kept next time */
    }
  },
};

/** Hex digits as bytes. @param {string} text */
const unhex = (text) => new Uint8Array((text.match(/../g) ?? []).map((b) => parseInt(b, 16)));

/**
 * Whether `key`'s endorsement, if it has one, is `previous`'s Ed25519 signature of the JCS form
 * of `{"id", "kind": "key_endorsement", "previous", "public_key"}` (a browser without Ed25519
 * cannot tell, and keeps it).
 * @param {Schemas["PublishedKey"] | undefined} previous @param {Schemas["PublishedKey"]} key
 */
async function endorsed(previous, key) {
  if (!key.endorsement) return true;
  if (!previous) return false;
  const statement = JSON.stringify({
    id: key.id,
    kind: "key_endorsement",
    previous: previous.id,
    public_key: key.public_key,
  });
  try {
    const k = await crypto.subtle.importKey("raw", unhex(previous.public_key), { name: "Ed25519" }, false, ["verify"]);
    return await crypto.subtle.verify(
      { name: "Ed25519" },
      k,
      unhex(key.endorsement),
      new TextEncoder().encode(statement),
    );
  } catch (e) {
    return e instanceof DOMException && e.name === "NotSupportedError";
  }
}

/** A share in the seed of the deals: 32 random bytes from this browser, as 64 hex digits. */
export const share = () => hex(crypto.getRandomValues(new Uint8Array(32)));

/** What a share's commitment hashes before the share's bytes. */
const SHARE_COMMITMENT = "saboteur share commitment v1";

/**
 * The commitment to a share (64 hex digits): the SHA-256 of the 28 ASCII bytes
 * `saboteur share commitment v1` followed by the share's 32 bytes, in lowercase hex.
 * @param {string} entropy the share, 64 hex digits
 */
export async function shareCommitment(entropy) {
  const prefix = new TextEncoder().encode(SHARE_COMMITMENT);
  const bytes = new Uint8Array(prefix.length + 32);
  bytes.set(prefix);
  bytes.set(unhex(entropy), prefix.length);
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
}

/**
 * A new share and its commitment: the seat is taken with the commitment alone, and the share
 * is revealed once every seat has committed to its own (the host's start closes the lobby).
 * @returns {Promise<Committed>}
 * @typedef {{ share: string, commitment: string }} Committed
 */
async function committedShare() {
  const entropy = share();
  return { share: entropy, commitment: await shareCommitment(entropy) };
}

/**
 * What to keep of a seat taken: its token, the server's signed commitment to the seed, and
 * the share not yet revealed, once the commitment is checked to name the key and the share's
 * commitment this browser sent, and not yet the share (a reply rewritten to name another key
 * is refused, and nothing is kept).
 * @param {Schemas["Joined"]} j @param {Key | null} key @param {Committed} [sent] the share and its commitment sent
 */
function seated(j, key, sent) {
  const c = j.commitment;
  if ((key && c?.public_key !== key.public) || (sent && (c?.share_commitment !== sent.commitment || c?.entropy)))
    throw new Error(t("join.commitment_mismatch"));
  return {
    token: j.player_token,
    seat: j.seat,
    commitment: c,
    commitmentReceipt: j.receipt,
    key,
    ...(sent ? { share: sent.share } : {}),
  };
}

/**
 * Takes a seat of game `id` through `path` (a join, or with `token` a rematch's claim) with
 * `body`, a new key and the commitment to a new share, once the game is one of the record
 * version this browser signs; keeps what [`seated`] checked, and returns it.
 * @param {string} id @param {string} path @param {Record<string, unknown>} body @param {string} [token]
 */
export async function takeSeat(id, path, body, token) {
  await seatable(id, t);
  const key = await keys.make();
  // The share goes as its commitment: revealed once every seat has committed to its own.
  const sent = await committedShare();
  /** @type {Schemas["Joined"]} */
  const j = await api(path, {
    method: "POST",
    token,
    body: { ...body, share_commitment: sent.commitment, ...(await keys.sent(key, id)) },
  });
  tokens.set(id, seated(j, key, sent));
  return tokens.get(id);
}

/** This browser's hold on each game: the seat's token, seat and key, and the host's token. */
export const tokens = {
  /** `keys`: the public key of every key this browser has held for the game's seat, oldest first. */
  /** `commitment`, `commitmentReceipt`: the server's signed commitment for the seat, the latest
   * (to the seat taken, its key registered, its share revealed). */
  /** `share`: the seat's share in the seed (64 hex digits), sent as its commitment; revealed
   * once `commitment` names it. */
  /** `invites`: the host's invite links to the game's seats, by seat number, kept until the start. */
  /** @param {string} id @returns {{ token?: string, seat?: number, key?: Key | null, keys?: string[], host?: string, commitment?: Schemas["SeedCommitment"], commitmentReceipt?: Schemas["Receipt"] | null, share?: string, invites?: Record<string, string> }} */
  get: (id) => JSON.parse(localStorage.getItem(`saboteur:${id}`) ?? "{}"),
  /** @param {string} id @param {Record<string, unknown>} t */
  set: (id, t) => {
    const was = tokens.get(id);
    const keys = [...(was.keys ?? (was.key ? [was.key.public] : []))];
    const key = /** @type {Key | null | undefined} */ (t.key);
    if (key?.public && !keys.includes(key.public)) keys.push(key.public);
    localStorage.setItem(`saboteur:${id}`, JSON.stringify({ ...was, ...t, keys }));
  },
};

/**
 * The round's end the table shows for each game until the player moves on from it (its
 * `round_ended`'s place in the log; 0: none), kept so that a reload shows it again.
 */
export const roundEnds = {
  /** @param {string} id @returns {number} */
  get: (id) => Number(localStorage.getItem(`saboteur:round-end:${id}`)) || 0,
  /** @param {string} id @param {number} seq */
  set: (id, seq) => {
    try {
      if (seq) localStorage.setItem(`saboteur:round-end:${id}`, String(seq));
      else localStorage.removeItem(`saboteur:round-end:${id}`);
    } catch {
      /* storage full or unavailable: the round's end is shown until a reload */
    }
  },
};

/** What the player chose last in the lobby or a waiting room, kept between visits: their name and the bots' level. */
export const choices = {
  /** @returns {{ name?: string, level?: string }} */
  get: () => {
    try {
      return JSON.parse(localStorage.getItem("saboteur:choices") ?? "{}");
    } catch {
      return {};
    }
  },
  /** @param {{ name?: string, level?: string }} chosen */
  set: (chosen) => {
    try {
      localStorage.setItem("saboteur:choices", JSON.stringify({ ...choices.get(), ...chosen }));
    } catch {
      /* kept for this page only */
    }
  },
};

/** @type {Schemas["Catalogue"] | null} */
let catalogue = null;
/** A ruleset's cards by identifier (GET /catalogue, read once). @param {string} ruleset @returns {Promise<Record<string, Schemas["CardEntry"]>>} */
export async function cards(ruleset) {
  /** @type {Schemas["Catalogue"]} */
  const all = catalogue ?? (await api("/catalogue"));
  catalogue = all;
  const rs = all.rulesets.find((r) => r.ruleset === ruleset) ?? all.rulesets[0];
  return Object.fromEntries(rs.cards.map((c) => [c.card, c]));
}

/** How long a stream may stay silent (the server says something every 5 s) before it is
 * taken for stuck and opened again, in milliseconds. */
const SILENT_MS = 15000;

/**
 * Follows the SSE stream with fetch (EventSource cannot send Authorization), reconnecting
 * with Last-Event-ID while the game is not over: the server ends a finished game's stream after
 * its last event. A stream silent for SILENT_MS (a connection stuck somewhere between) is opened
 * again; one refused is asked again after a growing pause (a resume refused because the log
 * no longer holds its last event starts afresh). Each reconnection tells `onEvent` (with "{}")
 * that news may have been missed, so the page reads again. `onHeard` hears every piece the
 * stream brings, the server's comment every 5 s included: a hidden page, whose timers the
 * browser slows down, still wakes that often.
 * @param {string} id @param {string | undefined} token @param {(data: string) => void} onEvent @param {AbortSignal} signal
 * @param {() => void} [onHeard]
 */
export async function follow(id, token, onEvent, signal, onHeard) {
  let last = null,
    over = false,
    failed = 0,
    opened = 0;
  while (!signal.aborted && !over) {
    const stuck = new AbortController();
    const quit = () => stuck.abort();
    signal.addEventListener("abort", quit, { once: true });
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    const heard = () => {
      clearTimeout(timer);
      timer = setTimeout(quit, SILENT_MS);
    };
    try {
      heard();
      /** @type {Record<string, string>} */
      const headers = { accept: "text/event-stream" };
      if (token) headers.authorization = `Bearer ${token}`;
      if (last) headers["last-event-id"] = last;
      const res = await fetch(`/games/${id}/events/stream`, { headers, signal: stuck.signal });
      if (res.status === 409) last = null;
      if (!res.ok || !res.body) throw new Error(`the stream: ${res.status}`);
      if (opened++) onEvent("{}");
      failed = 0;
      const reader = res.body.getReader();
      const dec = new TextDecoder();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        heard();
        onHeard?.();
        buf += dec.decode(value, { stream: true });
        for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          let data = "";
          for (const line of block.split("\n")) {
            if (line.startsWith("id:")) last = line.slice(3).trim();
            if (line.startsWith("event:") && line.slice(6).trim() === "game_ended") over = true;
            if (line.startsWith("data:")) data += line.slice(5).trim();
          }
          if (data) onEvent(data);
        }
      }
    } catch {
      failed += 1;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", quit);
    }
    if (over || signal.aborted) return;
    await new Promise((r) => setTimeout(r, Math.min(8000, 1000 * 2 ** Math.max(0, failed - 1))));
  }
}
