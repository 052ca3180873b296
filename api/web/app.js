// Saboteur's web client: lobby (/), table (/play/{id}), replay (/replay/{id}), audit (/audit/{id}).
// Plain ES modules over the HTTP API; tokens, and the receipts the server signs on every view
// and outcome, are kept per game in localStorage.
import { el, cardShape, faceDown, describe, explain, actionIcon } from "/assets/svg.js";

const main = document.getElementById("main");
const h = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== false && v != null) e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const k of kids.flat()) if (k != null) e.append(k);
  return e;
};

/** The API's schemas, generated from openapi/openapi.json (api/types/api.d.ts). */
/** @typedef {import("../types/api").components["schemas"]} Schemas */

/**
 * Calls the API; a problem+json error is thrown with its `detail`. The caller names the
 * response's schema where it keeps the result, so `tsc` checks every field it reads.
 * @param {string} path
 * A seat's act is signed with the seat's key when `sign` names one (docs/clients.md, "Signing
 * your acts"): over the body exactly as sent.
 * @param {{ method?: string, token?: string, body?: unknown, headers?: Record<string, string>, sign?: Signing }} [options]
 * @returns {Promise<any>}
 */
async function api(path, { method = "GET", token, body, headers = {}, sign } = {}) {
  const hd = { ...headers };
  if (token) hd.authorization = `Bearer ${token}`;
  const sent = body === undefined ? undefined : JSON.stringify(body);
  if (sent !== undefined) hd["content-type"] = "application/json";
  if (sign?.key) {
    const message = ["saboteur-act-v1", sign.game, sign.seat, sign.version, sign.act, sent ?? ""].join("\n");
    hd["seat-signature"] = await keys.sign(sign.key, message);
    hd["seat-signature-version"] = String(sign.version);
  }
  const res = await fetch(path, { method, headers: hd, body: sent });
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  // Refusals of this browser's writes carry a receipt too: kept like the others.
  if (data?.receipt) receipts.keep(data.receipt);
  if (!res.ok) throw new Error(data?.detail ?? `${res.status} ${res.statusText}`);
  return data;
}

/** The receipts served to this browser, per game: the last 1000, oldest first. */
const receipts = {
  /** @param {string} id @returns {Schemas["Receipt"][]} */
  get: (id) => JSON.parse(localStorage.getItem(`saboteur:receipts:${id}`) ?? "[]"),
  /** @param {Schemas["Receipt"]} r */
  keep: (r) => {
    try {
      const all = [...receipts.get(r.game_id), r].slice(-1000);
      localStorage.setItem(`saboteur:receipts:${r.game_id}`, JSON.stringify(all));
    } catch { /* storage full or unavailable: the game goes on */ }
  },
};

/**
 * What signs a seat's act: the game, the seat, the version it was chosen at, the act's name
 * and the seat's key.
 * @typedef {{ game: string, seat: number, version: number, act: string, key?: Key }} Signing
 * @typedef {{ private: string, public: string }} Key
 */

const hex = (/** @type {Uint8Array} */ bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** This browser's Ed25519 keys for its seats: made when a seat is taken, kept with its token. */
const keys = {
  /** A new key: the private key (PKCS #8, base64) and the public key (64 hex digits); null where the browser has no Ed25519. @returns {Promise<Key | null>} */
  async make() {
    try {
      const pair = /** @type {CryptoKeyPair} */ (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]));
      const priv = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
      const pub = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
      return { private: btoa(String.fromCharCode(...priv)), public: hex(pub) };
    } catch { return null; }
  },
  /** The signature of `text` (UTF-8), 128 hex digits. @param {Key} key @param {string} text */
  async sign(key, text) {
    const der = Uint8Array.from(atob(key.private), (c) => c.charCodeAt(0));
    const k = await crypto.subtle.importKey("pkcs8", der, { name: "Ed25519" }, false, ["sign"]);
    return hex(new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, k, new TextEncoder().encode(text))));
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
const serverKeys = {
  /** @returns {Schemas["PublishedKey"][]} */
  get: () => JSON.parse(localStorage.getItem("saboteur:server-keys") ?? "[]"),
  /** Adds the keys the server publishes now to those kept. */
  async keep() {
    try {
      /** @type {Schemas["KeyList"]} */
      const now = await api("/keys");
      const kept = serverKeys.get();
      for (const k of now.keys) if (!kept.some((x) => x.id === k.id && x.public_key === k.public_key)) kept.push(k);
      localStorage.setItem("saboteur:server-keys", JSON.stringify(kept));
    } catch { /* kept next time */ }
  },
};

/** The RFC 8785 form of a flat JSON object of strings and integers (a receipt): keys sorted. @param {Record<string, unknown>} o */
const jcs = (o) => `{${Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) => `${JSON.stringify(k)}:${JSON.stringify(o[k])}`).join(",")}}`;

/** Whether `signature` (hex) is `key`'s (hex) Ed25519 signature of `text`. @param {string} key @param {string} text @param {string} signature */
async function verifies(key, text, signature) {
  try {
    const bytes = (/** @type {string} */ h) => Uint8Array.from(h.match(/../g) ?? [], (b) => parseInt(b, 16));
    const k = await crypto.subtle.importKey("raw", bytes(key), { name: "Ed25519" }, false, ["verify"]);
    return await crypto.subtle.verify({ name: "Ed25519" }, k, bytes(signature), new TextEncoder().encode(text));
  } catch { return false; }
}

/** The act a player signed for a recorded event (docs/clients.md). @param {string} type */
const signedActOf = (type) => ({ command_accepted: "command", undo_requested: "undo", undone: "undo", undo_approved: "approve",
  undo_declined: "decline", talk_posted: "talk", seat_reclaimed: "reclaim", seat_key_registered: "key" })[type];

/**
 * The checks this browser makes itself with what it kept: the server's keys it kept are still
 * published, every receipt it kept is signed by the server's key, every player's signature in
 * the record verifies under the seat's key, and the key of this browser's seat is its own.
 * @param {string} id
 * @param {Schemas["Receipt"][]} kept
 * @returns {Promise<{ ok: boolean, lines: string[] }>}
 */
async function checkHere(id, kept) {
  const lines = [];
  let ok = true;
  const bundle = await api(`/games/${id}/audit`);
  /** @type {Map<string, string>} */
  const published = new Map(bundle.keys.map((/** @type {Schemas["PublishedKey"]} */ k) => [k.id, k.public_key]));
  const mine = serverKeys.get();
  for (const k of mine) {
    if (published.get(k.id) !== k.public_key) { ok = false; lines.push(`The server withdrew its key ${k.id}, which this browser kept from ${k.created_at}.`); }
  }
  let good = 0;
  for (const r of kept.map((x) => /** @type {any} */ (x).receipt ?? x)) {
    const key = published.get(r.key_id) ?? mine.find((k) => k.id === r.key_id)?.public_key;
    const { signature, ...signedPart } = r;
    if (key && await verifies(key, jcs(signedPart), signature)) good++;
    else { ok = false; lines.push(`A receipt kept for version ${r.version} is not signed by a key of the server's.`); break; }
  }
  lines.push(`${good} of the ${kept.length} receipts this browser kept are signed by the server's keys (${mine.length} kept).`);
  /** @type {Record<number, string>} */
  const seatKeys = {};
  let signatures = 0;
  for (const e of bundle.events) {
    const p = e.payload;
    const seat = p.seat ?? p.by;
    if (p.signature) {
      const key = seatKeys[seat];
      const s = p.signature;
      const text = ["saboteur-act-v1", id, seat, s.version, signedActOf(e.event_type), s.body].join("\n");
      if (key && await verifies(key, text, s.signature)) signatures++;
      else { ok = false; lines.push(`Event ${e.seq}: seat ${seat}'s signature does not verify under the seat's key.`); break; }
    }
    if (e.event_type === "seat_key_registered") seatKeys[p.seat] = p.key;
    if (e.event_type === "token_reissued") delete seatKeys[p.seat];
  }
  lines.push(`${signatures} players' signatures in the record verify under their seats' keys.`);
  const me = tokens.get(id);
  if (me.key && me.seat != null) {
    if (seatKeys[me.seat] === me.key.public) lines.push(`Your seat's key in the record is this browser's (${await keys.fingerprint(me.key.public)}).`);
    else { ok = false; lines.push(`The record names another key for your seat than this browser's (${await keys.fingerprint(me.key.public)}).`); }
  }
  return { ok, lines };
}

/** A share in the seed of the deals: 32 random bytes from this browser, as 64 hex digits. */
function share() {
  return Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** What to keep of a seat taken: its token, and the server's signed commitment to the seed. */
const seated = (/** @type {Schemas["Joined"]} */ j, /** @type {Key | null} */ key) => ({ token: j.player_token, seat: j.seat, commitment: j.commitment, commitmentReceipt: j.receipt, key });

const tokens = {
  get: (id) => JSON.parse(localStorage.getItem(`saboteur:${id}`) ?? "{}"),
  set: (id, t) => localStorage.setItem(`saboteur:${id}`, JSON.stringify({ ...tokens.get(id), ...t })),
};

let catalogue = null;
async function cards(ruleset) {
  /** @type {Schemas["Catalogue"]} */
  const all = catalogue ?? (await api("/catalogue"));
  catalogue = all;
  const rs = catalogue.rulesets.find((r) => r.ruleset === ruleset) ?? catalogue.rulesets[0];
  return Object.fromEntries(rs.cards.map((c) => [c.card, c]));
}

const words = (s) => String(s).replaceAll("_", " ");

// ---------------------------------------------------------------- lobby
async function lobby() {
  document.title = "Saboteur — lobby";
  const list = h("tbody");
  const more = h("button", { type: "button", hidden: true }, "More games");
  let cursor = null;
  async function page() {
    const q = new URLSearchParams({ limit: "20" });
    if (cursor) q.set("cursor", cursor);
    /** @type {Schemas["GameList"]} */
    const data = await api(`/games?${q}`);
    for (const g of data.games) {
      const mine = tokens.get(g.id);
      list.append(h("tr", {},
        h("td", {}, h("a", { href: `/play/${g.id}` }, g.id.slice(0, 8))),
        h("td", {}, g.ruleset), h("td", {}, g.status),
        h("td", {}, `${g.seats.length}/${g.players}: ${g.seats.map((s) => s.name + (s.bot ? " (bot)" : "")).join(", ")}`,
          g.previous ? [" — rematch of ", h("a", { href: `/play/${g.previous}` }, g.previous.slice(0, 8))] : null),
        h("td", {}, mine.token ? "your seat" : mine.host ? "host" : "",
          " ", h("a", { href: `/replay/${g.id}` }, "replay"),
          g.status === "finished" ? [" ", h("a", { href: `/audit/${g.id}` }, "audit")] : null)));
    }
    cursor = data.next_cursor ?? null;
    more.hidden = !cursor;
  }
  more.addEventListener("click", page);
  const err = h("p", { class: "error", role: "alert" });
  const form = h("form", { "aria-label": "Create a game" },
    h("h2", {}, "Create a game"),
    h("label", {}, "Ruleset ", h("select", { name: "ruleset" }, h("option", { value: "base" }, "Base game"), h("option", { value: "saboteur2" }, "Saboteur 2"))), " ",
    h("label", {}, "Players ", h("input", { name: "players", type: "number", min: 2, max: 12, value: 3 })), " ",
    h("label", {}, "Your name ", h("input", { name: "name", value: "Player", maxlength: 40 })), " ",
    h("label", {}, "Bots ", h("input", { name: "bots", type: "number", min: 0, max: 12, value: 2 })), " ",
    h("label", {}, "Bot level ", h("select", { name: "level" }, h("option", { value: "heuristic" }, "heuristic"), h("option", { value: "random" }, "random"))), " ",
    h("label", {}, h("input", { name: "forfeit", type: "checkbox" }), " broken tools forfeit gold"), " ",
    h("label", {}, "Turn clock ", h("select", { name: "clock" }, h("option", { value: "" }, "none"), h("option", { value: "per_decision" }, "seconds per decision"), h("option", { value: "bank" }, "time bank + increment"))), " ",
    h("label", {}, "Seconds ", h("input", { name: "seconds", type: "number", min: 5, value: 300 })), " ",
    h("label", {}, "Increment ", h("input", { name: "increment", type: "number", min: 0, value: 20 })), " ",
    h("label", {}, "Bot takes over after ", h("input", { name: "abandon", type: "number", min: 0, max: 20, value: 3 }), " timeouts"), " ",
    h("label", {}, h("input", { name: "spectators", type: "checkbox" }), " spectators may talk"), " ",
    h("button", { type: "submit" }, "Create"), err);
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = new FormData(form);
    try {
      const players = Number(f.get("players"));
      /** @type {Schemas["GameCreated"]} */
      /** @type {Schemas["Options"]} */
      const options = {};
      if (f.get("forfeit")) options.broken_tools_forfeit_gold = true;
      if (f.get("spectators")) options.spectator_talk = true;
      const seconds = Number(f.get("seconds"));
      if (f.get("clock") === "per_decision") options.clock = { kind: "per_decision", seconds };
      if (f.get("clock") === "bank") options.clock = { kind: "bank", seconds, increment_seconds: Number(f.get("increment")) };
      if (options.clock && Number(f.get("abandon")) > 0) options.abandon_after = Number(f.get("abandon"));
      /** @type {Schemas["GameCreated"]} */
      const created = await api("/games", { method: "POST", body: { ruleset: f.get("ruleset"), players, options } });
      const id = created.game_id;
      tokens.set(id, { host: created.host_token });
      const bots = Math.min(players, Number(f.get("bots")));
      if (bots < players) {
        // The creator takes a seat unless bots take them all (a game to watch).
        const key = await keys.make();
        /** @type {Schemas["Joined"]} */
        const joined = await api(`/games/${id}/seats`, { method: "POST", body: { name: f.get("name") || "Player", entropy: share(), public_key: key?.public } });
        tokens.set(id, seated(joined, key));
      }
      for (let i = 0; i < bots; i++) {
        await api(`/games/${id}/bots`, { method: "POST", token: created.host_token, body: { level: f.get("level") } });
      }
      location.href = `/play/${id}`;
    } catch (e) { err.textContent = e.message; }
  });
  main.replaceChildren(h("h1", {}, "Games"), form,
    h("h2", {}, "All games"),
    h("table", {}, h("thead", {}, h("tr", {}, ["Game", "Ruleset", "Status", "Seats", ""].map((t) => h("th", { scope: "col" }, t)))), list), more);
  await page();
}

// ---------------------------------------------------------------- board
/**
 * The maze as SVG, with the cells where the selected card may go.
 * @param {Schemas["View"]} view
 * @param {Record<string, Schemas["CardEntry"]>} deck
 * @param {{ legal?: Array<{ at: Schemas["Cell"] }>, onCell?: (at: Schemas["Cell"]) => void, targets?: Array<{ at: Schemas["Cell"], label: string, onPick: () => void }>, keep?: { box: number[] | null } }} [options]
 */
function board(view, deck, { legal = [], onCell, targets = [], keep = { box: null } } = {}) {
  const cells = [...view.board.map((p) => [p.x, p.y]), ...view.goals.map((g) => [g.x, g.y]), ...legal.map((c) => [c.at.x, c.at.y])];
  const xs = cells.map((c) => c[0]), ys = cells.map((c) => c[1]);
  // The whole maze, unless the player zoomed or panned: then where they left it (`keep`
  // outlives the redraws).
  let box = keep.box ?? [Math.min(...xs) - 1, Math.min(...ys) - 1, Math.max(...xs) - Math.min(...xs) + 3, Math.max(...ys) - Math.min(...ys) + 3];
  const svg = el("svg", { class: "board", viewBox: box.join(" "), role: "group", "aria-label": "The maze" });
  const title = el("title"); title.textContent = "The maze: use the highlighted cells to place the selected card";
  svg.append(title);
  for (const p of view.board) {
    const entry = deck[p.card];
    const g = cardShape(entry, p.x, p.y, p.rotated);
    g.setAttribute("role", "img");
    g.setAttribute("aria-label", `(${p.x}, ${p.y}): ${describe(entry, p.rotated)}`);
    svg.append(g);
  }
  for (const goal of view.goals) {
    if (goal.revealed) continue;
    const g = goal.card ? cardShape(deck[goal.card], goal.x, goal.y) : faceDown(goal.x, goal.y);
    if (goal.card) g.setAttribute("opacity", "0.7");
    g.setAttribute("role", "img");
    g.setAttribute("aria-label", `goal at (${goal.x}, ${goal.y}): ${goal.card ? `face down, you saw ${words(goal.card)}` : "face down"}`);
    svg.append(g);
  }
  const seen = new Set();
  for (const c of legal) {
    const key = `${c.at.x},${c.at.y}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const r = el("rect", { class: "cell-legal", x: c.at.x + 0.05, y: c.at.y + 0.05, width: 0.9, height: 0.9, tabindex: 0, role: "button", "aria-label": `play here at (${c.at.x}, ${c.at.y})` });
    const go = () => onCell?.(c.at);
    r.addEventListener("click", go);
    r.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); go(); } });
    svg.append(r);
  }
  // Cells an action card aims at (a Map at a goal, a rock fall at a path card): lit, and
  // played by a click or Enter, named by what is there rather than by coordinates.
  for (const t of targets) {
    const r = el("rect", { class: "cell-target", x: t.at.x + 0.05, y: t.at.y + 0.05, width: 0.9, height: 0.9, tabindex: 0, role: "button", "aria-label": t.label });
    const go = () => t.onPick();
    r.addEventListener("click", go);
    r.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); go(); } });
    svg.append(r);
  }
  // Pan (drag), zoom (wheel, or two fingers pinching), kept across redraws.
  const show = () => { keep.box = box; svg.setAttribute("viewBox", box.join(" ")); };
  const zoomBy = (/** @type {number} */ k) => { box = [box[0] + (box[2] * (1 - k)) / 2, box[1] + (box[3] * (1 - k)) / 2, box[2] * k, box[3] * k]; show(); };
  let drag = null;
  /** Fingers on the board, by pointer. @type {Map<number, [number, number]>} */
  const fingers = new Map();
  let spread = 0;
  const apart = () => { const [a, b] = [...fingers.values()]; return Math.hypot(a[0] - b[0], a[1] - b[1]); };
  svg.addEventListener("wheel", (e) => { e.preventDefault(); zoomBy(e.deltaY > 0 ? 1.15 : 1 / 1.15); }, { passive: false });
  svg.addEventListener("pointerdown", (e) => {
    fingers.set(e.pointerId, [e.clientX, e.clientY]);
    if (fingers.size === 2) { drag = null; spread = apart(); } else if (e.target === svg) drag = [e.clientX, e.clientY, box[0], box[1]];
  });
  const lift = (/** @type {PointerEvent} */ e) => { fingers.delete(e.pointerId); drag = null; spread = 0; };
  svg.addEventListener("pointerup", lift);
  svg.addEventListener("pointercancel", lift);
  svg.addEventListener("pointermove", (e) => {
    if (fingers.has(e.pointerId)) fingers.set(e.pointerId, [e.clientX, e.clientY]);
    if (fingers.size === 2 && spread) {
      const now = apart();
      if (now > 0) zoomBy(spread / now);
      spread = now;
      return;
    }
    if (!drag) return;
    const s = box[2] / svg.clientWidth;
    box[0] = drag[2] - (e.clientX - drag[0]) * s;
    box[1] = drag[3] - (e.clientY - drag[1]) * s;
    show();
  });
  return svg;
}

/**
 * Marks on the board the newest of `events` that changed it (a path laid or removed, a goal
 * turned), named for screen readers: what just happened, at a glance.
 * @param {SVGSVGElement} svg @param {Schemas["EventRecord"][]} events
 * @param {Schemas["View"]} view @param {Record<number, string>} names
 */
function markLast(svg, events, view, names) {
  // Only this round's: a new deal lays a new maze.
  const recent = [...events].reverse();
  const dealt = recent.findIndex((x) => x.event?.type === "round_started");
  const e = recent.slice(0, dealt < 0 ? undefined : dealt).find((x) => ["path_played", "path_removed", "goal_revealed"].includes(x.event?.type ?? ""));
  const ev = e?.event;
  const at = ev && (ev.type === "path_played" || ev.type === "path_removed" || ev.type === "goal_revealed") ? ev.at : null;
  if (!e || !ev || !at) return;
  // A path taken back by an undo is no longer there: nothing to point at.
  if (ev.type === "path_played" && !view.board.some((p) => p.x === at.x && p.y === at.y)) return;
  svg.append(el("rect", { class: "last-move", x: at.x + 0.02, y: at.y + 0.02, width: 0.96, height: 0.96, role: "img", "aria-label": `last on the board: ${describeEvent(e, names)}` }));
}

/** Milliseconds as "m:ss". @param {number} ms */
const clock = (ms) => { const s = Math.max(0, Math.ceil(ms / 1000)); return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`; };

/**
 * @param {Schemas["View"]} view
 * @param {Record<number, string>} names
 * @param {Schemas["TableStatus"]} [table]
 * @param {Schemas["PresenceView"]} [presence]
 * @param {Set<number>} [bots] the seats bots hold (present by nature)
 */
function players(view, names, table, presence, bots = new Set()) {
  return h("ul", { class: "players", "aria-label": "Players" }, view.hand_sizes.map((n, i) => {
    const turn = view.phase.awaited === i;
    const seat = table?.seats[i];
    const here = presence?.seats[i]?.connected;
    const shown = presence && !bots.has(i);
    return h("li", { class: turn ? "turn" : "" },
      shown ? h("span", { class: here ? "here" : "away", title: here ? "connected" : "not connected" }, here ? "● " : "○ ") : "",
      `Seat ${i}, ${names[i] ?? "empty"}${view.seat === i ? " (you)" : ""}${shown ? (here ? " (connected)" : " (away)") : ""}: ${n} cards, ${view.gold_card_counts[i]} gold cards`,
      seat?.remaining_ms != null && !turn ? `; clock ${clock(seat.remaining_ms)}` : "",
      seat?.handed_to ? `; played by the ${seat.handed_to} bot` : "",
      seat?.key ? h("span", { class: "key", title: `signs with the key ${seat.key}` }, `; key ${keys.prints.get(seat.key) ?? ""}`) : "",
      seat?.timeouts ? `; ${seat.timeouts} timeout${seat.timeouts > 1 ? "s" : ""} in a row` : "",
      view.gold ? `, ${view.gold[i]} gold` : "",
      view.in_front[i].length ? `; in front: ${view.in_front[i].map(words).join(", ")}` : "",
      view.roles ? `; role: ${words(view.roles[i])}` : "",
      turn ? " — their turn" : "");
  }));
}

function describeCommand(c, names) {
  const who = (s) => names[s] ?? `seat ${s}`;
  switch (c.type) {
    case "play_path": return `place ${words(c.card)} at (${c.at.x}, ${c.at.y})${c.rotated ? " turned" : ""}`;
    case "play_action": {
      const t = c.target;
      const on = !t ? "" : t.seat !== undefined ? ` on ${who(t.seat)}` : ` at (${t.x}, ${t.y})`;
      return `play ${words(c.card)}${on}${c.tool ? ` (${c.tool})` : ""}`;
    }
    case "pass": return `pass, discarding ${c.discard.map(words).join(", ") || "nothing"}`;
    case "discard_to_remove": return `discard ${c.discard.map(words).join(", ")} to remove ${words(c.remove)}`;
    case "choose_gold": return `keep ${words(c.card)}`;
    case "steal": return c.from == null ? "steal from nobody" : `steal from ${who(c.from)}`;
    default: return words(c.type);
  }
}

/** One event of the log in plain words. */
function describeEvent(e, names) {
  const ev = e.event ?? {};
  const who = (s) => (s == null ? "someone" : names[s] ?? `seat ${s}`);
  const at = (c) => (c ? `(${c.x}, ${c.y})` : "");
  const card = (c) => (c ? words(c) : "a hidden card");
  const by = ev.seat != null ? ` by ${who(ev.seat)}` : "";
  const target = ev.target?.seat ?? ev.target;
  const sentence = (() => {
    switch (ev.type) {
      case "game_created": return `game created: ${ev.ruleset}, ${ev.players} players`;
      case "seed_mixed": return `the players' shares were mixed into the seed (${(ev.contributions ?? []).length})`;
      case "round_started": return `round ${ev.round} dealt; ${who(ev.first_player)} starts`;
      case "path_played": return `path played${by}: ${card(ev.card)} at ${at(ev.at)}${ev.rotated ? ", turned" : ""}`;
      case "goal_revealed": return `goal turned at ${at(ev.at)}: ${card(ev.card)}`;
      case "tool_broken": return `tool broken${by}: ${card(ev.card)} on ${who(target)}`;
      case "tool_repaired": return `tool repaired${by}: ${words(ev.tool ?? "a tool")} of ${who(target)}`;
      case "path_removed": return `rockfall${by}: the card at ${at(ev.at)} removed`;
      case "map_used": return `map used${by} on the goal at ${at(ev.at)}${ev.goal ? `: ${card(ev.goal)}` : ""}`;
      case "passed": return `passed${by}, discarding ${ev.discarded?.length ?? 0}`;
      case "card_drawn": return `card drawn${by}${ev.card ? `: ${card(ev.card)}` : ""}`;
      case "turn_skipped": return `turn skipped for ${who(ev.seat)}: no cards left`;
      case "round_ended": return `round ${ev.round} over: ${ev.gold_reached_by == null ? "the gold was not reached" : `${who(ev.gold_reached_by)} reached the gold`}; won by ${(ev.winners ?? []).map(who).join(", ") || "nobody"}`;
      case "gold_kept": return `gold kept${by}${ev.card ? `: ${card(ev.card)}` : ""}`;
      case "command_accepted": return `move${by}${ev.bot ? " (bot)" : ev.signature ? " (signed)" : ""}`;
      case "undone": return `undone: back to version ${ev.to_version}${ev.reason ? ` (${ev.reason})` : ""}`;
      case "game_ended": return `game over: won by ${(ev.winners ?? []).map(who).join(", ") || "nobody"}`;
      case "talk_posted": return `${ev.seat == null ? `${ev.name ?? "a spectator"} (watching)` : who(ev.seat)} said: ${ev.text == null ? "(hidden by the host)" : `“${ev.text}”`}`;
      case "talk_hidden": return `the host hid message #${ev.message}`;
      case "turn_timed_out": return `${who(ev.seat)} ran out of time; the bot decided`;
      case "seat_handed_to_bot": return `${who(ev.seat)} handed to the ${ev.level} bot (${ev.reason === "abandoned" ? "too many timeouts" : "by the host"})`;
      case "seat_reclaimed": return `${who(ev.seat)} is back`;
      case "token_reissued": return `the host issued ${who(ev.seat)} a new token (its key no longer signs)`;
      case "seat_key_registered": return `${who(ev.seat)} signs with the key ${keys.prints.get(ev.key) ?? String(ev.key).slice(0, 16)}`;
      default: return `${words(ev.type ?? "event")}${by}`;
    }
  })();
  return `#${e.seq} ${sentence}`;
}

/**
 * The series a game belongs to (each game a rematch of the one before), with links and the
 * running totals; nothing for a game that is not part of one.
 * @param {string} id
 * @param {Record<number, string>} names
 * @param {(game: string) => string} link where each game's link goes
 */
async function seriesSection(id, names, link) {
  /** @type {Schemas["Series"]} */
  const series = await api(`/games/${id}/series`);
  if (series.games.length < 2) return null;
  return h("section", { "aria-label": "Series" }, h("h2", {}, "Series"),
    h("ol", {}, series.games.map((g) => h("li", {}, g.id === id ? h("strong", {}, `${g.id.slice(0, 8)} (this game)`) : h("a", { href: link(g.id) }, g.id.slice(0, 8)),
      `: ${g.status}${g.gold ? `, gold ${g.gold.map((x, i) => `${names[i] ?? i} ${x}`).join(", ")}` : ""}`))),
    h("p", {}, `Running totals: ${series.totals.map((x, i) => `${names[i] ?? i} ${x}`).join(", ") || "no game finished yet"}`));
}

/** Follows the SSE stream with fetch (EventSource cannot send Authorization), reconnecting
 * with Last-Event-ID while the game is not over: the server ends a finished game's stream after
 * its last event. */
async function follow(id, token, onEvent, signal) {
  let last = null, over = false;
  while (!signal.aborted && !over) {
    try {
      const headers = { accept: "text/event-stream" };
      if (token) headers.authorization = `Bearer ${token}`;
      if (last) headers["last-event-id"] = last;
      const res = await fetch(`/games/${id}/events/stream`, { headers, signal });
      const reader = res.body.getReader();
      const dec = new TextDecoder();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let i;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, i); buf = buf.slice(i + 2);
          let data = "";
          for (const line of block.split("\n")) {
            if (line.startsWith("id:")) last = line.slice(3).trim();
            if (line.startsWith("event:") && line.slice(6).trim() === "game_ended") over = true;
            if (line.startsWith("data:")) data += line.slice(5).trim();
          }
          if (data) onEvent(data);
        }
      }
    } catch (e) { if (signal.aborted) return; }
    if (over) return;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

// ---------------------------------------------------------------- table
async function table(id) {
  document.title = "Saboteur — table";
  // The server's keys, kept from first contact (the audit view checks receipts with them).
  serverKeys.keep();
  const hashToken = new URLSearchParams(location.hash.slice(1)).get("token");
  if (hashToken) { tokens.set(id, { token: hashToken }); history.replaceState(null, "", location.pathname); }
  const mine = tokens.get(id);
  // The game, its state and the card catalogue at once: every round trip counts on a slow
  // network (the first read takes the game and the state asked for here).
  const nothing = { version: -1, commands: [] };
  const logPage = (/** @type {number} */ after, /** @type {number} */ limit) =>
    /** @type {Promise<Schemas["EventPage"]>} */ (api(`/games/${id}/events?after=${after}&limit=${limit}`, { token: mine.token }));
  const early = {
    s: /** @type {Promise<Schemas["GameSummary"]>} */ (api(`/games/${id}`)),
    st: /** @type {Promise<Schemas["StateView"] | null>} */ (api(`/games/${id}/state`, { token: mine.token }).catch(() => null)),
    legal: /** @type {Promise<Schemas["LegalMoves"] | { version: number, commands: [] }>} */ (mine.token ? api(`/games/${id}/legal-moves`, { token: mine.token }).catch(() => nothing) : Promise.resolve(nothing)),
    presence: /** @type {Promise<Schemas["PresenceView"]>} */ (api(`/games/${id}/presence`)),
    log: /** @type {Promise<Schemas["EventPage"] | null>} */ (Promise.resolve(null)),
  };
  // The log's last page as soon as the game's version is known.
  early.log = early.s.then((g) => logPage(Math.max(0, g.version - 30), 100)).catch(() => null);
  /** @type {typeof early | null} */
  let first = early;
  /** @type {[Schemas["GameSummary"], unknown]} */
  const [summary] = await Promise.all([early.s, cards("base")]);
  const deck = await cards(summary.ruleset);
  const names = Object.fromEntries(summary.seats.map((s) => [s.seat, s.name]));
  let selected = null, sel = null, rotated = false, message = "", timer = 0;
  // Cards ticked to discard with the selected one when passing (Saboteur 2 lets a player
  // discard several, §10): one Pass button for the chosen set, not one per combination.
  /** @type {Set<string>} */
  let alsoDiscard = new Set();
  // What is being typed survives the table's redraws; the whole conversation is kept by `seq`
  // (the log's first page, then each redraw's recent events).
  let draft = "";
  /** @type {Map<number, Schemas["EventRecord"]>} */
  const talkSeen = new Map();
  /** @param {Schemas["EventRecord"][]} events */
  const gather = (events) => {
    for (const e of events) {
      if (e.event.type === "talk_posted") talkSeen.set(e.seq, e);
      if (e.event.type === "talk_hidden") {
        const hidden = talkSeen.get(e.event.message);
        if (hidden && hidden.event.type === "talk_posted") talkSeen.set(hidden.seq, { ...hidden, event: { ...hidden.event, text: null } });
      }
    }
  };
  for (let after = 0; ;) {
    /** @type {Schemas["EventPage"]} */
    const page = await api(`/games/${id}/events?after=${after}&limit=1000`, { token: mine.token });
    gather(page.events);
    if (page.next_after == null) break;
    after = page.next_after;
  }
  const abort = new AbortController();
  /**
   * What the table was last read as. It is read again when the stream brings news and after
   * every write; a click that only selects, turns or ticks a card redraws from it, without a
   * request. A read is two round trips: the state, then the rest at once.
   */
  let data = null;
  let stale = true;
  /** Whether this browser is registering its key for the seat. */
  let registering = false;
  /**
   * What happened since the table was last drawn at another version: the events in words (the
   * bots' answers land together; this says them one by one and marks each on the board), and
   * a round's end, kept on the table until the player moves on.
   */
  let drawnAt = 0;
  /** @type {Schemas["EventRecord"][]} */
  let news = [];
  /** @type {Schemas["EventRecord"][] | null} */
  let roundOver = null;
  /** Where the player zoomed and panned the maze to (none: the whole maze). @type {{ box: number[] | null }} */
  const zoom = { box: null };
  /**
   * A read is one round trip: the game, its state, the legal moves, presence and the log from
   * the version drawn last, all at once (a second trip only for a log that ran further, a
   * state the moves do not match, or the first read's log).
   */
  async function read() {
    const e = first;
    first = null;
    const before = data?.st?.version;
    const known = data?.s ?? summary;
    const log = logPage;
    /** @type {[Schemas["GameSummary"], Schemas["StateView"] | null, Schemas["LegalMoves"] | { version: number, commands: [] }, Schemas["PresenceView"], Schemas["EventPage"] | null, HTMLElement | null]} */
    const [s, maybe, moves, presence, page, series] = await Promise.all([
      e?.s ?? api(`/games/${id}`),
      e?.st ?? api(`/games/${id}/state`, { token: mine.token }).catch(() => null),
      e?.legal ?? (mine.token ? api(`/games/${id}/legal-moves`, { token: mine.token }).catch(() => nothing) : nothing),
      e?.presence ?? api(`/games/${id}/presence`),
      e?.log ?? (before != null ? log(Math.max(0, before - 30), 100) : null),
      known.status === "finished" || known.previous ? seriesSection(id, names, (g) => `/play/${g}`) : null,
    ]);
    if (s.status === "lobby") return { s };
    // Started between the reads: the state once more.
    /** @type {Schemas["StateView"]} */
    const st = maybe ?? (await api(`/games/${id}/state`, { token: mine.token }));
    // The seats' keys' fingerprints, shown at the seats.
    await Promise.all(st.table.seats.filter((x) => x.key).map((x) => keys.fingerprint(/** @type {string} */ (x.key))));
    const reaches = page && (page.events.at(-1)?.seq ?? before ?? -1) >= st.version;
    const full = reaches && page ? page : await log(Math.max(0, st.version - 30), 30);
    const recent = { ...full, events: full.events.filter((x) => x.seq > st.version - 30 && x.seq <= st.version) };
    // Moves read at another version than the state are read again with it.
    const legal = moves.version === st.version || !mine.token ? moves.commands
      : /** @type {Schemas["LegalMoves"]} */ (await api(`/games/${id}/legal-moves`, { token: mine.token }).catch(() => nothing)).commands;
    const shown = st.view.phase.awaited === st.view.seat && st.view.seat != null ? legal : [];
    return { s, st, legal: shown, log: recent, presence, series: series ?? (s.status === "finished" || s.previous ? await seriesSection(id, names, (g) => `/play/${g}`) : null) };
  }
  /** Reads the table again, then draws it. */
  const refresh = () => { stale = true; return render(); };
  /**
   * One read at a time, until none is asked for: a read asked for while another runs starts
   * after it, so an older answer never lands after a newer one.
   * @type {Promise<void> | null}
   */
  let reading = null;
  const readAll = async () => {
    while (stale) {
      stale = false;
      // A read that fails is asked for again by the next redraw.
      try { data = await read(); } catch (e) { stale = true; throw e; }
    }
  };
  async function render() {
    if (stale || !data) {
      reading ??= readAll().finally(() => { reading = null; });
      await reading;
    }
    const { s } = data;
    for (const seat of s.seats) names[seat.seat] = seat.name;
    const kids = [h("h1", {}, `Game ${id.slice(0, 8)} — ${s.ruleset}, ${s.status}`)];
    const err = h("p", { class: "error", role: "alert" }, message);
    if (s.status === "lobby") {
      const join = h("form", {}, h("label", {}, "Name ", h("input", { name: "name", value: "Player" })), " ", h("button", { type: "submit" }, "Join a seat"));
      join.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        try {
          const key = await keys.make();
          /** @type {Schemas["Joined"]} */
          const j = await api(`/games/${id}/seats`, { method: "POST", body: { name: new FormData(join).get("name"), entropy: share(), public_key: key?.public } });
          tokens.set(id, seated(j, key)); Object.assign(mine, tokens.get(id)); refresh();
        } catch (e) { message = e.message; refresh(); }
      });
      kids.push(h("p", {}, `Seats: ${s.seats.length}/${s.players}: ${s.seats.map((x) => x.name + (x.reserved ? " (not back yet)" : "")).join(", ")}`));
      const before = s.previous ? tokens.get(s.previous) : {};
      const mySeat = s.seats.find((x) => x.seat === before.seat && x.reserved);
      if (!mine.token && mySeat && before.token) {
        kids.push(h("p", {}, "A rematch of your game: ", h("button", { type: "button", onclick: async () => {
          try {
            const key = await keys.make();
            /** @type {Schemas["Joined"]} */
            const j = await api(`/games/${id}/seats/${mySeat.seat}/claim`, { method: "POST", token: before.token, body: { entropy: share(), public_key: key?.public } });
            tokens.set(id, seated(j, key)); Object.assign(mine, tokens.get(id)); message = "";
          } catch (e) { message = e.message; }
          refresh();
        } }, "Take my seat")));
      } else if (!mine.token) kids.push(join);
      if (mine.host) {
        const invite = h("button", { type: "button" }, "Create an invite link");
        const out = h("output", {});
        invite.addEventListener("click", async () => {
          try {
            /** @type {Schemas["Joined"]} */
            const j = await api(`/games/${id}/seats`, { method: "POST", body: { name: "Guest" } });
            out.replaceChildren(h("a", { href: `/play/${id}#token=${j.player_token}` }, `${location.origin}/play/${id}#token=${j.player_token}`));
          } catch (e) { out.textContent = e.message; }
        });
        const start = h("button", { type: "button", onclick: async () => { try { await api(`/games/${id}/start`, { method: "POST", token: mine.host }); } catch (e) { message = e.message; } refresh(); } }, "Start the game");
        kids.push(h("p", {}, invite, " ", out), h("p", {}, start));
      }
      kids.push(err);
      main.replaceChildren(...kids);
      return;
    }
    const { st, legal, log, presence, series } = data;
    if (!st || !log || !presence) return;
    const view = st.view;
    // Once the game is over every view is everyone's: remember which seat was ours.
    if (mine.token && view.seat != null && mine.seat !== view.seat) { tokens.set(id, { seat: view.seat }); mine.seat = view.seat; }
    const me = view.seat ?? (mine.token ? mine.seat ?? null : null);
    const over = s.status === "finished";
    /** The signature of this seat's act, chosen at the version drawn. @param {string} act @returns {Signing | undefined} */
    const signed = (act) => (mine.key && me != null ? { game: id, seat: me, version: st.version, act, key: mine.key } : undefined);
    // A seat without a key (its token was issued again, or it came by an invite link) gets this
    // browser's, once: from then on its acts are signed.
    const ownKey = me != null ? st.table.seats[me]?.key : undefined;
    if (mine.token && me != null && !over && !ownKey && !registering) {
      registering = true;
      keys.make().then(async (key) => {
        if (!key) return;
        // Signed from now on: a signature the server has no key for yet is not asked for.
        mine.key = key;
        await api(`/games/${id}/seats/${me}/key`, { method: "PUT", token: mine.token, body: { public_key: key.public } });
        tokens.set(id, { key }); refresh();
      }).catch((e) => { message = e.message; });
    }
    const send = async (cmd) => {
      try {
        await api(`/games/${id}/commands`, { method: "POST", token: mine.token, body: cmd, headers: { "if-match": `"${st.version}"` }, sign: signed("command") });
        message = ""; selected = null; sel = null;
      } catch (e) { message = e.message; }
      refresh();
    };
    /** The card a command plays, and the cards it discards. @param {Schemas["Command"]} c */
    const uses = (c) => ({ card: "card" in c ? c.card : undefined, discard: "discard" in c ? c.discard ?? [] : [] });
    const forCard = legal.filter((c) => uses(c).card === selected || uses(c).discard.includes(selected));
    const paths = forCard.flatMap((c) => (c.type === "play_path" && !!c.rotated === rotated ? [c] : []));
    /** A play at a cell of the maze: a Map at a goal, a rock fall at a path card. @param {Schemas["Command"]} c */
    const atCell = (c) => c.type === "play_action" && c.target != null && "x" in c.target ? c.target : null;
    /** What is at a cell, in words, for a target's label. @param {{x: number, y: number}} at */
    const there = (at) => {
      const goals = [...view.goals].sort((a, b) => a.y - b.y);
      const goal = goals.findIndex((g) => g.x === at.x && g.y === at.y);
      if (goal >= 0) return `the ${goals.length === 3 ? ["top", "middle", "bottom"][goal] : `${goal + 1}.`} goal`;
      const placed = view.board.find((p) => p.x === at.x && p.y === at.y);
      return placed ? `the ${words(placed.card)} ${at.x} right and ${-at.y} up of the start` : "an empty cell";
    };
    const targets = forCard.flatMap((c) => {
      const at = atCell(c);
      return at ? [{ at, label: `play ${words(/** @type {string} */ ("card" in c ? c.card : ""))} on ${there(at)}`, onPick: () => send(c) }] : [];
    });
    const svg = board(view, deck, { legal: paths, onCell: (at) => send({ type: "play_path", card: selected, at, rotated }), targets, keep: zoom });
    const zoomTo = (/** @type {number | null} */ k) => {
      if (k == null) zoom.box = null;
      else {
        const b = zoom.box ?? (svg.getAttribute("viewBox") ?? "0 0 1 1").split(" ").map(Number);
        zoom.box = [b[0] + (b[2] * (1 - k)) / 2, b[1] + (b[3] * (1 - k)) / 2, b[2] * k, b[3] * k];
      }
      render();
    };
    const zoomBar = h("p", { class: "zoom", "aria-label": "Zoom the maze" },
      h("button", { type: "button", onclick: () => zoomTo(1 / 1.4) }, "Zoom in"), " ",
      h("button", { type: "button", onclick: () => zoomTo(1.4) }, "Zoom out"), " ",
      h("button", { type: "button", onclick: () => zoomTo(null) }, "Whole maze"));
    // Why a selected path card lights no cell: a broken tool, or a trap, in front of the player.
    const blockers = me != null ? (view.in_front[me] ?? []).filter((c) => c.startsWith("break_") || c === "trapped") : [];
    const why = selected && deck[selected]?.kind === "path" && !paths.length && blockers.length
      ? h("p", { role: "status", class: "why" }, `You cannot play a path card: ${blockers.map(words).join(", ")} in front of you. Repair it first, or play an action, or pass.`)
      : null;
    const hand = h("ul", { class: "hand", "aria-label": "Your hand" }, (view.hand ?? []).map((c, i) => {
      const icon = el("svg", { viewBox: "0 0 1 1", "aria-hidden": "true" });
      if (deck[c]?.segments?.length) icon.append(cardShape(deck[c], 0, 0, sel === i && rotated));
      else if (deck[c]?.action) icon.append(actionIcon(deck[c]));
      return h("li", {}, h("button", { type: "button", title: explain(deck[c]), "aria-pressed": sel === i ? "true" : "false", onclick: () => { sel = sel === i ? null : i; selected = sel === null ? null : c; render(); } }, icon, describe(deck[c])));
    }));
    const actions = h("div", { role: "group", "aria-label": "Moves for the selected card" },
      selected && deck[selected]?.kind === "path" ? h("button", { type: "button", onclick: () => { rotated = !rotated; render(); } }, `Flip 180° (${rotated ? "turned" : "upright"})`) : null,
      targets.length ? h("p", {}, `Choose the target on the board: ${targets.length === 1 ? "one cell is" : `${targets.length} cells are`} lit.`) : null,
      forCard.filter((c) => c.type !== "play_path" && c.type !== "pass" && !atCell(c)).map((c) => h("button", { type: "button", onclick: () => send(c) }, describeCommand(c, names))),
      passChoice(),
      // Choices that play no card from the hand: a gold card to keep (§8), a theft, a pass.
      legal.filter((c) => c.type === "choose_gold" || (!uses(c).card && !uses(c).discard.length)).map((c) => h("button", { type: "button", onclick: () => send(c) }, describeCommand(c, names))));
    /** The pass for the selected card: the cards that may go with it as checkboxes, one button. */
    function passChoice() {
      const passes = forCard.filter((c) => c.type === "pass");
      if (!passes.length || !selected) return null;
      const others = [...new Set(passes.flatMap((c) => (c.type === "pass" ? c.discard : [])).filter((c) => c !== selected))];
      /** @type {string[]} */
      const may = others;
      const wanted = [selected, ...[...alsoDiscard].filter((c) => may.includes(c))].sort();
      const same = (c) => c.type === "pass" && [...c.discard].sort().join() === wanted.join();
      const chosen = passes.find(same);
      return h("fieldset", { class: "pass" }, h("legend", {}, "Pass"),
        others.map((c) => h("label", {}, h("input", { type: "checkbox", checked: alsoDiscard.has(c) ? "" : null, onchange: (/** @type {Event} */ ev) => {
          if (/** @type {HTMLInputElement} */ (ev.target).checked) alsoDiscard.add(c); else alsoDiscard.delete(c);
          render();
        } }), ` also discard ${words(c)}`)),
        chosen ? h("button", { type: "button", onclick: () => { alsoDiscard = new Set(); send(chosen); } }, describeCommand(chosen, names))
          : h("p", {}, "That set of cards cannot be discarded together."));
    }
    const undo = mine.token && !over ? h("p", {},
      h("button", { type: "button", onclick: async () => { try { await api(`/games/${id}/undo`, { method: "POST", token: mine.token, sign: signed("undo") }); message = "Undo requested"; } catch (e) { message = e.message; } refresh(); } }, "Request undo"), " ",
      h("button", { type: "button", onclick: async () => { try { await api(`/games/${id}/undo/approve`, { method: "POST", token: mine.token, sign: signed("approve") }); } catch (e) { message = e.message; } refresh(); } }, "Approve undo"), " ",
      h("button", { type: "button", onclick: async () => { try { await api(`/games/${id}/undo/decline`, { method: "POST", token: mine.token, sign: signed("decline") }); } catch (e) { message = e.message; } refresh(); } }, "Decline undo")) : null;
    if (st.version !== drawnAt) {
      const fresh = drawnAt ? log.events.filter((e) => e.seq > drawnAt) : [];
      news = fresh.filter((e) => !["card_drawn", "command_accepted", "talk_posted", "seat_key_registered"].includes(e.event.type));
      const ended = fresh.findIndex((e) => e.event.type === "round_ended");
      // The round's end and what followed it (goals turned, gold handed out), up to the next deal.
      if (ended >= 0) roundOver = fresh.slice(ended).filter((e, i, all) => !all.slice(0, i).some((x) => x.event.type === "round_started") && ["round_ended", "goal_revealed", "gold_kept", "saboteurs_paid", "coins_paid", "game_ended"].includes(e.event.type));
      drawnAt = st.version;
    }
    markLast(svg, log.events, view, names);
    // Each change to the maze since the last look, marked (the newest also as the last move).
    for (const e of news) {
      const ev = e.event;
      const at = ev.type === "path_played" || ev.type === "path_removed" || ev.type === "goal_revealed" ? ev.at : null;
      if (!at) continue;
      svg.append(el("rect", { class: "new-move", x: at.x + 0.08, y: at.y + 0.08, width: 0.84, height: 0.84, "aria-hidden": "true" }));
    }
    const deadline = st.table.deadline;
    const countdown = h("p", { class: "deadline", role: "timer", "aria-live": "off" });
    const tick = () => { countdown.textContent = deadline ? `${names[deadline.seat] ?? `Seat ${deadline.seat}`} has ${clock(deadline.at - Date.now())} to decide` : ""; };
    tick();
    clearInterval(timer); if (deadline) timer = setInterval(tick, 1000);
    gather(log.events);
    const said = [...talkSeen.values()].sort((a, b) => a.seq - b.seq);
    const typing = document.activeElement instanceof HTMLInputElement && document.activeElement.name === "text";
    const input = h("input", { name: "text", maxlength: "280", required: "", value: draft });
    input.addEventListener("input", () => { draft = input.value; });
    const talkForm = h("form", { "aria-label": "Say something" },
      h("label", {}, "Message ", input),
      mine.token ? "" : h("label", {}, " Name ", h("input", { name: "name", maxlength: "40", value: "Spectator" })),
      " ", h("button", { type: "submit" }, "Say"));
    talkForm.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const data = new FormData(talkForm);
      const body = mine.token ? { text: data.get("text") } : { text: data.get("text"), name: data.get("name") };
      try { await api(`/games/${id}/talk`, { method: "POST", token: mine.token, body, sign: mine.token ? signed("talk") : undefined }); message = ""; draft = ""; } catch (e) { message = e.message; }
      refresh();
    });
    const talk = s.status === "finished" ? null : h("section", { "aria-label": "Table talk" }, h("h2", {}, "Table talk"),
      h("ul", { class: "talk" }, said.map((e) => h("li", {}, describeEvent(e, names),
        mine.host && e.event.type === "talk_posted" && e.event.text != null ? h("button", { type: "button", onclick: async () => { try { await api(`/games/${id}/talk/${e.seq}/hide`, { method: "POST", token: mine.host }); } catch (err) { message = err.message; } refresh(); } }, "Hide") : null))),
      talkForm);
    const mySeat = view.seat != null ? st.table.seats[view.seat] : null;
    const reclaim = mySeat?.handed_to ? h("p", {}, "A bot is playing your seat. ",
      h("button", { type: "button", onclick: async () => { try { await api(`/games/${id}/seats/${view.seat}/reclaim`, { method: "POST", token: mine.token, sign: signed("reclaim") }); message = ""; } catch (e) { message = e.message; } refresh(); } }, "Take my seat back")) : null;
    const awaited = view.phase.awaited;
    const banner = over ? (me != null ? (view.winners?.includes(me) ? "Game over: you won!" : "Game over") : "Game over")
      : awaited == null ? "" : awaited === me ? "You play now" : `${names[awaited] ?? `Seat ${awaited + 1}`} plays now`;
    const title = banner ? `${banner} — Saboteur` : "Saboteur — table";
    if (banner) kids.push(h("p", { class: "turn-banner", "aria-live": "polite" }, banner));
    if (roundOver?.length) {
      kids.push(h("section", { class: "round-over", "aria-label": "Round over" },
        h("h2", {}, over ? "The game is over" : "The round is over"),
        h("ul", {}, roundOver.map((e) => h("li", {}, describeEvent(e, names).replace(/^#\d+ /, "")))),
        h("button", { type: "button", onclick: () => { roundOver = null; render(); } }, over ? "Close" : "Continue")));
    }
    if (news.length) {
      kids.push(h("section", { class: "news", "aria-label": "What just happened" },
        h("ol", { "aria-live": "polite" }, news.slice(-8).map((e) => h("li", {}, describeEvent(e, names).replace(/^#\d+ /, ""))))));
    }
    kids.push(h("div", { class: "layout" },
      h("section", { "aria-label": "Table" }, svg, zoomBar, err,
        view.role ? h("p", {}, `Your role: ${words(view.role)}`)
          : me != null && view.roles?.[me] ? h("p", {}, `Your role: ${words(view.roles[me])}`)
            : me != null ? null : h("p", {}, "You are watching (public view)."),
        over && me != null ? h("p", { role: "status", class: "result" }, view.winners?.includes(me) ? "You won!" : "You did not win this time.") : null,
        view.my_gold ? h("p", {}, `Your gold: ${view.my_gold.total} (${view.my_gold.cards.map(words).join(", ") || "no gold cards yet"})`) : null,
        view.inspected?.length ? h("p", {}, `You inspected: ${view.inspected.map(({ seat, role }) => `${names[seat] ?? seat} is ${words(role)}`).join("; ")}`) : null,
        view.phase.awaited === view.seat && view.seat != null ? h("p", { role: "status" },
          view.phase.name === "choosing_gold" ? "Your turn: choose the gold card to keep."
            : view.phase.name === "stealing" ? "Your turn: choose whom to steal from."
              : "Your turn: select a card.") : null,
        countdown, reclaim, hand, why, actions, undo, talk),
      h("aside", {}, h("p", {}, `Round ${view.round}, ${words(view.phase.name)}, draw pile ${view.draw_pile_size}`), players(view, names, st.table, presence, new Set(s.seats.filter((x) => x.bot).map((x) => x.seat))),
        view.rounds?.length ? h("section", { "aria-label": "Finished rounds" }, h("h2", {}, "Finished rounds"), h("ul", {}, view.rounds.map((r) =>
          h("li", {}, `Round ${r.round}: ${r.gold_reached_by == null ? "the gold was not reached" : `${names[r.gold_reached_by] ?? r.gold_reached_by} reached the gold`}; won by ${r.winners.map((w) => names[w] ?? w).join(", ") || "nobody"}; roles: ${r.roles.map((role, i) => `${names[i] ?? i} ${words(role)}`).join(", ")}`)))) : null,
        view.winners?.length ? h("p", {}, `Winners: ${view.winners.map((w) => names[w] ?? w).join(", ")}`) : null,
        h("h2", {}, "Log"), h("ol", { class: "log", "aria-label": "Recent events", tabindex: 0 }, log.events.map((e) => h("li", {}, describeEvent(e, names)))),
        h("p", {}, h("a", { href: `/replay/${id}` }, "Replay"), " ", s.status === "finished" ? h("a", { href: `/audit/${id}` }, "Audit") : null),
        series,
        s.status === "finished" && mine.host ? h("p", {}, h("button", { type: "button", onclick: async () => {
          try {
            /** @type {Schemas["GameCreated"]} */
            const next = await api(`/games/${id}/rematch`, { method: "POST", token: mine.host });
            tokens.set(next.game_id, { host: next.host_token });
            location.href = `/play/${next.game_id}`;
          } catch (e) { message = e.message; refresh(); }
        } }, "Play a rematch")) : null)));
    main.dataset.version = String(st.version);
    document.title = title;
    main.replaceChildren(...kids);
    if (typing) { input.focus(); input.setSelectionRange(draft.length, draft.length); }
    const logList = main.querySelector("ol.log");
    if (logList) logList.scrollTop = logList.scrollHeight;
  }
  await refresh();
  let pending = null;
  // The newest event the stream brought: the table is read again only for what it has not read
  // (a write's own read already holds its events and the bots' answers).
  let heard = 0;
  const onNews = () => { if (!data?.st || heard > data.st.version) refresh(); };
  follow(id, mine.token, (raw) => {
    try { heard = Math.max(heard, Number(JSON.parse(raw).seq) || Infinity); } catch { heard = Infinity; }
    clearTimeout(pending);
    pending = setTimeout(() => { (reading ?? Promise.resolve()).then(onNews, onNews); }, 150);
  }, abort.signal);
}

// ---------------------------------------------------------------- replay
/** The keys and the autoplay of the replay on screen: given up when another replay is drawn. */
let replayRun = new AbortController();
async function replay(id) {
  replayRun.abort();
  replayRun = new AbortController();
  const run = replayRun.signal;
  document.title = "Saboteur — replay";
  const q = new URLSearchParams(location.search);
  /** @type {Schemas["GameSummary"]} */
  const summary = await api(`/games/${id}`);
  const deck = await cards(summary.ruleset);
  const names = Object.fromEntries(summary.seats.map((s) => [s.seat, s.name]));
  const over = summary.status === "finished";
  const mine = tokens.get(id);
  // Whose eyes: anyone's once the game is over; before, the public view or this browser's seat.
  const eyes = over
    ? ["everyone", "spectator", ...summary.seats.map((s) => String(s.seat))]
    : ["spectator", ...(mine.token && mine.seat != null ? [String(mine.seat)] : [])];
  const asked = q.get("as");
  const as = asked && eyes.includes(asked) ? asked : eyes[0];
  const token = mine.token && as === String(mine.seat) ? mine.token : undefined;
  const eyesName = (e) => (e === "everyone" ? "everyone" : e === "spectator" ? "a spectator" : names[e] ?? `seat ${e}`);
  const events = [];
  for (let after = 0; ;) {
    /** @type {Schemas["EventPage"]} */
    const p = await api(`/games/${id}/events?after=${after}&limit=500`, { token });
    events.push(...p.events);
    if (p.next_after == null || !p.events.length) break;
    after = p.next_after;
  }
  // The seats' keys by fingerprint, as the log names them.
  await Promise.all(events.filter((e) => e.event?.type === "seat_key_registered").map((e) => keys.fingerprint(/** @type {any} */ (e.event).key)));
  const max = summary.version;
  let v = Math.min(max, Math.max(1, Number(q.get("v") ?? max)));
  const marks = events.filter((e) => /round_started|goal_revealed|undo|rolled_back/.test(e.event?.type ?? ""));
  // The rounds' starts marked on the timeline.
  const rounds = h("datalist", { id: "replay-rounds" }, events.filter((e) => e.event?.type === "round_started").map((e) => h("option", { value: e.seq, label: `round ${/** @type {any} */ (e.event).round}` })));
  const slider = h("input", { type: "range", min: 1, max, value: v, "aria-label": "Version", class: "replay-slider", list: "replay-rounds" });
  // Autoplay: a step every 0.7 s (at the speed chosen) to the end, until paused.
  let playing = 0;
  const speed = h("select", { "aria-label": "Speed" }, [["0.5", "½×"], ["1", "1×"], ["2", "2×"], ["4", "4×"]].map(([k, t]) => h("option", { value: k, selected: k === "1" }, t)));
  const play = h("button", { type: "button", "aria-pressed": "false" }, "Play");
  const stop = () => { clearInterval(playing); playing = 0; play.textContent = "Play"; play.setAttribute("aria-pressed", "false"); };
  const start = () => {
    clearInterval(playing);
    play.textContent = "Pause"; play.setAttribute("aria-pressed", "true");
    playing = setInterval(() => { if (v >= max) stop(); else show(v + 1); }, 700 / Number(speed.value));
  };
  play.addEventListener("click", () => {
    if (playing) return stop();
    if (v >= max) show(1);
    start();
  });
  speed.addEventListener("change", () => { if (playing) start(); });
  run.addEventListener("abort", stop);
  const label = h("output", { "aria-live": "polite" });
  const stage = h("div", {});
  // Every line of the log goes to its moment.
  const log = h("ol", { class: "log", "aria-label": "Log", tabindex: 0 }, events.map((e) => h("li", { "data-seq": e.seq },
    h("button", { type: "button", class: "log-line", onclick: () => { stop(); show(e.seq); } }, describeEvent(e, names)))));
  const cache = new Map();
  async function show(n) {
    v = Math.min(max, Math.max(1, n));
    slider.value = String(v);
    /** @type {Schemas["StateView"]} */
    const st = cache.get(v) ?? (await api(`/games/${id}/state?at=${v}&as=${as}`, { token }));
    cache.set(v, st);
    const drawn = board(st.view, deck);
    markLast(drawn, events.filter((e) => e.seq <= v), st.view, names);
    stage.replaceChildren(drawn, players(st.view, names), hands(st.view, names, deck));
    label.textContent = `Version ${v} of ${max}`;
    for (const li of log.children) li.classList.toggle("current", Number(li.dataset.seq) === v);
    log.querySelector(".current")?.scrollIntoView({ block: "nearest" });
    const url = new URL(location.href); url.searchParams.set("v", String(v)); url.searchParams.set("as", as);
    history.replaceState(null, "", url);
    document.dispatchEvent(new CustomEvent("replay-shown", { detail: v }));
  }
  slider.addEventListener("input", () => show(Number(slider.value)));
  document.addEventListener("keydown", (e) => {
    if (e.key === "ArrowRight") { e.preventDefault(); show(v + 1); }
    if (e.key === "ArrowLeft") { e.preventDefault(); show(v - 1); }
  }, { signal: run });
  const through = h("select", { "aria-label": "Through the eyes of", onchange: () => {
    const url = new URL(location.href); url.searchParams.set("as", through.value); url.searchParams.set("v", String(v));
    history.replaceState(null, "", url);
    replay(id);
  } }, eyes.map((e) => h("option", { value: e, selected: e === as }, eyesName(e))));
  main.replaceChildren(h("h1", {}, `Replay of ${id.slice(0, 8)} through the eyes of ${eyesName(as)}`),
    h("p", {}, h("label", {}, "Through the eyes of ", through)),
    h("p", {}, h("button", { type: "button", onclick: () => show(v - 1) }, "◀ Back"), " ", play, " ", speed, " ", h("button", { type: "button", onclick: () => show(v + 1) }, "Forward ▶"), " ", slider, rounds, " ", label),
    h("p", {}, "Jump to: ", marks.map((e) => h("button", { type: "button", onclick: () => show(e.seq) }, `${words(e.event.type)} #${e.seq}`))),
    h("div", { class: "layout" }, stage, h("aside", {}, h("h2", {}, "Log"), log, await seriesSection(id, names, (g) => `/replay/${g}`))));
  await show(v);
}

/** The hands and roles a view shows: every seat's once the game is over, or the seat's own. */
function hands(view, names, deck) {
  const cardsOf = (list) => h("ul", { class: "hand" }, (list ?? []).map((c) => {
    const icon = el("svg", { viewBox: "0 0 1 1", "aria-hidden": "true" });
    if (deck[c]?.segments?.length) icon.append(cardShape(deck[c], 0, 0, false));
    return h("li", {}, icon, describe(deck[c]));
  }));
  const seats = view.hands
    ? view.hands.map((list, i) => [i, list, view.roles?.[i]])
    : view.seat != null && view.hand ? [[view.seat, view.hand, view.role]] : [];
  if (!seats.length) return h("section", { "aria-label": "Hands" }, h("p", {}, "Hands are hidden from a spectator."));
  return h("section", { "aria-label": "Hands" }, h("h2", {}, "Hands"),
    seats.map(([i, list, role]) => h("section", { "aria-label": `Hand of ${names[i] ?? `seat ${i}`}` },
      h("h3", {}, `${names[i] ?? `seat ${i}`}${role ? ` (${words(role)})` : ""}: ${list.length} cards`), cardsOf(list))));
}

// ---------------------------------------------------------------- audit
async function audit(id) {
  document.title = "Saboteur — audit";
  await serverKeys.keep();
  /** @type {Schemas["GameSummary"]} */
  const summary = await api(`/games/${id}`);
  const names = Object.fromEntries(summary.seats.map((s) => [s.seat, s.name]));
  const who = (/** @type {number} */ s) => names[s] ?? `seat ${s}`;
  const code = (/** @type {string} */ t) => h("code", { class: "hex" }, t);
  const kids = [h("h1", {}, `Audit of ${id.slice(0, 8)}`),
    h("p", {}, "Seed commitment: ", code(summary.seed_commitment)),
    h("p", {}, "Seed: ", summary.seed ? code(summary.seed) : "not revealed until the game ends")];
  try {
    /** @type {Schemas["AuditVerdict"]} */
    const v = await api(`/games/${id}/audit/verdict`);
    const kept = receipts.get(id);
    const file = URL.createObjectURL(new Blob([JSON.stringify(kept, null, 1)], { type: "application/json" }));
    // The event a discrepancy names, to see the table at that moment.
    const disputed = Number(/^event (\d+)/.exec(v.discrepancy ?? "")?.[1] ?? 0);
    kids.push(
      h("p", { role: "status", class: v.ok ? "" : "error" }, v.ok ? `Verified: ${v.events} events, ${v.report.commands_checked} commands, ${v.report.deals_checked} deals and ${v.report.signatures_checked ?? 0} players' signatures checked again` : `Discrepancy: ${v.discrepancy}`),
      v.ok ? h("p", {}, "In plain words: every move was legal when it was made, every deal came from the seed the server committed to before anyone played, every bot chose what its program chooses, and every signed act is its player's.") : null,
      disputed ? h("p", {}, h("a", { href: `/replay/${id}?v=${Math.max(1, disputed - 1)}&as=everyone` }, `See the table just before event ${disputed}`)) : null,
      v.ok ? h("p", {}, `Winners: ${v.report.winners.map(who).join(", ") || "none"}; gold: ${v.report.gold.map((g, i) => `${who(i)} ${g}`).join(", ")}`) : null,
      h("p", {}, v.log_entry ? `Transparency log entry ${v.log_entry.seq}: final version ${v.log_entry.version}, head ${v.log_entry.head}, logged ${v.log_entry.logged_at}` : "Not in the transparency log yet."),
      h("h2", {}, "Signing keys"),
      h("ul", {}, v.keys.map((k) => h("li", {}, code(k.id), ": ", code(k.public_key), `, since ${new Date(k.created_at).toLocaleString()}${k.retired_at ? `, retired ${new Date(k.retired_at).toLocaleString()}` : " (in use)"}`))),
      h("p", {}, h("a", { href: `/games/${id}/audit`, download: `saboteur-${id}.json` }, "Download the audit bundle"), " ",
        h("a", { href: file, download: `receipts-${id}.json` }, `Download the ${kept.length} receipts this browser kept`)),
      h("p", {}, "Check it offline: ", h("code", {}, `saboteur verify --file saboteur-${id}.json --receipts receipts-${id}.json`)),
      checkReceipts(id, kept));
    const here = h("section", { "aria-label": "Checked in this browser" }, h("h2", {}, "Checked in this browser"), h("p", {}, "Checking…"));
    kids.push(here);
    if (summary.status === "finished") kids.push(await account(id, names, v.ok ? null : { seq: disputed, what: v.discrepancy ?? "" }));
    checkHere(id, kept).then(({ ok, lines }) => here.replaceChildren(here.firstChild ?? "",
      h("div", { role: "status", class: ok ? "" : "error" }, h("ul", {}, lines.map((l) => h("li", {}, l))))))
      .catch((e) => here.replaceChildren(here.firstChild ?? "", h("p", { class: "error" }, e.message)));
  } catch (e) { kids.push(h("p", { class: "error", role: "alert" }, e.message)); }
  main.replaceChildren(...kids);
}

/**
 * The game move by move, as a person reads it: each round's events in words, each with a
 * link to the table at that moment.
 * Each player's move is marked checked (decided again and found legal) up to the event a
 * discrepancy names, which says what is wrong; nothing after it was checked.
 * @param {string} id
 * @param {Record<number, string>} names
 * @param {{ seq: number, what: string } | null} wrong
 */
async function account(id, names, wrong) {
  const bundle = await api(`/games/${id}/audit`);
  await Promise.all(bundle.events.filter((/** @type {any} */ e) => e.event_type === "seat_key_registered").map((/** @type {any} */ e) => keys.fingerprint(e.payload.key)));
  /** @type {HTMLElement[]} */
  const parts = [];
  /** @type {HTMLElement} */
  let list = h("ol", {});
  parts.push(h("h3", {}, "Before the deal"), list);
  for (const e of bundle.events) {
    const ev = e.payload;
    if (e.event_type === "round_started") {
      list = h("ol", { start: e.seq });
      parts.push(h("h3", {}, `Round ${ev.round}`), list);
    }
    if (e.event_type === "card_drawn") continue;
    const checked = wrong && wrong.seq && e.seq >= wrong.seq
      ? (e.seq === wrong.seq ? h("strong", { class: "error" }, ` ✗ ${wrong.what.replace(/^event \d+: /, "")}`) : " (not checked)")
      : e.event_type === "command_accepted" ? h("span", { class: "legal", title: "decided again: legal, and caused exactly what was recorded" }, " ✓ legal") : "";
    list.append(h("li", { value: e.seq, class: wrong?.seq === e.seq ? "disputed" : null }, describeEvent({ seq: e.seq, event: ev }, names).replace(/^#\d+ /, ""), checked,
      ev.at && typeof ev.at === "number" ? ` at ${new Date(ev.at).toLocaleTimeString()}` : "", " ",
      h("a", { href: `/replay/${id}?v=${e.seq}&as=everyone`, "aria-label": `the table after event ${e.seq}` }, "see")));
  }
  return h("section", { "aria-label": "Move by move", class: "account" }, h("h2", {}, "Move by move"),
    h("p", {}, "Every event of the record in words (draws left out), numbered as in the record."), ...parts);
}

/** A form that checks receipts (kept by this browser, or pasted) against the game's record. */
function checkReceipts(id, kept) {
  const area = h("textarea", { id: "receipts", rows: 6, cols: 80, placeholder: "[{ \"kind\": \"view\", … }]" });
  const out = h("p", { role: "status", "aria-live": "polite" });
  const check = async (list) => {
    out.textContent = "Checking…";
    let count = 0;
    try {
      // The server reads at most 64 KiB a request: a few dozen receipts at a time.
      for (let i = 0; i < list.length; i += 50) {
        /** @type {Schemas["ReceiptsVerdict"]} */
        const r = await api(`/games/${id}/audit/receipts`, { method: "POST", body: list.slice(i, i + 50).map((x) => x.receipt ?? x) });
        if (!r.ok) { out.textContent = r.contradiction ? `Contradiction: ${r.contradiction}` : `Refused: ${r.refused}`; out.className = "error"; return; }
        count += r.checked?.receipts ?? 0;
      }
      out.className = "";
      out.textContent = `${count} receipts agree with the record.`;
    } catch (e) { out.className = "error"; out.textContent = e.message; }
  };
  return h("section", { "aria-label": "Receipts" }, h("h2", {}, "Receipts"),
    h("p", {}, h("button", { type: "button", onclick: () => check(kept) }, `Check the ${kept.length} receipts this browser kept`)),
    h("p", {}, h("label", { for: "receipts" }, "Or paste receipts (a JSON array)"), h("br"), area, h("br"),
      h("button", { type: "button", onclick: () => { try { check(JSON.parse(area.value || "[]")); } catch (e) { out.className = "error"; out.textContent = e.message; } } }, "Check the pasted receipts")),
    out);
}

const [, kind, id] = location.pathname.split("/");
const route = { play: table, replay, audit }[kind];
(route ? route(id) : lobby()).catch((e) => main.replaceChildren(h("p", { class: "error", role: "alert" }, e.message)));
