#!/usr/bin/env bash
# The release archive, as README.md's "Run a released server" has a newcomer use it: packed by
# xtask/dist.sh (what `cargo xtask dist` runs) from the server binary the tests built, its
# checksum checked, unpacked into an empty folder and started there with nothing but a port.
# It must serve on its embedded default (a SQLite file created in that folder): the health
# check, the web client, the spec, a game created, and the verifier it carries.
set -euo pipefail
cd "$(dirname "$0")"
bin="${SABOTEUR_BIN:?set SABOTEUR_BIN to the saboteur binary}"
work=$(mktemp -d)
pid=
# shellcheck disable=SC2064 # expanded now, on purpose: this folder.
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "'"$work"'"' EXIT
archive=$(bash ../../xtask/dist.sh "$bin" "$work/dist")
(cd "$work/dist" && sha256sum -c --quiet ./*.sha256)
mkdir "$work/home"
tar -xzf "$archive" -C "$work/home"
folder=$(echo "$work"/home/saboteur-*)
[ -x "$folder/saboteur" ] && [ -f "$folder/LICENSE" ] && [ -f "$folder/README.md" ] \
  || { echo "the archive lacks saboteur, LICENSE or README.md:"; ls -R "$work/home"; exit 1; }
"$folder/saboteur" --version | grep -q '^saboteur [0-9]' || { echo "no version"; exit 1; }
cd "$folder"
port=$((20000 + RANDOM % 2000))
base="http://127.0.0.1:$port"
./saboteur serve --bind "127.0.0.1:$port" >"$work/server.log" 2>&1 &
pid=$!
fetch() { python3 -c 'import sys, urllib.request as u; sys.stdout.write(u.urlopen(u.Request(sys.argv[1], data=sys.argv[2].encode() if len(sys.argv) > 2 else None, headers={"Content-Type": "application/json"})).read().decode())' "$@"; }
for _ in $(seq 200); do fetch "$base/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
fetch "$base/healthz" >/dev/null || { echo "no answer at $base/healthz:"; cat "$work/server.log"; exit 1; }
fetch "$base/" | grep -q '<html' || { echo "no web client at /"; exit 1; }
fetch "$base/openapi.json" | grep -q '"openapi"' || { echo "no spec at /openapi.json"; exit 1; }
fetch "$base/games" '{"ruleset": "base", "players": 4}' | grep -q '"host_token"' \
  || { echo "no game created"; cat "$work/server.log"; exit 1; }
[ -s saboteur.db ] || { echo "no saboteur.db in the folder it runs in:"; ls -la; exit 1; }
./saboteur verify --help >/dev/null || { echo "no verify subcommand"; exit 1; }
echo "the release archive $(basename "$archive") runs from its own folder"
