// The web client cannot drift from the spec: api/types/api.d.ts is what openapi-typescript
// makes of openapi/openapi.json, and tsc checks the client's JSDoc types against it.
// Regenerate after a spec change: npm run types
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

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

test("the web client type-checks against the spec's types", () => {
  try {
    execFileSync(bin("tsc"), ["-p", join(here, "tsconfig.json")], { stdio: "pipe" });
  } catch (e) {
    assert.fail(`tsc found errors:\n${e.stdout}${e.stderr}`);
  }
});
