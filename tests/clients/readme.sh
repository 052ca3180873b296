#!/usr/bin/env bash
# The README's "API in five minutes" block, run as a reader would paste it, against a
# throwaway server: every command must succeed, and the answers must be what the comments
# say (a game, a seat, bots, a start, a legal command recorded, the stream, the log, talk).
set -uo pipefail
cd "$(dirname "$0")"
bin="${SABOTEUR_BIN:?set SABOTEUR_BIN to the saboteur binary}"
source ../../xtask/throwaway-server.sh
throwaway_server "$bin" || exit 1
# The block between "## The API in five minutes"'s ```sh and ```, aimed at this server.
awk '/^## The API in five minutes/{f=1} f&&/^```sh$/{g=1;next} g&&/^```$/{exit} g' ../../README.md \
  | sed "s#localhost:8080#${base#http://}#g" >"$work/walkthrough.sh"
[ -s "$work/walkthrough.sh" ] || { echo "no walkthrough found in README.md"; exit 1; }
# Run as pasted (the stream's curl ends at its --max-time on purpose); then check the answers.
bash "$work/walkthrough.sh" >"$work/out" 2>&1
ok=1
expect() {
  if grep -q -- "$1" "$work/out"; then :; else echo "the walkthrough's output lacks $1"; ok=0; fi
}
expect '"host_token"'             # the game was created
expect '"seat":1'                 # the bots took seats
expect '"type":"command_accepted","seat":0' # Ada's legal command was recorded
expect '^event: command_accepted' # the stream showed it
expect '"type":"talk_posted"'     # the talk went into the log
if grep -q '"status":[45][0-9][0-9]' "$work/out"; then
  echo "the walkthrough met a problem:"; grep '"status":[45]' "$work/out"; ok=0
fi
[ "$ok" = 1 ] || { cut -c1-300 "$work/out" | sed 's/^/    /'; exit 1; }
echo "the README's walkthrough runs"
