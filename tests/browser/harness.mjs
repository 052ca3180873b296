// What every file of the browser tests shares: the built `saboteur` binary on a fresh SQLite
// file and the system's Chromium (/usr/bin/chromium), driven by playwright-core, started once
// per file (setUp); axe-core's check, the screenshots for the README, the API read and written.
// Run: npm ci && npm test   (SABOTEUR_BIN overrides the binary, default target/debug/saboteur).

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, afterEach, before } from "node:test";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { strings } from "./strings.mjs";

export const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const bin =
  process.env.SABOTEUR_BIN ??
  [join(root, "target/release/saboteur"), join(root, "target/debug/saboteur")].find(existsSync);
export const artifacts = join(here, "artifacts");
export const EN = await strings("en");
/** A seat's name as the English page shows it: a bot the server named by level and place by its level's word ("medium bot 2"). @param {{ seat: number, name: string, bot?: string | null }} s */
export const shownAs = (s) =>
  s.bot && s.name === `${s.bot} bot ${s.seat + 1}`
    ? EN["players.bot_name"].replace("{level}", EN[`level.${s.bot}`]).replace("{n}", String(s.seat + 1))
    : s.name;
mkdirSync(artifacts, { recursive: true });
const axeSource = readFileSync(join(here, "node_modules/axe-core/axe.min.js"), "utf8");
/** Where the file's server listens: a port the system chose for it when it started (so files
 * run side by side never meet), known once `setUp`'s hook has run. */
export let BASE = "";
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
/** The server's process, killed after the file's tests. @type {import("node:child_process").ChildProcess | undefined} */
let server;
/** The Chromium the file's tests drive, launched before them. @type {import("playwright-core").Browser} */
export let browser;
/** The server's SQLite file, under a fresh directory. @type {string} */
export let database;
/** What the pages of the test under way threw and nobody caught (an exception in a handler, a
 * promise rejected with nobody waiting): each fails the test that saw it. @type {string[]} */
const uncaught = [];
/** What the pages threw so far in this test, taken out of what fails it: for a test that makes
 * a page throw on purpose. */
export const thrownSoFar = () => uncaught.splice(0);
/** Each page's requests sent and not yet answered, with when each was sent (for `tell`).
 * @type {WeakMap<import("playwright-core").Page, Map<import("playwright-core").Request, number>>} */
const unanswered = new WeakMap();

/** Registers the file's hooks: the server started on a fresh database and Chromium launched
 * before its tests, both stopped after them. Each test file calls it once, at its top. */
export function setUp() {
  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), "saboteur-browser-"));
    database = join(dir, "test.db");
    server = spawn(
      bin,
      ["serve", "--bind", "127.0.0.1:0", "--database-url", `sqlite://${database}`, "--allow-fixed-seed"],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    BASE = await listening(server);
    for (let i = 0; i < 100; i++) {
      try {
        if ((await fetch(`${BASE}/healthz`)).ok) break;
      } catch {}
      await new Promise((r) => setTimeout(r, 100));
    }
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    // Every page of every context the tests open is watched for what it throws.
    const open = browser.newContext.bind(browser);
    browser.newContext = async (options) => {
      const context = await open(options);
      context.on("page", (page) => {
        // Said at once as well: a test that then times out waiting shows why.
        page.on("pageerror", (e) => {
          uncaught.push(`${page.url()}: ${e.stack ?? e.message}`);
          console.log(`the page ${page.url()} threw: ${e.message}`);
        });
        const waiting = new Map();
        unanswered.set(page, waiting);
        page.on("request", (r) => waiting.set(r, Date.now()));
        page.on("requestfinished", (r) => waiting.delete(r));
        page.on("requestfailed", (r) => waiting.delete(r));
      });
      return context;
    };
  });

  afterEach(() => {
    const thrown = uncaught.splice(0);
    assert.deepEqual(thrown, [], "the pages threw nothing uncaught");
  });

  after(async () => {
    await browser?.close();
    // Gone before the next file's server starts.
    if (server && server.exitCode === null && server.signalCode === null) {
      const exited = once(server, "exit");
      server.kill();
      await exited;
    }
  });
}

/** The address `server` says it listens on (the first line of its log that names one); all it
 * prints is passed on to the test's output, before and after.
 * @param {import("node:child_process").ChildProcess} server @returns {Promise<string>} */
function listening(server) {
  const out = /** @type {import("node:stream").Readable} */ (server.stdout);
  out.pipe(process.stdout);
  return new Promise((resolve, reject) => {
    let seen = "";
    /** @param {Buffer} chunk */
    const read = (chunk) => {
      seen += chunk.toString();
      const address = /listening on (http:\/\/[0-9.]+:[0-9]+)/.exec(seen);
      if (address) {
        out.off("data", read);
        server.off("exit", ended);
        resolve(address[1]);
      }
    };
    const ended = () => reject(new Error(`the server ${bin} ended before it listened`));
    out.on("data", read);
    server.once("exit", ended);
  });
}

export async function axe(page, name) {
  await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate(async () => await window.axe.run(document));
  const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(
    bad.map((v) => `${v.id}: ${v.help} (${v.nodes.length})`),
    [],
    `axe on ${name}`,
  );
}

/**
 * What `page` shows and waits for, printed to the test's output: its address, the version its
 * table was drawn at, its requests not yet answered and how long each has waited, and the start
 * of its text. @param {import("playwright-core").Page} page @param {string} who
 */
export async function tell(page, who) {
  const now = Date.now();
  const waiting = [...(unanswered.get(page) ?? new Map())].map(
    ([r, at]) => `${r.method()} ${r.url().replace(BASE, "")} (${now - at} ms)`,
  );
  const shown = await page
    .evaluate(() => ({
      version: document.querySelector("main")?.dataset.version ?? null,
      text: (document.querySelector("main")?.innerText ?? "").replace(/\s+/g, " ").slice(0, 1500),
    }))
    .catch((e) => ({ version: null, text: `(not read: ${e.message})` }));
  console.log(`${who}: ${page.url()} at version ${shown.version}; waiting for: ${waiting.join(", ") || "nothing"}`);
  console.log(`${who} shows: ${shown.text}`);
}

/**
 * Waits for `locator` as `waitFor` does; when it times out, first `tell`s what each of `pages`
 * shows and waits for, and what the game's log holds.
 * @param {import("playwright-core").Locator} locator @param {Record<string, import("playwright-core").Page>} pages
 * @param {string | null} game @param {Parameters<import("playwright-core").Locator["waitFor"]>[0]} [options]
 */
export async function waitOrTell(locator, pages, game, options) {
  try {
    await locator.waitFor(options);
  } catch (e) {
    for (const [who, page] of Object.entries(pages)) await tell(page, who);
    if (game) {
      const log = await fetch(`${BASE}/games/${game}/events?after=0&limit=1000`).then((r) => r.json());
      const types = log.events?.map((/** @type {any} */ r) => `${r.seq} ${r.event.type}`) ?? [log];
      console.log(`the game's log: ${types.join(", ")}`);
    }
    throw e;
  }
}

export async function shots(page, name) {
  const before = page.viewportSize();
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: join(artifacts, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: join(artifacts, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(before ?? DESKTOP);
}

export async function createFromLobby(
  page,
  { ruleset = "base", players = 3, bots = 2, level = "heuristic", keys = false } = {},
) {
  await page.goto(`${BASE}/`);
  await page.getByLabel("Ruleset").selectOption(ruleset);
  await page.getByLabel("Players").fill(String(players));
  await page.getByLabel("Bots", { exact: true }).fill(String(bots));
  // The levels by how hard they are to beat, medium picked.
  const levels = page.getByLabel("Bot level");
  assert.deepEqual(await levels.locator("option").allTextContents(), ["easy", "medium", "hard"]);
  assert.equal(await levels.inputValue(), "heuristic");
  await levels.selectOption(level);
  const create = page.getByRole("button", { name: "Create" });
  await (keys ? create.press("Enter") : create.click());
  await page.waitForURL(/\/play\//);
  return page.url().split("/play/")[1];
}

/** An init script: counts, in `window.flights` and `window.marks`, the cards drawn travelling to
 * the maze and the changes marked on it. */
export const countFlights = () => {
  window.flights = 0;
  window.marks = 0;
  new MutationObserver((changes) => {
    for (const n of changes.flatMap((c) => [...c.addedNodes]))
      if (n instanceof Element) {
        window.flights += n.querySelectorAll(".flying").length + Number(n.matches(".flying"));
        window.marks += n.querySelectorAll(".new-move").length;
      }
  }).observe(document, { childList: true, subtree: true });
};

/** Reads JSON from the API (for facts the test checks the pages against). */
export async function get(path) {
  const res = await fetch(BASE + path);
  assert.equal(res.status, 200, path);
  return res.json();
}

export async function post(path, token, body) {
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(BASE + path, {
    method: "POST",
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.ok(res.ok, `${path}: ${res.status}`);
  return res.json();
}

/** A regular expression matching `s` literally. @param {string} s */
export const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** `s` with its `{name}` placeholders filled from `p`. @param {string} s @param {Record<string, string | number>} p */
export const fill = (s, p) => s.replace(/\{(\w+)\}/g, (m, k) => (k in p ? String(p[k]) : m));

/**
 * The first two-seat deal of `ruleset`, among seeds `from` … `from + tries - 1` (the same every
 * run: the engine is deterministic), in which `accept` takes a seat: what it returned, with the
 * game's id and the seat (its number and token).
 * @template T
 * @param {{ ruleset: string, from: number, tries: number }} deals
 * @param {(view: any, seat: { seat: number, player_token: string }, auth: Record<string, string>, id: string) => Promise<T | null> | T | null} accept
 * @returns {Promise<(T & { id: string, seat: { seat: number, player_token: string } }) | null>}
 */
export async function findDeal({ ruleset, from, tries }, accept) {
  for (let k = from; k < from + tries; k++) {
    const created = await post("/games", undefined, {
      ruleset,
      players: 2,
      seed: k.toString(16).padStart(2, "0").repeat(32),
    });
    const id = created.game_id;
    const seats = [
      await post(`/games/${id}/seats`, undefined, { name: "Ann" }),
      await post(`/games/${id}/seats`, undefined, { name: "Ada" }),
    ];
    await post(`/games/${id}/start`, created.host_token);
    for (const seat of seats) {
      const auth = { authorization: `Bearer ${seat.player_token}` };
      const view = (await (await fetch(`${BASE}/games/${id}/state`, { headers: auth })).json()).view;
      const found = await accept(view, seat, auth, id);
      if (found) return { ...found, id, seat };
    }
  }
  return null;
}
