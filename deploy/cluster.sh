#!/usr/bin/env bash
# deploy/cluster.sh: a local high-availability cluster on one machine, for CI and fault tests.
#
#   etcd (one member) + two PostgreSQL nodes run by Patroni (a primary and a synchronous
#   standby) + HAProxy (writes to the primary, reads to the standbys, HTTP to the servers)
#   + N `saboteur serve` processes behind HAProxy.
#
# Commands (deploy/README.md says more):
#   cluster.sh up --dir DIR --base-port P [--servers N] [--bin PATH] [--no-servers]
#                 [--timeout S] [-- EXTRA serve args]
#   cluster.sh down --dir DIR
#   cluster.sh status --dir DIR
#   cluster.sh kill-primary --dir DIR
#   cluster.sh wait-sync --dir DIR [--timeout S]
#
# Ports, from the base port P: etcd client P, peer P+1; PostgreSQL node1 P+10, node2 P+11;
# Patroni REST node1 P+20, node2 P+21; HAProxy writes P+30, reads P+31, stats P+39, HTTP P+40;
# server i (1-based) P+40+i.
#
# Progress goes to standard error; `up` prints DIR/cluster.env (KEY='value' lines) to standard
# output. As root, Patroni and PostgreSQL run as the `postgres` user.
set -euo pipefail

# HAProxy lives in /usr/sbin, which a user's PATH may lack.
PATH=$PATH:/usr/sbin:/sbin
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
# The file that says a directory holds a cluster made by this script (and so may be removed).
MARKER=.saboteur-cluster
# The application's role and database (made by Patroni's post_bootstrap script).
APP_USER=saboteur
APP_DB=saboteur

say() { echo "cluster.sh: $*" >&2; }
die() {
  say "error: $*"
  exit 1
}

usage() {
  sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

now() { date +%s.%N; }
# Seconds since $1 (from `now`), one decimal.
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# ---------------------------------------------------------------------------------------------
# Arguments

CMD=${1:-}
[[ -n $CMD ]] || {
  usage >&2
  exit 2
}
shift
DIR=
BASE=
SERVERS=2
BIN=
NO_SERVERS=0
TIMEOUT=${CLUSTER_TIMEOUT:-60}
EXTRA=()

need() { [[ $# -ge 2 && -n $2 ]] || die "$1 needs a value"; }

while (($#)); do
  case $1 in
  --dir)
    need "$@"
    DIR=$2
    shift 2
    ;;
  --dir=*) DIR=${1#*=} && shift ;;
  --base-port)
    need "$@"
    BASE=$2
    shift 2
    ;;
  --base-port=*) BASE=${1#*=} && shift ;;
  --servers)
    need "$@"
    SERVERS=$2
    shift 2
    ;;
  --servers=*) SERVERS=${1#*=} && shift ;;
  --bin)
    need "$@"
    BIN=$2
    shift 2
    ;;
  --bin=*) BIN=${1#*=} && shift ;;
  --timeout)
    need "$@"
    TIMEOUT=$2
    shift 2
    ;;
  --timeout=*) TIMEOUT=${1#*=} && shift ;;
  --no-servers) NO_SERVERS=1 && shift ;;
  --)
    shift
    EXTRA=("$@")
    break
    ;;
  -h | --help)
    usage
    exit 0
    ;;
  *) die "unknown argument: $1 (see --help)" ;;
  esac
done

case $CMD in
up | down | status | kill-primary | wait-sync) ;;
-h | --help | help)
  usage
  exit 0
  ;;
*) die "unknown command: $CMD (up, down, status, kill-primary, wait-sync)" ;;
esac

[[ -n $DIR ]] || die "--dir DIR is required"
DIR=$(realpath -m -- "$DIR")
[[ $DIR != / && $DIR != *"'"* && $DIR != *[[:space:]]* ]] ||
  die "--dir must not be / nor hold quotes or spaces: $DIR"
[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "--timeout must be a number of seconds"
command -v curl >/dev/null || die "curl is missing (apt-get install -y curl)"

IS_ROOT=0
[[ $(id -u) == 0 ]] && IS_ROOT=1

# PostgreSQL's binaries: version 15 where Debian keeps it, else the newest one there.
PG_BIN=${PG_BIN:-}
if [[ -z $PG_BIN ]]; then
  if [[ -x /usr/lib/postgresql/15/bin/postgres ]]; then
    PG_BIN=/usr/lib/postgresql/15/bin
  else
    PG_BIN=$(find /usr/lib/postgresql -maxdepth 3 -path '*/bin/postgres' 2>/dev/null |
      sort -V | tail -n 1 | xargs -r dirname)
  fi
fi

# The ports, from the base port.
set_ports() {
  [[ -n $BASE ]] || die "--base-port P is required"
  [[ $BASE =~ ^[0-9]+$ ]] || die "--base-port must be a number (got '$BASE')"
  ((BASE >= 1024 && BASE + 40 + SERVERS <= 65535)) || die "--base-port $BASE is out of range"
  ETCD_PORT=$BASE
  ETCD_PEER_PORT=$((BASE + 1))
  NODE1_PG_PORT=$((BASE + 10))
  NODE2_PG_PORT=$((BASE + 11))
  NODE1_REST_PORT=$((BASE + 20))
  NODE2_REST_PORT=$((BASE + 21))
  WRITE_PORT=$((BASE + 30))
  READ_PORT=$((BASE + 31))
  STATS_PORT=$((BASE + 39))
  HTTP_PORT=$((BASE + 40))
}

# The layout of an existing cluster (written first thing by `up`).
load_layout() {
  [[ -f $DIR/layout.env ]] || die "$DIR holds no cluster (no layout.env): run \`up\` first"
  # shellcheck source=/dev/null
  source "$DIR/layout.env"
  set_ports
}

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
  stop_named 10 etcd
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

# The command prefix that runs a program as PostgreSQL's user, in a clean environment.
if ((IS_ROOT)); then
  AS_PG=(env -i PATH=/usr/bin:/bin HOME=/var/lib/postgresql USER=postgres LOGNAME=postgres
    LANG=C.UTF-8 setpriv --reuid=postgres --regid=postgres --init-groups)
else
  AS_PG=(env -i "PATH=/usr/bin:/bin" "HOME=$HOME" "USER=$(id -un)" LANG=C.UTF-8)
fi

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
# Commands

cmd_up() {
  local start i n
  start=$(now)
  [[ $SERVERS =~ ^[0-9]+$ ]] || die "--servers must be a number"
  set_ports
  ((SERVERS == 0)) && NO_SERVERS=1
  ((NO_SERVERS)) && SERVERS=0
  for p in patroni patronictl etcd haproxy python3 setsid; do
    command -v "$p" >/dev/null ||
      die "$p is missing: apt-get install -y patroni etcd-server haproxy postgresql (or cargo xtask cluster up)"
  done
  [[ -n $PG_BIN && -x $PG_BIN/postgres ]] || die "PostgreSQL is missing: apt-get install -y postgresql"
  if ((!NO_SERVERS)); then
    if [[ -z $BIN ]]; then
      BIN=$ROOT/target/debug/saboteur
      [[ -x $ROOT/target/release/saboteur ]] && BIN=$ROOT/target/release/saboteur
    fi
    BIN=$(realpath -m -- "$BIN")
    [[ -x $BIN ]] || die "no server binary at $BIN: cargo build -p saboteur-api --bin saboteur, or --bin PATH"
  fi

  # A directory that holds an earlier cluster of this script is taken down first.
  if [[ -f $DIR/$MARKER ]]; then
    say "$DIR holds a cluster: taking it down first"
    stop_all || true
    rm -rf -- "$DIR"
  elif [[ -e $DIR && -n $(ls -A "$DIR" 2>/dev/null) ]]; then
    die "$DIR exists and is not empty (and is no cluster of this script)"
  fi
  local ports=("$ETCD_PORT" "$ETCD_PEER_PORT" "$NODE1_PG_PORT" "$NODE2_PG_PORT"
    "$NODE1_REST_PORT" "$NODE2_REST_PORT" "$WRITE_PORT" "$READ_PORT" "$STATS_PORT" "$HTTP_PORT")
  for ((i = 1; i <= SERVERS; i++)); do ports+=($((HTTP_PORT + i))); done
  for p in "${ports[@]}"; do
    port_free "$p" || die "port $p on 127.0.0.1 is in use (another cluster? pick another --base-port)"
  done
  # The socket's path must fit PostgreSQL's limit (107 bytes).
  ((${#DIR} + 22 <= 107)) || die "--dir is too long for PostgreSQL's socket path: $DIR"

  mkdir -p "$DIR/logs" "$DIR/etcd" "$DIR/node1" "$DIR/node2"
  chmod 755 "$DIR"
  ((IS_ROOT)) && open_parents
  touch "$DIR/$MARKER"
  printf "BASE='%s'\nSERVERS='%s'\n" "$BASE" "$SERVERS" >"$DIR/layout.env"
  trap 'up_failed' EXIT

  # Passwords, new for each cluster.
  local superuser_password replication_password rewind_password app_password
  superuser_password=$(secret)
  replication_password=$(secret)
  rewind_password=$(secret)
  app_password=$(secret)

  local max_connections=$((100 > 40 * SERVERS + 40 ? 100 : 40 * SERVERS + 40))
  for n in 1 2; do
    local pg_port=$NODE1_PG_PORT rest_port=$NODE1_REST_PORT
    if ((n == 2)); then pg_port=$NODE2_PG_PORT rest_port=$NODE2_REST_PORT; fi
    render "$HERE/patroni.yml.in" "$DIR/node$n.yml" \
      SCOPE="saboteur-$BASE" NAME="node$n" DIR="$DIR" NODE_DIR="$DIR/node$n" \
      DATA_DIR="$DIR/node$n/data" BIN_DIR="$PG_BIN" ETCD_PORT="$ETCD_PORT" \
      PG_PORT="$pg_port" REST_PORT="$rest_port" MAX_CONNECTIONS="$max_connections" \
      SUPERUSER_PASSWORD="$superuser_password" REPLICATION_PASSWORD="$replication_password" \
      REWIND_PASSWORD="$rewind_password"
    chmod 600 "$DIR/node$n.yml"
  done
  render "$HERE/post_bootstrap.sh.in" "$DIR/post_bootstrap.sh" \
    BIN_DIR="$PG_BIN" APP_USER="$APP_USER" APP_DB="$APP_DB" APP_PASSWORD="$app_password"
  chmod 700 "$DIR/post_bootstrap.sh" "$DIR/node1" "$DIR/node2"
  if ((IS_ROOT)); then
    chown postgres:postgres "$DIR/node1" "$DIR/node2" "$DIR/node1.yml" "$DIR/node2.yml" \
      "$DIR/post_bootstrap.sh"
    "${AS_PG[@]}" test -r "$DIR/node1.yml" -a -w "$DIR/node1" ||
      die "the postgres user cannot reach $DIR: pick a --dir whose parents it may enter (e.g. under /tmp)"
  fi

  local servers_file=$DIR/.http-servers
  : >"$servers_file"
  for ((i = 1; i <= SERVERS; i++)); do
    echo "    server server$i 127.0.0.1:$((HTTP_PORT + i)) check" >>"$servers_file"
  done
  render "$HERE/haproxy.cfg.in" "$DIR/haproxy.cfg.tmp" \
    DIR="$DIR" WRITE_PORT="$WRITE_PORT" READ_PORT="$READ_PORT" STATS_PORT="$STATS_PORT" \
    HTTP_PORT="$HTTP_PORT" NODE1_PG_PORT="$NODE1_PG_PORT" NODE2_PG_PORT="$NODE2_PG_PORT" \
    NODE1_REST_PORT="$NODE1_REST_PORT" NODE2_REST_PORT="$NODE2_REST_PORT" \
    HTTP_SERVERS=__HTTP_SERVERS__
  sed -e "/^__HTTP_SERVERS__\$/{r $servers_file" -e 'd}' "$DIR/haproxy.cfg.tmp" >"$DIR/haproxy.cfg"
  rm -f "$DIR/haproxy.cfg.tmp" "$servers_file"
  haproxy -c -q -f "$DIR/haproxy.cfg" >"$DIR/logs/haproxy-check.log" 2>&1 || {
    log_tail haproxy-check
    die "HAProxy rejects $DIR/haproxy.cfg"
  }

  # etcd: one member, on loopback.
  local arch
  arch=$(dpkg --print-architecture 2>/dev/null || uname -m)
  case $arch in amd64 | arm64 | x86_64 | aarch64) ;; *) export ETCD_UNSUPPORTED_ARCH=$arch ;; esac
  local step
  step=$(now)
  start_bg etcd etcd --name etcd1 --data-dir "$DIR/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "etcd1=http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster-state new --initial-cluster-token "saboteur-$BASE" \
    --logger zap --log-level warn
  wait_until "etcd to answer on port $ETCD_PORT" etcd etcd_healthy
  say "etcd is up on 127.0.0.1:$ETCD_PORT ($(since "$step")s)"

  # node1 bootstraps (initdb, then the application's role and database), node2 copies it.
  step=$(now)
  start_bg node1 "${AS_PG[@]}" patroni "$DIR/node1.yml"
  wait_until "node1 to bootstrap and become the primary" node1 http_ok "$(rest_url 1)/primary"
  say "node1 is the primary ($(since "$step")s)"
  step=$(now)
  start_bg node2 "${AS_PG[@]}" patroni "$DIR/node2.yml"
  wait_until "node2 to become a streaming synchronous standby" node1,node2 in_sync
  say "node2 is a streaming synchronous standby ($(since "$step")s)"

  step=$(now)
  start_bg haproxy haproxy -db -f "$DIR/haproxy.cfg"
  WRITE_URL="postgres://$APP_USER:$app_password@127.0.0.1:$WRITE_PORT/$APP_DB"
  wait_until "HAProxy's write port to reach the primary" haproxy sql_ok "$WRITE_URL"
  say "HAProxy is up ($(since "$step")s)"

  local server_pids=()
  if ((!NO_SERVERS)); then
    step=$(now)
    for ((i = 1; i <= SERVERS; i++)); do
      start_bg "server$i" "$BIN" serve --bind "127.0.0.1:$((HTTP_PORT + i))" \
        --database-url "$WRITE_URL" \
        --read-database-url "postgres://$APP_USER:$app_password@127.0.0.1:$READ_PORT/$APP_DB" \
        --trusted-proxy 127.0.0.1 "${EXTRA[@]}"
      server_pids+=("$(pid_of "server$i")")
    done
    for ((i = 1; i <= SERVERS; i++)); do
      wait_until "server$i's /healthz" "server$i" http_ok "http://127.0.0.1:$((HTTP_PORT + i))/healthz"
    done
    wait_until "HAProxy's HTTP front's /healthz" haproxy http_ok "http://127.0.0.1:$HTTP_PORT/healthz"
    say "$SERVERS server(s) up behind HAProxy ($(since "$step")s)"
  fi

  {
    echo "# The local cluster of deploy/cluster.sh: source this file in a shell."
    env_line CLUSTER_DIR "$DIR"
    env_line BASE_PORT "$BASE"
    env_line ETCD_URL "http://127.0.0.1:$ETCD_PORT"
    env_line WRITE_URL "$WRITE_URL"
    env_line READ_URL "postgres://$APP_USER:$app_password@127.0.0.1:$READ_PORT/$APP_DB"
    env_line NODE1_URL "postgres://$APP_USER:$app_password@127.0.0.1:$NODE1_PG_PORT/$APP_DB"
    env_line NODE2_URL "postgres://$APP_USER:$app_password@127.0.0.1:$NODE2_PG_PORT/$APP_DB"
    env_line SUPERUSER_URL "postgres://postgres:$superuser_password@127.0.0.1:$WRITE_PORT/postgres"
    env_line NODE1_DATA "$DIR/node1/data"
    env_line NODE2_DATA "$DIR/node2/data"
    env_line NODE1_REST "$(rest_url 1)"
    env_line NODE2_REST "$(rest_url 2)"
    env_line NODE1_PATRONI_PID "$(pid_of node1)"
    env_line NODE2_PATRONI_PID "$(pid_of node2)"
    env_line ETCD_PID "$(pid_of etcd)"
    env_line HAPROXY_PID "$(pid_of haproxy)"
    env_line HAPROXY_STATS_URL "http://127.0.0.1:$STATS_PORT/stats"
    env_line HTTP_URL "http://127.0.0.1:$HTTP_PORT"
    env_line SERVERS "$SERVERS"
    for ((i = 1; i <= SERVERS; i++)); do
      env_line "SERVER${i}_URL" "http://127.0.0.1:$((HTTP_PORT + i))"
    done
    env_line SERVER_PIDS "${server_pids[*]}"
    env_line SERVER_BIN "${BIN:-}"
    env_line PATRONICTL "patronictl -c $DIR/node1.yml list"
  } >"$DIR/cluster.env"
  trap - EXIT
  cat "$DIR/cluster.env"
  say "up in $(since "$start")s; \`$0 down --dir $DIR\` stops it"
}

env_line() { printf "%s='%s'\n" "$1" "$2"; }

# Whether a query through the URL $1 answers.
sql_ok() {
  "$PG_BIN/psql" "$1?connect_timeout=2" -XAtqc 'SELECT 1' >/dev/null 2>&1
}

etcd_healthy() {
  curl -s --max-time 2 "http://127.0.0.1:$ETCD_PORT/health" 2>/dev/null | grep -q '"health":"true"'
}

up_failed() {
  local status=$?
  trap - EXIT
  if [[ -n ${CLUSTER_KEEP_ON_FAILURE:-} ]]; then
    say "up failed; CLUSTER_KEEP_ON_FAILURE is set: left running; logs in $DIR/logs"
  else
    say "up failed: stopping what it started; logs kept in $DIR/logs (\`$0 down --dir $DIR\` removes $DIR)"
    stop_all || true
  fi
  exit "$status"
}

cmd_down() {
  if [[ ! -e $DIR ]]; then
    say "$DIR does not exist: nothing to stop"
    return 0
  fi
  [[ -f $DIR/$MARKER ]] || die "$DIR is no cluster of this script (no $MARKER): not touching it"
  stop_all || die "some processes of $DIR would not stop; $DIR is kept"
  rm -rf -- "$DIR"
  say "stopped and removed $DIR"
}

cmd_status() {
  load_layout
  patronictl -c "$DIR/node1.yml" list
}

cmd_kill_primary() {
  load_layout
  local l pid file
  l=$(leader)
  [[ -n $l ]] || die "no node answers 200 on /primary"
  file=$DIR/node$l/data/postmaster.pid
  [[ -f $file ]] || die "node$l is the primary but has no $file"
  pid=$(head -n 1 "$file")
  ours "$pid" || die "node$l's postmaster (pid $pid from $file) is not running"
  kill -KILL "$pid"
  echo "killed node$l's postmaster (pid $pid) at $(date +%s.%N)"
}

cmd_wait_sync() {
  load_layout
  wait_sync
}

case $CMD in
up) cmd_up ;;
down) cmd_down ;;
status) cmd_status ;;
kill-primary) cmd_kill_primary ;;
wait-sync) cmd_wait_sync ;;
esac
