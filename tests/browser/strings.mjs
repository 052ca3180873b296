// A language's strings of the web client, by key (api/web/lang-{code}*.js), for the tests: read
// as a module whatever the package type around it.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const web = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "api", "web");

/** One module's strings. @param {string} file @returns {Promise<Record<string, string>>} */
const module = async (file) =>
  (await import(`data:text/javascript,${encodeURIComponent(readFileSync(join(web, file), "utf8"))}`)).default;

/** A language's strings: its two modules' (lang-{code}.js and lang-{code}-problems.js). @param {string} code */
export const strings = async (code) => ({
  ...(await module(`lang-${code}.js`)),
  ...(await module(`lang-${code}-problems.js`)),
});
