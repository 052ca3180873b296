// Playing through the table as a person would, for the browser tests: the table's words a test
// finds its way by in each language, a card played, a page waited on until it asks the player
// for something or has drawn the move it sent, a whole game played to its end.

import assert from "node:assert/strict";
import { join } from "node:path";
import { artifacts, BASE, EN, esc, post, tell } from "./harness.mjs";

/** What the given strings begin with before their first placeholder, in common, as `^…`. @param {...string} ss */
const lead = (...ss) => {
  const ps = ss.map((s) => s.split("{")[0]);
  let p = ps[0];
  for (const q of ps) while (!q.startsWith(p)) p = p.slice(0, -1);
  return new RegExp(`^${esc(p)}`);
};
/** The table's words a test finds its way by, in a language (its strings by key). @param {Record<string, string>} d */
export const ui = (d) => ({
  hand: d["table.hand"],
  moves: d["table.moves"],
  roundOver: d["table.round_over"],
  onward: new RegExp(`^(${esc(d["round.next"])}|${esc(d["round.show_final"])})$`),
  play: lead(d["move.action"], d["move.action_on"], d["move.action_on_tool"], d["move.action_at"]),
  pass: lead(d["move.pass"]),
  remove: lead(d["move.discard_to_remove"]),
  keep: lead(d["move.keep"]),
  steal: lead(d["move.steal"], d["move.steal_nobody"]),
  turn: new RegExp(`^(${[d["table.turn_gold"], d["table.turn_steal"], d["table.turn_card"]].map(esc).join("|")})`),
  gold: d["table.turn_gold"],
  stealing: d["table.turn_steal"],
  result: new RegExp(`${esc(d["table.you_won"])}|${esc(d["table.you_lost"])}`),
});

/**
 * The answer to the next command a page sends (its `version` is what the move reached).
 * @param {import("playwright-core").Page} page
 */
export const nextCommand = (page) => {
  const answer = page.waitForResponse((r) => r.url().endsWith("/commands") && r.request().method() === "POST", {
    timeout: 30000,
  });
  answer.catch(() => {});
  return answer;
};

/**
 * Resolves in the page once `ready(arg)` holds (true), looked at again after each change of the
 * page's DOM, or after `timeout` ms (false). A wait that costs nothing while the page is still:
 * Playwright's own waits poll (each frame, or every so many ms), and four pages polling while
 * they wait for each other's moves take a part of the machine the games then lack.
 * @template T
 * @param {import("playwright-core").Page} page
 * @param {(arg: T) => boolean} ready runs in the page, on its own (it sees nothing of this module)
 * @param {T} arg @param {number} timeout
 * @returns {Promise<boolean>}
 */
export function whenShown(page, ready, arg, timeout) {
  return page.evaluate(`(${watched})(${ready}, ${JSON.stringify(arg)}, ${timeout})`);
}

/**
 * In the page: whether `test(arg)` holds, once it does or `timeout` ms have passed.
 * @param {(arg: unknown) => boolean} test @param {unknown} arg @param {number} timeout
 * @returns {Promise<boolean>}
 */
function watched(test, arg, timeout) {
  return new Promise((resolve) => {
    const watch = new MutationObserver(() => {
      if (test(arg)) end(true);
    });
    const timer = setTimeout(() => end(false), timeout);
    /** @param {boolean} shown */
    function end(shown) {
      watch.disconnect();
      clearTimeout(timer);
      resolve(shown);
    }
    if (test(arg)) end(true);
    else watch.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  });
}

/**
 * Waits (up to `timeout` ms, then goes on) until the page asks the player for something: its
 * turn (`turn`), the game's result (`result`), or a round's end to move on from (`onward`, in
 * the region named `roundOver`).
 * @param {import("playwright-core").Page} page
 * @param {{ turn: RegExp, result: RegExp, onward: RegExp, roundOver: string }} u
 * @param {number} timeout
 */
export async function untilAsked(page, u, timeout) {
  const sources = [u.turn, u.result, u.onward].map((r) => r.source);
  await whenShown(
    page,
    ([turn, result, onward, roundOver]) => {
      const statuses = [...document.querySelectorAll("[role=status]")].map((e) => e.textContent ?? "");
      if (statuses.some((x) => new RegExp(turn).test(x) || new RegExp(result).test(x))) return true;
      const region = [...document.querySelectorAll("section[aria-label]")].find(
        (e) => e.getAttribute("aria-label") === roundOver,
      );
      return [...(region?.querySelectorAll("button") ?? [])].some((b) => new RegExp(onward).test(b.textContent ?? ""));
    },
    [...sources, u.roundOver],
    timeout,
  ).catch(() => {});
}

/**
 * Waits until a page has drawn the move it sent: a version other than `at` and at least the one
 * the command's answer names (another seat's key or a message drawn meanwhile changes the version
 * too, and would otherwise pass for the move).
 * @param {import("playwright-core").Page} page @param {string | null} at @param {Promise<import("playwright-core").Response>} answer
 */
export async function drawn(page, at, answer) {
  try {
    const res = await answer;
    const reached = res.ok() ? Number((await res.json().catch(() => ({}))).version ?? 0) : 0;
    const shown = await whenShown(
      page,
      ([v, r]) => {
        const shown = document.querySelector("main")?.dataset.version;
        return shown !== v && Number(shown) >= Number(r);
      },
      [at, reached],
      30000,
    );
    assert.ok(shown, `the page drew the move's version ${reached} within 30 s`);
  } catch (e) {
    await tell(page, `the page that played at version ${at}`);
    throw e;
  }
}

/**
 * Whether something else (the docked hand on a phone) lies over the middle of `target` once it
 * is scrolled into view: a person would not tap it there, but pan the maze (the keyboard here).
 * @param {import("playwright-core").Locator} target
 */
async function covered(target) {
  try {
    await target.scrollIntoViewIfNeeded({ timeout: 2000 });
    return await target.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return !(hit && (hit === el || el.contains(hit)));
    });
  } catch {
    // Redrawn meanwhile (news from another seat): the keyboard finds the cell again.
    return true;
  }
}

/**
 * Selects the first card of the hand that lights a cell of the maze, as a person tries cards in
 * turn (each that lights none selected and put back); with `tap`, by touch. Returns whether one
 * did. @param {import("playwright-core").Page} page @param {boolean} [tap]
 */
export async function selectLit(page, tap = false) {
  const hand = page.getByRole("list", { name: "Your hand" }).getByRole("button");
  const press = (/** @type {import("playwright-core").Locator} */ l) => (tap ? l.tap() : l.click());
  for (let i = 0; i < (await hand.count()); i++) {
    await press(hand.nth(i));
    await page.locator(".hand button[aria-pressed=true]").waitFor();
    if ((await page.locator("rect.cell-legal").count()) > 0) return true;
    await press(hand.nth(i));
    await page.locator(".hand button[aria-pressed=true]").waitFor({ state: "detached" });
  }
  return false;
}

/**
 * Plays one card on a page whose turn it is, as a person would: selects cards in turn until
 * one has a legal cell (a path card) or a move button (an action card), else passes. `prefer`
 * tries that kind first. Returns the kind played (`path`, `action`, `remove` or `pass`), or null. `d` is
 * the language the page speaks (its strings, by key); with `keys`, every press is the keyboard's
 * (Enter on the focused control) instead of a click.
 */
export async function playOne(page, prefer, d = EN, keys = false) {
  const u = ui(d);
  const act = (/** @type {import("playwright-core").Locator} */ l) => (keys ? l.press("Enter") : l.click());
  // The cards the table does not dim: those with a move besides a pass.
  const hand = page.getByRole("list", { name: u.hand }).locator("button:not(.unplayable)");
  const n = await hand.count();
  for (const kind of prefer === "action" ? ["action", "path"] : ["path", "action"]) {
    for (let i = 0; i < n; i++) {
      await act(hand.nth(i));
      await page.locator(".hand button[aria-pressed=true]").first().waitFor();
      if (kind === "path") {
        const cell = page.locator("rect.cell-legal").first();
        // A cell the docked hand covers on a phone is played by the keyboard (as a person
        // would pan the maze): every cell is a button that takes Enter.
        if (await cell.count()) {
          await (keys || (await covered(cell)) ? cell.press("Enter") : cell.click());
          return "path";
        }
      } else {
        const moves = page.getByLabel(u.moves).getByRole("button").filter({ hasText: u.play });
        if (await moves.count()) {
          await act(moves.first());
          return "action";
        }
        // Saboteur 2: two cards discarded to take away what lies in front of the player.
        const removes = page.getByLabel(u.moves).getByRole("button").filter({ hasText: u.remove });
        if (await removes.count()) {
          await act(removes.first());
          return "remove";
        }
        const target = page.locator("rect.cell-target");
        if (await target.count()) {
          await act(target.first());
          return "action";
        }
      }
      // Put back by pressing the raised card, as a person would: the cards not dimmed (what
      // `hand` counts) may be others by now, and a card's twin would be raised instead.
      await act(page.locator(".hand button[aria-pressed=true]").first());
      await page.locator(".hand button[aria-pressed=true]").first().waitFor({ state: "detached" });
    }
  }
  // No card can be played (a broken tool and only path cards, say): pass, discarding one.
  const all = page.getByRole("list", { name: u.hand }).getByRole("button");
  if (await all.count()) {
    await act(all.first());
    await page.locator(".hand button[aria-pressed=true]").first().waitFor();
    if (!n) {
      // Every card dimmed: the one selected has no cell and no move but a pass.
      const moves = page.getByLabel(u.moves).getByRole("button");
      assert.equal(await page.locator("rect.cell-legal, rect.cell-target").count(), 0, "a dimmed card lights no cell");
      assert.equal(
        (await moves.filter({ hasText: u.play }).count()) + (await moves.filter({ hasText: u.remove }).count()),
        0,
        "a dimmed card has no move",
      );
    }
    const pass = page.getByLabel(u.moves).getByRole("button").filter({ hasText: u.pass });
    if (await pass.count()) {
      await act(pass.first());
      return "pass";
    }
  }
  return null;
}

/**
 * Plays one seat of a game to its end through the table, by clicks only: gold choices, thefts
 * and passes included, in the language `d` (its strings by key), by the keyboard alone with
 * `keys`. A round's end is moved on from, or handed to `ends` (which moves on itself). Returns
 * the player's turns and the kinds of move made.
 * @param {import("playwright-core").Page} page @param {Record<string, string>} [d] @param {boolean} [keys] @param {(() => Promise<void>) | null} [ends]
 */
export async function playToTheEnd(page, d = EN, keys = false, ends = null) {
  const u = ui(d);
  const act = (/** @type {import("playwright-core").Locator} */ l) => (keys ? l.press("Enter") : l.click());
  const result = page.getByRole("status").filter({ hasText: u.result });
  const version = () => page.locator("main").getAttribute("data-version");
  const made = new Map();
  let turns = 0;
  // A round's end stays on the screen until the player moves on (the next deal, the final score).
  const onward = page.getByRole("region", { name: u.roundOver }).getByRole("button", { name: u.onward });
  for (;;) {
    const turn = page.getByRole("status").filter({ hasText: u.turn });
    await untilAsked(page, u, 30000);
    if (await result.count()) break;
    if (await onward.count()) {
      if (ends) await ends();
      else {
        await act(onward);
        await onward.waitFor({ state: "detached" });
      }
      made.set("round end", (made.get("round end") ?? 0) + 1);
      continue;
    }
    assert.ok(++turns < 400, "the game ends");
    const at = await version();
    const asked = await turn.textContent();
    const posted = nextCommand(page);
    const moves = page.getByLabel(u.moves).getByRole("button");
    let kind;
    if (asked === u.gold) {
      await act(moves.filter({ hasText: u.keep }).first());
      kind = "gold";
    } else if (asked === u.stealing) {
      await act(moves.filter({ hasText: u.steal }).first());
      kind = "theft";
    } else {
      // A failure leaves the page as it was, to read what went wrong.
      kind = await playOne(page, turns % 3 ? "path" : "action", d, keys).catch(async (e) => {
        await page
          .screenshot({ path: join(artifacts, `failed-turn-${Date.now()}.png`), fullPage: true })
          .catch(() => {});
        throw new Error(
          `${e.message}\nthe page: ${await page
            .locator("main")
            .innerText()
            .catch(() => "?")}`,
        );
      });
    }
    assert.ok(kind, `a move was made (${asked}): ${kind ? "" : await page.locator("main").innerText()}`);
    made.set(kind, (made.get(kind) ?? 0) + 1);
    await drawn(page, at, posted);
    // (A round's end shows no log, but its own words.)
    const told = (await page.locator(".log, section.round-over").first().textContent()) ?? "";
    // No word said twice over a colon ("korytarz: korytarz ┴"), in any language.
    assert.doesNotMatch(told, /(?<!\p{L})(\p{L}+): \1(?!\p{L})/u, "a word said twice");
    // Cards hidden from the reader are counted all the same (a pass discards at least one).
    if (d === EN)
      assert.doesNotMatch(
        told,
        /discarding 0\b|drew 0 gold|discarded 0 cards|\b0 gold cards offered/,
        "a hidden count is shown as its number",
      );
  }
  return { turns, made };
}

/**
 * A started game of `players` seats, seat 0 Ada's and the others bots (medium and easy in
 * turn), dealt from `seed` repeated: its id and Ada's seat.
 * @param {string} ruleset @param {number} players @param {string} seed two hex digits
 * @param {string | null} [level] every bot's level (else medium and easy in turn)
 * @param {Record<string, unknown>} [options] the game's options (the server's defaults otherwise)
 */
export async function againstBots(ruleset, players, seed, level = null, options = undefined) {
  const created = await post("/games", undefined, { ruleset, players, seed: seed.repeat(32), options });
  const id = created.game_id;
  const joined = await post(`/games/${id}/seats`, undefined, { name: "Ada" });
  for (let i = 1; i < players; i++)
    await post(`/games/${id}/bots`, created.host_token, { level: level ?? (i % 2 ? "heuristic" : "random") });
  await post(`/games/${id}/start`, created.host_token);
  return { id, joined };
}

/**
 * A page of `context` at game `id`'s table through the seat's invite link (`token`), once the
 * player is asked to play and the seat's key is registered: that is an event of its own, so the
 * version drawn then stays put until someone moves.
 * @param {import("playwright-core").BrowserContext} context @param {string} id @param {string} token
 * @param {number} [timeout] how long the turn may take to come (ms)
 */
export async function atTheTable(context, id, token, timeout = 30000) {
  const page = await context.newPage();
  await page.goto(`${BASE}/play/${id}#token=${token}`);
  await page.getByText("You play now").first().waitFor({ timeout });
  await page
    .getByRole("list", { name: "Players" })
    .filter({ hasText: /key [0-9a-f]{4} / })
    .waitFor();
  return page;
}
