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
"$schemathesis" run "$base/openapi.json" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
  --max-examples 25 --seed 1 --no-color
