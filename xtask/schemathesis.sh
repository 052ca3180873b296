#!/usr/bin/env bash
# Schemathesis against the live server's own spec: no 5xx, and no status code, content type,
# header or body that the spec does not declare.
set -euo pipefail
# `cargo xtask test` runs it with SCHEMATHESIS naming the installed tool.
cd "$(dirname "$0")/.."
schemathesis="${SCHEMATHESIS:?run through cargo xtask test, which installs Schemathesis}"
# The server binary the other tests run (`cargo xtask test` names it), else one built here.
bin="${SABOTEUR_BIN:-}"
if [ -z "$bin" ]; then
  cargo build -q -p saboteur-api
  bin="${CARGO_TARGET_DIR:-target}/debug/saboteur"
fi
source xtask/throwaway-server.sh
throwaway_server "$bin"
conformance=status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance
"$schemathesis" run "$base/openapi.json" \
  --checks "not_a_server_error,$conformance" --exclude-path-regex '^/healthz' \
  --max-examples 25 --seed 1 --no-color
# The health probes say 503 when the database does not answer within 700 ms, which a machine
# loaded by the other tests (this server runs at the lowest priority) can make so: for them a
# 503 is a declared answer, checked for conformance like any other.
"$schemathesis" run "$base/openapi.json" \
  --checks "$conformance" --include-path-regex '^/healthz' \
  --max-examples 25 --seed 1 --no-color
