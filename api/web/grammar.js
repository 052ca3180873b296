// Sentences whose words change with their place in them, written in Project Fluent
// (lang-{code}-grammar.js): a card's name takes the case its sentence needs (Icelandic "spila
// brotnum námuvagni", Polish "zagraj zepsutą latarnię", Latvian "izspēlēt salauztu laternu").
//
// Each such sentence is a Fluent message (`move-action_on` for the key `move.action_on`) whose
// attribute named after an argument (`.card = dat`) says the case that argument's card takes.
// Each card's forms are the attributes of its message, `card-{id}` or `path-{family}`
// (`.dat = brotnum námuvagni`); a card with no form for a case keeps its name as the
// dictionary gives it. docs/glossary.md lists every form used.

import { FluentBundle, FluentResource } from "@fluent/bundle";

/** @typedef {import("@fluent/bundle").FluentVariable} FluentVariable */

/** A card named in a sentence: its name as the dictionary gives it, the Fluent message holding its
 * other forms (null: none), what follows the name whatever its case (a path's sign), and the
 * arguments of its forms (a gold card's value). */
export class Named {
  /** @param {string} name @param {string | null} id @param {string} [rest] @param {Record<string, FluentVariable>} [args] */
  constructor(name, id, rest = "", args = {}) {
    this.name = name;
    this.id = id;
    this.rest = rest;
    this.args = args;
  }

  toString() {
    return this.name + this.rest;
  }
}

/** A language's sentences and forms. @param {string} code @param {string} ftl */
export function grammar(code, ftl) {
  const bundle = new FluentBundle(code, { useIsolating: false });
  for (const e of bundle.addResource(new FluentResource(ftl))) console.warn(`grammar (${code}): ${e.message}`);
  return bundle;
}

/** The id of the message of a dictionary key (`move.action_on` → `move-action_on`). @param {string} key */
export const messageId = (key) => key.replace(".", "-");

/**
 * `named` in the case `kase` (none: as the dictionary gives it).
 * @param {FluentBundle} bundle @param {Named} named @param {string | null} kase
 */
function inCase(bundle, named, kase) {
  const form = kase && named.id ? bundle.getMessage(named.id)?.attributes[kase] : null;
  return (form ? bundle.formatPattern(form, named.args) : named.name) + named.rest;
}

/**
 * The sentence `key` in the bundle's language with `args` (a card or a list of cards put in the
 * case the sentence names for it), or null when the bundle has no such sentence.
 * @param {FluentBundle | null} bundle @param {string} key
 * @param {Record<string, string | number | Named | Named[]>} args
 * @param {(items: string[]) => string} list how the language lists things
 */
export function sentence(bundle, key, args, list) {
  const message = bundle?.getMessage(messageId(key));
  if (!bundle || !message?.value) return null;
  /** @type {Record<string, FluentVariable>} */
  const filled = {};
  for (const [k, v] of Object.entries(args)) {
    const kase = message.attributes[k] ? bundle.formatPattern(message.attributes[k]) : null;
    if (v instanceof Named) filled[k] = inCase(bundle, v, kase);
    else if (Array.isArray(v)) filled[k] = list(v.map((n) => inCase(bundle, n, kase)));
    else filled[k] = v;
  }
  return bundle.formatPattern(message.value, filled);
}
