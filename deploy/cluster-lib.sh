# deploy/cluster-lib.sh: the helpers of deploy/cluster.sh (processes, waiting, rendering),
# sourced by it after its arguments and ports are set. Not a command of its own.
# shellcheck shell=bash

# ---------------------------------------------------------------------------------------------
# Processes

# Whether pid $1 is one of this cluster's: alive, and started in DIR (its working directory is
# in DIR, or DIR is in its command line). A stale pid file never names anybody else.
ours() {
  local pid=$1 cwd
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  cwd=$(readlink "/proc/$pid/cwd" 2>/dev/null || true)
  [[ $cwd == "$DIR" || $cwd == "$DIR"/* ]] && return 0
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$DIR/"
}

pid_of() {
  local file=$DIR/$1.pid
  if [[ -f $file ]]; then head -n 1 "$file"; fi
}

# Stops the given pids: SIGTERM (or $SIG), then SIGKILL to those still alive after $1 seconds.
stop_pids() {
  local wait=$1 pid left deadline
  shift
  local pids=()
  for pid in "$@"; do
    ours "$pid" && pids+=("$pid")
  done
  ((${#pids[@]})) || return 0
  kill "-${SIG:-TERM}" "${pids[@]}" 2>/dev/null || true
  deadline=$(($(date +%s) + wait))
  while :; do
    left=()
    for pid in "${pids[@]}"; do
      kill -0 "$pid" 2>/dev/null && left+=("$pid")
    done
    ((${#left[@]})) || return 0
    (($(date +%s) < deadline)) || break
    sleep 0.1
  done
  say "still running after ${wait}s, killing: ${left[*]}"
  kill -KILL "${left[@]}" 2>/dev/null || true
  sleep 0.2
}

# Stops the processes named by DIR/NAME.pid files.
stop_named() {
  local wait=$1 name pids=()
  shift
  for name in "$@"; do
    pids+=("$(pid_of "$name")")
  done
  stop_pids "$wait" "${pids[@]}"
}

# Every process left of this cluster: a postgres, etcd, haproxy, patroni or saboteur whose
# working directory is in DIR or whose command line names DIR.
leftovers() {
  local proc pid comm
  for proc in /proc/[0-9]*; do
    pid=${proc#/proc/}
    [[ $pid == "$$" ]] && continue
    comm=$(cat "$proc/comm" 2>/dev/null || true)
    case $comm in
    postgres | etcd | haproxy | patroni | saboteur | python3) ;;
    *) continue ;;
    esac
    ours "$pid" && echo "$pid"
  done
  return 0
}

# Stops everything of the cluster in DIR, in order; safe on a half-started or stopped one.
stop_all() {
  local names=(haproxy) file pid
  for file in "$DIR"/server*.pid; do
    [[ -f $file ]] && names+=("$(basename "$file" .pid)")
  done
  # The servers and HAProxy together (a server finishes its requests within 15 s).
  stop_named 15 "${names[@]}"
  # Patroni stops its PostgreSQL (fast shutdown) and then gives up its leader key.
  stop_named 30 node1 node2
  # A postmaster left behind (its Patroni killed): SIGINT, its fast shutdown; then any backend
  # of it.
  for file in "$DIR"/node*/data/postmaster.pid; do
    [[ -f $file ]] || continue
    pid=$(head -n 1 "$file")
    SIG=INT stop_pids 10 "$pid"
  done
  stop_named 10 etcd1 etcd2 etcd3
  mapfile -t left < <(leftovers)
  if ((${#left[@]})); then
    stop_pids 5 "${left[@]}"
  fi
  mapfile -t left < <(leftovers)
  if ((${#left[@]})); then
    say "warning: still running: ${left[*]}"
    return 1
  fi
}

# Starts a command in the background, in its own session, in DIR, its output appended to
# DIR/logs/NAME.log and its pid in DIR/NAME.pid.
start_bg() {
  local name=$1
  shift
  (cd "$DIR" && exec setsid "$@" </dev/null >>"$DIR/logs/$name.log" 2>&1) &
  echo $! >"$DIR/$name.pid"
}

# ---------------------------------------------------------------------------------------------
# Waiting

# The tail of DIR/logs/NAME.log, for a failure message.
log_tail() {
  local file=$DIR/logs/$1.log
  if [[ -f $file ]]; then
    echo "---- last lines of $file ----" >&2
    tail -n "${2:-40}" "$file" >&2
    echo "----" >&2
  fi
}

# wait_until WHAT NAMES CHECK...: runs CHECK until it succeeds, for at most TIMEOUT seconds;
# fails with the tail of DIR/logs/NAME.log for each of the comma-separated NAMES, at once when
# the process of one of them has died.
wait_until() {
  local what=$1 logs=$2 deadline pid name
  shift 2
  deadline=$(($(date +%s) + TIMEOUT))
  until "$@"; do
    for name in ${logs//,/ }; do
      pid=$(pid_of "$name")
      if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then
        log_tail "$name"
        die "$name (pid $pid) exited while waiting for $what"
      fi
    done
    if (($(date +%s) >= deadline)); then
      for name in ${logs//,/ }; do log_tail "$name" 25; done
      die "timed out after ${TIMEOUT}s waiting for $what"
    fi
    sleep 0.2
  done
}

http_code() {
  curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$1" 2>/dev/null || true
}

http_ok() { [[ $(http_code "$1") == 200 ]]; }

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

rest_url() { # node number
  if (($1 == 1)); then echo "http://127.0.0.1:$NODE1_REST_PORT"; else echo "http://127.0.0.1:$NODE2_REST_PORT"; fi
}

# The number of the node whose Patroni says it is the primary, or nothing.
leader() {
  local n
  for n in 1 2; do
    if http_ok "$(rest_url "$n")/primary"; then
      echo "$n"
      return 0
    fi
  done
  return 0
}

# Whether there is a primary and the other node is its synchronous standby, streaming: the
# standby's Patroni answers 200 on /sync, and the primary's pg_stat_replication shows it
# streaming with sync_state sync.
in_sync() {
  local l s
  l=$(leader)
  [[ -n $l ]] || return 1
  s=$((3 - l))
  http_ok "$(rest_url "$s")/sync" || return 1
  curl -s --max-time 2 "$(rest_url "$l")/patroni" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
ok = any(r.get("application_name") == sys.argv[1] and r.get("state") == "streaming"
         and r.get("sync_state") in ("sync", "quorum") for r in d.get("replication", []))
sys.exit(0 if ok else 1)' "node$s" 2>/dev/null
}

wait_sync() {
  local start
  start=$(now)
  wait_until "a primary and a streaming synchronous standby" node1,node2 in_sync
  local l
  l=$(leader)
  say "node$l is the primary, node$((3 - l)) its synchronous standby, streaming ($(since "$start")s)"
}

# ---------------------------------------------------------------------------------------------
# Rendering

# sed's replacement text for a value.
esc() { printf '%s' "$1" | sed -e 's/[\\|&]/\\&/g'; }

# render TEMPLATE OUT KEY=VALUE...: fills in every @KEY@; fails on one left unfilled.
render() {
  local template=$1 out=$2 kv args=()
  shift 2
  for kv in "$@"; do
    args+=(-e "s|@${kv%%=*}@|$(esc "${kv#*=}")|g")
  done
  sed "${args[@]}" "$template" >"$out"
  if grep -qE '@[A-Z0-9_]+@' "$out"; then
    die "$out: unfilled placeholders: $(grep -oE '@[A-Z0-9_]+@' "$out" | sort -u | tr '\n' ' ')"
  fi
}

# As root, the postgres user must be able to enter DIR. A parent of it inside the temporary
# directory that others may not enter (mktemp -d, Rust's tempfile: mode 0700) is opened for
# search only (o+x: no listing). Elsewhere the check in `up` fails with a clear message.
open_parents() {
  local tmp d
  tmp=$(realpath -m -- "${TMPDIR:-/tmp}")
  d=$(dirname "$DIR")
  while [[ $d == "$tmp"/* ]]; do
    if (($(stat -c %a "$d") % 2 == 0)); then
      chmod o+x "$d"
      say "let the postgres user enter $d (chmod o+x)"
    fi
    d=$(dirname "$d")
  done
}

secret() { od -An -tx1 -N12 /dev/urandom | tr -d ' \n'; }

# ---------------------------------------------------------------------------------------------
# WAL

# fill_wal N: on the primary, a checkpoint, then about N MB of WAL (a table of 1 kB rows, too
# short for PostgreSQL to compress, filled and dropped): its last checkpoint is then that far
# behind, as on a busy primary between rare checkpoints. The synchronous standby receives it
# all; it returns once the archive holds it (the last segment switched and archived).
fill_wal() {
  [[ $1 =~ ^[0-9]+$ ]] || die "--megabytes N is required"
  local l last
  l=$(leader)
  [[ -n $l ]] || die "no node answers 200 on /primary"
  # Node n's PostgreSQL listens on NODE1_PG_PORT + n - 1.
  local psql=("${AS_PG[@]}" "$PG_BIN/psql" -h "$DIR/node$l" -p "$((NODE1_PG_PORT + l - 1))"
    -U postgres -d postgres -XAtq -v ON_ERROR_STOP=1)
  "${psql[@]}" -c 'CHECKPOINT' -c 'CREATE TABLE wal_filler (b text)' \
    -c "INSERT INTO wal_filler SELECT repeat(md5(g::text), 32) FROM generate_series(1, $1 * 1000) g" \
    -c 'DROP TABLE wal_filler'
  last=$("${psql[@]}" -c 'SELECT pg_walfile_name(pg_switch_wal())')
  archived() {
    [[ $("${psql[@]}" -c "SELECT coalesce(last_archived_wal, '') >= '$last' FROM pg_stat_archiver") == t ]]
  }
  wait_until "node$l to archive $last" "node$l" archived
  echo "filled node$l's WAL with about $1 MB after a checkpoint, archived to $last, at $(date +%s.%N)"
}
