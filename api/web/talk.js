// The table talk: the whole conversation (what the host hid shown as hidden), and the form to
// say something, its draft kept across the table's redraws.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { api } from "./net.js";
import { eventSentence } from "./words.js";

/** @typedef {import("../types/api").components["schemas"]} Schemas */
/** @typedef {import("./table.js").TablePage} TablePage */
/** @typedef {import("./play.js").Drawn} Drawn */

/** Keeps what was said among `events`, and hides what was hidden. @param {TablePage} page @param {Schemas["EventRecord"][]} events */
export function gather(page, events) {
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

/**
 * The table talk: what was said, and the form to say something (its draft kept). @param {TablePage} page @param {Drawn} drawn
 */
export function talkOf(page, drawn) {
  const { s } = drawn;
  const { mine, names } = page;
  const said = [...page.talkSeen.values()].sort((a, b) => a.seq - b.seq);
  const { form, input } = talkForm(page, drawn);
  const talk =
    s.status === "finished"
      ? null
      : h(
          "section",
          { "aria-label": t("talk.label") },
          h("h2", {}, t("talk.label")),
          h(
            "ul",
            { class: "talk" },
            said.map((e) =>
              h(
                "li",
                {},
                eventSentence(e, names),
                mine.host && e.event.type === "talk_posted" && e.event.text != null
                  ? h(
                      "button",
                      {
                        type: "button",
                        onclick: async () => {
                          try {
                            await api(`/games/${page.id}/talk/${e.seq}/hide`, { method: "POST", token: mine.host });
                          } catch (err) {
                            page.message = /** @type {Error} */ (err).message;
                          }
                          page.refresh();
                        },
                      },
                      t("talk.hide"),
                    )
                  : null,
              ),
            ),
          ),
          form,
        );
  return { talk, input };
}

/**
 * The form to say something: a seat's words signed, a spectator's under the name given.
 * @param {TablePage} page @param {Drawn} drawn
 */
function talkForm(page, drawn) {
  const { mine } = page;
  const input = /** @type {HTMLInputElement} */ (
    h("input", { name: "text", maxlength: "280", required: "", value: page.draft })
  );
  input.addEventListener("input", () => {
    page.draft = input.value;
  });
  const form = h(
    "form",
    { "aria-label": t("talk.form") },
    h("label", {}, `${t("talk.message")} `, input),
    mine.token
      ? ""
      : h(
          "label",
          {},
          ` ${t("lobby.name")} `,
          h("input", { name: "name", maxlength: "40", value: t("word.spectator") }),
        ),
    " ",
    h("button", { type: "submit" }, t("talk.say")),
  );
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const data = new FormData(/** @type {HTMLFormElement} */ (form));
    const body = mine.token ? { text: data.get("text") } : { text: data.get("text"), name: data.get("name") };
    try {
      await api(`/games/${page.id}/talk`, {
        method: "POST",
        token: mine.token,
        body,
        sign: mine.token ? drawn.signed("talk") : undefined,
      });
      page.message = "";
      page.draft = "";
    } catch (e) {
      page.message = /** @type {Error} */ (e).message;
    }
    page.refresh();
  });
  return { form, input };
}
