# Sourced by the test scripts: `throwaway_server BIN [SERVE ARGS…]` starts `BIN serve` (with
# those arguments) on a loopback port with a fresh SQLite file in a temporary folder and waits
# until it answers `/healthz`. It sets `base` (the server's URL) and `work` (the folder, removed
# with the server on exit).
throwaway_server() {
  work=$(mktemp -d)
  local port=$((18000 + RANDOM % 2000))
  base="http://127.0.0.1:$port"
  "$1" serve --bind "127.0.0.1:$port" --database-url "sqlite://$work/server.db" "${@:2}" >"$work/server.log" 2>&1 &
  # shellcheck disable=SC2064 # expanded now, on purpose: this server, this folder.
  trap "kill $! 2>/dev/null; rm -rf '$work'" EXIT
  for _ in $(seq 200); do
    python3 -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1])" "$base/healthz" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "the server did not answer at $base/healthz:" >&2
  cat "$work/server.log" >&2
  return 1
}
