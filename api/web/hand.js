// The maze and what the selected card may do on it, the hand docked at the bottom of the
// screen, and the moves: the cells a path card may go to, the targets an action aims at, a
// pass with the cards chosen to go with it, the choices that play no card.

import { board } from "./board.js";
import { h } from "./dom.js";
import { phrase, t } from "./i18n.js";
import { api } from "./net.js";
import { cardIcon } from "./parts.js";
import { decided, drawRoute } from "./roundend.js";
import { cardName, cardNamed, describe, describeCommand, explain } from "./words.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */
/** @typedef {import("./table.js").TablePage} TablePage */
/** @typedef {import("./play.js").Drawn} Drawn */
/** @typedef {(cmd: Schemas["Command"]) => Promise<void>} Send */

/**
 * The maze and the moves for the card selected, and the hand. @param {TablePage} page @param {Drawn} drawn
 */
export function movesOf(page, drawn) {
  const { legal, view } = drawn;
  /** @type {Send} */
  const send = (cmd) => sendMove(page, drawn, cmd);
  const selected = page.selected;
  const forCard =
    selected == null ? [] : legal.filter((c) => uses(c).card === selected || uses(c).discard.includes(selected));
  const paths = forCard.flatMap((c) => (c.type === "play_path" && !!c.rotated === page.rotated ? [c] : []));
  const targets = forCard.flatMap((c) => {
    const at = atCell(c);
    return at
      ? [
          {
            at,
            label: phrase("table.target", {
              card: cardNamed(/** @type {string} */ ("card" in c ? c.card : "")),
              where: there(view, at),
            }),
            onPick: () => send(c),
          },
        ]
      : [];
  });
  const svg = mazeOf(page, view, paths, targets, send);
  const zoomBar = zoomBarOf(page, svg);
  const why = whyBlocked(page, drawn, paths);
  const hand = handOf(page, drawn);
  const actions = actionsOf(page, drawn, forCard, targets, send);
  return { svg, zoomBar, why, hand, actions, paths, targets };
}

/**
 * Sends a move, signed, at the version drawn: the selection is cleared once it went through;
 * the table is read again either way. @param {TablePage} page @param {Drawn} drawn @param {Schemas["Command"]} cmd
 */
async function sendMove(page, drawn, cmd) {
  // Sent before the card is drawn at once: nothing the drawing meets holds the move back.
  const answer = api(`/games/${page.id}/commands`, {
    method: "POST",
    token: page.mine.token,
    body: cmd,
    headers: { "if-match": `"${drawn.st.version}"` },
    sign: drawn.signed("command"),
  });
  if (cmd.type === "play_path") {
    try {
      shownAtOnce(page, cmd);
    } catch (e) {
      // Thrown where it is seen (the console, the tests), once the move is on its way.
      setTimeout(() => {
        throw e;
      });
    }
  }
  try {
    await answer;
    page.message = "";
    page.selected = null;
    page.sel = null;
    page.alsoDiscard = new Set();
  } catch (e) {
    page.message = /** @type {Error} */ (e).message;
  }
  page.moving = 0;
  page.refresh();
}

/**
 * A path card drawn where it goes the moment it is played, out of the hand, the turn given up,
 * whatever read is under way: once the server answers (the move recorded, the bots' answers
 * still to come), the table is drawn as read (the card back in the hand, with the reason, if
 * it was refused).
 * @param {TablePage} page @param {Extract<Schemas["Command"], { type: "play_path" }>} cmd
 */
function shownAtOnce(page, cmd) {
  const data = page.data;
  if (!data?.st) return;
  const { view } = data.st;
  const hand = [...(view.hand ?? [])];
  const i = hand.indexOf(cmd.card);
  if (i >= 0) hand.splice(i, 1);
  const laid = { card: cmd.card, x: cmd.at.x, y: cmd.at.y, rotated: !!cmd.rotated };
  const phase = { ...view.phase, awaited: null };
  page.data = { ...data, legal: [], st: { ...data.st, view: { ...view, hand, phase, board: [...view.board, laid] } } };
  page.selected = null;
  page.sel = null;
  page.moving = performance.now();
  page.drawNow();
}

/** Whether every card of `cards` is in `pile`, counted (two of a kind need two). @param {string[]} cards @param {string[]} pile */
function within(cards, pile) {
  const left = [...pile];
  return cards.every((c) => {
    const i = left.indexOf(c);
    if (i >= 0) left.splice(i, 1);
    return i >= 0;
  });
}

/** The card a command plays, and the cards it discards. @param {Schemas["Command"]} c */
const uses = (c) => ({ card: "card" in c ? c.card : undefined, discard: "discard" in c ? (c.discard ?? []) : [] });

/** A play at a cell of the maze: a Map at a goal, a rock fall at a path card. @param {Schemas["Command"]} c */
const atCell = (c) => (c.type === "play_action" && c.target != null && "x" in c.target ? c.target : null);

/** What is at a cell, in words, for a target's label. @param {Schemas["View"]} view @param {{x: number, y: number}} at */
function there(view, at) {
  const goals = [...view.goals].sort((a, b) => a.y - b.y);
  const goal = goals.findIndex((g) => g.x === at.x && g.y === at.y);
  if (goal >= 0)
    return goals.length === 3
      ? t(`table.goal_${["top", "middle", "bottom"][goal]}`)
      : t("table.goal_n", { n: goal + 1 });
  const placed = view.board.find((p) => p.x === at.x && p.y === at.y);
  return placed ? t("table.card_at", { card: cardName(placed.card), x: at.x, y: -at.y }) : t("table.empty_cell");
}

/**
 * The maze, lit where the selected path card may go and where the selected action may aim; a
 * round over and not dealt again (the gold handed out, the game over) with its route drawn.
 * @param {TablePage} page @param {Schemas["View"]} view @param {Array<{ at: Schemas["Cell"] }>} paths
 * @param {Array<{ at: Schemas["Cell"], label: string, onPick: () => void }>} targets @param {Send} send
 */
function mazeOf(page, view, paths, targets, send) {
  const svg = board(view, page.deck, {
    legal: paths,
    // (The cells are lit only while a card is selected.)
    onCell: (at) =>
      send({ type: "play_path", card: /** @type {Schemas["Card"]} */ (page.selected), at, rotated: page.rotated }),
    targets,
    keep: page.zoom,
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

/** The zoom's buttons: in, out, and the whole maze. @param {TablePage} page @param {SVGSVGElement} svg */
function zoomBarOf(page, svg) {
  const { zoom } = page;
  const zoomTo = (/** @type {number | null} */ k) => {
    if (k == null) zoom.box = null;
    else {
      const b = zoom.box ?? (svg.getAttribute("viewBox") ?? "0 0 1 1").split(" ").map(Number);
      zoom.box = [b[0] + (b[2] * (1 - k)) / 2, b[1] + (b[3] * (1 - k)) / 2, b[2] * k, b[3] * k];
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
    h("button", { type: "button", onclick: () => zoomTo(null) }, t("table.zoom_whole")),
  );
}

/**
 * Why a selected path card lights no cell: a broken tool, or a trap, in front of the player.
 * @param {TablePage} page @param {Drawn} drawn @param {unknown[]} paths
 */
function whyBlocked(page, drawn, paths) {
  const { view, me } = drawn;
  const { selected, deck } = page;
  const blockers = me != null ? (view.in_front[me] ?? []).filter((c) => c.startsWith("break_") || c === "trapped") : [];
  return selected && deck[selected]?.kind === "path" && !paths.length && blockers.length
    ? h(
        "p",
        { role: "status", class: "why" },
        t("table.blocked", { cards: blockers.map((c) => cardName(c)).join(", ") }),
      )
    : null;
}

/**
 * The hand, docked: a card selected (pressed) or not, turned when it is; a card with no move
 * but a pass is dimmed, and says so to a screen reader. @param {TablePage} page @param {Drawn} drawn
 */
function handOf(page, drawn) {
  const { legal, view } = drawn;
  const { deck } = page;
  const usable = (/** @type {Schemas["Card"]} */ c) =>
    legal.some((l) => l.type !== "pass" && (uses(l).card === c || uses(l).discard.includes(c)));
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
              page.alsoDiscard = new Set();
              page.reveal = page.sel !== null;
              // A card selected on a phone shows the maze, where it goes, in place of a panel.
              if (page.reveal) page.panel = "maze";
              page.render();
            },
          },
          icon,
          describe(deck[c], page.sel === i && page.rotated),
          only ? h("span", { class: "sr-only" }, ` ${t("table.discard_only")}`) : null,
        ),
      );
    }),
  );
}

/**
 * The moves beside the hand: the selected path card turned, how many targets it has, its
 * other plays, its pass, and the choices that play no card from the hand (a gold card to keep,
 * §8, a theft, a pass).
 * @param {TablePage} page @param {Drawn} drawn @param {Schemas["Command"][]} forCard the moves of the card selected
 * @param {unknown[]} targets @param {Send} send
 */
function actionsOf(page, drawn, forCard, targets, send) {
  const { legal } = drawn;
  const { selected, deck, names } = page;
  return h(
    "div",
    { role: "group", "aria-label": t("table.moves") },
    selected && deck[selected]?.kind === "path"
      ? h(
          "button",
          {
            type: "button",
            onclick: () => {
              page.rotated = !page.rotated;
              page.render();
            },
          },
          t(page.rotated ? "table.flip_turned" : "table.flip_upright"),
        )
      : null,
    targets.length ? h("p", {}, t("table.choose_target", { n: targets.length })) : null,
    forCard
      .filter((c) => c.type !== "play_path" && c.type !== "pass" && !atCell(c))
      .map((c) => h("button", { type: "button", onclick: () => send(c) }, describeCommand(c, names))),
    passChoice(page, drawn, forCard, send),
    legal
      .filter((c) => c.type === "choose_gold" || (!uses(c).card && !uses(c).discard.length))
      .map((c) => h("button", { type: "button", onclick: () => send(c) }, describeCommand(c, names))),
  );
}

/**
 * The pass for the selected card: the cards that may go with it as checkboxes (by their place
 * in the hand: two of a kind are two choices), one button.
 * @param {TablePage} page @param {Drawn} drawn @param {Schemas["Command"][]} forCard @param {Send} send
 */
function passChoice(page, drawn, forCard, send) {
  const { selected, sel, alsoDiscard, deck, names } = page;
  const passes = forCard.filter((c) => c.type === "pass");
  if (!passes.length || !selected) return null;
  const hand = drawn.view.hand ?? [];
  const checked = hand.flatMap((c, i) => (i !== sel && alsoDiscard.has(i) ? [c] : []));
  const wanted = [selected, ...checked].sort();
  // A card is offered to go with the pass only where a legal pass discards it beside those
  // chosen already (Saboteur 2's two of a kind; the base game's pass discards one card).
  const fits = (/** @type {string[]} */ cards) =>
    passes.some((p) => p.type === "pass" && within(cards, p.discard ?? []));
  const others = hand.flatMap((c, i) => (i !== sel && (alsoDiscard.has(i) || fits([...wanted, c])) ? [{ c, i }] : []));
  const same = (/** @type {Schemas["Command"]} */ c) =>
    c.type === "pass" && [...(c.discard ?? [])].sort().join() === wanted.join();
  const chosen = passes.find(same);
  return h(
    "fieldset",
    { class: "pass" },
    h("legend", {}, t("table.pass")),
    others.map(({ c, i }) =>
      h(
        "label",
        {},
        h("input", {
          type: "checkbox",
          checked: alsoDiscard.has(i) ? "" : null,
          onchange: (/** @type {Event} */ ev) => {
            if (/** @type {HTMLInputElement} */ (ev.target).checked) page.alsoDiscard.add(i);
            else page.alsoDiscard.delete(i);
            page.render();
          },
        }),
        ` ${phrase("table.also_discard", { card: cardNamed(deck[c] ?? c) })}`,
      ),
    ),
    chosen
      ? h(
          "button",
          {
            type: "button",
            onclick: () => {
              page.alsoDiscard = new Set();
              send(chosen);
            },
          },
          describeCommand(chosen, names),
        )
      : h("p", {}, t("table.not_together")),
  );
}
