// Generated from api/web/*.js by esbuild (npm run bundle in tests/browser); do not edit: tests/browser/types.test.mjs checks it matches its sources.

// ../../api/web/dom.js
var main = (
  /** @type {HTMLElement} */
  document.getElementById("main")
);
var h = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== false && v != null) e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const k of kids.flat()) if (k != null) e.append(k);
  return (
    /** @type {any} */
    e
  );
};

// ../../api/web/i18n.js
var LANGUAGES = {
  en: "English",
  is: "Íslenska",
  lv: "Latviešu",
  nl: "Nederlands",
  es: "Español",
  pl: "Polski"
};
var KEPT = "saboteur:lang";
var dict = {};
var current = "en";
var language = () => current;
function chosen() {
  let kept = null;
  try {
    kept = localStorage.getItem(KEPT);
  } catch {
  }
  if (kept && kept in LANGUAGES) return kept;
  for (const l of navigator.languages ?? [navigator.language]) {
    const code = String(l).slice(0, 2).toLowerCase();
    if (code in LANGUAGES) return code;
  }
  return "en";
}
async function load(code) {
  current = code in LANGUAGES ? code : "en";
  dict = (await import(`/assets/lang-${current}.js`)).default;
  document.documentElement.lang = current;
}
function switchTo(code) {
  try {
    localStorage.setItem(KEPT, code);
  } catch {
  }
  location.reload();
}
var has = (key) => key in dict;
function t(key, params = {}) {
  const s = dict[key] ?? key;
  return s.replace(/\{(\w+)\}/g, (m, k) => k in params ? String(params[k]) : m);
}
var list = (items) => new Intl.ListFormat(current, { type: "conjunction" }).format(items);

// node_modules/canonicalize/lib/canonicalize.js
function serializeString(value) {
  if (!value.isWellFormed()) {
    throw new Error("Lone surrogate is not allowed");
  }
  return JSON.stringify(value);
}
function serializePrimitive(value) {
  switch (typeof value) {
    case "number":
      if (isNaN(value)) {
        throw new Error("NaN is not allowed");
      }
      if (!isFinite(value)) {
        throw new Error("Infinity is not allowed");
      }
      return JSON.stringify(value);
    case "string":
      return serializeString(value);
    case "boolean":
      return value ? "true" : "false";
    default:
      return JSON.stringify(value);
  }
}
function enterValue(value, seen) {
  let wrappers = null;
  while (value !== null && typeof value === "object" && typeof value.toJSON === "function") {
    if (seen.has(value)) {
      throw new Error("Circular reference detected");
    }
    seen.add(value);
    (wrappers ??= []).push(value);
    value = value.toJSON();
  }
  if (value instanceof Number || value instanceof String || value instanceof Boolean) {
    value = value.valueOf();
  }
  if (value === null || typeof value !== "object") {
    if (wrappers !== null) {
      for (const wrapper of wrappers) seen.delete(wrapper);
    }
    return serializePrimitive(value);
  }
  if (seen.has(value)) {
    throw new Error("Circular reference detected");
  }
  seen.add(value);
  return {
    container: value,
    // null marks an array frame; object frames carry their sorted keys.
    // `sort()`'s default comparator orders by UTF-16 code unit, which is the
    // order JCS requires.
    keys: Array.isArray(value) ? null : Object.keys(value).sort(),
    // Next child to serialize; the frame resumes here after a nested
    // container's subtree completes.
    index: 0,
    // Whether no member has been emitted yet (controls comma placement).
    first: true,
    // toJSON wrappers to release from `seen` when this frame completes.
    wrappers
  };
}
function canonicalize(object) {
  if (object === null || typeof object !== "object") {
    return serializePrimitive(object);
  }
  const seen = /* @__PURE__ */ new Set();
  const root = enterValue(object, seen);
  if (typeof root !== "object") {
    return root;
  }
  let result = root.keys === null ? "[" : "{";
  const stack = [root];
  outer:
    while (stack.length > 0) {
      const frame = stack[stack.length - 1];
      const container = frame.container;
      if (frame.keys === null) {
        while (frame.index < container.length) {
          const i = frame.index++;
          if (i > 0) {
            result += ",";
          }
          const element = container[i];
          const value = element === void 0 || typeof element === "symbol" || typeof element === "function" ? null : element;
          if (value === null || typeof value !== "object") {
            result += serializePrimitive(value);
            continue;
          }
          const child = enterValue(value, seen);
          if (typeof child !== "object") {
            result += child === void 0 ? "null" : child;
            continue;
          }
          result += child.keys === null ? "[" : "{";
          stack.push(child);
          continue outer;
        }
        result += "]";
      } else {
        const keys2 = frame.keys;
        while (frame.index < keys2.length) {
          const key = keys2[frame.index++];
          const value = container[key];
          if (value === void 0 || typeof value === "symbol" || typeof value === "function") {
            continue;
          }
          if (value === null || typeof value !== "object") {
            if (frame.first) {
              frame.first = false;
            } else {
              result += ",";
            }
            result += serializeString(key) + ":" + serializePrimitive(value);
            continue;
          }
          const child = enterValue(value, seen);
          if (child === void 0) {
            continue;
          }
          if (frame.first) {
            frame.first = false;
          } else {
            result += ",";
          }
          result += serializeString(key) + ":";
          if (typeof child !== "object") {
            result += child;
            continue;
          }
          result += child.keys === null ? "[" : "{";
          stack.push(child);
          continue outer;
        }
        result += "}";
      }
      seen.delete(container);
      if (frame.wrappers !== null) {
        for (const wrapper of frame.wrappers) seen.delete(wrapper);
      }
      stack.pop();
    }
  return result;
}

// ../../api/web/net.js
function refusal(data, res) {
  const code = data?.code;
  const retry = res.headers.get("retry-after");
  if (code && has(`problem.${code}`)) return t(`problem.${code}`, { seconds: retry ?? "1" });
  return data?.detail ?? `${res.status} ${res.statusText}`;
}
async function api(path, { method = "GET", token, body, headers = {}, sign } = {}) {
  const hd = { ...headers };
  if (token) hd.authorization = `Bearer ${token}`;
  const sent = body === void 0 ? void 0 : JSON.stringify(body);
  if (sent !== void 0) hd["content-type"] = "application/json";
  if (sign?.key) {
    hd["seat-signature"] = await keys.sign(sign.key, statement(sign, body, sent));
    hd["seat-signature-version"] = String(sign.version);
  }
  const res = await fetch(path, { method, headers: hd, body: sent });
  const text = await res.text();
  const data = text ? JSON.parse(text) : null;
  if (data?.receipt) receipts.keep(data.receipt);
  if (data?.state?.receipt) receipts.keep(data.state.receipt);
  if (!res.ok) throw new Error(refusal(data, res));
  return data;
}
var RECORD_VERSION = 5;
function statement(sign, body, sent) {
  const record = sign.record ?? RECORD_VERSION;
  if (record < 3) {
    return ["saboteur-act-v1", sign.game, sign.seat, sign.version, sign.act, sent ?? ""].join("\n");
  }
  const act = {
    scheme: record >= 5 ? "saboteur-act-v3" : "saboteur-act-v2",
    act: sign.act,
    game: sign.game,
    seat: sign.seat,
    version: sign.version,
    body: body === void 0 ? null : body
  };
  if (record >= 5) act.about = sign.about ?? null;
  return canonicalize(act) ?? "";
}
async function seatable(id2, t2) {
  const page = await api(`/games/${id2}/events?after=0&limit=1`);
  const created = page.events[0]?.event;
  const record = created?.type === "game_created" ? created.record_version ?? 1 : 0;
  if (record < RECORD_VERSION) throw new Error(t2("join.old_record", { version: record, current: RECORD_VERSION }));
}
var receipts = {
  /** @param {string} id @returns {Schemas["Receipt"][]} */
  get: (id2) => JSON.parse(localStorage.getItem(`saboteur:receipts:${id2}`) ?? "[]"),
  /** @param {Schemas["Receipt"]} r */
  keep: (r) => {
    try {
      const all = [...receipts.get(r.game_id), r].slice(-1e3);
      localStorage.setItem(`saboteur:receipts:${r.game_id}`, JSON.stringify(all));
    } catch {
    }
  }
};
var hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
var keys = {
  /** A new key: the private key (PKCS #8, base64) and the public key (64 hex digits); null where the browser has no Ed25519. @returns {Promise<Key | null>} */
  async make() {
    try {
      const pair = (
        /** @type {CryptoKeyPair} */
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
   * nothing without a key.
   * @param {Key | null} key @param {string} game
   * @returns {Promise<{ public_key?: string, key_proof?: string }>}
   */
  async sent(key, game) {
    if (!key) return {};
    const proof = await keys.sign(key, canonicalize({ scheme: "saboteur-key-v1", game, key: key.public }) ?? "");
    return { public_key: key.public, key_proof: proof };
  },
  /** Fingerprints already worked out, by key. @type {Map<string, string>} */
  prints: /* @__PURE__ */ new Map(),
  /** A key's fingerprint: the first 16 hex digits of the SHA-256 of its bytes, in fours. @param {string} key */
  async fingerprint(key) {
    if (!keys.prints.has(key)) {
      const bytes = Uint8Array.from(key.match(/../g) ?? [], (b) => parseInt(b, 16));
      const digest = hex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))).slice(0, 16);
      keys.prints.set(key, digest.match(/..../g)?.join(" ") ?? digest);
    }
    return keys.prints.get(key) ?? "";
  }
};
var serverKeys = {
  /** @returns {Schemas["PublishedKey"][]} */
  get: () => JSON.parse(localStorage.getItem("saboteur:server-keys") ?? "[]"),
  /**
   * Adds the keys the server publishes now to those kept: a key published with an endorsement
   * is kept only when the key before it signed it (the chain from the first key kept).
   */
  async keep() {
    try {
      const now = await api("/keys");
      const kept = serverKeys.get();
      for (const [i, k] of now.keys.entries()) {
        if (kept.some((x) => x.id === k.id && x.public_key === k.public_key)) continue;
        if (await endorsed(now.keys[i - 1], k)) kept.push(k);
        else console.warn(`key ${k.id} is not endorsed by the key before it: not kept`);
      }
      localStorage.setItem("saboteur:server-keys", JSON.stringify(kept));
    } catch {
    }
  }
};
var unhex = (text) => new Uint8Array((text.match(/../g) ?? []).map((b) => parseInt(b, 16)));
async function endorsed(previous, key) {
  if (!key.endorsement) return true;
  if (!previous) return false;
  const statement2 = JSON.stringify({
    id: key.id,
    kind: "key_endorsement",
    previous: previous.id,
    public_key: key.public_key
  });
  try {
    const k = await crypto.subtle.importKey("raw", unhex(previous.public_key), { name: "Ed25519" }, false, ["verify"]);
    return await crypto.subtle.verify(
      { name: "Ed25519" },
      k,
      unhex(key.endorsement),
      new TextEncoder().encode(statement2)
    );
  } catch (e) {
    return e instanceof DOMException && e.name === "NotSupportedError";
  }
}
var share = () => hex(crypto.getRandomValues(new Uint8Array(32)));
var seated = (j, key) => ({
  token: j.player_token,
  seat: j.seat,
  commitment: j.commitment,
  commitmentReceipt: j.receipt,
  key
});
var tokens = {
  /** `keys`: the public key of every key this browser has held for the game's seat, oldest first. */
  /** `invites`: the host's invite links to the game's seats, by seat number, kept until the start. */
  /** @param {string} id @returns {{ token?: string, seat?: number, key?: Key | null, keys?: string[], host?: string, commitment?: string, invites?: Record<string, string> }} */
  get: (id2) => JSON.parse(localStorage.getItem(`saboteur:${id2}`) ?? "{}"),
  /** @param {string} id @param {Record<string, unknown>} t */
  set: (id2, t2) => {
    const was = tokens.get(id2);
    const keys2 = [...was.keys ?? (was.key ? [was.key.public] : [])];
    const key = (
      /** @type {Key | null | undefined} */
      t2.key
    );
    if (key?.public && !keys2.includes(key.public)) keys2.push(key.public);
    localStorage.setItem(`saboteur:${id2}`, JSON.stringify({ ...was, ...t2, keys: keys2 }));
  }
};
var catalogue = null;
async function cards(ruleset) {
  const all = catalogue ?? await api("/catalogue");
  catalogue = all;
  const rs = all.rulesets.find((r) => r.ruleset === ruleset) ?? all.rulesets[0];
  return Object.fromEntries(rs.cards.map((c) => [c.card, c]));
}
async function follow(id2, token, onEvent, signal) {
  let last = null, over = false;
  while (!signal.aborted && !over) {
    try {
      const headers = { accept: "text/event-stream" };
      if (token) headers.authorization = `Bearer ${token}`;
      if (last) headers["last-event-id"] = last;
      const res = await fetch(`/games/${id2}/events/stream`, { headers, signal });
      if (!res.body) throw new Error("no stream");
      const reader = res.body.getReader();
      const dec = new TextDecoder();
      let buf = "";
      for (; ; ) {
        const { value, done } = await reader.read();
        if (done) break;
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
      if (signal.aborted) return;
    }
    if (over) return;
    await new Promise((r) => setTimeout(r, 1e3));
  }
}

// ../../api/web/svg.js
var NS = "http://www.w3.org/2000/svg";
var FLIP = { n: "s", s: "n", e: "w", w: "e" };
var END = { n: [0.5, 0], e: [1, 0.5], s: [0.5, 1], w: [0, 0.5] };
function el(name, attrs = {}, ...children) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  for (const c of children) e.append(c);
  return e;
}
var EFFECT = {
  break: ["B", "#a11"],
  repair: ["R", "#1b7f3b"],
  rockfall: ["RF", "#6b4f2a"],
  map: ["M", "#1746a2"],
  theft: ["T", "#8a4b08"],
  hands_off: ["HO", "#555"],
  swap_hand: ["SH", "#555"],
  inspection: ["I", "#1746a2"],
  swap_hats: ["SW", "#555"],
  trapped: ["TR", "#a11"],
  free_at_last: ["F", "#1b7f3b"]
};
function actionIcon(entry) {
  const g = el("g", {});
  const [letter, colour] = EFFECT[entry?.action?.effect ?? ""] ?? ["?", "#555"];
  g.append(el("circle", { cx: 0.5, cy: 0.42, r: 0.36, fill: colour }));
  const t2 = el("text", {
    x: 0.5,
    y: 0.52,
    "font-size": letter.length > 1 ? 0.26 : 0.36,
    "text-anchor": "middle",
    fill: "#fff",
    "font-weight": "bold"
  });
  t2.textContent = letter;
  g.append(t2);
  const tools = (entry?.action?.tools ?? []).map((x) => x[0].toUpperCase()).join("");
  if (tools) {
    const u = el("text", { x: 0.5, y: 0.98, "font-size": 0.2, "text-anchor": "middle", fill: "#222" });
    u.textContent = tools;
    g.append(u);
  }
  return g;
}
function cardShape(entry, x, y, rotated = false) {
  const g = el("g", { transform: `translate(${x} ${y})` });
  const face = entry?.kind === "goal" ? entry.gold ? "#e8c65a" : "#a8a29e" : "#c9a66b";
  g.append(
    el("rect", {
      x: 0.02,
      y: 0.02,
      width: 0.96,
      height: 0.96,
      rx: 0.06,
      fill: face,
      stroke: "#6b4f2a",
      "stroke-width": 0.02
    })
  );
  for (const seg of entry?.segments ?? []) {
    const sides = seg.openings.map((o) => rotated ? FLIP[o] : o);
    const colour = seg.door === "blue" ? "#1f5fbf" : seg.door === "green" ? "#1b7f3b" : "#3b2a1a";
    for (const s of sides) {
      const [ex, ey] = END[s];
      const [tx, ty] = seg.dead_end ? [0.5 + (ex - 0.5) * 0.4, 0.5 + (ey - 0.5) * 0.4] : [0.5, 0.5];
      g.append(
        el("line", {
          x1: ex,
          y1: ey,
          x2: tx,
          y2: ty,
          stroke: colour,
          "stroke-width": 0.22,
          "stroke-linecap": seg.dead_end ? "butt" : "round"
        })
      );
      if (seg.dead_end) g.append(el("circle", { cx: tx, cy: ty, r: 0.09, fill: "#7a1f1f" }));
    }
    if (seg.door) {
      const [ex, ey] = END[sides[0]];
      const t2 = el("text", {
        x: 0.5 + (ex - 0.5) * 0.55,
        y: 0.5 + (ey - 0.5) * 0.55 + 0.08,
        "font-size": 0.22,
        "text-anchor": "middle",
        fill: "#fff",
        "font-weight": "bold"
      });
      t2.textContent = seg.door === "blue" ? "B" : "G";
      g.append(t2);
    }
  }
  if (entry?.ladder) {
    const t2 = el("text", { x: 0.5, y: 0.58, "font-size": 0.28, "text-anchor": "middle", fill: "#fff" });
    t2.textContent = "⇅";
    g.append(t2);
  }
  if (entry?.crystals)
    g.append(
      el("polygon", {
        points: "0.8,0.08 0.9,0.18 0.8,0.28 0.7,0.18",
        fill: "#b84fd6",
        stroke: "#fff",
        "stroke-width": 0.02
      })
    );
  if (entry?.kind === "goal" && entry.gold) {
    const t2 = el("text", { x: 0.5, y: 0.6, "font-size": 0.3, "text-anchor": "middle", fill: "#ffd700" });
    t2.textContent = "★";
    g.append(t2);
  }
  if (entry?.kind === "goal" && !entry.gold) {
    g.append(
      el("ellipse", { cx: 0.5, cy: 0.5, rx: 0.2, ry: 0.14, fill: "#6b6560", stroke: "#fff", "stroke-width": 0.02 })
    );
  }
  if (entry?.kind === "start") {
    const t2 = el("text", { x: 0.5, y: 0.6, "font-size": 0.22, "text-anchor": "middle", fill: "#fff" });
    t2.textContent = "S";
    g.append(t2);
  }
  return g;
}
function faceDown(x, y) {
  const g = el("g", { transform: `translate(${x} ${y})` });
  g.append(
    el("rect", {
      x: 0.02,
      y: 0.02,
      width: 0.96,
      height: 0.96,
      rx: 0.06,
      fill: "#2b2f4a",
      stroke: "#aaa",
      "stroke-width": 0.02
    })
  );
  const t2 = el("text", { x: 0.5, y: 0.62, "font-size": 0.4, "text-anchor": "middle", fill: "#ddd" });
  t2.textContent = "?";
  g.append(t2);
  return g;
}

// ../../api/web/words.js
var GLYPH = {
  n: "╵",
  e: "╶",
  s: "╷",
  w: "╴",
  ns: "│",
  ew: "─",
  ne: "└",
  nw: "┘",
  es: "┌",
  sw: "┐",
  nes: "├",
  nsw: "┤",
  new: "┴",
  esw: "┬",
  nesw: "┼"
};
function openings(entry, rotated = false) {
  const open = new Set(
    (entry.segments ?? []).flatMap((s) => s.openings.map((o) => rotated ? FLIP[
      /** @type {"n"} */
      o
    ] : o))
  );
  return (
    /** @type {Schemas["Opening"][]} */
    ["n", "e", "s", "w"].filter((o) => open.has(o))
  );
}
var family = (card) => {
  const f = card.replace(/(_[nesw]+)+$/, "");
  return f === "crystal_split" ? "crystal_tunnel" : f;
};
var size = (pile) => Array.isArray(pile) ? pile.length : pile?.count ?? 0;
function cardName(card, rotated = false) {
  if (!card) return t("card.hidden");
  const id2 = typeof card === "string" ? card : card.card;
  if (/^gold_\d$/.test(id2)) return t("card.gold", { n: id2.slice(5) });
  if (id2.startsWith("goal_stone")) return t("card.goal_stone");
  if (has(`card.${id2}`)) return t(`card.${id2}`);
  const entry = typeof card === "string" ? null : card;
  const parts = id2.split("_").filter((p) => /^[nesw]+$/.test(p));
  const sides = entry ? openings(entry, rotated).join("") : [..."nesw"].filter((d) => parts.some((p) => p.includes(d))).join("");
  const fam = family(id2);
  const name = t(`path.${fam}`);
  return fam === "bridge" || fam === "double_curve" ? name : `${name} ${GLYPH[
    /** @type {"n"} */
    sides
  ] ?? ""}`.trim();
}
var roleName = (role) => role ? t(`role.${role}`) : "";
var toolName = (tool) => tool ? t(`tool.${tool}`) : "";
var phaseName = (phase) => t(`phase.${phase}`);
var rulesetName = (ruleset) => t(`ruleset.${ruleset}`);
var statusName = (status) => t(`status.${status}`);
function describe(entry, rotated) {
  if (!entry) return t("card.unknown");
  const parts = [cardName(entry, rotated)];
  if (rotated) parts.push(t("card.turned"));
  if (entry.doors?.length) parts.push(list(entry.doors.map((d) => t(`door.${d}`))));
  if (entry.ladder) parts.push(t("card.ladder"));
  if (entry.crystals) parts.push(t("card.crystals", { n: entry.crystals }));
  return parts.join(", ");
}
function explain(entry) {
  if (!entry) return "";
  const tools = list((entry.action?.tools ?? []).map(toolName));
  const effect = entry.action?.effect;
  if (effect) return t(`explain.${effect}`, { tools });
  if (entry.kind === "goal") return t(entry.gold ? "explain.goal_gold" : "explain.goal_stone");
  if (entry.kind === "start") return t("explain.start");
  if (entry.kind === "gold") return t("explain.gold");
  const sides = list(openings(entry).map((o) => t(`side.${o}`)));
  const extra = [
    entry.doors?.length ? t("explain.door", { doors: list(entry.doors.map((d) => t(`door.${d}`))) }) : "",
    entry.ladder ? t("explain.ladder") : "",
    entry.crystals ? t("card.crystals", { n: entry.crystals }) : "",
    entry.dead_ends ? t("explain.dead_end") : ""
  ].filter(Boolean);
  return t("explain.path", { sides }) + (extra.length ? ` ${extra.join("; ")}.` : "");
}
var clock = (ms) => {
  const s = Math.max(0, Math.ceil(ms / 1e3));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
};
var seatName = (names, s) => s == null ? t("word.someone") : names[s] ?? t("word.seat", { n: s });
var cell = (c) => c ? `(${c.x}, ${c.y})` : "";
function describeCommand(c, names) {
  const who = (s) => seatName(names, s);
  switch (c.type) {
    case "play_path":
      return t(c.rotated ? "move.path_turned" : "move.path", { card: cardName(c.card), at: cell(c.at) });
    case "play_action": {
      const tg = c.target;
      const card = cardName(c.card);
      const tool = c.tool ? toolName(c.tool) : "";
      if (tg && "seat" in tg)
        return t(tool ? "move.action_on_tool" : "move.action_on", { card, who: who(tg.seat), tool });
      if (tg && "x" in tg) return t("move.action_at", { card, at: cell(
        /** @type {any} */
        tg
      ) });
      return t("move.action", { card });
    }
    case "pass":
      return c.discard?.length ? t("move.pass", { cards: list(c.discard.map((d) => cardName(d))) }) : t("move.pass_nothing");
    case "discard_to_remove":
      return t("move.discard_to_remove", { cards: list(c.discard.map((d) => cardName(d))), card: cardName(c.remove) });
    case "choose_gold":
      return t("move.keep", { card: cardName(c.card) });
    case "steal":
      return c.from == null ? t("move.steal_nobody") : t("move.steal", { who: who(c.from) });
    default:
      return t(`command.${/** @type {any} */
      c.type}`);
  }
}
function shownName(s) {
  return s.bot && s.name === `${s.bot} bot ${s.seat + 1}` ? t("players.bot_name", { level: t(`level.${s.bot}`), n: s.seat + 1 }) : s.name;
}
function roundWinners(winners, reached, who) {
  if (winners?.length) return list(winners.map(who));
  return t(reached ? "word.nobody_counted" : "word.nobody_no_saboteur");
}
function describeEvent(e, names) {
  const ev = e.event ?? {};
  const who = (s) => seatName(names, s);
  const whom = (seats) => seats?.length ? list(seats.map(who)) : t("word.nobody");
  const p = {
    by: ev.seat != null ? who(ev.seat) : t("word.someone"),
    at: cell(ev.at && typeof ev.at === "object" ? ev.at : null),
    card: cardName(ev.card),
    target: who(ev.target?.seat ?? ev.target)
  };
  const say = (key, more = {}) => t(`event.${key}`, { ...p, ...more });
  const sentence = (() => {
    switch (ev.type) {
      case "game_created":
        return say("game_created", { ruleset: rulesetName(ev.ruleset), n: ev.players });
      case "seed_mixed":
        return say("seed_mixed", { n: (ev.contributions ?? []).length });
      case "round_started":
        return say("round_started", { round: ev.round, first: who(ev.first_player) });
      case "path_played":
        return say(ev.rotated ? "path_played_turned" : "path_played");
      case "goal_revealed":
        return say("goal_revealed");
      case "tool_broken":
        return say("tool_broken");
      case "tool_repaired":
        return say("tool_repaired", { tool: toolName(ev.tool) });
      case "path_removed":
        return say("path_removed");
      case "map_used":
        return ev.goal ? say("map_used_seen", { goal: cardName(ev.goal) }) : say("map_used");
      case "passed":
        return say("passed", { n: size(ev.discarded) });
      case "card_drawn":
        return ev.card ? say("card_drawn_seen") : say("card_drawn");
      case "turn_skipped":
        return say("turn_skipped");
      case "round_ended":
        return say(ev.gold_reached_by == null ? "round_ended_no_gold" : "round_ended", {
          round: ev.round,
          reached: who(ev.gold_reached_by),
          winners: roundWinners(ev.winners, ev.gold_reached_by != null, who)
        });
      case "gold_kept":
        return ev.card ? say("gold_kept_seen") : say("gold_kept");
      case "gold_offered":
        return say("gold_offered", { n: size(ev.cards) });
      case "gold_drawn":
        return say("gold_drawn", { n: size(ev.cards) });
      case "command_accepted":
        return say(ev.bot ? "command_accepted_bot" : ev.signature ? "command_accepted_signed" : "command_accepted");
      case "undo_requested":
        return say("undo_requested", { version: ev.to_version });
      case "undo_approved":
        return say("undo_approved");
      case "undo_declined":
        return say("undo_declined");
      case "undone":
        return say(ev.reason ? "undone_reason" : "undone", { version: ev.to_version, reason: ev.reason ?? "" });
      case "game_ended":
        return say("game_ended", { winners: whom(ev.winners) });
      case "game_cancelled":
        return say("game_cancelled");
      case "talk_posted": {
        const speaker = ev.seat == null ? t("event.spectator", { name: ev.name ?? t("word.spectator") }) : who(ev.seat);
        return ev.text == null ? say("talk_hidden_text", { who: speaker }) : say("talk_posted", { who: speaker, text: ev.text });
      }
      case "talk_hidden":
        return say("talk_hidden", { n: ev.message });
      case "turn_timed_out":
        return say("turn_timed_out");
      case "seat_handed_to_bot":
        return say(
          ev.reason === "abandoned" ? "seat_handed_to_bot_abandoned" : ev.reason === "lobby" ? "seat_handed_to_bot_lobby" : "seat_handed_to_bot",
          { level: t(`level.${ev.level}`) }
        );
      case "seat_reclaimed":
        return say("seat_reclaimed");
      case "token_reissued":
        return say("token_reissued");
      case "seat_key_registered":
        return say("seat_key_registered", { key: keys.prints.get(ev.key) ?? String(ev.key).slice(0, 16) });
      case "player_trapped":
        return say("player_trapped");
      case "action_cancelled":
        return say("action_cancelled", { removed: cardName(ev.removed) });
      case "discarded_to_remove":
        return say("discarded_to_remove", { removed: cardName(ev.removed), n: size(ev.discarded) });
      case "hands_swapped":
        return say("hands_swapped");
      case "hats_swapped":
        return say("hats_swapped");
      case "inspected":
        return ev.role ? say("inspected_seen", { role: roleName(ev.role) }) : say("inspected");
      case "theft_played":
        return say("theft_played");
      case "stealing_started":
        return say("stealing_started");
      case "coin_stolen":
        return ev.from == null ? say("coin_stolen_nobody") : say("coin_stolen", { from: who(ev.from) });
      case "saboteurs_paid":
        return say("saboteurs_paid");
      case "coins_paid":
        return say("coins_paid");
      default:
        return say("other", { type: String(ev.type ?? "") });
    }
  })();
  return `#${e.seq} ${sentence}`;
}

// ../../api/web/audit.js
var jcs = (o) => `{${Object.keys(o).sort().filter((k) => o[k] !== void 0).map((k) => `${JSON.stringify(k)}:${JSON.stringify(o[k])}`).join(",")}}`;
async function verifies(key, text, signature) {
  try {
    const bytes = (x) => Uint8Array.from(x.match(/../g) ?? [], (b) => parseInt(b, 16));
    const k = await crypto.subtle.importKey("raw", bytes(key), { name: "Ed25519" }, false, ["verify"]);
    return await crypto.subtle.verify({ name: "Ed25519" }, k, bytes(signature), new TextEncoder().encode(text));
  } catch {
    return false;
  }
}
var signedActOf = (type) => (
  /** @type {Record<string, string>} */
  {
    command_accepted: "command",
    undo_requested: "undo",
    undone: "undo",
    undo_approved: "approve",
    undo_declined: "decline",
    talk_posted: "talk",
    seat_reclaimed: "reclaim",
    seat_key_registered: "key"
  }[type]
);
async function checkHere(id2, kept) {
  const lines = [];
  let ok = true;
  const bundle = await api(`/games/${id2}/audit`);
  const published = new Map(bundle.keys.map((k) => [k.id, k.public_key]));
  const mine = serverKeys.get();
  for (const k of mine) {
    if (published.get(k.id) !== k.public_key) {
      ok = false;
      lines.push(t("here.withdrawn", { id: k.id, since: k.created_at }));
    }
  }
  let good = 0;
  for (const r of kept.map((x) => (
    /** @type {any} */
    x.receipt ?? x
  ))) {
    const key = published.get(r.key_id) ?? mine.find((k) => k.id === r.key_id)?.public_key;
    const { signature, ...signedPart } = r;
    if (key && await verifies(key, jcs(signedPart), signature)) good++;
    else {
      ok = false;
      lines.push(t("here.bad_receipt", { version: r.version }));
      break;
    }
  }
  lines.push(t("here.receipts", { good, n: kept.length, keys: mine.length }));
  const seatKeys = {};
  let signatures = 0;
  const record = bundle.events[0]?.payload?.record_version ?? 1;
  let lastRequest = null;
  const handedAt = {};
  for (const e of bundle.events) {
    const p = e.payload;
    const seat = p.seat ?? p.by;
    if (p.signature) {
      const key = seatKeys[seat];
      const s = p.signature;
      let body;
      try {
        body = s.body ? JSON.parse(s.body) : void 0;
      } catch {
        body = void 0;
      }
      const act = signedActOf(e.event_type);
      const about = act === "undo" ? p.to_version + 1 : act === "approve" || act === "decline" ? lastRequest : act === "reclaim" ? handedAt[seat] ?? null : null;
      const text = statement({ game: id2, seat, version: s.version, act, record, about }, body, s.body);
      if (key && await verifies(key, text, s.signature)) signatures++;
      else {
        ok = false;
        lines.push(t("here.bad_signature", { n: e.seq, seat }));
        break;
      }
    }
    if (e.event_type === "seat_key_registered") seatKeys[p.seat] = p.key;
    if (e.event_type === "token_reissued") delete seatKeys[p.seat];
    if (e.event_type === "undo_requested") lastRequest = e.seq;
    if (e.event_type === "seat_handed_to_bot") handedAt[p.seat] = e.seq;
  }
  lines.push(t("here.signatures", { n: signatures }));
  const me = tokens.get(id2);
  if (me.key && me.seat != null) {
    const own = me.keys ?? [me.key.public];
    let reissued = false;
    const foreign = [];
    const afterReissue = [];
    for (const e of bundle.events) {
      if (e.payload.seat !== me.seat) continue;
      if (e.event_type === "token_reissued") reissued = true;
      if (e.event_type !== "seat_key_registered") continue;
      if (own.includes(e.payload.key)) reissued = false;
      else (reissued ? afterReissue : foreign).push(e.payload.key);
    }
    for (const key of foreign) {
      ok = false;
      lines.push(t("here.other_key", { print: await keys.fingerprint(key) }));
    }
    for (const key of afterReissue) lines.push(t("here.reissued_key", { print: await keys.fingerprint(key) }));
    if (!foreign.length && seatKeys[me.seat] === me.key.public)
      lines.push(t("here.own_key", { print: await keys.fingerprint(me.key.public) }));
  }
  return { ok, lines };
}
async function audit(id2, ready2) {
  await ready2;
  document.title = t("audit.title");
  await serverKeys.keep();
  const summary = await api(`/games/${id2}`);
  const names = Object.fromEntries(summary.seats.map((s) => [s.seat, shownName(s)]));
  const who = (s) => seatName(names, s);
  const code = (x) => h("code", { class: "hex" }, x);
  const kids = [h("h1", {}, t("audit.heading", { id: id2.slice(0, 8) }))];
  const secrets = [
    h("p", {}, t("audit.commitment_explained")),
    h("p", {}, `${t("audit.commitment")} `, code(summary.seed_commitment)),
    h("p", {}, t("audit.seed_explained")),
    h("p", {}, `${t("audit.seed")} `, summary.seed ? code(summary.seed) : t("audit.seed_hidden"))
  ];
  if (summary.status !== "finished") {
    kids.push(
      h("p", { class: "error", role: "alert" }, t("audit.not_over")),
      h("p", {}, h("a", { href: `/play/${id2}` }, t("audit.to_table"))),
      ...secrets
    );
    main.replaceChildren(...kids.filter((k) => k != null));
    return;
  }
  try {
    const v = await api(`/games/${id2}/audit/verdict`);
    const kept = receipts.get(id2);
    const file = URL.createObjectURL(new Blob([JSON.stringify(kept, null, 1)], { type: "application/json" }));
    const disputed = Number(/^event (\d+)/.exec(v.discrepancy ?? "")?.[1] ?? 0);
    kids.push(...verdict(id2, v, disputed, who));
    const here = h(
      "section",
      { "aria-label": t("audit.here") },
      h("h2", {}, t("audit.here")),
      h("p", {}, t("audit.checking"))
    );
    kids.push(here);
    kids.push(await account(id2, names, v.ok ? null : { seq: disputed, what: v.discrepancy ?? "" }));
    kids.push(
      h(
        "details",
        { class: "experts" },
        h("summary", {}, t("audit.experts")),
        ...secrets,
        h(
          "p",
          {},
          v.log_entry ? t("audit.log_entry", {
            n: v.log_entry.seq,
            version: v.log_entry.version,
            head: v.log_entry.head,
            at: v.log_entry.logged_at
          }) : t("audit.not_logged")
        ),
        h("h2", {}, t("audit.keys")),
        h(
          "ul",
          {},
          v.keys.map(
            (k) => h(
              "li",
              {},
              code(k.id),
              ": ",
              code(k.public_key),
              `, ${t(k.retired_at ? "audit.key_retired" : "audit.key_in_use", { since: new Date(k.created_at).toLocaleString(), retired: k.retired_at ? new Date(k.retired_at).toLocaleString() : "" })}`
            )
          )
        ),
        h(
          "p",
          {},
          h("a", { href: `/games/${id2}/audit`, download: `saboteur-${id2}.json` }, t("audit.download_bundle")),
          " ",
          h("a", { href: file, download: `receipts-${id2}.json` }, t("audit.download_receipts", { n: kept.length }))
        ),
        h(
          "p",
          {},
          `${t("audit.offline")} `,
          h("code", {}, `saboteur verify --file saboteur-${id2}.json --receipts receipts-${id2}.json`)
        ),
        checkReceipts(id2, kept)
      )
    );
    checkHere(id2, kept).then(
      ({ ok, lines }) => here.replaceChildren(
        here.firstChild ?? "",
        h(
          "div",
          { role: "status", class: ok ? "" : "error" },
          h(
            "ul",
            {},
            lines.map((l) => h("li", {}, l))
          )
        )
      )
    ).catch((e) => here.replaceChildren(here.firstChild ?? "", h("p", { class: "error" }, e.message)));
  } catch (e) {
    kids.push(h(
      "p",
      { class: "error", role: "alert" },
      /** @type {Error} */
      e.message
    ));
  }
  main.replaceChildren(...kids.filter((k) => k != null));
}
async function account(id2, names, wrong) {
  const bundle = await api(`/games/${id2}/audit`);
  await Promise.all(
    bundle.events.filter((e) => e.event_type === "seat_key_registered").map((e) => keys.fingerprint(e.payload.key))
  );
  const parts = [];
  let list2 = h("ol", {});
  parts.push(h("h3", {}, t("audit.before_deal")), list2);
  for (const e of bundle.events) {
    const ev = e.payload;
    if (e.event_type === "round_started") {
      list2 = h("ol", { start: e.seq });
      parts.push(h("h3", {}, t("audit.round", { n: ev.round })), list2);
    }
    if (e.event_type === "card_drawn") continue;
    const checked = wrong?.seq && e.seq >= wrong.seq ? e.seq === wrong.seq ? h("strong", { class: "error" }, ` ✗ ${wrong.what.replace(/^event \d+: /, "")}`) : ` ${t("audit.not_checked")}` : e.event_type === "command_accepted" ? h("span", { class: "legal", title: t("audit.legal_title") }, ` ✓ ${t("audit.legal")}`) : "";
    list2.append(
      h(
        "li",
        { value: e.seq, class: wrong?.seq === e.seq ? "disputed" : null },
        describeEvent({ seq: e.seq, event: ev }, names).replace(/^#\d+ /, ""),
        checked,
        ev.at && typeof ev.at === "number" ? ` ${t("audit.at", { time: new Date(ev.at).toLocaleTimeString() })}` : "",
        " ",
        h(
          "a",
          { href: `/replay/${id2}?v=${e.seq}&as=everyone`, "aria-label": t("audit.see_label", { n: e.seq }) },
          t("audit.see")
        )
      )
    );
  }
  return h(
    "section",
    { "aria-label": t("audit.account"), class: "account" },
    h("h2", {}, t("audit.account")),
    h("p", {}, t("audit.account_intro")),
    ...parts
  );
}
function verdict(id2, v, disputed, who) {
  const report = (
    /** @type {Schemas["Verified"]} */
    v.report
  );
  return [
    h(
      "p",
      { role: "status", class: v.ok ? "verdict" : "verdict error" },
      v.ok ? t("audit.verified", {
        events: v.events,
        commands: report.commands_checked,
        deals: report.deals_checked,
        signatures: report.signatures_checked ?? 0
      }) : t("audit.discrepancy", { what: v.discrepancy ?? "" })
    ),
    v.ok ? h("p", {}, t("audit.plain")) : null,
    disputed ? h(
      "p",
      {},
      h(
        "a",
        { href: `/replay/${id2}?v=${Math.max(1, disputed - 1)}&as=everyone` },
        t("audit.see_before", { n: disputed })
      )
    ) : null,
    v.ok ? h(
      "p",
      {},
      t("audit.winners", {
        winners: report.winners.map(who).join(", ") || t("word.nobody"),
        gold: report.gold.map((g, i) => `${who(i)} ${g}`).join(", ")
      })
    ) : null
  ];
}
function checkReceipts(id2, kept) {
  const area = h("textarea", { id: "receipts", rows: 6, cols: 80, placeholder: '[{ "kind": "view", … }]' });
  const out = h("p", { role: "status", "aria-live": "polite" });
  const check = async (list2) => {
    out.textContent = t("audit.checking");
    let count = 0;
    try {
      for (let i = 0; i < list2.length; i += 50) {
        const r = await api(`/games/${id2}/audit/receipts`, {
          method: "POST",
          body: list2.slice(i, i + 50).map((x) => x.receipt ?? x)
        });
        if (!r.ok) {
          out.textContent = r.contradiction ? t("audit.contradiction", { what: r.contradiction }) : t("audit.refused", { what: r.refused ?? "" });
          out.className = "error";
          return;
        }
        count += r.checked?.receipts ?? 0;
      }
      out.className = "";
      out.textContent = t("audit.receipts_agree", { n: count });
    } catch (e) {
      out.className = "error";
      out.textContent = /** @type {Error} */
      e.message;
    }
  };
  return h(
    "section",
    { "aria-label": t("audit.receipts") },
    h("h2", {}, t("audit.receipts")),
    h("p", {}, h("button", { type: "button", onclick: () => check(kept) }, t("audit.check_kept", { n: kept.length }))),
    h(
      "p",
      {},
      h("label", { for: "receipts" }, t("audit.paste")),
      h("br"),
      area,
      h("br"),
      h(
        "button",
        {
          type: "button",
          onclick: () => {
            try {
              check(JSON.parse(area.value || "[]"));
            } catch (e) {
              out.className = "error";
              out.textContent = /** @type {Error} */
              e.message;
            }
          }
        },
        t("audit.check_pasted")
      )
    ),
    out
  );
}

// ../../api/web/parts.js
var LEVELS = ["random", "heuristic", "expert"];
var levelPicker = (attrs) => h(
  "select",
  attrs,
  LEVELS.map((l) => h("option", { value: l, selected: l === "heuristic" }, t(`level.${l}`)))
);
function players(view, names, table2, presence, bots = /* @__PURE__ */ new Set()) {
  return h(
    "ul",
    { class: "players", "aria-label": t("players.label") },
    view.hand_sizes.map((n, i) => {
      const turn = view.phase.awaited === i;
      const seat = table2?.seats[i];
      const here = presence?.seats[i]?.connected;
      const shown2 = presence && !bots.has(i);
      const parts = [
        t("players.seat", { n: i, name: names[i] ?? t("players.empty") }) + (view.seat === i ? ` ${t("players.you")}` : "") + (shown2 ? ` ${t(here ? "players.connected" : "players.away")}` : "") + ": " + t("players.cards", { n, gold: view.gold_card_counts[i] })
      ];
      if (seat?.remaining_ms != null && !turn) parts.push(t("players.clock", { time: clock(seat.remaining_ms) }));
      if (seat?.handed_to) parts.push(t("players.bot_plays", { level: t(`level.${seat.handed_to}`) }));
      if (seat?.timeouts) parts.push(t("players.timeouts", { n: seat.timeouts }));
      if (view.gold) parts.push(t("players.gold", { n: view.gold[i] }));
      if (view.in_front[i].length)
        parts.push(t("players.in_front", { cards: view.in_front[i].map((c) => cardName(c)).join(", ") }));
      if (view.roles) parts.push(t("players.role", { role: roleName(view.roles[i]) }));
      return h(
        "li",
        { class: turn ? "turn" : "" },
        shown2 ? h(
          "span",
          { class: here ? "here" : "away", title: t(here ? "players.connected_title" : "players.away_title") },
          here ? "● " : "○ "
        ) : "",
        parts.join("; "),
        seat?.key ? h(
          "span",
          { class: "key", title: t("players.key_title", { key: seat.key }) },
          `; ${t("players.key", { print: keys.prints.get(seat.key) ?? "" })}`
        ) : "",
        turn ? ` — ${t("players.their_turn")}` : ""
      );
    })
  );
}
function scoreboard(view, names, over, byRound = null) {
  const seats = view.hand_sizes.map((_, i) => i);
  const gold = view.gold;
  const won = (i) => view.rounds.filter((r) => r.winners.includes(i)).length;
  const order = gold ? [...seats].sort((a, b) => gold[b] - gold[a] || a - b) : seats;
  const place = (i) => gold ? 1 + seats.filter((j) => gold[j] > gold[i]).length : 0;
  const col = (key) => h("th", { scope: "col" }, t(key));
  const perRound = gold && byRound ? byRound : [];
  return h(
    "table",
    { class: "score" },
    h("caption", {}, t(over ? "score.final" : "score.title")),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        gold ? col("score.place") : null,
        col("score.player"),
        perRound.map((_, r) => h("th", { scope: "col" }, t("score.round", { n: r + 1 }))),
        col(perRound.length ? "score.total" : gold ? "score.gold" : "score.gold_cards"),
        col("score.rounds_won")
      )
    ),
    h(
      "tbody",
      {},
      order.map((i) => {
        const winner = over && view.winners.includes(i);
        return h(
          "tr",
          { class: winner ? "winner" : null },
          gold ? h("td", {}, String(place(i))) : null,
          h(
            "th",
            { scope: "row" },
            seatName(names, i) + (view.seat === i ? ` ${t("players.you")}` : "") + (winner ? ` — ${t("score.winner")}` : "")
          ),
          perRound.map((r) => h("td", {}, String(r[i]))),
          h("td", {}, String(gold ? gold[i] : view.gold_card_counts[i])),
          h("td", {}, String(won(i)))
        );
      })
    )
  );
}
function cardIcon(entry, rotated = false) {
  const icon = el("svg", { viewBox: "0 0 1 1", "aria-hidden": "true" });
  if (entry?.segments?.length) icon.append(cardShape(entry, 0, 0, rotated));
  else if (entry?.action) icon.append(actionIcon(entry));
  return icon;
}
function hands(view, names, deck) {
  const cardsOf = (cards2) => h(
    "ul",
    { class: "hand" },
    (cards2 ?? []).map((c) => h("li", { title: explain(deck[c]) }, cardIcon(deck[c]), describe(deck[c])))
  );
  const seats = view.hands ? view.hands.map((cards2, i) => [i, cards2, view.roles?.[i]]) : view.seat != null && view.hand ? [[view.seat, view.hand, view.role]] : [];
  if (!seats.length) return h("section", { "aria-label": t("hands.label") }, h("p", {}, t("hands.hidden")));
  return h(
    "section",
    { "aria-label": t("hands.label") },
    h("h2", {}, t("hands.label")),
    seats.map(
      ([i, cards2, role]) => h(
        "section",
        { "aria-label": t("hands.of", { name: seatName(names, i) }) },
        h(
          "h3",
          {},
          t(role ? "hands.heading_role" : "hands.heading", {
            name: seatName(names, i),
            role: roleName(role),
            n: cards2.length
          })
        ),
        cardsOf(cards2)
      )
    )
  );
}
async function seriesSection(id2, names, link) {
  const series = await api(`/games/${id2}/series`);
  if (series.games.length < 2) return null;
  const totals = (gold) => gold.map((x, i) => `${names[i] ?? i} ${x}`).join(", ");
  return h(
    "section",
    { "aria-label": t("series.label") },
    h("h2", {}, t("series.label")),
    h(
      "ol",
      {},
      series.games.map(
        (g) => h(
          "li",
          {},
          g.id === id2 ? h("strong", {}, t("series.this", { id: g.id.slice(0, 8) })) : h("a", { href: link(g.id) }, g.id.slice(0, 8)),
          `: ${statusName(g.status)}${g.gold ? `, ${t("series.gold", { gold: totals(g.gold) })}` : ""}`
        )
      )
    ),
    h("p", {}, series.totals.length ? t("series.totals", { gold: totals(series.totals) }) : t("series.none"))
  );
}
function finishedRounds(view, names) {
  if (!view.rounds?.length) return null;
  return h(
    "section",
    { "aria-label": t("table.finished_rounds") },
    h("h2", {}, t("table.finished_rounds")),
    h(
      "ul",
      {},
      view.rounds.map(
        (r) => h(
          "li",
          {},
          t("table.round_summary", {
            round: r.round,
            gold: r.gold_reached_by == null ? t("table.gold_not_reached") : t("table.gold_reached", { who: seatName(names, r.gold_reached_by) }),
            winners: roundWinners(r.winners, r.gold_reached_by != null, (w) => seatName(names, w)),
            roles: r.roles.map((role, i) => `${seatName(names, i)} ${roleName(role)}`).join(", ")
          })
        )
      )
    )
  );
}

// ../../api/web/lobby.js
async function lobby(ready2) {
  await ready2;
  document.title = t("lobby.title");
  const list2 = h("tbody");
  const more = h("button", { type: "button", hidden: true }, t("lobby.more"));
  let cursor = null;
  async function page() {
    const q = new URLSearchParams({ limit: "20" });
    if (cursor) q.set("cursor", cursor);
    const data = await api(`/games?${q}`);
    for (const g of data.games) {
      list2.append(gameRow(g));
    }
    cursor = data.next_cursor ?? null;
    more.hidden = !cursor;
  }
  more.addEventListener("click", page);
  const form = createForm();
  main.replaceChildren(
    h("h1", {}, t("lobby.games")),
    form,
    h("h2", {}, t("lobby.all")),
    h(
      "table",
      {},
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          [t("lobby.col_game"), t("lobby.ruleset"), t("lobby.col_status"), t("lobby.col_seats"), ""].map(
            (x) => h("th", { scope: "col" }, x)
          )
        )
      ),
      list2
    ),
    more
  );
  await page();
}
function gameRow(g) {
  const mine = tokens.get(g.id);
  return h(
    "tr",
    {},
    h("td", {}, h("a", { href: `/play/${g.id}` }, g.id.slice(0, 8))),
    h("td", {}, rulesetName(g.ruleset)),
    h("td", {}, statusName(g.status)),
    h(
      "td",
      {},
      `${g.seats.length}/${g.players}: ${g.seats.map((s) => shownName(s) + (s.bot && shownName(s) === s.name ? ` ${t("lobby.bot")}` : "")).join(", ")}`,
      g.previous ? [` — ${t("lobby.rematch_of")} `, h("a", { href: `/play/${g.previous}` }, g.previous.slice(0, 8))] : null
    ),
    h(
      "td",
      {},
      mine.token ? t("lobby.your_seat") : mine.host ? t("lobby.host") : "",
      " ",
      h("a", { href: `/replay/${g.id}` }, t("lobby.replay")),
      g.status === "finished" ? [" ", h("a", { href: `/audit/${g.id}` }, t("lobby.audit"))] : null
    )
  );
}
function createForm() {
  const err = h("p", { class: "error", role: "alert" });
  const option = (value, text) => h("option", { value }, text);
  const form = h(
    "form",
    { "aria-label": t("lobby.create") },
    h("h2", {}, t("lobby.create")),
    h(
      "label",
      {},
      `${t("lobby.ruleset")} `,
      h(
        "select",
        { name: "ruleset" },
        option("base", rulesetName("base")),
        option("saboteur2", rulesetName("saboteur2"))
      )
    ),
    " ",
    h(
      "label",
      {},
      `${t("lobby.players")} `,
      h("input", { name: "players", type: "number", min: 2, max: 12, value: 3 })
    ),
    " ",
    h("label", {}, `${t("lobby.name")} `, h("input", { name: "name", value: t("lobby.default_name"), maxlength: 40 })),
    " ",
    h("label", {}, `${t("lobby.bots")} `, h("input", { name: "bots", type: "number", min: 0, max: 12, value: 2 })),
    " ",
    h("label", {}, `${t("lobby.level")} `, levelPicker({ name: "level" })),
    " ",
    h("label", {}, h("input", { name: "forfeit", type: "checkbox" }), ` ${t("lobby.forfeit")}`),
    " ",
    h(
      "label",
      {},
      `${t("lobby.clock")} `,
      h(
        "select",
        { name: "clock" },
        option("", t("lobby.clock_none")),
        option("per_decision", t("lobby.clock_per_decision")),
        option("bank", t("lobby.clock_bank"))
      )
    ),
    " ",
    h("label", {}, `${t("lobby.seconds")} `, h("input", { name: "seconds", type: "number", min: 5, value: 300 })),
    " ",
    h("label", {}, `${t("lobby.increment")} `, h("input", { name: "increment", type: "number", min: 0, value: 20 })),
    " ",
    h(
      "label",
      {},
      `${t("lobby.abandon_before")} `,
      h("input", { name: "abandon", type: "number", min: 0, max: 20, value: 3 }),
      ` ${t("lobby.abandon_after")}`
    ),
    " ",
    h("label", {}, h("input", { name: "spectators", type: "checkbox" }), ` ${t("lobby.spectators")}`),
    " ",
    h("button", { type: "submit" }, t("lobby.create_button")),
    err
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const f = new FormData(
      /** @type {HTMLFormElement} */
      form
    );
    try {
      await create(f);
    } catch (e) {
      err.textContent = /** @type {Error} */
      e.message;
    }
  });
  return form;
}
async function create(f) {
  const players2 = Number(f.get("players"));
  const options = {};
  if (f.get("forfeit")) options.broken_tools_forfeit_gold = true;
  if (f.get("spectators")) options.spectator_talk = true;
  const seconds = Number(f.get("seconds"));
  if (f.get("clock") === "per_decision") options.clock = { kind: "per_decision", seconds };
  if (f.get("clock") === "bank")
    options.clock = { kind: "bank", seconds, increment_seconds: Number(f.get("increment")) };
  if (options.clock && Number(f.get("abandon")) > 0) options.abandon_after = Number(f.get("abandon"));
  const created = await api("/games", { method: "POST", body: { ruleset: f.get("ruleset"), players: players2, options } });
  const id2 = created.game_id;
  tokens.set(id2, { host: created.host_token });
  const bots = Math.min(players2, Number(f.get("bots")));
  if (bots < players2) {
    await seatable(id2, t);
    const key = await keys.make();
    const joined = await api(`/games/${id2}/seats`, {
      method: "POST",
      body: { name: f.get("name") || t("lobby.default_name"), entropy: share(), ...await keys.sent(key, id2) }
    });
    tokens.set(id2, seated(joined, key));
  }
  for (let i = 0; i < bots; i++) {
    await api(`/games/${id2}/bots`, { method: "POST", token: created.host_token, body: { level: f.get("level") } });
  }
  location.href = `/play/${id2}`;
}

// ../../api/web/board.js
function board(view, deck, { legal = [], onCell, targets = [], keep = { box: null } } = {}) {
  const cells = [
    ...view.board.map((p) => [p.x, p.y]),
    ...view.goals.map((g) => [g.x, g.y]),
    ...legal.map((c) => [c.at.x, c.at.y])
  ];
  const xs = cells.map((c) => c[0]), ys = cells.map((c) => c[1]);
  let box = keep.box ?? [
    Math.min(...xs) - 1,
    Math.min(...ys) - 1,
    Math.max(...xs) - Math.min(...xs) + 3,
    Math.max(...ys) - Math.min(...ys) + 3
  ];
  const svg = el("svg", { class: "board", viewBox: box.join(" "), role: "group", "aria-label": t("board.maze") });
  const title = el("title");
  title.textContent = t("board.title");
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
    g.setAttribute(
      "aria-label",
      goal.card ? t("board.goal_seen", { at: `(${goal.x}, ${goal.y})`, card: cardName(goal.card) }) : t("board.goal", { at: `(${goal.x}, ${goal.y})` })
    );
    svg.append(g);
  }
  const seen = /* @__PURE__ */ new Set();
  for (const c of legal) {
    const key = `${c.at.x},${c.at.y}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const r = el("rect", {
      class: "cell-legal",
      x: c.at.x + 0.05,
      y: c.at.y + 0.05,
      width: 0.9,
      height: 0.9,
      tabindex: 0,
      role: "button",
      "aria-label": t("board.play_here", { at: `(${c.at.x}, ${c.at.y})` })
    });
    const go = () => onCell?.(c.at);
    r.addEventListener("click", go);
    r.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        go();
      }
    });
    svg.append(r);
  }
  for (const t2 of targets) {
    const r = el("rect", {
      class: "cell-target",
      x: t2.at.x + 0.05,
      y: t2.at.y + 0.05,
      width: 0.9,
      height: 0.9,
      tabindex: 0,
      role: "button",
      "aria-label": t2.label
    });
    const go = () => t2.onPick();
    r.addEventListener("click", go);
    r.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        go();
      }
    });
    svg.append(r);
  }
  const show = () => {
    keep.box = box;
    svg.setAttribute("viewBox", box.join(" "));
  };
  const zoomBy = (k) => {
    box = [box[0] + box[2] * (1 - k) / 2, box[1] + box[3] * (1 - k) / 2, box[2] * k, box[3] * k];
    show();
  };
  let drag = null;
  const fingers = /* @__PURE__ */ new Map();
  let spread = 0;
  const apart = () => {
    const [a, b] = [...fingers.values()];
    return Math.hypot(a[0] - b[0], a[1] - b[1]);
  };
  svg.addEventListener(
    "wheel",
    (e) => {
      e.preventDefault();
      zoomBy(e.deltaY > 0 ? 1.15 : 1 / 1.15);
    },
    { passive: false }
  );
  svg.addEventListener("pointerdown", (e) => {
    fingers.set(e.pointerId, [e.clientX, e.clientY]);
    if (fingers.size === 2) {
      drag = null;
      spread = apart();
    } else if (e.target === svg) drag = [e.clientX, e.clientY, box[0], box[1]];
  });
  const lift = (e) => {
    fingers.delete(e.pointerId);
    drag = null;
    spread = 0;
  };
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
function markLast(svg, events, view, names) {
  const recent = [...events].reverse();
  const dealt = recent.findIndex((x) => x.event?.type === "round_started");
  const e = recent.slice(0, dealt < 0 ? void 0 : dealt).find((x) => ["path_played", "path_removed", "goal_revealed"].includes(x.event?.type ?? ""));
  const ev = e?.event;
  const at = ev && (ev.type === "path_played" || ev.type === "path_removed" || ev.type === "goal_revealed") ? ev.at : null;
  if (!e || !ev || !at) return;
  if (ev.type === "path_played" && !view.board.some((p) => p.x === at.x && p.y === at.y)) return;
  svg.append(
    el("rect", {
      class: "last-move",
      x: at.x + 0.02,
      y: at.y + 0.02,
      width: 0.96,
      height: 0.96,
      role: "img",
      "aria-label": t("board.last", { what: describeEvent(e, names) })
    })
  );
}

// ../../api/web/replay.js
var replayRun = new AbortController();
async function replay(id2, ready2) {
  await ready2;
  replayRun.abort();
  replayRun = new AbortController();
  const run = replayRun.signal;
  document.title = t("replay.title");
  const q = new URLSearchParams(location.search);
  const summary = await api(`/games/${id2}`);
  const deck = await cards(summary.ruleset);
  const names = Object.fromEntries(summary.seats.map((s) => [s.seat, shownName(s)]));
  const { eyes, as, token } = eyesOf(id2, summary, q);
  const eyesName = (e) => e === "everyone" ? t("replay.everyone") : e === "spectator" ? t("replay.spectator") : seatName(names, Number(e));
  const events = await wholeLog(id2, token);
  await Promise.all(
    events.filter((e) => e.event?.type === "seat_key_registered").map((e) => keys.fingerprint(
      /** @type {any} */
      e.event.key
    ))
  );
  const max = summary.version;
  let v = Math.min(max, Math.max(1, Number(q.get("v") ?? max)));
  const marks = events.filter((e) => /^(round_started|goal_revealed|undone)$/.test(e.event?.type ?? ""));
  const { rounds, slider } = timeline(events, max, v);
  const { play, speed, stop } = autoplay(events, max, () => v, show, run);
  const label = h("output", { "aria-live": "polite" });
  const stage = h("div", {});
  const log = logOf(events, names, (seq) => {
    stop();
    show(seq);
  });
  const cache = /* @__PURE__ */ new Map();
  async function show(n) {
    v = Math.min(max, Math.max(1, n));
    slider.value = String(v);
    const st = cache.get(v) ?? await api(`/games/${id2}/state?at=${v}&as=${as}`, { token });
    cache.set(v, st);
    const drawn = board(st.view, deck);
    markLast(
      drawn,
      events.filter((e) => e.seq <= v),
      st.view,
      names
    );
    const step = events.find((e) => e.seq === v);
    label.textContent = t("replay.version_of", { v, max }) + (step ? ` — ${describeEvent(step, names).replace(/^#\d+ /, "")}` : "");
    stage.replaceChildren(
      h("p", { class: "step" }, label),
      drawn,
      players(st.view, names),
      hands(st.view, names, deck)
    );
    showLine(log, v);
    const url = new URL(location.href);
    url.searchParams.set("v", String(v));
    url.searchParams.set("as", as);
    history.replaceState(null, "", url);
    document.dispatchEvent(new CustomEvent("replay-shown", { detail: v }));
  }
  slider.addEventListener("input", () => show(Number(slider.value)));
  document.addEventListener(
    "keydown",
    (e) => {
      if (e.key === "ArrowRight") {
        e.preventDefault();
        show(v + 1);
      }
      if (e.key === "ArrowLeft") {
        e.preventDefault();
        show(v - 1);
      }
    },
    { signal: run }
  );
  const through = h(
    "select",
    {
      "aria-label": t("replay.eyes"),
      onchange: () => {
        const url = new URL(location.href);
        url.searchParams.set("as", through.value);
        url.searchParams.set("v", String(v));
        history.replaceState(null, "", url);
        replay(id2);
      }
    },
    eyes.map((e) => h("option", { value: e, selected: e === as }, eyesName(e)))
  );
  main.replaceChildren(
    h("h1", {}, t("replay.heading", { id: id2.slice(0, 8), eyes: eyesName(as) })),
    h("p", {}, h("label", {}, `${t("replay.eyes")} `, through)),
    h(
      "p",
      {},
      h("button", { type: "button", onclick: () => show(v - 1) }, `◀ ${t("replay.back")}`),
      " ",
      play,
      " ",
      speed,
      " ",
      h("button", { type: "button", onclick: () => show(v + 1) }, `${t("replay.forward")} ▶`),
      " ",
      slider,
      rounds
    ),
    h(
      "p",
      {},
      `${t("replay.jump")} `,
      marks.map(
        (e) => h("button", { type: "button", onclick: () => show(e.seq) }, `${t(`mark.${e.event.type}`)} #${e.seq}`)
      )
    ),
    h(
      "div",
      { class: "layout" },
      stage,
      h("aside", {}, h("h2", {}, t("table.log")), log, await seriesSection(id2, names, (g) => `/replay/${g}`))
    )
  );
  await show(v);
}
function eyesOf(id2, summary, q) {
  const mine = tokens.get(id2);
  const eyes = summary.status === "finished" ? ["everyone", "spectator", ...summary.seats.map((s) => String(s.seat))] : ["spectator", ...mine.token && mine.seat != null ? [String(mine.seat)] : []];
  const asked = q.get("as");
  const as = asked && eyes.includes(asked) ? asked : eyes[0];
  const token = mine.token && as === String(mine.seat) ? mine.token : void 0;
  return { eyes, as, token };
}
async function wholeLog(id2, token) {
  const events = [];
  for (let after = 0; ; ) {
    const p = await api(`/games/${id2}/events?after=${after}&limit=500`, { token });
    events.push(...p.events);
    if (p.next_after == null || !p.events.length) break;
    after = p.next_after;
  }
  return events;
}
function timeline(events, max, v) {
  const rounds = h(
    "datalist",
    { id: "replay-rounds" },
    events.filter((e) => e.event?.type === "round_started").map((e) => h("option", { value: e.seq, label: t("replay.round", { n: (
      /** @type {any} */
      e.event.round
    ) }) }))
  );
  const slider = h("input", {
    type: "range",
    min: 1,
    max,
    value: v,
    "aria-label": t("replay.version"),
    class: "replay-slider",
    list: "replay-rounds"
  });
  return { rounds, slider };
}
function autoplay(events, max, now, show, run) {
  const bySeq = new Map(events.map((e) => [e.seq, e]));
  const quiet = /* @__PURE__ */ new Set(["command_accepted", "card_drawn"]);
  const nextStop = (from) => {
    let n = from + 1;
    while (n < max && quiet.has(bySeq.get(n)?.event?.type ?? "")) n++;
    return n;
  };
  let playing = 0;
  const speed = h(
    "select",
    { "aria-label": t("replay.speed") },
    [
      ["0.5", "½×"],
      ["1", "1×"],
      ["2", "2×"],
      ["4", "4×"]
    ].map(([k, t2]) => h("option", { value: k, selected: k === "1" }, t2))
  );
  const play = h("button", { type: "button", "aria-pressed": "false" }, t("replay.play"));
  const stop = () => {
    clearInterval(playing);
    playing = 0;
    play.textContent = t("replay.play");
    play.setAttribute("aria-pressed", "false");
  };
  const start = () => {
    clearInterval(playing);
    play.textContent = t("replay.pause");
    play.setAttribute("aria-pressed", "true");
    playing = setInterval(() => {
      if (now() >= max) stop();
      else show(nextStop(now()));
    }, 700 / Number(speed.value));
  };
  play.addEventListener("click", () => {
    if (playing) return stop();
    if (now() >= max) show(1);
    start();
  });
  speed.addEventListener("change", () => {
    if (playing) start();
  });
  run.addEventListener("abort", stop);
  return { play, speed, stop };
}
function logOf(events, names, go) {
  return h(
    "ol",
    { class: "log", "aria-label": t("table.log"), tabindex: 0 },
    events.map(
      (e) => h(
        "li",
        { "data-seq": e.seq },
        h("button", { type: "button", class: "log-line", onclick: () => go(e.seq) }, describeEvent(e, names))
      )
    )
  );
}
function showLine(log, v) {
  for (const li of log.children)
    li.classList.toggle("current", Number(
      /** @type {HTMLElement} */
      li.dataset.seq
    ) === v);
  const line = log.querySelector(".current");
  if (line) {
    const [at, box] = [line.getBoundingClientRect(), log.getBoundingClientRect()];
    if (at.top < box.top || at.bottom > box.bottom) log.scrollTop += at.top - box.top - (box.height - at.height) / 2;
  }
}

// ../../api/web/rules.js
var SECTIONS = [
  ["rules.h_idea", ["rules.idea"]],
  ["rules.h_roles", ["rules.roles", "rules.roles_count"]],
  ["rules.h_setup", ["rules.setup", "rules.hands"]],
  ["rules.h_turn", ["rules.turn", "rules.path", "rules.action", "rules.pass"]],
  ["rules.h_actions", ["rules.broken", "rules.repair", "rules.rockfall", "rules.map"]],
  ["rules.h_goals", ["rules.goals"]],
  ["rules.h_gold", ["rules.round_end", "rules.diggers_win", "rules.saboteurs_win", "rules.game_end"]],
  [
    "rules.h_s2",
    ["rules.s2_roles", "rules.s2_turn", "rules.s2_paths", "rules.s2_actions", "rules.s2_win", "rules.s2_pay"]
  ],
  ["rules.h_here", ["rules.here_undo", "rules.here_audit"]]
];
async function rules(_, ready2) {
  await ready2;
  document.title = t("rules.title");
  main.replaceChildren(
    h("h1", {}, t("rules.title")),
    h(
      "div",
      { class: "rules" },
      ...SECTIONS.map(
        ([head, paras]) => h(
          "section",
          { "aria-label": t(
            /** @type {string} */
            head
          ) },
          h("h2", {}, t(
            /** @type {string} */
            head
          )),
          .../** @type {string[]} */
          paras.map((p) => h("p", {}, t(p)))
        )
      )
    )
  );
}

// ../../api/web/acts.js
function ensureKey(page, drawn) {
  const { id: id2, mine } = page;
  const { me, over, st } = drawn;
  const ownKey = me != null ? st.table.seats[me]?.key : void 0;
  if (mine.token && me != null && !over && !ownKey && !page.registering && st.table.record_version >= RECORD_VERSION) {
    page.registering = true;
    keys.make().then(async (key) => {
      if (!key) return;
      mine.key = key;
      const kept = await api(`/games/${id2}/seats/${me}/key`, {
        method: "PUT",
        token: mine.token,
        body: await keys.sent(key, id2)
      });
      tokens.set(
        id2,
        "commitment" in kept ? { key, commitment: kept.commitment, commitmentReceipt: kept.receipt } : { key }
      );
      page.refresh();
    }).catch((e) => {
      page.message = e.message;
    });
  }
}
function actButton(page, path, signed, act, label, done) {
  return h(
    "button",
    {
      type: "button",
      onclick: async () => {
        try {
          await api(`/games/${page.id}${path}`, { method: "POST", token: page.mine.token, sign: signed(act) });
          if (done !== void 0) page.message = done;
        } catch (e) {
          page.message = /** @type {Error} */
          e.message;
        }
        page.refresh();
      }
    },
    label
  );
}
function undoBar(page, drawn) {
  const { log, me, over, signed } = drawn;
  const request = openRequest(log.events);
  if (!request && page.message === t("table.undo_requested")) page.message = "";
  const mayVote = request != null && me != null && request.seat !== me && !request.approvals.includes(me);
  return page.mine.token && !over ? h(
    "p",
    {},
    request ? null : actButton(page, "/undo", signed, "undo", t("table.undo"), t("table.undo_requested")),
    " ",
    mayVote ? actButton(page, "/undo/approve", signed, "approve", t("table.undo_approve")) : null,
    " ",
    mayVote ? actButton(page, "/undo/decline", signed, "decline", t("table.undo_decline")) : null
  ) : null;
}
function reclaimBar(page, drawn) {
  const { st, view, signed } = drawn;
  const mySeat = view.seat != null ? st.table.seats[view.seat] : null;
  return mySeat?.handed_to ? h(
    "p",
    {},
    `${t("table.bot_playing")} `,
    actButton(page, `/seats/${view.seat}/reclaim`, signed, "reclaim", t("table.take_back"), "")
  ) : null;
}
function openRequest(events) {
  let open = null;
  for (const { event: e } of events) {
    if (e.type === "undo_requested") open = { seat: e.seat, approvals: [] };
    else if (e.type === "undo_approved") open?.approvals.push(e.seat);
    else if (e.type === "undo_declined" || e.type === "undone" || e.type === "command_accepted") open = null;
  }
  return open;
}

// ../../api/web/roundend.js
var STEP = { n: [0, -1], e: [1, 0], s: [0, 1], w: [-1, 0] };
function effective(records) {
  const first = records[0]?.seq ?? 1;
  const prev = /* @__PURE__ */ new Map();
  const head = /* @__PURE__ */ new Map();
  let at = first - 1;
  for (const r of records) {
    if (r.event.type === "undone")
      at = r.event.to_version >= first ? head.get(r.event.to_version) ?? first - 1 : first - 1;
    else {
      prev.set(r.seq, at);
      at = r.seq;
    }
    head.set(r.seq, at);
  }
  const bySeq = new Map(records.map((r) => [r.seq, r]));
  const kept = [];
  for (let s = (
    /** @type {number | undefined} */
    at
  ); s != null && bySeq.has(s); s = prev.get(s))
    kept.push(
      /** @type {Schemas["EventRecord"]} */
      bySeq.get(s)
    );
  return kept.reverse();
}
function route(board2, deck, open) {
  const cards2 = new Map(board2.map((p) => [`${p.x},${p.y}`, p]));
  const segments = (p) => (deck[p.card]?.segments ?? []).map((s) => ({
    door: s.door ?? null,
    usable: !s.dead_end && (!s.door || open.includes(s.door)),
    openings: s.openings.map((o) => p.rotated ? FLIP[o] : o)
  }));
  const from = /* @__PURE__ */ new Map();
  const queue = [];
  for (const p of board2) {
    if (deck[p.card]?.kind !== "start" && !deck[p.card]?.ladder) continue;
    segments(p).forEach((s, i) => {
      if (s.usable) {
        from.set(`${p.x},${p.y},${i}`, null);
        queue.push(`${p.x},${p.y},${i}`);
      }
    });
  }
  for (let k = 0; k < queue.length; k++) {
    const [x, y, i] = queue[k].split(",").map(Number);
    const p = (
      /** @type {Schemas["PlacedCard"]} */
      cards2.get(`${x},${y}`)
    );
    if (deck[p.card]?.kind === "goal" && deck[p.card]?.gold) return walk(queue[k]);
    for (const o of segments(p)[i].openings) {
      const q = cards2.get(`${x + STEP[o][0]},${y + STEP[o][1]}`);
      if (!q) continue;
      segments(q).forEach((s, j) => {
        const next = `${q.x},${q.y},${j}`;
        if (s.usable && s.openings.includes(FLIP[o]) && !from.has(next)) {
          from.set(next, queue[k]);
          queue.push(next);
        }
      });
    }
  }
  return null;
  function walk(end) {
    const cells = [];
    const doors = /* @__PURE__ */ new Set();
    for (let k = (
      /** @type {string | null | undefined} */
      end
    ); k != null; k = from.get(k)) {
      const [x, y, i] = k.split(",").map(Number);
      const door = segments(
        /** @type {Schemas["PlacedCard"]} */
        cards2.get(`${x},${y}`)
      )[i].door;
      if (door) doors.add(door);
      cells.unshift([x, y]);
    }
    return { cells, doors: [...doors].sort() };
  }
}
function decided(ended, view, deck) {
  const finder = ended.gold_reached_by;
  const any = finder == null ? null : route(view.board, deck, ["blue", "green"]);
  if (finder == null) return { green: false, blue: false, way: null };
  if (view.ruleset !== "saboteur2") return { green: true, blue: true, way: any };
  const [none, green, blue] = [[], ["green"], ["blue"]].map((open) => route(view.board, deck, open));
  const role = ended.roles[finder];
  const [g, b] = role === "green_digger" ? [!!green, !green] : role === "blue_digger" ? [!blue, !!blue] : none || green && blue ? [true, true] : [!!green, !!blue];
  return { green: g, blue: b, way: (g && b ? none ?? green ?? blue : g ? green : b ? blue : null) ?? any };
}
function drawRoute(svg, way) {
  const points = way.cells.map(([x, y]) => `${x + 0.5},${y + 0.5}`).join(" ");
  const style = `--length:${way.cells.length}`;
  svg.append(
    el("polyline", { class: "route-under", points, "aria-hidden": "true" }),
    el("polyline", {
      class: "route",
      points,
      style,
      role: "img",
      "aria-label": t("round.route", { n: way.cells.length })
    })
  );
}
function outcome(ended, how, view, names) {
  const who = seatName(names, ended.gold_reached_by);
  if (ended.gold_reached_by == null)
    return t(ended.winners.length ? "round.outcome_saboteurs" : "round.outcome_no_saboteur");
  if (view.ruleset !== "saboteur2") return t("round.outcome_diggers", { who });
  const won = t(
    how.green && how.blue ? "round.outcome_both" : how.green ? "round.outcome_green" : how.blue ? "round.outcome_blue" : "round.outcome_blocked",
    { who }
  );
  const doors = how.way?.doors ?? [];
  return `${won} ${doors.length ? t("round.route_doors", { doors: list(doors.map((d) => t(`door.${d}`))) }) : how.way ? t("round.route_no_door") : ""}`.trim();
}
function payouts(ended, events, view, deck, names) {
  const rows = ended.roles.map((role, seat) => ({
    seat,
    role,
    gold: 0,
    cards: 0,
    hidden: false,
    notes: (
      /** @type {string[]} */
      []
    )
  }));
  const worth = (card) => deck[card]?.value ?? 0;
  for (const { event: e } of events) {
    if (e.type === "gold_kept") {
      rows[e.seat].cards += 1;
      if (e.card) rows[e.seat].gold += worth(e.card);
      else rows[e.seat].hidden = true;
    } else if (e.type === "saboteurs_paid") {
      for (const p of e.payments) {
        if (Array.isArray(p.cards)) {
          rows[p.seat].cards += p.cards.length;
          rows[p.seat].gold += p.cards.reduce((n, c) => n + worth(c), 0);
        } else if (p.cards.count) {
          rows[p.seat].cards += p.cards.count;
          rows[p.seat].hidden = true;
        }
      }
    } else if (e.type === "coins_paid")
      e.coins.forEach((n, i) => {
        if (rows[i]) rows[i].gold += n;
      });
    else if (e.type === "coin_stolen") {
      if (e.from == null) {
        rows[e.seat].notes.push(t("round.stole_nothing"));
        continue;
      }
      rows[e.seat].gold += 1;
      rows[e.from].gold -= 1;
      rows[e.seat].notes.push(t("round.stole", { who: seatName(names, e.from) }));
      rows[e.from].notes.push(t("round.stolen_by", { who: seatName(names, e.seat) }));
    }
  }
  const s2 = view.ruleset === "saboteur2";
  const trapped = (i) => (view.in_front[i] ?? []).includes("trapped");
  const geologists = ended.roles.filter((r, i) => r === "geologist" && !trapped(i)).length;
  const crystals = view.board.reduce(
    (n, p) => n + (deck[p.card]?.kind === "path" ? deck[p.card]?.crystals ?? 0 : 0),
    0
  );
  const broken = (i) => (view.in_front[i] ?? []).some((c) => c.startsWith("break_"));
  return rows.map((r) => {
    const why = [];
    if (r.seat === ended.gold_reached_by) why.push(t("round.why_reached"));
    const won = ended.winners.includes(r.seat);
    if (s2 && trapped(r.seat)) why.push(t("round.why_trapped"));
    else if (s2 && r.role === "geologist")
      why.push(t(geologists > 1 ? "round.why_geologists" : "round.why_geologist", { n: crystals }));
    else if (won && !s2 && ended.gold_reached_by != null && !r.cards)
      why.push(
        t(
          view.options.broken_tools_forfeit_gold && broken(r.seat) ? "round.why_broken_tool" : "round.why_no_card_left"
        )
      );
    else if (won)
      why.push(
        t(r.role === "boss" ? "round.why_boss" : r.role === "profiteer" ? "round.why_profiteer" : "round.why_won")
      );
    else why.push(t("round.why_lost"));
    return { ...r, why: [...why, ...r.notes].join("; ") };
  });
}
function roundEnd({ ended, events, view, deck, names, me, svg, last, extra, dock }) {
  const how = decided(ended, view, deck);
  if (how.way) drawRoute(svg, how.way);
  const col = (key) => h("th", { scope: "col" }, t(key));
  const rows = payouts(ended, events, view, deck, names);
  return h(
    "section",
    { class: "round-over", "aria-label": t("table.round_over") },
    h("h2", {}, t(last ? "round.heading_last" : "round.heading", { round: ended.round })),
    h("p", { class: "outcome" }, outcome(ended, how, view, names)),
    h(
      "div",
      { class: "round-end" },
      h("div", { class: "round-board" }, svg),
      h(
        "div",
        {},
        h(
          "div",
          { class: "wide", role: "region", tabindex: 0, "aria-label": t("round.payouts", { round: ended.round }) },
          h(
            "table",
            { class: "score payouts" },
            h("caption", {}, t("round.payouts", { round: ended.round })),
            h("thead", {}, h("tr", {}, col("score.player"), col("round.role"), col("score.gold"), col("round.why"))),
            h(
              "tbody",
              {},
              rows.map(
                (r) => h(
                  "tr",
                  { class: ended.winners.includes(r.seat) ? "winner" : null },
                  h("th", { scope: "row" }, seatName(names, r.seat) + (me === r.seat ? ` ${t("players.you")}` : "")),
                  h("td", {}, roleName(r.role)),
                  h("td", {}, r.hidden ? t("round.cards_hidden", { n: r.cards }) : String(r.gold)),
                  h("td", {}, r.why)
                )
              )
            )
          )
        ),
        rows.some((r) => r.hidden) ? h("p", { class: "note" }, t("round.hidden_note")) : null,
        ...extra
      )
    ),
    dock
  );
}
function goldByRound(records, deck, view) {
  const rounds = [];
  let now = null;
  for (const { event: e } of effective(records)) {
    if (e.type === "round_started") rounds[e.round - 1] = now = view.hand_sizes.map(() => 0);
    else if (!now) continue;
    else if (e.type === "gold_kept") {
      if (!e.card) return null;
      now[e.seat] += deck[e.card]?.value ?? 0;
    } else if (e.type === "saboteurs_paid") {
      for (const p of e.payments) {
        if (!Array.isArray(p.cards)) return null;
        now[p.seat] += p.cards.reduce((n, c) => n + (deck[c]?.value ?? 0), 0);
      }
    } else if (e.type === "coins_paid") for (const [i, n] of e.coins.entries()) now[i] += n;
    else if (e.type === "coin_stolen" && e.from != null) {
      now[e.seat] += 1;
      now[e.from] -= 1;
    }
  }
  const whole = view.gold;
  if (!whole || !rounds.length || whole.some((g, i) => rounds.reduce((n, r) => n + (r?.[i] ?? 0), 0) !== g))
    return null;
  return rounds.map((r) => r ?? view.hand_sizes.map(() => 0));
}

// ../../api/web/hand.js
function movesOf(page, drawn) {
  const { legal, view } = drawn;
  const send = (cmd) => sendMove(page, drawn, cmd);
  const selected = page.selected;
  const forCard = selected == null ? [] : legal.filter((c) => uses(c).card === selected || uses(c).discard.includes(selected));
  const paths = forCard.flatMap((c) => c.type === "play_path" && !!c.rotated === page.rotated ? [c] : []);
  const targets = forCard.flatMap((c) => {
    const at = atCell(c);
    return at ? [
      {
        at,
        label: t("table.target", {
          card: cardName(
            /** @type {string} */
            "card" in c ? c.card : ""
          ),
          where: there(view, at)
        }),
        onPick: () => send(c)
      }
    ] : [];
  });
  const svg = mazeOf(page, view, paths, targets, send);
  const zoomBar = zoomBarOf(page, svg);
  const why = whyBlocked(page, drawn, paths);
  const hand = handOf(page, drawn);
  const actions = actionsOf(page, drawn, forCard, targets, send);
  return { svg, zoomBar, why, hand, actions, paths, targets };
}
async function sendMove(page, drawn, cmd) {
  try {
    await api(`/games/${page.id}/commands`, {
      method: "POST",
      token: page.mine.token,
      body: cmd,
      headers: { "if-match": `"${drawn.st.version}"` },
      sign: drawn.signed("command")
    });
    page.message = "";
    page.selected = null;
    page.sel = null;
    page.alsoDiscard = /* @__PURE__ */ new Set();
  } catch (e) {
    page.message = /** @type {Error} */
    e.message;
  }
  page.refresh();
}
var uses = (c) => ({ card: "card" in c ? c.card : void 0, discard: "discard" in c ? c.discard ?? [] : [] });
var atCell = (c) => c.type === "play_action" && c.target != null && "x" in c.target ? c.target : null;
function there(view, at) {
  const goals = [...view.goals].sort((a, b) => a.y - b.y);
  const goal = goals.findIndex((g) => g.x === at.x && g.y === at.y);
  if (goal >= 0)
    return goals.length === 3 ? t(`table.goal_${["top", "middle", "bottom"][goal]}`) : t("table.goal_n", { n: goal + 1 });
  const placed = view.board.find((p) => p.x === at.x && p.y === at.y);
  return placed ? t("table.card_at", { card: cardName(placed.card), x: at.x, y: -at.y }) : t("table.empty_cell");
}
function mazeOf(page, view, paths, targets, send) {
  const svg = board(view, page.deck, {
    legal: paths,
    // (The cells are lit only while a card is selected.)
    onCell: (at) => send({ type: "play_path", card: (
      /** @type {Schemas["Card"]} */
      page.selected
    ), at, rotated: page.rotated }),
    targets,
    keep: page.zoom
  });
  const overNow = page.ending ? null : view.rounds.find((r) => r.round === view.round);
  const way = overNow ? decided(overNow, view, page.deck).way : null;
  if (overNow && way) {
    drawRoute(svg, way);
    if (page.routed === overNow.round) svg.classList.add("still");
    page.routed = overNow.round;
  }
  return svg;
}
function zoomBarOf(page, svg) {
  const { zoom } = page;
  const zoomTo = (k) => {
    if (k == null) zoom.box = null;
    else {
      const b = zoom.box ?? (svg.getAttribute("viewBox") ?? "0 0 1 1").split(" ").map(Number);
      zoom.box = [b[0] + b[2] * (1 - k) / 2, b[1] + b[3] * (1 - k) / 2, b[2] * k, b[3] * k];
    }
    page.render();
  };
  return h(
    "p",
    { class: "zoom", "aria-label": t("table.zoom") },
    h("button", { type: "button", onclick: () => zoomTo(1 / 1.4) }, t("table.zoom_in")),
    " ",
    h("button", { type: "button", onclick: () => zoomTo(1.4) }, t("table.zoom_out")),
    " ",
    h("button", { type: "button", onclick: () => zoomTo(null) }, t("table.zoom_whole"))
  );
}
function whyBlocked(page, drawn, paths) {
  const { view, me } = drawn;
  const { selected, deck } = page;
  const blockers = me != null ? (view.in_front[me] ?? []).filter((c) => c.startsWith("break_") || c === "trapped") : [];
  return selected && deck[selected]?.kind === "path" && !paths.length && blockers.length ? h(
    "p",
    { role: "status", class: "why" },
    t("table.blocked", { cards: blockers.map((c) => cardName(c)).join(", ") })
  ) : null;
}
function handOf(page, drawn) {
  const { legal, view } = drawn;
  const { deck } = page;
  const usable = (c) => legal.some((l) => l.type !== "pass" && (uses(l).card === c || uses(l).discard.includes(c)));
  return h(
    "ul",
    { class: "hand docked", "aria-label": t("table.hand") },
    (view.hand ?? []).map((c, i) => {
      const icon = cardIcon(deck[c], page.sel === i && page.rotated);
      const only = legal.length && !usable(c);
      return h(
        "li",
        {},
        h(
          "button",
          {
            type: "button",
            class: only ? "unplayable" : null,
            title: explain(deck[c]),
            "aria-pressed": page.sel === i ? "true" : "false",
            onclick: () => {
              page.sel = page.sel === i ? null : i;
              page.selected = page.sel === null ? null : c;
              page.alsoDiscard = /* @__PURE__ */ new Set();
              page.reveal = page.sel !== null;
              page.render();
            }
          },
          icon,
          describe(deck[c], page.sel === i && page.rotated),
          only ? h("span", { class: "sr-only" }, ` ${t("table.discard_only")}`) : null
        )
      );
    })
  );
}
function actionsOf(page, drawn, forCard, targets, send) {
  const { legal } = drawn;
  const { selected, deck, names } = page;
  return h(
    "div",
    { role: "group", "aria-label": t("table.moves") },
    selected && deck[selected]?.kind === "path" ? h(
      "button",
      {
        type: "button",
        onclick: () => {
          page.rotated = !page.rotated;
          page.render();
        }
      },
      t(page.rotated ? "table.flip_turned" : "table.flip_upright")
    ) : null,
    targets.length ? h("p", {}, t("table.choose_target", { n: targets.length })) : null,
    forCard.filter((c) => c.type !== "play_path" && c.type !== "pass" && !atCell(c)).map((c) => h("button", { type: "button", onclick: () => send(c) }, describeCommand(c, names))),
    passChoice(page, drawn, forCard, send),
    legal.filter((c) => c.type === "choose_gold" || !uses(c).card && !uses(c).discard.length).map((c) => h("button", { type: "button", onclick: () => send(c) }, describeCommand(c, names)))
  );
}
function passChoice(page, drawn, forCard, send) {
  const { selected, sel, alsoDiscard, deck, names } = page;
  const passes = forCard.filter((c) => c.type === "pass");
  if (!passes.length || !selected) return null;
  const discardable = new Set(passes.flatMap((c) => c.type === "pass" ? c.discard : []));
  const others = (drawn.view.hand ?? []).flatMap((c, i) => i !== sel && discardable.has(c) ? [{ c, i }] : []);
  const wanted = [selected, ...others.filter(({ i }) => alsoDiscard.has(i)).map(({ c }) => c)].sort();
  const same = (c) => c.type === "pass" && [...c.discard ?? []].sort().join() === wanted.join();
  const chosen2 = passes.find(same);
  return h(
    "fieldset",
    { class: "pass" },
    h("legend", {}, t("table.pass")),
    others.map(
      ({ c, i }) => h(
        "label",
        {},
        h("input", {
          type: "checkbox",
          checked: alsoDiscard.has(i) ? "" : null,
          onchange: (ev) => {
            if (
              /** @type {HTMLInputElement} */
              ev.target.checked
            ) page.alsoDiscard.add(i);
            else page.alsoDiscard.delete(i);
            page.render();
          }
        }),
        ` ${t("table.also_discard", { card: cardName(deck[c] ?? c) })}`
      )
    ),
    chosen2 ? h(
      "button",
      {
        type: "button",
        onclick: () => {
          page.alsoDiscard = /* @__PURE__ */ new Set();
          send(chosen2);
        }
      },
      describeCommand(chosen2, names)
    ) : h("p", {}, t("table.not_together"))
  );
}

// ../../api/web/news.js
function tellAll(page) {
  clearInterval(page.pacing);
  page.pacing = 0;
  page.told = page.news.length;
}
function hear(page, fresh) {
  if (fresh.length) tellAll(page);
  page.unseen = page.told;
  page.news.push(...fresh);
  const drop = Math.max(0, page.news.length - 40);
  page.news = page.news.slice(drop);
  page.told = Math.max(0, page.told - drop);
  page.unseen = Math.max(0, page.unseen - drop);
  if (!fresh.length || page.pacing) return;
  page.told += 1;
  if (page.told < page.news.length)
    page.pacing = setInterval(() => {
      if (++page.told >= page.news.length) tellAll(page);
      page.render();
    }, 900);
}
function heardSince(page, st, log) {
  if (st.version === page.drawnAt) return;
  const since = page.drawnAt;
  hear(
    page,
    since ? log.events.filter(
      (e) => e.seq > since && !["card_drawn", "command_accepted", "talk_posted", "seat_key_registered"].includes(e.event.type)
    ) : []
  );
  page.drawnAt = st.version;
}
function markNews(page, svg) {
  const { news, told, unseen } = page;
  const dealt = news.slice(0, told).map((e) => e.event.type).lastIndexOf("round_started");
  for (const [i, e] of news.slice(0, told).entries()) {
    const ev = e.event;
    if (i < unseen || i < dealt) continue;
    const cell2 = ev.type === "path_played" || ev.type === "path_removed" || ev.type === "goal_revealed" ? ev.at : null;
    if (!cell2) continue;
    svg.append(
      el("rect", {
        class: i === told - 1 ? "new-move telling" : "new-move",
        x: cell2.x + 0.08,
        y: cell2.y + 0.08,
        width: 0.84,
        height: 0.84,
        "aria-hidden": "true"
      })
    );
  }
}
function newsPanel(page) {
  const { news, told, names } = page;
  return h(
    "section",
    { class: "news", "aria-label": t("table.news") },
    h("h2", {}, t("table.news")),
    h(
      "ol",
      { "aria-live": "polite", tabindex: 0, "aria-label": t("table.news") },
      told ? news.slice(0, told).map(
        (e, i) => h(
          "li",
          { class: i === told - 1 && told < news.length ? "telling" : null },
          describeEvent(e, names).replace(/^#\d+ /, "")
        )
      ) : h("li", { class: "quiet" }, t("table.news_none"))
    ),
    told < news.length ? h(
      "button",
      {
        type: "button",
        onclick: () => {
          tellAll(page);
          page.render();
        }
      },
      t("table.show_all", { n: news.length - told })
    ) : null
  );
}

// ../../api/web/room.js
function waitingRoom(room) {
  const { s, mine } = room;
  const parts = [];
  const join = joinForm(room);
  parts.push(
    h(
      "p",
      {},
      t("table.seats", {
        n: s.seats.length,
        of: s.players,
        names: s.seats.map((x) => shownName(x) + (x.reserved ? ` ${t("table.not_back")}` : "")).join(", ")
      })
    )
  );
  const before = s.previous ? tokens.get(s.previous) : {};
  const mySeat = s.seats.find((x) => x.seat === before.seat && x.reserved);
  if (!mine.token && mySeat && before.token) parts.push(takeBack(room, mySeat.seat, before.token));
  else if (!mine.token) parts.push(join);
  if (mine.token && mine.seat != null) parts.push(leave(room, mine.seat));
  if (mine.host) parts.push(...hostRoom(room));
  return parts;
}
function joinForm({ id: id2, mine, refresh, say }) {
  const join = h(
    "form",
    {},
    h("label", {}, `${t("lobby.name")} `, h("input", { name: "name", value: t("lobby.default_name") })),
    " ",
    h("button", { type: "submit" }, t("table.join"))
  );
  join.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      await seatable(id2, t);
      const key = await keys.make();
      const j = await api(`/games/${id2}/seats`, {
        method: "POST",
        body: {
          name: new FormData(
            /** @type {HTMLFormElement} */
            join
          ).get("name"),
          entropy: share(),
          ...await keys.sent(key, id2)
        }
      });
      tokens.set(id2, seated(j, key));
      Object.assign(mine, tokens.get(id2));
      refresh();
    } catch (e) {
      say(
        /** @type {Error} */
        e.message
      );
      refresh();
    }
  });
  return join;
}
function takeBack({ id: id2, mine, refresh, say }, seat, token) {
  return h(
    "p",
    {},
    `${t("table.rematch_yours")} `,
    h(
      "button",
      {
        type: "button",
        onclick: async () => {
          try {
            await seatable(id2, t);
            const key = await keys.make();
            const j = await api(`/games/${id2}/seats/${seat}/claim`, {
              method: "POST",
              token,
              body: { entropy: share(), ...await keys.sent(key, id2) }
            });
            tokens.set(id2, seated(j, key));
            Object.assign(mine, tokens.get(id2));
            say("");
          } catch (e) {
            say(
              /** @type {Error} */
              e.message
            );
          }
          refresh();
        }
      },
      t("table.take_seat")
    )
  );
}
function leave({ id: id2, s, mine, refresh, say }, seat) {
  return h(
    "p",
    {},
    h(
      "button",
      {
        type: "button",
        onclick: async () => {
          try {
            await api(`/games/${id2}/seats/${seat}`, {
              method: "DELETE",
              token: mine.token,
              sign: mine.key ? { game: id2, seat, version: s.version, act: "leave", key: mine.key } : void 0
            });
            const host = mine.host;
            localStorage.removeItem(`saboteur:${id2}`);
            for (const k of Object.keys(mine)) delete /** @type {any} */
            mine[k];
            if (host) {
              tokens.set(id2, { host });
              mine.host = host;
            }
            say("");
          } catch (e) {
            say(
              /** @type {Error} */
              e.message
            );
          }
          refresh();
        }
      },
      t("table.leave")
    )
  );
}
function hostButton({ id: id2, mine, refresh, say }, path, label, { body, quiet = false, confirmed } = {}) {
  return h(
    "button",
    {
      type: "button",
      onclick: async () => {
        if (confirmed && !confirmed()) return;
        try {
          await api(`/games/${id2}${path}`, { method: "POST", token: mine.host, body: body?.() });
          if (!quiet) say("");
        } catch (e) {
          say(
            /** @type {Error} */
            e.message
          );
        }
        refresh();
      }
    },
    label
  );
}
function hostRoom(room) {
  const { id: id2, s, mine, refresh, say } = room;
  const parts = [];
  const others = s.seats.filter((x) => x.seat !== mine.seat && !x.reserved);
  if (others.length)
    parts.push(
      h(
        "p",
        {},
        ...others.map(
          (x) => h(
            "button",
            {
              type: "button",
              onclick: async () => {
                try {
                  await api(`/games/${id2}/seats/${x.seat}`, { method: "DELETE", token: mine.host });
                  const { [x.seat]: _freed, ...kept } = tokens.get(id2).invites ?? {};
                  tokens.set(id2, { invites: kept });
                  say("");
                } catch (e) {
                  say(
                    /** @type {Error} */
                    e.message
                  );
                }
                refresh();
              }
            },
            t("table.free_seat", { name: x.name })
          )
        )
      )
    );
  const start = hostButton(room, "/start", t("table.start"), { quiet: true });
  const level = levelPicker({ "aria-label": t("lobby.level") });
  const addBot = hostButton(room, "/bots", t("host.add_bot"), { body: () => ({ level: level.value }) });
  const cancel = hostButton(room, "/cancel", t("table.cancel"), {
    confirmed: () => confirm(t("table.cancel_confirm"))
  });
  parts.push(invites(room), h("p", {}, addBot, " ", level), h("p", {}, start, " ", cancel));
  return parts;
}
function invites({ id: id2, s, refresh, say }) {
  const kept = tokens.get(id2).invites ?? {};
  const links = s.seats.filter((x) => kept[x.seat]).map((x) => h("a", { href: kept[x.seat] }, location.origin + kept[x.seat]));
  const out = h("output", {}, ...links.flatMap((a, i) => i ? [h("br", {}), a] : [a]));
  const invite = h("button", { type: "button" }, t("table.invite"));
  invite.addEventListener("click", async () => {
    try {
      const j = await api(`/games/${id2}/seats`, { method: "POST", body: { name: t("table.guest") } });
      const path = `/play/${id2}#seat=${j.seat}&token=${j.player_token}`;
      tokens.set(id2, { invites: { ...tokens.get(id2).invites ?? {}, [j.seat]: path } });
      say("");
    } catch (e) {
      say(
        /** @type {Error} */
        e.message
      );
    }
    refresh();
  });
  return h("p", {}, invite, " ", out);
}
function hostPanel({ id: id2, s, st, log, host, names, open, toggled, refresh, say }) {
  const botSeats = new Set(s.seats.filter((x) => x.bot).map((x) => x.seat));
  const people = s.seats.filter((x) => !botSeats.has(x.seat));
  const link = h("output", {});
  const moves = log.events.filter((e) => e.event.type === "command_accepted").reverse();
  const to = h(
    "select",
    { "aria-label": t("host.rollback_to") },
    moves.map(
      (e) => h(
        "option",
        { value: e.seq - 1 },
        t("host.before_move", { n: e.seq, who: seatName(
          names,
          /** @type {any} */
          e.event.seat
        ) })
      )
    )
  );
  const reason = h("input", {
    name: "reason",
    maxlength: "200",
    "aria-label": t("host.reason"),
    placeholder: t("host.reason")
  });
  const rollback = h(
    "form",
    { "aria-label": t("host.rollback") },
    to,
    " ",
    reason,
    " ",
    h("button", { type: "submit" }, t("host.rollback"))
  );
  rollback.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      await api(`/games/${id2}/rollback`, {
        method: "POST",
        token: host,
        body: { to_version: Number(to.value), reason: reason.value }
      });
      say("");
    } catch (e) {
      say(
        /** @type {Error} */
        e.message
      );
    }
    refresh();
  });
  return h(
    "details",
    {
      class: "host",
      open,
      ontoggle: (ev) => {
        toggled(
          /** @type {HTMLDetailsElement} */
          ev.target.open
        );
      }
    },
    h("summary", {}, t("host.label")),
    h(
      "ul",
      {},
      people.map(
        (x) => h(
          "li",
          {},
          st.table.seats[x.seat]?.handed_to ? "" : h(
            "button",
            {
              type: "button",
              onclick: async () => {
                try {
                  await api(`/games/${id2}/seats/${x.seat}/handover`, {
                    method: "POST",
                    token: host,
                    body: { level: "heuristic" }
                  });
                  say("");
                } catch (e) {
                  say(
                    /** @type {Error} */
                    e.message
                  );
                }
                refresh();
              }
            },
            t("host.hand_over", { name: x.name })
          ),
          " ",
          h(
            "button",
            {
              type: "button",
              onclick: async () => {
                try {
                  const n = await api(`/games/${id2}/seats/${x.seat}/token`, { method: "POST", token: host });
                  const path = `/play/${id2}#seat=${n.seat}&token=${n.player_token}`;
                  link.replaceChildren(h("a", { href: path }, location.origin + path));
                } catch (e) {
                  link.textContent = /** @type {Error} */
                  e.message;
                }
              }
            },
            t("host.new_token", { name: x.name })
          )
        )
      )
    ),
    link,
    moves.length ? rollback : null
  );
}

// ../../api/web/screens.js
function roundEndScreen(page, ending, drawn, turnNow, countdown, actions) {
  const { deck, names } = page;
  const { view, me, over } = drawn;
  const then = ending.view ?? view;
  const last = over && ending.dealt == null;
  const dock = ending.dealt != null || over ? h(
    "div",
    { class: "dock bar" },
    h(
      "button",
      {
        type: "button",
        class: "next",
        onclick: () => {
          page.movedPast = page.ending?.seq ?? 0;
          page.ending = null;
          page.movedOn = true;
          page.render();
        }
      },
      t(last ? "round.show_final" : "round.next")
    )
  ) : h("div", { class: "dock bar" }, h("p", {}, t("round.wait")), turnNow, countdown, actions);
  const endSvg = board(then, deck);
  if (page.routed === ending.ended.round) endSvg.classList.add("still");
  page.routed = ending.ended.round;
  return [
    roundEnd({
      ended: ending.ended,
      events: ending.events,
      view: then,
      deck,
      names,
      me,
      svg: endSvg,
      last,
      extra: [last ? null : scoreboard(then, names, false)],
      dock
    })
  ];
}
function liveTable(page, drawn, parts) {
  const { st, view, me, over } = drawn;
  const { svg, zoomBar, err, hand, why, actions, undo, reclaim, turnNow, countdown } = parts;
  const final = over ? h(
    "div",
    { class: "final" },
    me != null ? h(
      "p",
      { role: "status", class: "result" },
      t(view.winners?.includes(me) ? "table.you_won" : "table.you_lost")
    ) : null,
    h(
      "div",
      { class: "wide", role: "region", tabindex: 0, "aria-label": t("score.final") },
      scoreboard(view, page.names, true, page.byRound)
    )
  ) : null;
  const dock = !over && (me != null || st.table.deadline) ? h(
    "div",
    { class: me != null ? "dock" : "dock bar" },
    me != null ? hand : null,
    h("div", { class: "dock-moves" }, turnNow, countdown, reclaim, why, actions, undo)
  ) : null;
  const news = newsPanel(page);
  return [
    ...final ? [final] : [],
    h(
      "div",
      { class: "layout" },
      h("section", { class: over ? "play" : "play pinned", "aria-label": t("table.table") }, svg, zoomBar, err, dock),
      news,
      aside(page, drawn, parts)
    )
  ];
}
function aside(page, drawn, parts) {
  const { id: id2, names } = page;
  const { s, st, log, presence, series, view, me, over } = drawn;
  const { talk, host } = parts;
  return h(
    "aside",
    {},
    view.role ? h("p", {}, t("table.your_role", { role: roleName(view.role) })) : me != null && view.roles?.[me] ? h("p", {}, t("table.your_role", { role: roleName(view.roles[me]) })) : me != null ? null : h("p", {}, t("table.watching")),
    view.my_gold ? h(
      "p",
      {},
      t("table.your_gold", {
        n: view.my_gold.total,
        cards: view.my_gold.cards.map((c) => cardName(c)).join(", ") || t("table.no_gold_yet")
      })
    ) : null,
    view.inspected?.length ? h(
      "p",
      {},
      t("table.inspected", {
        list: view.inspected.map(({ seat, role }) => t("table.is_role", { who: seatName(names, seat), role: roleName(role) })).join("; ")
      })
    ) : null,
    h("p", {}, t("table.round_line", { round: view.round, phase: phaseName(view.phase.name), n: view.draw_pile_size })),
    players(view, names, st.table, over ? null : presence, new Set(s.seats.filter((x) => x.bot).map((x) => x.seat))),
    finishedRounds(view, names),
    view.winners?.length ? h("p", {}, t("table.winners", { list: view.winners.map((w) => seatName(names, w)).join(", ") })) : null,
    view.rounds?.length && !over ? scoreboard(view, names, over) : null,
    talk,
    h("h2", {}, t("table.log")),
    h(
      "ol",
      { class: "log", "aria-label": t("table.recent"), tabindex: 0 },
      log.events.map((e) => h("li", {}, describeEvent(e, names)))
    ),
    h(
      "p",
      {},
      h("a", { href: `/replay/${id2}` }, t("lobby.replay")),
      " ",
      s.status === "finished" ? h("a", { href: `/audit/${id2}` }, t("lobby.audit")) : null
    ),
    series,
    s.status === "finished" && page.mine.host ? rematch(page) : null,
    host
  );
}
function rematch(page) {
  return h(
    "p",
    {},
    h(
      "button",
      {
        type: "button",
        onclick: async () => {
          try {
            const next = await api(`/games/${page.id}/rematch`, { method: "POST", token: page.mine.host });
            tokens.set(next.game_id, { host: next.host_token });
            location.href = `/play/${next.game_id}`;
          } catch (e) {
            page.message = /** @type {Error} */
            e.message;
            page.refresh();
          }
        }
      },
      t("table.rematch")
    )
  );
}

// ../../api/web/talk.js
function gather(page, events) {
  const { talkSeen } = page;
  for (const e of events) {
    if (e.event.type === "talk_posted") talkSeen.set(e.seq, e);
    if (e.event.type === "talk_hidden") {
      const hidden = talkSeen.get(e.event.message);
      if (hidden && hidden.event.type === "talk_posted")
        talkSeen.set(hidden.seq, { ...hidden, event: { ...hidden.event, text: null } });
    }
  }
}
function talkOf(page, drawn) {
  const { s } = drawn;
  const { mine, names } = page;
  const said = [...page.talkSeen.values()].sort((a, b) => a.seq - b.seq);
  const { form, input } = talkForm(page, drawn);
  const talk = s.status === "finished" ? null : h(
    "section",
    { "aria-label": t("talk.label") },
    h("h2", {}, t("talk.label")),
    h(
      "ul",
      { class: "talk" },
      said.map(
        (e) => h(
          "li",
          {},
          describeEvent(e, names),
          mine.host && e.event.type === "talk_posted" && e.event.text != null ? h(
            "button",
            {
              type: "button",
              onclick: async () => {
                try {
                  await api(`/games/${page.id}/talk/${e.seq}/hide`, { method: "POST", token: mine.host });
                } catch (err) {
                  page.message = /** @type {Error} */
                  err.message;
                }
                page.refresh();
              }
            },
            t("talk.hide")
          ) : null
        )
      )
    ),
    form
  );
  return { talk, input };
}
function talkForm(page, drawn) {
  const { mine } = page;
  const input = (
    /** @type {HTMLInputElement} */
    h("input", { name: "text", maxlength: "280", required: "", value: page.draft })
  );
  input.addEventListener("input", () => {
    page.draft = input.value;
  });
  const form = h(
    "form",
    { "aria-label": t("talk.form") },
    h("label", {}, `${t("talk.message")} `, input),
    mine.token ? "" : h(
      "label",
      {},
      ` ${t("lobby.name")} `,
      h("input", { name: "name", maxlength: "40", value: t("word.spectator") })
    ),
    " ",
    h("button", { type: "submit" }, t("talk.say"))
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const data = new FormData(
      /** @type {HTMLFormElement} */
      form
    );
    const body = mine.token ? { text: data.get("text") } : { text: data.get("text"), name: data.get("name") };
    try {
      await api(`/games/${page.id}/talk`, {
        method: "POST",
        token: mine.token,
        body,
        sign: mine.token ? drawn.signed("talk") : void 0
      });
      page.message = "";
      page.draft = "";
    } catch (e) {
      page.message = /** @type {Error} */
      e.message;
    }
    page.refresh();
  });
  return { form, input };
}

// ../../api/web/play.js
function draw(page) {
  const { id: id2, mine } = page;
  const { s, st, legal, log, presence, series } = (
    /** @type {import("./table.js").Read} */
    page.data
  );
  for (const seat of s.seats) page.names[seat.seat] = shownName(seat);
  const kids = [
    h(
      "h1",
      { class: "table-title" },
      t("table.heading", { id: id2.slice(0, 8), ruleset: rulesetName(s.ruleset), status: statusName(s.status) })
    )
  ];
  const err = h("p", { class: "error", role: "alert" }, page.message);
  if (s.status === "cancelled") {
    kids.push(h("p", { role: "status" }, t("table.cancelled")), h("p", {}, h("a", { href: "/" }, t("nav.games"))));
    main.replaceChildren(...kids);
    return;
  }
  if (s.status === "lobby") {
    kids.push(
      ...waitingRoom({
        id: id2,
        s,
        mine,
        refresh: page.refresh,
        say: (m) => {
          page.message = m;
        }
      })
    );
    kids.push(err);
    main.replaceChildren(...kids);
    return;
  }
  if (!st || !legal || !log || !presence) return;
  drawGame(page, kids, err, drawnOf(page, { s, st, legal, log, presence, series: series ?? null }));
}
function drawnOf(page, read2) {
  const { id: id2, mine } = page;
  const { s, st } = read2;
  const view = st.view;
  if (mine.token && view.seat != null && mine.seat !== view.seat) {
    tokens.set(id2, { seat: view.seat });
    mine.seat = view.seat;
  }
  const me = view.seat ?? (mine.token ? mine.seat ?? null : null);
  const over = s.status === "finished";
  const about = (act) => {
    const seat = me != null ? st.table.seats[me] : void 0;
    if (act === "undo") return seat?.undoable ?? null;
    if (act === "approve" || act === "decline") return st.table.undo_request ?? null;
    return act === "reclaim" ? seat?.handed_at ?? null : null;
  };
  const signed = (act) => mine.key && me != null ? {
    game: id2,
    seat: me,
    version: st.version,
    act,
    key: mine.key,
    record: st.table.record_version,
    about: about(act)
  } : void 0;
  return { ...read2, view, me, over, signed };
}
function drawGame(page, kids, err, drawn) {
  const { mine } = page;
  const { s, st, log, view, me, over } = drawn;
  ensureKey(page, drawn);
  const { svg, zoomBar, why, hand, actions, paths, targets } = movesOf(page, drawn);
  const undo = undoBar(page, drawn);
  heardSince(page, st, log);
  markLast(svg, log.events, view, page.names);
  markNews(page, svg);
  const countdown = countdownOf(page, st.table.deadline, me);
  gather(page, log.events);
  const focus = focusKept();
  const { talk, input } = talkOf(page, drawn);
  const host = mine.host && !over ? hostPanel({
    id: page.id,
    s,
    st,
    log,
    host: mine.host,
    names: page.names,
    open: page.hostOpen,
    refresh: page.refresh,
    toggled: (open) => {
      page.hostOpen = open;
    },
    say: (m) => {
      page.message = m;
    }
  }) : null;
  const reclaim = reclaimBar(page, drawn);
  const banner = bannerOf(page, drawn);
  const title = banner ? `${banner} — Saboteur` : t("table.title");
  if (banner) kids.push(h("p", { class: "turn-banner", "aria-live": "polite" }, banner));
  const turnNow = view.phase.awaited === view.seat && view.seat != null ? h(
    "p",
    { role: "status" },
    t(
      view.phase.name === "choosing_gold" ? "table.turn_gold" : view.phase.name === "stealing" ? "table.turn_steal" : "table.turn_card"
    )
  ) : null;
  kids.push(
    ...page.ending ? roundEndScreen(page, page.ending, drawn, turnNow, countdown, actions) : liveTable(page, drawn, {
      svg,
      zoomBar,
      err,
      hand,
      why,
      actions,
      undo,
      reclaim,
      turnNow,
      countdown,
      talk,
      host
    })
  );
  main.dataset.version = String(st.version);
  document.title = title;
  main.replaceChildren(...kids);
  focus.restore(input, page.draft);
  shown(page, svg, paths.length > 0 || targets.length > 0);
}
function countdownOf(page, deadline, me) {
  const countdown = h("p", { class: "deadline", role: "timer", "aria-live": "off" });
  const tick = () => {
    countdown.textContent = !deadline ? "" : deadline.seat === me ? t("table.deadline_you", { time: clock(deadline.at - Date.now()) }) : t("table.deadline", { who: seatName(page.names, deadline.seat), time: clock(deadline.at - Date.now()) });
  };
  tick();
  clearInterval(page.timer);
  if (deadline) page.timer = setInterval(tick, 1e3);
  return countdown;
}
function bannerOf(page, drawn) {
  const { view, me, over } = drawn;
  const awaited = view.phase.awaited;
  return over ? t(me != null && view.winners?.includes(me) ? "table.over_won" : "table.over") : awaited == null ? "" : awaited === me ? t("table.you_play") : t("table.they_play", { who: seatName(page.names, awaited) });
}
function focusKept() {
  const typing = document.activeElement instanceof HTMLInputElement && document.activeElement.name === "text";
  const was = document.activeElement;
  const focusKey = (e) => `${e.tagName}|${e.getAttribute("aria-label") ?? ""}|${e.textContent}`;
  const focused = !typing && was && was !== main && main.contains(was) ? focusKey(was) : null;
  const focusable = () => [...main.querySelectorAll("button, a, input, select, [tabindex]")].filter((e) => focusKey(e) === focused);
  const nth = focused ? focusable().indexOf(
    /** @type {Element} */
    was
  ) : -1;
  return {
    /** @param {HTMLInputElement} input the talk's @param {string} draft */
    restore(input, draft) {
      if (typing) {
        input.focus();
        input.setSelectionRange(draft.length, draft.length);
      } else if (focused) {
        const alike = focusable();
        (alike[nth] ?? alike[0])?.focus({ preventScroll: true });
      }
    }
  };
}
function shown(page, svg, lit) {
  if (page.reveal && lit && matchMedia("(max-width: 700px)").matches)
    svg.scrollIntoView({ block: "start", behavior: "instant" });
  page.reveal = false;
  for (const list2 of main.querySelectorAll("ol.log, section.news ol")) list2.scrollTop = list2.scrollHeight;
  page.docked.disconnect();
  const dock = main.querySelector(".dock");
  if (dock) page.docked.observe(dock);
  else main.style.removeProperty("--dock");
  if (page.movedOn) {
    page.movedOn = false;
    scrollTo({ top: 0, behavior: "instant" });
    main.focus({ preventScroll: true });
  }
}

// ../../api/web/table.js
async function table(id2, ready2) {
  serverKeys.keep();
  const mine = invited(id2);
  const first = tableAt({ id: id2, mine }, null).catch(() => null);
  await ready2;
  document.title = t("table.title");
  const [firstRead] = await Promise.all([first, cards("base")]);
  const summary = firstRead?.game ?? await api(`/games/${id2}`);
  const deck = await cards(summary.ruleset);
  const names = Object.fromEntries(summary.seats.map((s) => [s.seat, s.name]));
  const startLog = await wholeLog2({ id: id2, mine });
  const page = {
    id: id2,
    mine,
    deck,
    names,
    summary,
    selected: null,
    sel: null,
    rotated: false,
    message: "",
    timer: 0,
    hostOpen: false,
    reveal: false,
    alsoDiscard: /* @__PURE__ */ new Set(),
    draft: "",
    talkSeen: /* @__PURE__ */ new Map(),
    first,
    startLog,
    data: null,
    stale: true,
    registering: false,
    drawnAt: 0,
    news: [],
    unseen: 0,
    told: 0,
    pacing: 0,
    ending: null,
    byRound: null,
    movedOn: false,
    movedPast: 0,
    routed: 0,
    docked: new ResizeObserver(
      ([e]) => main.style.setProperty("--dock", `${Math.ceil(e.target.getBoundingClientRect().height)}px`)
    ),
    zoom: { box: null },
    reading: null,
    heard: 0,
    render: () => render(page),
    refresh: () => {
      page.stale = true;
      return render(page);
    }
  };
  gather(page, startLog);
  await page.refresh();
  listen(page);
}
function invited(id2) {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const hashToken = fragment.get("token");
  const hashSeat = fragment.get("seat");
  if (hashToken) {
    tokens.set(id2, { token: hashToken, ...hashSeat ? { seat: Number(hashSeat) } : {} });
    history.replaceState(null, "", location.pathname);
  }
  return tokens.get(id2);
}
function listen(page) {
  const abort = new AbortController();
  let pending;
  const onNews = () => {
    if (!page.data?.st || behind(page)) page.refresh();
  };
  follow(
    page.id,
    page.mine.token,
    (raw) => {
      try {
        page.heard = Math.max(page.heard, Number(JSON.parse(raw).seq) || Infinity);
      } catch {
        page.heard = Infinity;
      }
      clearTimeout(pending);
      pending = setTimeout(() => {
        (page.reading ?? Promise.resolve()).then(onNews, onNews);
      }, 150);
    },
    abort.signal
  );
}
var logPage = ({ id: id2, mine }, after, limit) => api(`/games/${id2}/events?after=${after}&limit=${limit}`, { token: mine.token });
var tableAt = ({ id: id2, mine }, after) => api(`/games/${id2}/table${after == null ? "" : `?after=${after}&limit=1000`}`, { token: mine.token });
async function wholeLog2(at) {
  const all = [];
  for (let after = 0; ; ) {
    const page = await logPage(at, after, 1e3);
    all.push(...page.events);
    if (page.next_after == null) return all;
    after = page.next_after;
  }
}
async function read(page) {
  const { id: id2, names } = page;
  const e = page.first;
  page.first = null;
  const before = page.data?.st?.version;
  const known = page.data?.s ?? page.summary;
  const fresh = () => tableAt(page, before != null ? Math.max(0, before - 30) : null);
  const [got, series] = await Promise.all([
    e ? e.then((x) => x ?? fresh()) : fresh(),
    known.status === "finished" || known.previous ? seriesSection(id2, names, (g) => `/play/${g}`) : null
  ]);
  const s = got.game;
  if (s.status === "lobby" || s.status === "cancelled") return { s };
  const st = got.state;
  await Promise.all(st.table.seats.filter((x) => x.key).map((x) => keys.fingerprint(
    /** @type {string} */
    x.key
  )));
  const full = got.events.next_after == null ? got.events : await logPage(page, Math.max(0, st.version - 30), 30);
  const recent = { ...full, events: full.events.filter((x) => x.seq > st.version - 30 && x.seq <= st.version) };
  const ended = before != null ? got.events.events.filter((x) => x.seq > before && x.event.type === "round_ended").at(-1) : void 0;
  let end = ended?.event.type === "round_ended" ? { seq: ended.seq, ended: ended.event, events: [], dealt: null, view: null } : page.ending;
  if (end) end = await readEnding(page, end, got);
  if (s.status === "finished" && !page.byRound)
    page.byRound = goldByRound(
      page.startLog?.at(-1)?.seq === st.version ? page.startLog : await wholeLog2(page),
      page.deck,
      st.view
    );
  page.startLog = null;
  const legal = got.legal?.commands ?? [];
  const shown2 = st.view.phase.awaited === st.view.seat && st.view.seat != null ? legal : [];
  page.ending = end && end.seq > page.movedPast ? end : null;
  return {
    s,
    st,
    legal: shown2,
    log: recent,
    presence: got.presence,
    series: series ?? (s.status === "finished" || s.previous ? await seriesSection(id2, names, (g) => `/play/${g}`) : null)
  };
}
async function readEnding(page, end, got) {
  if (!got.state.view.rounds.some((r) => r.round === end.ended.round)) return null;
  if (end.view) return end;
  let records = got.events.events.filter((x) => x.seq >= end.seq);
  if (records[0]?.seq !== end.seq) records = (await logPage(page, end.seq - 1, 1e3)).events;
  const kept = effective(records);
  if (!kept.some((x) => x.seq === end.seq)) return null;
  const deal = kept.find((x) => x.event.type === "round_started");
  const events = kept.filter((x) => !deal || x.seq < deal.seq);
  if (!deal) return { ...end, events };
  const then = await api(`/games/${page.id}/state?at=${deal.seq - 1}`, { token: page.mine.token });
  return { ...end, events, dealt: deal.seq, view: then.view };
}
var behind = (page) => page.data?.st != null && page.heard > page.data.st.version;
async function readAll(page) {
  for (let failed = 0; page.stale || behind(page); ) {
    page.stale = false;
    try {
      page.data = await read(page);
      failed = 0;
    } catch (e) {
      page.stale = true;
      failed += 1;
      if (failed === 3) {
        page.message = /** @type {Error} */
        e.message;
        if (page.data) draw(page);
      }
      await new Promise((r) => setTimeout(r, Math.min(8e3, 250 * 2 ** failed)));
    }
  }
}
async function render(page) {
  while (page.stale || !page.data) {
    page.reading ??= readAll(page).finally(() => {
      page.reading = null;
    });
    await page.reading;
  }
  draw(page);
}

// ../../api/web/app.js
var ready = load(chosen());
ready.then(() => {
  const pick = (
    /** @type {HTMLSelectElement} */
    h(
      "select",
      { "aria-label": t("nav.language"), onchange: () => switchTo(pick.value) },
      Object.entries(LANGUAGES).map(
        ([code, name]) => h("option", { value: code, lang: code, selected: code === language() }, name)
      )
    )
  );
  document.querySelector("header")?.append(
    h(
      "nav",
      { "aria-label": t("nav.label") },
      h("a", { href: "/" }, t("nav.games")),
      " ",
      h("a", { href: "/rules" }, t("nav.rules")),
      " ",
      pick
    )
  );
});
var [, kind, id] = location.pathname.split("/");
var routes = { play: table, replay, audit, rules };
var route2 = routes[kind];
(route2 ? route2(id, ready) : lobby(ready)).catch(
  (e) => main.replaceChildren(h("p", { class: "error", role: "alert" }, e.message))
);
