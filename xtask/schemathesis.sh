#!/usr/bin/env bash
# Schemathesis against the live server's own spec: no 5xx, and no status code, content type,
# header or body that the spec does not declare.
set -euo pipefail
# `cargo xtask test` runs it with SCHEMATHESIS naming the installed tool.
cd "$(dirname "$0")/.."
schemathesis="${SCHEMATHESIS:?run through cargo xtask test, which installs Schemathesis}"
db=$(mktemp -d)
cargo build -q -p saboteur-api
port=18089
"${CARGO_TARGET_DIR:-target}/debug/saboteur" serve --bind "127.0.0.1:$port" --database-url "sqlite://$db/st.db" >"$db/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$db"' EXIT
for _ in $(seq 100); do
  python3 -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1])" "http://127.0.0.1:$port/healthz" 2>/dev/null && break
  sleep 0.2
done
"$schemathesis" run "http://127.0.0.1:$port/openapi.json" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
  --max-examples 25 --seed 1 --no-color
