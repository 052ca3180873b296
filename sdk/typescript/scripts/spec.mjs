// Writes what the SDK needs of the spec at run time (its types come from openapi-typescript):
// the API's version and the event types it names. Refuses to build a package whose version is
// not the spec's `info.version`.
//
//   node scripts/spec.mjs ../../openapi/openapi.json src/generated/spec.ts
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

const [specPath, out] = process.argv.slice(2);
const spec = JSON.parse(readFileSync(specPath, "utf8"));
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
if (pkg.version !== spec.info.version) {
  console.error(`package.json's version ${pkg.version} is not the spec's ${spec.info.version}`);
  process.exit(1);
}
const types = Object.keys(spec.components.schemas.Event.discriminator.mapping).sort();
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `// Generated from the spec when the package is built (scripts/spec.mjs).
import type { components } from "./api.js";

/** The API's version this SDK was generated from: the spec's \`info.version\`. */
export const API_VERSION = ${JSON.stringify(spec.info.version)};

// Checked by tsc against the generated types: every event type, and nothing else.
const known: Record<components["schemas"]["Event"]["type"], true> = {
${types.map((t) => `  ${t}: true,\n`).join("")}};

/** Every event type the spec names. */
export const EVENT_TYPES: ReadonlySet<string> = new Set(Object.keys(known));
`);
