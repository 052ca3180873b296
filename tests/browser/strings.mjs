// A language's strings of the web client, by key (api/web/lang-{code}*.js), for the tests: read
// as a module whatever the package type around it.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const web = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "api", "web");

/** One module's strings. @param {string} file @returns {Promise<Record<string, string>>} */
const module = async (file) =>
  (await import(`data:text/javascript,${encodeURIComponent(readFileSync(join(web, file), "utf8"))}`)).default;

/**
 * A language's strings: its modules' (lang-{code}.js, lang-{code}-problems.js) and its Fluent
 * sentences' (lang-{code}-grammar.js) as the dictionary would have them: `move.action` for
 * `move-action`, its default variant, `{card}` for `{ $card }`.
 * @param {string} code @returns {Promise<Record<string, string>>}
 */
export const strings = async (code) => ({
  ...(await module(`lang-${code}.js`)),
  ...(await module(`lang-${code}-problems.js`)),
  ...Object.fromEntries(
    (await sentences(code))
      .filter((m) => !/^(card|path)-/.test(m.id))
      .map((m) => [m.id.replace("-", "."), m.value.replace(/\{\$(\w+)\}/g, "{$1}")]),
  ),
});

/**
 * A language's Fluent sentences and card forms (api/web/lang-{code}-grammar.js): each message's
 * id, value, placeholders, the cases its attributes give its arguments (a sentence) or the
 * cases it has forms for (a card).
 * @param {string} code
 */
export const sentences = async (code) => {
  const { FluentResource } = await import("@fluent/bundle");
  const resource = new FluentResource(await module(`lang-${code}-grammar.js`));
  return resource.body
    .filter((m) => !m.id.startsWith("-"))
    .map((m) => {
      /** A pattern's text: its variables as `{$name}`, a choice by its default variant. @returns {string} */
      const text = (/** @type {any} */ p) =>
        typeof p === "string"
          ? p
          : p
              .map((/** @type {any} */ e) =>
                typeof e === "string" ? e : e.type === "select" ? text(e.variants[e.star].value) : `{$${e.name}}`,
              )
              .join("");
      const value = m.value == null ? "" : text(m.value);
      return {
        id: m.id,
        value: m.id.startsWith("card-") ? value.replace(/\{\$n\}/, "{n}") : value,
        placeholders: [...new Set(value.match(/\{\$\w+\}/g) ?? [])].sort(),
        attributes: Object.keys(m.attributes),
        cases: Object.fromEntries(Object.entries(m.attributes).map(([k, v]) => [k, text(v)])),
      };
    });
};

/** @type {Promise<any> | null} */
let grammarLoaded = null;

/** The client's `grammar.js` with `@fluent/bundle`, bundled by esbuild once for every call. */
const grammarJs = () => {
  grammarLoaded ??= (async () => {
    const { buildSync } = await import("esbuild");
    const here = dirname(fileURLToPath(import.meta.url));
    const out = buildSync({
      entryPoints: [join(web, "grammar.js")],
      bundle: true,
      format: "esm",
      write: false,
      nodePaths: [join(here, "node_modules")],
    }).outputFiles[0].text;
    return import(`data:text/javascript,${encodeURIComponent(out)}`);
  })();
  return grammarLoaded;
};

/**
 * The client's grammar.js, bundled with Fluent (as the page has it), for a language: `say(key,
 * args)` formats a sentence, each card given as the arguments of a `Named`; `junk` is what the
 * parser skipped.
 * @param {string} code
 */
export const grammarModule = async (code) => {
  const g = await grammarJs();
  const ftl = await module(`lang-${code}-grammar.js`);
  const bundle = g.grammar(code, ftl);
  const { FluentResource } = await import("@fluent/bundle");
  const junk = new FluentResource(ftl).body.length === 0 ? ["empty"] : junkOf(ftl);
  const list = (/** @type {string[]} */ items) => new Intl.ListFormat(code, { type: "conjunction" }).format(items);
  return {
    junk,
    say: (/** @type {string} */ key, /** @type {Record<string, any>} */ args) =>
      g.sentence(
        bundle,
        key,
        Object.fromEntries(
          Object.entries(args).map(([k, v]) => [
            k,
            Array.isArray(v) && Array.isArray(v[0])
              ? v.map((n) => new g.Named(...n))
              : Array.isArray(v)
                ? new g.Named(...v)
                : v,
          ]),
        ),
        list,
      ),
  };
};

/** The lines of a Fluent resource its parser skips: an entry's first line that starts no
 * message, term or comment, and is neither an indented continuation nor a placeable's closing
 * brace. @param {string} ftl */
const junkOf = (ftl) =>
  ftl.split("\n").filter((l) => l.trim() && !/^[\s}]/.test(l) && !/^#/.test(l) && !/^-?[a-zA-Z][\w-]*\s*=/.test(l));
