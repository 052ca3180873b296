// Browser tests of the web client: the built `saboteur` binary on a fresh SQLite file, driven
// by playwright-core through the system's Chromium (/usr/bin/chromium), checked with axe-core.
// Run: npm ci && npm test   (SABOTEUR_BIN overrides the binary, default target/debug/saboteur).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const bin = process.env.SABOTEUR_BIN ?? [join(root, "target/release/saboteur"), join(root, "target/debug/saboteur")].find(existsSync);
const artifacts = join(here, "artifacts");
mkdirSync(artifacts, { recursive: true });
const axeSource = readFileSync(join(here, "node_modules/axe-core/axe.min.js"), "utf8");
const PORT = 18000 + Math.floor(Math.random() * 1000);
const BASE = `http://127.0.0.1:${PORT}`;
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
let server, browser;

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), "saboteur-browser-"));
  server = spawn(bin, ["serve", "--bind", `127.0.0.1:${PORT}`, "--database-url", `sqlite://${join(dir, "test.db")}`, "--allow-fixed-seed"], { stdio: "inherit" });
  for (let i = 0; i < 100; i++) {
    try { if ((await fetch(`${BASE}/healthz`)).ok) break; } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});

after(async () => {
  await browser?.close();
  server?.kill();
});

async function axe(page, name) {
  await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate(async () => await window.axe.run(document));
  const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.length})`), [], `axe on ${name}`);
}

async function shots(page, name) {
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: join(artifacts, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  await page.screenshot({ path: join(artifacts, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
}

async function createFromLobby(page, { ruleset = "base", players = 3, bots = 2 } = {}) {
  await page.goto(BASE + "/");
  await page.getByLabel("Ruleset").selectOption(ruleset);
  await page.getByLabel("Players").fill(String(players));
  await page.getByLabel("Bots", { exact: true }).fill(String(bots));
  await page.getByRole("button", { name: "Create" }).click();
  await page.waitForURL(/\/play\//);
  return page.url().split("/play/")[1];
}

let gameId;

test("the lobby's assets stay within budget", async () => {
  let total = 0;
  for (const path of ["/", "/assets/app.js", "/assets/svg.js", "/assets/style.css"]) {
    const res = await fetch(BASE + path);
    assert.equal(res.status, 200, path);
    total += (await res.arrayBuffer()).byteLength;
  }
  console.log(`lobby assets: ${total} bytes uncompressed (budget 204800)`);
  assert.ok(total < 200 * 1024);
  assert.match((await fetch(BASE + "/assets/app.js")).headers.get("content-type"), /javascript/);
});

test("create a game with bots, invite a second player, start and play", async () => {
  const host = await browser.newContext({ viewport: DESKTOP });
  const page = await host.newPage();
  gameId = await createFromLobby(page, { players: 3, bots: 1 });
  await page.getByRole("button", { name: "Create an invite link" }).click();
  const link = await page.locator("output a").getAttribute("href");
  assert.match(link, /#token=[0-9a-f]{64}$/, "the token travels in the fragment");
  const guestContext = await browser.newContext({ viewport: PHONE });
  const guest = await guestContext.newPage();
  await guest.goto(BASE + link);
  await guest.getByText("Seats: 3/3").waitFor();
  await axe(page, "lobby-table");
  await page.getByRole("button", { name: "Start the game" }).click();
  await page.locator("svg.board").waitFor();
  await axe(page, "table");
  // Play: select cards until one has a legal cell or move.
  await page.getByText("Your turn").waitFor();
  const hand = page.getByRole("list", { name: "Your hand" }).getByRole("button");
  const n = await hand.count();
  let played = false;
  for (let i = 0; i < n && !played; i++) {
    await hand.nth(i).click();
    await page.locator(".hand button[aria-pressed=true]").first().waitFor();
    const cell = page.locator("rect.cell-legal").first();
    if (await cell.count()) { await cell.click(); played = true; break; }
    const moves = page.getByLabel("Moves for the selected card").getByRole("button").filter({ hasText: /^play / });
    if (await moves.count()) { await moves.first().click(); played = true; break; }
    await hand.nth(i).click();
    await page.locator(".hand button[aria-pressed=true]").first().waitFor({ state: "detached" });
  }
  assert.ok(played, "a card was played");
  await shots(page, "table");
  // The guest follows the host's move live (stream), then the rejected move shows its detail.
  await guest.getByText(/path played|tool broken|map used|passed/).first().waitFor({ timeout: 10000 });
  await shots(guest, "guest");
  await page.getByRole("button", { name: "Approve undo" }).click();
  const alert = await page.getByRole("alert").filter({ hasText: /\S/ }).textContent();
  console.log(`rejected: ${alert}`);
  assert.ok(alert && alert.length > 3, `a rejected request shows the problem's detail: ${alert}`);
  await page.getByRole("button", { name: "Request undo" }).click();
  const undo = await page.getByRole("alert").filter({ hasText: /^(?!no undo request)/ }).textContent();
  console.log(`undo: ${undo}`);
  await host.close();
  await guestContext.close();
});

test("replay: keyboard steps, deep links, timing", async () => {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${BASE}/replay/${gameId}?v=2&as=spectator`);
  await page.getByText(/^Version 2 of/).waitFor();
  const t0 = Date.now();
  const shown = page.evaluate(() => new Promise((r) => document.addEventListener("replay-shown", () => r(performance.now()), { once: true })));
  const start = await page.evaluate(() => performance.now());
  await page.keyboard.press("ArrowRight");
  const end = await shown;
  console.log(`replay step: ${(end - start).toFixed(1)} ms to visible (budget 100 ms; wall ${Date.now() - t0} ms)`);
  await page.getByText(/^Version 3 of/).waitFor();
  assert.match(page.url(), /v=3/);
  await page.keyboard.press("ArrowLeft");
  await page.getByText(/^Version 2 of/).waitFor();
  await axe(page, "replay");
  await shots(page, "replay");
  await context.close();
});

let finishedId;

test("a game of bots is watched to its end, then replayed", async () => {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  finishedId = await createFromLobby(page, { players: 4, bots: 4 });
  await page.getByRole("button", { name: "Start the game" }).click();
  await page.getByText(/Winners:/).waitFor({ timeout: 60000 });
  await page.getByText("You are watching (public view).").waitFor();
  await shots(page, "finished");
  // A replay step on a long game: from a click to the board shown.
  await page.goto(`${BASE}/replay/${finishedId}?v=10&as=spectator`);
  await page.getByText(/^Version 10 of/).waitFor();
  const times = [];
  for (let i = 0; i < 10; i++) {
    const t = await page.evaluate(() => new Promise((resolve) => {
      const t0 = performance.now();
      document.addEventListener("replay-shown", () => requestAnimationFrame(() => resolve(performance.now() - t0)), { once: true });
      document.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight" }));
    }));
    times.push(t);
  }
  const max = await page.locator("input[type=range]").getAttribute("max");
  times.sort((a, b) => a - b);
  console.log(`replay step on a ${max}-event game: median ${times[5].toFixed(1)} ms, worst ${times[9].toFixed(1)} ms to visible (budget 100 ms)`);
  assert.ok(times[5] < 100);
  await context.close();
});

test("audit view", async () => {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  await page.goto(`${BASE}/audit/${gameId}`);
  await page.getByRole("alert").filter({ hasText: /not over/ }).waitFor();
  await page.goto(`${BASE}/audit/${finishedId}`);
  await page.getByText(/^Verified:/).waitFor();
  await page.getByText(/saboteur verify --file/).waitFor();
  await axe(page, "audit");
  await shots(page, "audit");
  await context.close();
});

test("a Saboteur 2 game from the lobby", async () => {
  const context = await browser.newContext({ viewport: DESKTOP });
  const page = await context.newPage();
  await createFromLobby(page, { ruleset: "saboteur2", players: 3, bots: 2 });
  await page.getByRole("button", { name: "Start the game" }).click();
  await page.locator("svg.board").waitFor();
  await shots(page, "saboteur2");
  await page.goto(BASE + "/");
  await page.locator("tbody tr").first().waitFor();
  await axe(page, "lobby");
  await shots(page, "lobby");
  await context.close();
});
