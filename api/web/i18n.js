// The interface's language: English, and the languages of the rulebooks the rules come from
// (Icelandic, Latvian, Dutch, Spanish, Polish). Chosen from the browser's languages the first
// time, then as the player switches it (kept in localStorage). Each language is three modules
// of the same keys as English's: `lang-{code}.js`, `lang-{code}-problems.js` (why the server
// refused a request) and `lang-{code}-grammar.js`, the sentences that name cards, in Project
// Fluent, with the forms the cards' names take in them (grammar.js). Only the language in use
// is loaded.

import { grammar, sentence } from "./grammar.js";

/** The languages, by code, each named in itself. */
export const LANGUAGES = {
  en: "English",
  is: "Íslenska",
  lv: "Latviešu",
  nl: "Nederlands",
  es: "Español",
  pl: "Polski",
};

const KEPT = "saboteur:lang";

/** @type {Record<string, string>} */
let dict = {};
/** @type {import("@fluent/bundle").FluentBundle | null} */
let bundle = null;
let current = "en";

/** The language in use. */
export const language = () => current;

/** The language to use: the one the player chose, else the browser's first we have, else English. */
export function chosen() {
  let kept = null;
  try {
    kept = localStorage.getItem(KEPT);
  } catch {
    /* no storage: the browser's */
  }
  if (kept && kept in LANGUAGES) return kept;
  for (const l of navigator.languages ?? [navigator.language]) {
    const code = String(l).slice(0, 2).toLowerCase();
    if (code in LANGUAGES) return code;
  }
  return "en";
}

/** Loads a language's strings and marks the page with it. @param {string} code */
export async function load(code) {
  current = code in LANGUAGES ? code : "en";
  const [strings, problems, sentences] = await Promise.all([
    import(`/assets/lang-${current}.js`),
    import(`/assets/lang-${current}-problems.js`),
    import(`/assets/lang-${current}-grammar.js`),
  ]);
  dict = { ...strings.default, ...problems.default };
  bundle = grammar(current, sentences.default);
  document.documentElement.lang = current;
}

/** Keeps the player's choice and draws the page again in it. @param {string} code */
export function switchTo(code) {
  try {
    localStorage.setItem(KEPT, code);
  } catch {
    /* kept for this page only */
  }
  location.reload();
}

/** Whether the language in use has the string `key` (an open set, such as problem codes, may name one it lacks). @param {string} key */
export const has = (key) => key in dict;

/**
 * The string `key` in the language in use, its `{name}` placeholders filled from `params`.
 * A key the language lacks shows as itself (the tests make sure none does).
 * @param {string} key
 * @param {Record<string, string | number>} [params]
 */
export function t(key, params = {}) {
  const s = dict[key] ?? key;
  return s.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}

/** A list in the language's way ("a, b and c"). @param {string[]} items */
export const list = (items) => new Intl.ListFormat(current, { type: "conjunction" }).format(items);

/**
 * The sentence `key` that names cards (`move.action_on`), each card (a `Named`, or a list of
 * them) in the case the sentence gives it in the language in use (grammar.js).
 * @param {string} key
 * @param {Record<string, string | number | import("./grammar.js").Named | import("./grammar.js").Named[]>} params
 */
export function phrase(key, params) {
  // As `t`, a key the language lacks shows as itself (the type tests make sure none does).
  return sentence(bundle, key, params, list) ?? key;
}
