// The web client cannot drift from the spec: api/types/api.d.ts is what openapi-typescript
// makes of openapi/openapi.json, and tsc (strict) checks the client's JSDoc types against it.
// Regenerate after a spec change: npm run types. Its code is as Biome formats it and passes
// Biome's lints (npm run format fixes what it can), and no room of it is too big to hold.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { grammarModule, sentences, strings } from "./strings.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const bin = (name) => join(here, "node_modules", ".bin", name);

test("api/types/api.d.ts is generated from the committed spec", () => {
  const out = join(mkdtempSync(join(tmpdir(), "saboteur-types-")), "api.d.ts");
  execFileSync(bin("openapi-typescript"), [join(root, "openapi/openapi.json"), "-o", out], { stdio: "pipe" });
  assert.equal(
    readFileSync(out, "utf8"),
    readFileSync(join(root, "api/types/api.d.ts"), "utf8"),
    "the client's types are stale: run `npm run types` in tests/browser",
  );
});

test("the web client type-checks, strictly, against the spec's types", () => {
  assert.equal(JSON.parse(readFileSync(join(here, "tsconfig.json"), "utf8")).compilerOptions.strict, true);
  try {
    execFileSync(bin("tsc"), ["-p", join(here, "tsconfig.json")], { stdio: "pipe" });
  } catch (e) {
    assert.fail(`tsc found errors:\n${e.stdout}${e.stderr}`);
  }
});

// The six languages: every string of the client in each, with the same placeholders; every
// key the code asks for exists; every value of the spec's enums the pages name has its words.
const web = join(root, "api/web");
const LANGS = ["en", "is", "lv", "nl", "es", "pl"];
const holes = (/** @type {string} */ s) => [...new Set(s.match(/\{\w+\}/g) ?? [])].sort().join(" ");

test("every language has every string, with the same placeholders, translated", async () => {
  const en = await strings("en");
  for (const code of LANGS.slice(1)) {
    const d = await strings(code);
    assert.deepEqual(Object.keys(d).sort(), Object.keys(en).sort(), `${code}: the same keys as English`);
    for (const [k, v] of Object.entries(en)) {
      assert.ok(typeof d[k] === "string" && d[k].trim(), `${code}: ${k} is empty`);
      assert.equal(holes(d[k]), holes(v), `${code}: ${k} keeps English's placeholders`);
    }
    const same = Object.keys(en).filter((k) => d[k] === en[k]);
    assert.ok(
      same.length < Object.keys(en).length / 10,
      `${code}: ${same.length} strings left as in English: ${same.slice(0, 20)}`,
    );
  }
});

test("every string the client asks for exists, and every value of the spec's enums has its words", async () => {
  const en = await strings("en");
  const code = readdirSync(web)
    .filter((f) => f.endsWith(".js") && !f.startsWith("lang-") && f !== "bundle.js")
    .map((f) => readFileSync(join(web, f), "utf8"))
    .join("\n");
  const asked = [...code.matchAll(/\bt\(\s*"([a-z_0-9.]+)"/g)].map((m) => m[1]);
  const said = [...code.matchAll(/\bsay\(\s*"([a-z_0-9]+)"/g)].map((m) => `event.${m[1]}`);
  const chosen = [...code.matchAll(/\?\s*"((?:[a-z_]+\.)[a-z_0-9]+)"\s*:\s*"((?:[a-z_]+\.)[a-z_0-9]+)"/g)].flatMap(
    (m) => [m[1], m[2]],
  );
  assert.ok(asked.length > 200, `the client's strings found: ${asked.length}`);
  // The sentences that name cards are Fluent messages, in every language.
  const phrased = [
    ...code.matchAll(/\bphrase\(\s*(?:[^"(),]*\?\s*)?"([a-z_0-9.]+)"(?:\s*:\s*"([a-z_0-9.]+)")?/g),
  ].flatMap((m) => m.slice(1).filter(Boolean));
  assert.ok(phrased.length >= 10, `the client's sentences found: ${phrased.length}`);
  for (const k of [...asked, ...said, ...chosen].filter((k) => !phrased.includes(k)))
    assert.ok(k in en, `lang-en.js lacks ${k}`);
  for (const code of LANGS) {
    const ids = new Set((await sentences(code)).map((m) => m.id));
    for (const k of phrased) assert.ok(ids.has(k.replace(".", "-")), `lang-${code}-grammar.js lacks ${k}`);
  }
  const spec = JSON.parse(readFileSync(join(root, "openapi/openapi.json"), "utf8")).components.schemas;
  for (const [schema, prefix] of [
    ["Role", "role"],
    ["Tool", "tool"],
    ["PhaseName", "phase"],
    ["GameStatus", "status"],
    ["ProblemCode", "problem"],
    ["Ruleset", "ruleset"],
  ]) {
    for (const v of spec[schema].enum) assert.ok(`${prefix}.${v}` in en, `lang-en.js lacks ${prefix}.${v} (${schema})`);
  }
  // Each event has its sentence, each card its name (its own, or its path family's).
  for (const type of Object.keys(spec.Event.discriminator.mapping))
    assert.match(code, new RegExp(`case "${type}":`), `words.js tells the event ${type}`);
  for (const card of spec.Card.enum) {
    const family = card.replace(/(_[nesw]+)+$/, "").replace("crystal_split", "crystal_tunnel");
    assert.ok(
      `card.${card}` in en || `path.${family}` in en || /^(gold_\d|goal_stone_\w+)$/.test(card),
      `no name for the card ${card}`,
    );
  }
});

test("the sentences that name cards put each card in the case, and each count in the number, the language needs", async () => {
  const en = await sentences("en");
  const dict = Object.fromEntries(await Promise.all(LANGS.map(async (c) => [c, await strings(c)])));
  for (const code of LANGS) {
    const messages = await sentences(code);
    const byId = new Map(messages.map((m) => [m.id, m]));
    // The same sentences as English's, with its placeholders, and nothing the parser skipped.
    for (const m of en) {
      const mine = byId.get(m.id);
      assert.ok(mine, `${code}: no ${m.id}`);
      assert.deepEqual(mine.placeholders, m.placeholders, `${code}: ${m.id} keeps English's placeholders`);
    }
    assert.deepEqual((await grammarModule(code)).junk, [], `${code}: every line parses`);
    // Each case a sentence names exists among the cards' forms; each card's message names a
    // card the dictionary names alike.
    const cases = new Set(messages.flatMap((m) => Object.values(m.cases)));
    const forms = messages.filter((m) => /^(card|path)-/.test(m.id));
    for (const f of forms) {
      const key = f.id.replace("-", ".");
      assert.ok(key in dict[code], `${code}: ${f.id} names no card`);
      if (f.id !== "card-gold") assert.equal(f.value, dict[code][key], `${code}: ${f.id} is the dictionary's name`);
      for (const k of f.attributes) assert.ok(cases.has(k), `${code}: ${f.id}.${k} is a case no sentence uses`);
    }
  }
  // The client's own code: Icelandic "spila" takes the dative, Polish "zagraj" and Latvian
  // "izspēlēt" the accusative; a list of cards takes the case too; English keeps its names.
  const { say } = await grammarModule("is");
  assert.equal(
    say("move.action_on", { card: ["brotinn námuvagn", "card-break_cart"], who: "Sigga" }),
    "spila brotnum námuvagni á Sigga",
  );
  assert.equal(
    say("move.discard_to_remove", {
      cards: [
        ["kort", "card-map"],
        ["göng", "path-tunnel", " ┼"],
      ],
      card: ["brotin lugt", "card-break_lantern"],
    }),
    "kasta korti og göngum ┼ til að fjarlægja brotna lugt",
  );
  assert.equal(
    (await grammarModule("pl")).say("move.action", { card: ["zepsuta latarnia", "card-break_lantern"] }),
    "zagraj zepsutą latarnię",
  );
  assert.equal(
    (await grammarModule("lv")).say("move.keep", { card: ["zelta gabalu kārts (2)", "card-gold", "", { n: 2 }] }),
    "paturēt zelta gabalu kārti (2)",
  );
  assert.equal(
    (await grammarModule("en")).say("move.action", { card: ["broken cart", "card-break_cart"] }),
    "play broken cart",
  );
  // And numbers their number: Polish 1 kartę, 2 karty, 5 kart; English one card, 2 cards.
  const pl = await grammarModule("pl");
  assert.deepEqual(
    [1, 2, 5, 22].map((n) => pl.say("event.passed", { by: "Ann", n })),
    [
      "Ann pasuje i odrzuca 1 kartę",
      "Ann pasuje i odrzuca 2 karty",
      "Ann pasuje i odrzuca 5 kart",
      "Ann pasuje i odrzuca 22 karty",
    ],
  );
  assert.equal((await grammarModule("en")).say("players.cards", { n: 1, gold: 2 }), "one card, 2 gold cards");
});

test("the glossary in docs/ has each language's words for the roles and cards", async () => {
  const glossary = readFileSync(join(root, "docs/glossary.md"), "utf8").toLowerCase();
  for (const code of LANGS) {
    const d = await strings(code);
    for (const k of [
      "role.gold_digger",
      "role.saboteur",
      "card.map",
      "card.rockfall",
      "path.tunnel",
      "tool.pickaxe",
      "tool.lantern",
      "tool.cart",
    ]) {
      assert.ok(glossary.includes(d[k].toLowerCase()), `docs/glossary.md lacks ${code}'s ${k}: ${d[k]}`);
    }
    // And every form a card takes in the client's sentences, as the client has it.
    for (const m of (await sentences(code)).filter((m) => /^(card|path)-/.test(m.id)))
      for (const [k, form] of Object.entries(m.cases)) {
        const shown = form.replace("{$n}", "{n}").toLowerCase();
        assert.ok(
          glossary.includes(`| ${shown} |`) || glossary.includes(`| ${shown}\n`),
          `docs/glossary.md lacks ${code}'s ${m.id}.${k}: ${form}`,
        );
      }
  }
});

test("api/web/bundle.js is what esbuild makes of the client's modules", () => {
  const out = join(mkdtempSync(join(tmpdir(), "saboteur-bundle-")), "bundle.js");
  const script = JSON.parse(readFileSync(join(here, "package.json"), "utf8")).scripts.bundle;
  // The committed script, with the output sent elsewhere: run where npm runs it.
  execFileSync(
    "sh",
    [
      "-c",
      script
        .replace("--outfile=../../api/web/bundle.js", `--outfile=${out}`)
        .replace(/^(NODE_PATH=\S+ )?esbuild/, (_, env) => `${env ?? ""}${bin("esbuild")}`),
    ],
    { cwd: here, stdio: "pipe" },
  );
  assert.equal(
    readFileSync(out, "utf8"),
    readFileSync(join(web, "bundle.js"), "utf8"),
    "the bundle is stale: run `npm run bundle` in tests/browser",
  );
});

test("the web client and these tests are formatted and linted as Biome says (npm run lint)", () => {
  const script = JSON.parse(readFileSync(join(here, "package.json"), "utf8")).scripts.lint;
  // The committed script (from the repository's root), with colours off for the report.
  try {
    execFileSync("sh", ["-c", script.replace(/\bbiome ci\b/, `${bin("biome")} ci --colors=off`)], {
      cwd: here,
      stdio: "pipe",
    });
  } catch (e) {
    assert.fail(`Biome found problems (npm run format fixes the formatting):\n${e.stdout}${e.stderr}`);
  }
});

// Rooms a person can hold, as tests/tests/rooms.rs measures the Rust sources: no module of the
// web client over 600 lines, no function in one over 150, from the line it starts on to its
// closing brace, the functions nested in it counted with it (Biome counts those apart). The
// generated bundle is left out. No file of these tests over 600 lines either (their functions,
// a test each, may run longer, as the Rust tests' do).
test("no module of the web client or file of these tests over 600 lines, and no function in one over 150", () => {
  const offenders = [];
  /** Each offence of the file `name` (its text `text`) against the sizes. @param {string} name @param {string} text */
  const measure = (name, text) => {
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if (lines > 600) offenders.push(`${name}: ${lines} lines (file, at most 600)`);
    const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
    const line = (/** @type {number} */ at) => source.getLineAndCharacterOfPosition(at).line + 1;
    const visit = (/** @type {import("typescript").Node} */ node) => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const [from, to] = [line(node.getStart(source)), line(node.end)];
        if (to - from + 1 > 150) offenders.push(`${name}:${from}: ${to - from + 1} lines (function, at most 150)`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  };
  for (const file of readdirSync(web).filter((f) => f.endsWith(".js") && f !== "bundle.js"))
    measure(file, readFileSync(join(web, file), "utf8"));
  for (const file of readdirSync(here).filter((f) => f.endsWith(".mjs")))
    measure(`tests/browser/${file}`, readFileSync(join(here, file), "utf8"));
  assert.deepEqual(offenders, []);
});
