// Saboteur's web client: lobby (/), table (/play/{id}), replay (/replay/{id}), audit
// (/audit/{id}) and the rules in short (/rules), one module each, in six languages (i18n.js).
// Plain ES modules over the HTTP API; tokens, keys and the receipts the server signs on every
// view and outcome are kept per game in localStorage (net.js).

import { audit } from "./audit.js";
import { h, main } from "./dom.js";
import { chosen, LANGUAGES, language, load, switchTo, t } from "./i18n.js";
import { lobby } from "./lobby.js";
import { replay } from "./replay.js";
import { rules } from "./rules.js";
import { table } from "./table.js";

// The language loads while the page starts its reads (each page waits for it before it
// draws): on a slow network the two round trips overlap.
const ready = load(chosen());

// The header: the rules, and the language, switchable and kept.
ready.then(() => {
  const pick = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { "aria-label": t("nav.language"), onchange: () => switchTo(pick.value) },
      Object.entries(LANGUAGES).map(([code, name]) =>
        h("option", { value: code, lang: code, selected: code === language() }, name),
      ),
    )
  );
  document
    .querySelector("header")
    ?.append(
      h(
        "nav",
        { "aria-label": t("nav.label") },
        h("a", { href: "/" }, t("nav.games")),
        " ",
        h("a", { href: "/rules" }, t("nav.rules")),
        " ",
        pick,
      ),
    );
});

const [, kind, id] = location.pathname.split("/");
/** @type {Record<string, (id: string, ready: Promise<void>) => Promise<void>>} */
const routes = { play: table, replay, audit, rules };
const route = routes[kind];
(route ? route(id, ready) : lobby(ready)).catch((e) =>
  main.replaceChildren(h("p", { class: "error", role: "alert" }, e.message)),
);
