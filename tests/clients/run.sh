#!/usr/bin/env bash
# The example clients against a live server, as a third-party developer would use them: each
# client generated from the committed spec (not committed itself), type-checked strictly, then
# playing a base game and a Saboteur 2 game to the end. `cargo xtask test` runs it with
# SABOTEUR_BIN naming the server binary the workspace's tests built (any build of it serves); it
# ends with `N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")"
here=$(pwd)
spec="$here/../../openapi/openapi.json"
bin="${SABOTEUR_BIN:?run through cargo xtask test, or set SABOTEUR_BIN to the saboteur binary}"
venv="${CLIENTS_VENV:-${TMPDIR:-/tmp}/saboteur-clients-venv}"
source "$here/../../xtask/throwaway-server.sh"
# Every client and bot below plays from 127.0.0.1, a few minutes of games one after another:
# each keeps within the default per-client limits on its own, all of them together would not
# (600 writes a minute). The limits stay on (their headers and 429s are as a client meets
# them), ten times the defaults.
throwaway_server "$bin" --limit-writes 6000/min --limit-joins 1200/min --limit-creates 600/h \
  --limit-reads 30000/min || exit 1

passed=0
failed=0
# check NAME COMMAND...: one test; its output is shown when it fails.
check() {
  local name=$1
  shift
  if "$@" >"$work/out" 2>&1; then
    passed=$((passed + 1))
    echo "ok - $name"
  else
    failed=$((failed + 1))
    echo "not ok - $name"
    sed 's/^/    /' "$work/out"
  fi
}
# game NAME LINES COMMAND...: a whole game, whose output must have a line starting with each
# of LINES (regular expressions, one per line) and a final score.
game() {
  local name=$1 lines=$2 line ok=1
  shift 2
  "$@" >"$work/game" 2>&1 || ok=0
  while read -r line; do
    grep -q "^$line" "$work/game" || ok=0
  done <<<"$lines"$'\n''final score: '
  if [ "$ok" = 1 ]; then
    passed=$((passed + 1))
    echo "ok - $name: $(grep '^final score' "$work/game")"
  else
    failed=$((failed + 1))
    echo "not ok - $name"
    sed 's/^/    /' "$work/game"
  fi
}
# walkthrough LANG MARK: the fenced LANG block of docs/clients.md that contains MARK, with the
# server's address put in: the docs' whole bots are run as a reader would paste them.
walkthrough() {
  awk -v lang="$1" -v mark="$2" '
    $0 == "```" lang { inside = 1; block = ""; next }
    inside && $0 == "```" { inside = 0; if (index(block, mark)) { printf "%s", block; exit } next }
    inside { block = block $0 "\n" }
  ' "$here/../../docs/clients.md" | sed "s#http://127.0.0.1:8080#$base#"
}
# A base game shows the 412 and 422 handling and the receipts it kept agreeing with the record.
base_game='412 precondition_failed
401 signature_required: an unsigned command
422 [a-z_]*:
stream: every one of [1-9][0-9]* events once, in order
signed: [1-9][0-9]* acts with 1 key$
receipts: [1-9][0-9]* kept, every one agrees'
# A clocked Saboteur 2 game online: talk, an undo request, a token issued again (the server
# ends the stream opened with the old one) and a dropped stream, both resumed with
# Last-Event-ID; every event of the stream followed once, every command timed and none timed
# out, and receipts `saboteur verify` accepts offline with the keys kept from first contact,
# every act of each seat signed by a key the client registered for it (`--player-key`; seat 0
# has two, its key registered again after the new token).
online_game='412 precondition_failed
undo requested: 20[02]
token of seat 0 issued again
key of seat 0 registered again
stream of the old token ended by the server
stream resumed with the new token
stream dropped after event
stream: every one of [1-9][0-9]* events once, in order
clock: [1-9][0-9]* commands recorded with their time, 0 timeouts
signed: [1-9][0-9]* acts with 3 keys
verify: ok ([1-9][0-9]* receipts)
verify: every act of seat 0 is signed by the key [0-9a-f ]* or [0-9a-f ]*$
verify: every act of seat [1-9][0-9]* is signed by the key [0-9a-f ]*$'

# The README's curl walkthrough, as pasted.
check "readme: the API walkthrough runs as pasted" env SABOTEUR_BIN="$bin" bash "$here/readme.sh"

# The release archive (`cargo xtask dist`), packed from this build and started from its folder.
check "release: the packed server runs from its own folder" env SABOTEUR_BIN="$bin" bash "$here/released.sh"

# TypeScript: openapi-typescript + openapi-fetch, tsc --strict.
ts="$here/typescript"
check "typescript: npm ci" npm ci --prefix "$ts" --no-audit --no-fund
check "typescript: generate the client from the spec" \
  "$ts/node_modules/.bin/openapi-typescript" "$spec" --default-non-nullable=false -o "$ts/generated/api.d.ts"
check "typescript: tsc --strict" "$ts/node_modules/.bin/tsc" -p "$ts/tsconfig.json"
game "typescript: plays a base game" "$base_game" node "$ts/dist/src/bot.js" "$base" base 4
game "typescript: plays a clocked Saboteur 2 game online" "$online_game" \
  env SABOTEUR_BIN="$bin" node "$ts/dist/src/bot.js" "$base" online 4
# The TypeScript SDK (sdk/typescript): packed as docs/clients.md says (`npm ci && npm pack`:
# the types generated from the spec and compiled into the package), installed from the packed
# file by a project of its own with no install script to run, its version the spec's, checked
# with tsc --strict with its tests, and its tests against this server.
tssdk=$(cd "$here/../../sdk/typescript" && pwd)
app="$work/ts-app"
rm -rf "$tssdk/node_modules" "$tssdk/dist" "$tssdk/build" "$tssdk/src/generated" "$tssdk"/*.tgz
mkdir -p "$app" && printf '{ "name": "mine", "private": true, "type": "module" }\n' >"$app/package.json"
check "typescript sdk: npm ci && npm pack" bash -c "cd '$tssdk' && npm ci --no-audit --no-fund && npm pack"
check "typescript sdk: npm install the packed file" bash -c \
  "cd '$app' && npm install --no-audit --no-fund '$tssdk'/saboteur-sdk-*.tgz typescript@5.9.3 @types/node@20.19.43"
check "typescript sdk: the package runs no install script" env -C "$app" node --input-type=module -e '
import { readFileSync } from "node:fs";
const { scripts = {} } = JSON.parse(readFileSync("node_modules/saboteur-sdk/package.json", "utf8"));
const run = ["preinstall", "install", "postinstall", "prepare"].filter((s) => s in scripts);
if (run.length) throw new Error(`install scripts: ${run}`);'
check "typescript sdk: its version is the spec's info.version" env -C "$app" node --input-type=module -e '
import { readFileSync } from "node:fs";
import { API_VERSION } from "saboteur-sdk";
const spec = JSON.parse(readFileSync(process.argv[1], "utf8")).info.version;
const version = JSON.parse(readFileSync("node_modules/saboteur-sdk/package.json", "utf8")).version;
if (version !== spec || API_VERSION !== spec) throw new Error(`${version}, ${API_VERSION}: not ${spec}`);' "$spec"
check "typescript sdk: tsc --strict (the package and its tests)" "$tssdk/node_modules/.bin/tsc" -p "$tssdk/test/tsconfig.json"
check "typescript sdk: its tests against the server" bash -c \
  "cd '$tssdk' && SABOTEUR_URL='$base' SABOTEUR_BIN='$bin' node --test build/test/sdk.test.js"
# The whole bot of docs/clients.md, on the SDK as the docs say, checked and run.
walkthrough ts 'from "saboteur-sdk"' >"$app/mine.ts"
check "typescript: the docs' whole bot is at most 60 lines" test "$(wc -l <"$app/mine.ts")" -le 60
check "typescript: the docs' whole bot compiles with tsc --strict against the SDK" bash -c \
  "cd '$app' && node_modules/.bin/tsc --strict --module nodenext --target es2022 mine.ts"
for ruleset in base saboteur2; do
  check "typescript: the docs' whole bot plays a $ruleset game and verifies its receipts" bash -c \
    "cd '$app' && PATH='$(dirname "$bin")':\$PATH node mine.js $ruleset | tee out && grep -q '^every act of seat 0 is signed by the key' out && grep -q '^game over: [1-9][0-9]* receipts verified' out"
done

# Python: openapi-python-client, mypy --strict.
py="$here/python"
if [ ! -x "$venv/bin/openapi-python-client" ] || [ ! -x "$venv/bin/openapi-generator-cli" ] ||
  [ ! -x "$venv/bin/pytest" ] || ! "$venv/bin/python" -c "import httpx_sse, cryptography, rfc8785" 2>/dev/null; then
  check "python: a virtual environment with the generator and mypy" \
    bash -c "python3 -m venv '$venv' && '$venv/bin/pip' install -q -r '$py/requirements.txt'"
fi
rm -rf "$py/generated"
check "python: generate the client from the spec" env PATH="$venv/bin:$PATH" \
  "$venv/bin/openapi-python-client" generate --path "$spec" --config "$py/config.yaml" \
  --meta none --output-path "$py/generated/saboteur_client"
check "python: mypy --strict" env MYPYPATH="$py/generated" \
  "$venv/bin/mypy" --strict --config-file "$py/mypy.ini" --cache-dir "$work/mypy" \
  "$py/bot.py" "$py/saboteur_wrap.py"
game "python: plays a base game" "$base_game" env PYTHONPATH="$py/generated" \
  "$venv/bin/python" "$py/bot.py" "$base" base 4
game "python: plays a clocked Saboteur 2 game online" "$online_game" \
  env PYTHONPATH="$py/generated" SABOTEUR_BIN="$bin" "$venv/bin/python" "$py/bot.py" "$base" online 4
# The Python SDK (sdk/python): installed as a reader would (`pip install ./sdk/python` from the
# repository's root: the client is generated from the spec as the wheel is built), its version
# the spec's, checked with mypy --strict, and its tests against this server.
sdk="$here/../../sdk/python"
"$venv/bin/pip" uninstall -q -y saboteur-sdk >/dev/null 2>&1
check "python sdk: pip install ./sdk/python" bash -c "cd '$here/../..' && '$venv/bin/pip' install -q ./sdk/python"
check "python sdk: its version is the spec's info.version" "$venv/bin/python" -c "
import json, sys
from importlib.metadata import version
spec = json.load(open(sys.argv[1]))['info']['version']
assert version('saboteur-sdk') == spec, (version('saboteur-sdk'), spec)" "$spec"
check "python sdk: mypy --strict" bash -c \
  "cd '$sdk' && '$venv/bin/mypy' --strict --cache-dir '$work/mypy-sdk' saboteur_sdk tests"
mkdir -p "$work/sdk-tests"
check "python sdk: its tests against the server" bash -c \
  "cd '$work/sdk-tests' && SABOTEUR_URL='$base' SABOTEUR_BIN='$bin' '$venv/bin/python' -m pytest -q -p no:cacheprovider '$sdk/tests'"
# The whole bot of docs/clients.md, on the SDK as the docs say, checked and run.
mkdir -p "$work/py-walk"
walkthrough python "from saboteur_sdk import" >"$work/py-walk/mine.py"
check "python: the docs' whole bot is at most 60 lines" test "$(wc -l <"$work/py-walk/mine.py")" -le 60
check "python: the docs' whole bot passes mypy --strict" bash -c \
  "cd '$work/py-walk' && '$venv/bin/mypy' --strict --cache-dir '$work/mypy-sdk' mine.py"
for ruleset in base saboteur2; do
  check "python: the docs' whole bot plays a $ruleset game and verifies its receipts" bash -c \
    "cd '$work/py-walk' && PATH='$(dirname "$bin")':\$PATH '$venv/bin/python' mine.py $ruleset | tee out && grep -q '^every act of seat 0 is signed by the key' out && grep -q '^game over: [1-9][0-9]* receipts verified' out"
done

# The previous release's clients (tests/clients/previous/): generated from the spec that release
# published and driven by the whole bots its docs gave, kept as a client written then would be,
# each playing a game against this server and verifying its receipts. A minor version must not
# break them (docs/clients.md, "Versions").
prev="$here/previous"
prev_version=$("$venv/bin/python" -c 'import json, sys; print(json.load(open(sys.argv[1]))["info"]["version"])' "$prev/openapi.json")
mkdir -p "$work/prev-py" "$work/prev-ts/src" "$work/prev-ts/generated"
check "previous release $prev_version, python: generate its client" env PATH="$venv/bin:$PATH" \
  "$venv/bin/openapi-python-client" generate --path "$prev/openapi.json" --config "$py/config.yaml" \
  --meta none --output-path "$work/prev-py/saboteur_client"
cp "$prev/saboteur_wrap.py" "$work/prev-py/"
sed "s#http://127.0.0.1:8080#$base#" "$prev/bot.py" >"$work/prev-py/bot.py"
# Games are recorded under record version 7 now (CHANGELOG 0.15.0 and 0.16.0, breaking for
# signing clients): the previous release's bots, which sign record version 5 only, create the
# game, take a seat and start it through their generated clients, then refuse it loudly before
# any act, as they were written to.
refused="the game is of record version 7; this client signs record version 5 only"
check "previous release $prev_version, python: its bot sets a game up, then refuses record version 7 before any act" bash -c \
  "cd '$work/prev-py' && if PATH='$(dirname "$bin")':\$PATH PYTHONPATH='$work/prev-py' '$venv/bin/python' bot.py >out 2>&1; then cat out; exit 1; fi; grep -q '$refused' out || { cat out; exit 1; }"
cp "$ts/tsconfig.json" "$ts/package.json" "$work/prev-ts/"
cp "$prev/client.ts" "$work/prev-ts/src/"
sed "s#http://127.0.0.1:8080#$base#" "$prev/bot.ts" >"$work/prev-ts/src/mine.ts"
ln -sfn "$ts/node_modules" "$work/prev-ts/node_modules"
check "previous release $prev_version, typescript: generate its types" \
  "$ts/node_modules/.bin/openapi-typescript" "$prev/openapi.json" --default-non-nullable=false -o "$work/prev-ts/generated/api.d.ts"
check "previous release $prev_version, typescript: tsc --strict" "$ts/node_modules/.bin/tsc" -p "$work/prev-ts/tsconfig.json"
check "previous release $prev_version, typescript: its bot sets a game up, then refuses record version 7 before any act" bash -c \
  "cd '$work/prev-ts' && if PATH='$(dirname "$bin")':\$PATH node dist/src/mine.js >out 2>&1; then cat out; exit 1; fi; grep -q '$refused' out || { cat out; exit 1; }"

# Rust: openapi-generator (its `rust` generator: reqwest, blocking), compiled with cargo. The
# generator runs on Java; its PyPI package carries it.
if command -v java >/dev/null; then
  check "rust: generate the client from the spec (openapi-generator)" \
    "$venv/bin/openapi-generator-cli" generate -i "$spec" -g rust -o "$work/rust" \
    --additional-properties=packageName=saboteur-client,supportAsync=false
  check "rust: cargo check the generated client" env CARGO_TARGET_DIR="${TMPDIR:-/tmp}/saboteur-rust-client" \
    cargo check --quiet --manifest-path "$work/rust/Cargo.toml" --no-default-features
else
  failed=$((failed + 1))
  echo "not ok - rust: openapi-generator needs Java (apt-get install default-jre-headless)"
fi

# Go: openapi-generator's `go` generator, built with Debian's Go and nothing fetched (the one
# library the generated code imports, gopkg.in/validator.v2, from Debian's
# golang-gopkg-validator.v2-dev), then a bot that plays a base game to its end and verifies it
# offline: `saboteur verify` accepts its receipts with the keys kept from first contact, and
# every act of its seat is signed by its key (`--player-key`).
go_dir="$here/go"
validator=/usr/share/gocode/src/gopkg.in/validator.v2
if command -v go >/dev/null && command -v java >/dev/null && [ -d "$validator" ]; then
  rm -rf "$go_dir/generated" "$go_dir/validator"
  check "go: generate the client from the spec (openapi-generator)" \
    "$venv/bin/openapi-generator-cli" generate -i "$spec" -g go -o "$go_dir/generated" \
    --git-host example.invalid --git-user-id saboteur --git-repo-id client \
    --additional-properties=packageName=saboteur,enumClassPrefix=true,useOneOfDiscriminatorLookup=true \
    --type-mappings UnsignedLong=uint64 \
    --global-property=apiTests=false,modelTests=false,apiDocs=false,modelDocs=false
  cp "$go_dir/_extra/"*.go "$go_dir/generated/"
  mkdir -p "$go_dir/validator"
  cp "$validator"/*.go "$go_dir/validator/" && rm -f "$go_dir/validator/"*_test.go
  printf 'module gopkg.in/validator.v2\n\ngo 1.19\n' >"$go_dir/validator/go.mod"
  (cd "$go_dir/generated" && go mod edit -go=1.19 -replace gopkg.in/validator.v2=../validator)
  goenv=(env GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off GOCACHE="${TMPDIR:-/tmp}/saboteur-go-cache")
  check "go: go vet" bash -c "cd '$go_dir' && ${goenv[*]} go vet ./..."
  check "go: build the bot" bash -c "cd '$go_dir' && ${goenv[*]} go build -o '$work/go-bot' ."
  go_game='final score: .*every one followed
signed: [1-9][0-9]* acts with 1 key$
verify: ok ([1-9][0-9]* receipts)
verify: every act of seat 0 is signed by the key [0-9a-f ]*$'
  game "go: plays a base game and verifies it offline" "$go_game" env SABOTEUR_BIN="$bin" "$work/go-bot" "$base"
else
  failed=$((failed + 1))
  echo "not ok - go: needs Go, Java and Debian's validator (apt-get install golang-go default-jre-headless golang-gopkg-validator.v2-dev)"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
