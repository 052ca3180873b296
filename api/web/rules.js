// The rules in short (/rules), in the language in use: what a new player needs to sit down at
// a table. The whole rules, with every ruling, are docs/rules.md.
import { h, main } from "./dom.js";
import { t } from "./i18n.js";

/** Each section: its heading's key, then its paragraphs' keys. */
const SECTIONS = [
  ["rules.h_idea", ["rules.idea"]],
  ["rules.h_roles", ["rules.roles", "rules.roles_count"]],
  ["rules.h_setup", ["rules.setup", "rules.hands"]],
  ["rules.h_turn", ["rules.turn", "rules.path", "rules.action", "rules.pass"]],
  ["rules.h_actions", ["rules.broken", "rules.repair", "rules.rockfall", "rules.map"]],
  ["rules.h_goals", ["rules.goals"]],
  ["rules.h_gold", ["rules.round_end", "rules.diggers_win", "rules.saboteurs_win", "rules.game_end"]],
  [
    "rules.h_s2",
    ["rules.s2_roles", "rules.s2_turn", "rules.s2_paths", "rules.s2_actions", "rules.s2_win", "rules.s2_pay"],
  ],
  ["rules.h_here", ["rules.here_undo", "rules.here_audit"]],
];

/** @param {string} _ @param {Promise<void>} ready the language loaded */
export async function rules(_, ready) {
  await ready;
  document.title = t("rules.title");
  main.replaceChildren(
    h("h1", {}, t("rules.title")),
    h(
      "div",
      { class: "rules" },
      ...SECTIONS.map(([head, paras]) =>
        h(
          "section",
          { "aria-label": t(/** @type {string} */ (head)) },
          h("h2", {}, t(/** @type {string} */ (head))),
          .../** @type {string[]} */ (paras).map((p) => h("p", {}, t(p))),
        ),
      ),
    ),
  );
}
