// Builds the package where it lies: `npm install` in this folder runs it, and so does
// `npm install <path to this folder>` from another project, which links the folder and runs its
// `prepare` without installing its dependencies. So it first installs what package-lock.json
// pins when it is missing (into this folder's node_modules, where the linked package's imports
// resolve), then generates the types from the spec (openapi-typescript, scripts/spec.mjs) and
// compiles with tsc. Nothing it makes is committed.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const spec = join(here, "../../openapi/openapi.json");
const tools = ["typescript/bin/tsc", "openapi-typescript/bin/cli.js", "openapi-fetch/package.json",
  "eventsource-parser/package.json", "canonicalize/package.json", "@types/node/package.json"];
const run = (file, args) => execFileSync(file, args, { cwd: here, stdio: "inherit" });

if (!tools.every((tool) => existsSync(join(here, "node_modules", tool)))) {
  // The same npm that runs this script, with this folder as its prefix whatever the caller's.
  const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ["npm"];
  run(npm[0], [...npm.slice(1), "ci", "--prefix", here, "--include=dev", "--ignore-scripts",
    "--no-audit", "--no-fund", "--install-links=false"]);
}
run(process.execPath, [join(here, "node_modules/openapi-typescript/bin/cli.js"), spec,
  "--default-non-nullable=false", "-o", join(here, "src/generated/api.ts")]);
run(process.execPath, [join(here, "scripts/spec.mjs"), spec, join(here, "src/generated/spec.ts")]);
run(process.execPath, [join(here, "node_modules/typescript/bin/tsc"), "-p", join(here, "tsconfig.json")]);
