// A language's strings of the web client, by key (api/web/lang-{code}.js), for the tests: read
// as a module whatever the package type around it.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const web = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "api", "web");

/** @param {string} code @returns {Promise<Record<string, string>>} */
export const strings = async (code) =>
  (await import(`data:text/javascript,${encodeURIComponent(readFileSync(join(web, `lang-${code}.js`), "utf8"))}`))
    .default;
