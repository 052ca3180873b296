#!/usr/bin/env bash
# deploy/cluster.sh: a local high-availability cluster on one machine, for CI and fault tests.
#
#   etcd (three members) + two PostgreSQL nodes run by Patroni 4 (a primary and a synchronous
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
#   cluster.sh pause-primary|pause-standby --dir DIR --seconds S [--postgres-only]
#                 [--member node1|node2]
#   cluster.sh restart --dir DIR --member node1|node2|etcd1|etcd2|etcd3
#   cluster.sh stop-etcd|start-etcd --dir DIR
#   cluster.sh fill-wal --dir DIR --megabytes N
#
# Ports, from the base port P: etcd member i client P+2i-2, peer P+2i-1 (i = 1, 2, 3);
# PostgreSQL node1 P+10, node2 P+11;
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
  sed -n '2,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
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
SECONDS_ARG=
MEGABYTES=
POSTGRES_ONLY=0
MEMBER=
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
  --seconds)
    need "$@"
    SECONDS_ARG=$2
    shift 2
    ;;
  --postgres-only) POSTGRES_ONLY=1 && shift ;;
  --megabytes)
    need "$@"
    MEGABYTES=$2
    shift 2
    ;;
  --member)
    need "$@"
    MEMBER=$2
    shift 2
    ;;
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
up | down | status | kill-primary | wait-sync | pause-primary | pause-standby | restart | \
  stop-etcd | start-etcd | fill-wal) ;;
-h | --help | help)
  usage
  exit 0
  ;;
*) die "unknown command: $CMD (up, down, status, kill-primary, wait-sync, pause-primary, pause-standby, restart, stop-etcd, start-etcd, fill-wal)" ;;
esac

[[ -n $DIR ]] || die "--dir DIR is required"
DIR=$(realpath -m -- "$DIR")
[[ $DIR != / && $DIR != *"'"* && $DIR != *[[:space:]]* ]] ||
  die "--dir must not be / nor hold quotes or spaces: $DIR"
[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "--timeout must be a number of seconds"
command -v curl >/dev/null || die "curl is missing (apt-get install -y curl)"

# Patroni 4 in its own virtual environment (deploy/install-patroni.sh).
PATRONI_HOME=$(bash "$HERE/install-patroni.sh" --print)
PATRONI=$PATRONI_HOME/bin/patroni
PATRONICTL=$PATRONI_HOME/bin/patronictl

IS_ROOT=0
[[ $(id -u) == 0 ]] && IS_ROOT=1

# The command prefix that runs a program as PostgreSQL's user, in a clean environment.
if ((IS_ROOT)); then
  AS_PG=(env -i PATH=/usr/bin:/bin HOME=/var/lib/postgresql USER=postgres LOGNAME=postgres
    LANG=C.UTF-8 setpriv --reuid=postgres --regid=postgres --init-groups)
else
  AS_PG=(env -i "PATH=/usr/bin:/bin" "HOME=$HOME" "USER=$(id -un)" LANG=C.UTF-8)
fi

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
  ETCD_HOSTS=127.0.0.1:$BASE,127.0.0.1:$((BASE + 2)),127.0.0.1:$((BASE + 4))
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

# shellcheck source=SCRIPTDIR/cluster-lib.sh
source "$HERE/cluster-lib.sh"

# ---------------------------------------------------------------------------------------------
# Commands

cmd_up() {
  local start i n
  start=$(now)
  [[ $SERVERS =~ ^[0-9]+$ ]] || die "--servers must be a number"
  set_ports
  ((SERVERS == 0)) && NO_SERVERS=1
  ((NO_SERVERS)) && SERVERS=0
  for p in etcd haproxy python3 setsid; do
    command -v "$p" >/dev/null ||
      die "$p is missing: apt-get install -y etcd-server haproxy postgresql python3-venv (or cargo xtask cluster up)"
  done
  [[ -x $PATRONI && -x $PATRONICTL ]] ||
    die "Patroni is missing from $PATRONI_HOME: run deploy/install-patroni.sh (or cargo xtask cluster up)"
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
  local ports=("$ETCD_PORT" $((BASE + 1)) $((BASE + 2)) $((BASE + 3)) $((BASE + 4)) $((BASE + 5))
    "$NODE1_PG_PORT" "$NODE2_PG_PORT"
    "$NODE1_REST_PORT" "$NODE2_REST_PORT" "$WRITE_PORT" "$READ_PORT" "$STATS_PORT" "$HTTP_PORT")
  for ((i = 1; i <= SERVERS; i++)); do ports+=($((HTTP_PORT + i))); done
  for p in "${ports[@]}"; do
    port_free "$p" || die "port $p on 127.0.0.1 is in use (another cluster? pick another --base-port)"
  done
  # The socket's path must fit PostgreSQL's limit (107 bytes).
  ((${#DIR} + 22 <= 107)) || die "--dir is too long for PostgreSQL's socket path: $DIR"

  mkdir -p "$DIR/logs" "$DIR/etcd1" "$DIR/etcd2" "$DIR/etcd3" "$DIR/node1" "$DIR/node2" \
    "$DIR/archive"
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
      DATA_DIR="$DIR/node$n/data" BIN_DIR="$PG_BIN" ETCD_HOSTS="$ETCD_HOSTS" \
      PG_PORT="$pg_port" REST_PORT="$rest_port" MAX_CONNECTIONS="$max_connections" \
      SUPERUSER_PASSWORD="$superuser_password" REPLICATION_PASSWORD="$replication_password" \
      REWIND_PASSWORD="$rewind_password" ARCHIVE_DIR="$DIR/archive"
    chmod 600 "$DIR/node$n.yml"
  done
  render "$HERE/post_bootstrap.sh.in" "$DIR/post_bootstrap.sh" \
    BIN_DIR="$PG_BIN" APP_USER="$APP_USER" APP_DB="$APP_DB" APP_PASSWORD="$app_password"
  chmod 700 "$DIR/post_bootstrap.sh" "$DIR/node1" "$DIR/node2"
  if ((IS_ROOT)); then
    chown postgres:postgres "$DIR/node1" "$DIR/node2" "$DIR/archive" "$DIR/node1.yml" "$DIR/node2.yml" \
      "$DIR/post_bootstrap.sh"
    "${AS_PG[@]}" test -r "$DIR/node1.yml" -a -w "$DIR/node1" ||
      die "the postgres user cannot reach $DIR: pick a --dir whose parents it may enter (e.g. under /tmp)"
  fi

  # The servers twice: for reads (checked on /healthz) and for writes (checked on
  # /healthz/write, with the servers that can serve as backups: while none can write, a write
  # is answered by a server, 503 problem+json with Retry-After, not by HAProxy).
  # And a third time, unchecked, for when no server can serve (see haproxy.cfg.in): the same
  # names in the same order, so the same ids and ring.
  local servers_file=$DIR/.http-servers writers_file=$DIR/.http-writers last_file=$DIR/.http-last
  : >"$servers_file"
  : >"$writers_file"
  : >"$last_file"
  for ((i = 1; i <= SERVERS; i++)); do
    echo "    server server$i 127.0.0.1:$((HTTP_PORT + i)) check" >>"$servers_file"
    echo "    server server$i 127.0.0.1:$((HTTP_PORT + i)) check" >>"$writers_file"
    echo "    server server$i 127.0.0.1:$((HTTP_PORT + i))" >>"$last_file"
  done
  for ((i = 1; i <= SERVERS; i++)); do
    echo "    server server${i}_serving 127.0.0.1:$((HTTP_PORT + i)) backup track saboteur_read/server$i" \
      >>"$writers_file"
  done
  render "$HERE/haproxy.cfg.in" "$DIR/haproxy.cfg.tmp" \
    DIR="$DIR" WRITE_PORT="$WRITE_PORT" READ_PORT="$READ_PORT" STATS_PORT="$STATS_PORT" \
    HTTP_PORT="$HTTP_PORT" NODE1_PG_PORT="$NODE1_PG_PORT" NODE2_PG_PORT="$NODE2_PG_PORT" \
    NODE1_REST_PORT="$NODE1_REST_PORT" NODE2_REST_PORT="$NODE2_REST_PORT" \
    HTTP_SERVERS=__HTTP_SERVERS__ HTTP_WRITE_SERVERS=__HTTP_WRITE_SERVERS__ \
    HTTP_LAST_SERVERS=__HTTP_LAST_SERVERS__
  sed -e "/^__HTTP_SERVERS__\$/{r $servers_file" -e 'd}' \
    -e "/^__HTTP_WRITE_SERVERS__\$/{r $writers_file" -e 'd}' \
    -e "/^__HTTP_LAST_SERVERS__\$/{r $last_file" -e 'd}' \
    "$DIR/haproxy.cfg.tmp" >"$DIR/haproxy.cfg"
  rm -f "$DIR/haproxy.cfg.tmp" "$servers_file" "$writers_file" "$last_file"
  haproxy -c -q -f "$DIR/haproxy.cfg" >"$DIR/logs/haproxy-check.log" 2>&1 || {
    log_tail haproxy-check
    die "HAProxy rejects $DIR/haproxy.cfg"
  }

  # etcd: three members, on loopback.
  local step
  step=$(now)
  for i in 1 2 3; do start_etcd "$i" new; done
  for i in 1 2 3; do
    wait_until "etcd$i to answer on port $((BASE + 2 * i - 2))" etcd$i etcd_healthy "$i"
  done
  say "etcd is up, three members on 127.0.0.1:$BASE, $((BASE + 2)), $((BASE + 4)) ($(since "$step")s)"

  # node1 bootstraps (initdb, then the application's role and database), node2 copies it.
  step=$(now)
  start_node 1
  wait_until "node1 to bootstrap and become the primary" node1 http_ok "$(rest_url 1)/primary"
  say "node1 is the primary ($(since "$step")s)"
  step=$(now)
  start_node 2
  wait_until "node2 to become a streaming synchronous standby" node1,node2 in_sync
  say "node2 is a streaming synchronous standby ($(since "$step")s)"

  step=$(now)
  start_bg haproxy haproxy -db -f "$DIR/haproxy.cfg"
  WRITE_URL="postgres://$APP_USER:$app_password@127.0.0.1:$WRITE_PORT/$APP_DB"
  wait_until "HAProxy's write port to reach the primary only" haproxy primary_only "$WRITE_URL"
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

  write_env "$app_password" "$superuser_password" "${server_pids[*]}"
  trap - EXIT
  cat "$DIR/cluster.env"
  say "up in $(since "$start")s; \`$0 down --dir $DIR\` stops it"
}

# Writes DIR/cluster.env, for `up`: $1 the application's password, $2 the superuser's, $3 the
# servers' pids.
write_env() {
  local app_password=$1 superuser_password=$2 i
  {
    echo "# The local cluster of deploy/cluster.sh: source this file in a shell."
    env_line CLUSTER_DIR "$DIR"
    env_line BASE_PORT "$BASE"
    env_line ETCD_URL "http://127.0.0.1:$ETCD_PORT"
    env_line ETCD_HOSTS "$ETCD_HOSTS"
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
    env_line ETCD_PIDS "$(pid_of etcd1) $(pid_of etcd2) $(pid_of etcd3)"
    env_line HAPROXY_PID "$(pid_of haproxy)"
    env_line HAPROXY_STATS_URL "http://127.0.0.1:$STATS_PORT/stats"
    env_line HTTP_URL "http://127.0.0.1:$HTTP_PORT"
    env_line SERVERS "$SERVERS"
    for ((i = 1; i <= SERVERS; i++)); do
      env_line "SERVER${i}_URL" "http://127.0.0.1:$((HTTP_PORT + i))"
    done
    env_line SERVER_PIDS "$3"
    env_line SERVER_BIN "${BIN:-}"
    env_line PATRONICTL "$PATRONICTL -c $DIR/node1.yml list"
  } >"$DIR/cluster.env"
}

env_line() { printf "%s='%s'\n" "$1" "$2"; }

# Whether four connections in a row through $1 each reach a primary, not a standby in recovery.
# HAProxy counts a server it has not checked yet as up and spreads connections over every server
# up: until its checks mark the standby down, a server started now could run its migrations on
# the standby (read-only) and stop.
primary_only() {
  local i
  for i in 1 2 3 4; do
    [ "$("$PG_BIN/psql" "$1?connect_timeout=2" -XAtqc 'SELECT pg_is_in_recovery()' 2>/dev/null)" = f ] ||
      return 1
  done
}

# Whether etcd member $1 answers healthy (it has a leader).
etcd_healthy() {
  curl -s --max-time 2 "http://127.0.0.1:$((BASE + 2 * $1 - 2))/health" 2>/dev/null |
    grep -q '"health":"true"'
}

# Starts etcd member $1 (1, 2 or 3) of the three; $2: new (the first start) or existing.
start_etcd() {
  local i=$1 client=$((BASE + 2 * $1 - 2)) peers=() n
  for n in 1 2 3; do peers+=("etcd$n=http://127.0.0.1:$((BASE + 2 * n - 1))"); done
  local arch
  arch=$(dpkg --print-architecture 2>/dev/null || uname -m)
  case $arch in amd64 | arm64 | x86_64 | aarch64) ;; *) export ETCD_UNSUPPORTED_ARCH=$arch ;; esac
  start_bg "etcd$i" etcd --name "etcd$i" --data-dir "$DIR/etcd$i" \
    --listen-client-urls "http://127.0.0.1:$client" \
    --advertise-client-urls "http://127.0.0.1:$client" \
    --listen-peer-urls "http://127.0.0.1:$((client + 1))" \
    --initial-advertise-peer-urls "http://127.0.0.1:$((client + 1))" \
    --initial-cluster "$(
      IFS=,
      echo "${peers[*]}"
    )" \
    --initial-cluster-state "$2" --initial-cluster-token "saboteur-$BASE" \
    --logger zap --log-level warn
}

# Starts Patroni for node $1 (1 or 2), as PostgreSQL's user.
start_node() {
  start_bg "node$1" "${AS_PG[@]}" "$PATRONI" "$DIR/node$1.yml"
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
  "$PATRONICTL" -c "$DIR/node1.yml" list
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

# The pids to pause of node $1: its Patroni (unless --postgres-only) and its postmaster.
node_pids() {
  local pid file=$DIR/node$1/data/postmaster.pid
  if ((!POSTGRES_ONLY)); then
    pid=$(pid_of "node$1")
    ours "$pid" && echo "$pid"
  fi
  [[ -f $file ]] || die "node$1 has no $file"
  pid=$(head -n 1 "$file")
  ours "$pid" || die "node$1's postmaster (pid $pid from $file) is not running"
  echo "$pid"
}

# Stops (SIGSTOP) the primary's or the standby's Patroni, postmaster and the postmaster's
# children for --seconds, then lets them go on (SIGCONT): a machine that stalls. Which node
# holds the role is Patroni's answer now, or --member's when the caller found it earlier (while
# etcd is lost no node may answer 200 on /primary).
cmd_pause() {
  load_layout
  [[ $SECONDS_ARG =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--seconds S is required"
  local l n pids children
  if [[ -n $MEMBER ]]; then
    [[ $MEMBER =~ ^node[12]$ ]] || die "--member must be node1 or node2 (not $MEMBER)"
    n=${MEMBER#node}
  else
    l=$(leader)
    [[ -n $l ]] || die "no node answers 200 on /primary"
    n=$l
    [[ $1 == standby ]] && n=$((3 - l))
  fi
  mapfile -t pids < <(node_pids "$n")
  # Whatever happens to this script, what it stopped goes on.
  trap 'kill -CONT "${pids[@]}" 2>/dev/null || true' EXIT
  kill -STOP "${pids[@]}"
  # The postmaster stopped forks no more: its children now are all of them.
  mapfile -t children < <(ps -o pid= --ppid "${pids[-1]}" | tr -d ' ')
  ((${#children[@]})) && kill -STOP "${children[@]}" 2>/dev/null
  pids+=("${children[@]}")
  echo "paused node$n, the $1 (${#pids[@]} processes) at $(date +%s.%N) for ${SECONDS_ARG}s"
  sleep "$SECONDS_ARG"
  kill -CONT "${pids[@]}" 2>/dev/null || true
  trap - EXIT
  echo "resumed node$n at $(date +%s.%N)"
}

# Stops one member (a Patroni node with its PostgreSQL, or an etcd member) and starts it again
# with the same configuration and data; waits until it answers.
cmd_restart() {
  load_layout
  local n pid file
  case $MEMBER in
  node1 | node2)
    n=${MEMBER#node}
    pid=$(pid_of "$MEMBER")
    ours "$pid" && kill -CONT "$pid" 2>/dev/null
    stop_named 30 "$MEMBER"
    file=$DIR/$MEMBER/data/postmaster.pid
    if [[ -f $file ]]; then
      SIG=INT stop_pids 10 "$(head -n 1 "$file")"
    fi
    start_node "$n"
    wait_until "$MEMBER's Patroni to answer" "$MEMBER" http_ok "$(rest_url "$n")/liveness"
    ;;
  etcd1 | etcd2 | etcd3)
    n=${MEMBER#etcd}
    stop_named 10 "$MEMBER"
    start_etcd "$n" existing
    wait_until "$MEMBER to answer" "$MEMBER" etcd_healthy "$n"
    ;;
  *) die "--member must be node1, node2, etcd1, etcd2 or etcd3 (got '$MEMBER')" ;;
  esac
  echo "restarted $MEMBER at $(date +%s.%N)"
}

# Stops every etcd member (the consensus store lost): Patroni keeps the primary running while
# it reaches every member through their REST API (failsafe_mode), and demotes it otherwise.
cmd_stop_etcd() {
  load_layout
  stop_named 10 etcd1 etcd2 etcd3
  echo "stopped etcd at $(date +%s.%N)"
}

# Starts every etcd member again with its data; waits until each answers healthy.
cmd_start_etcd() {
  load_layout
  local n
  for n in 1 2 3; do
    ours "$(pid_of "etcd$n")" && continue
    start_etcd "$n" existing
  done
  for n in 1 2 3; do
    wait_until "etcd$n to answer" "etcd$n" etcd_healthy "$n"
  done
  echo "started etcd at $(date +%s.%N)"
}

case $CMD in
up) cmd_up ;;
stop-etcd) cmd_stop_etcd ;;
start-etcd) cmd_start_etcd ;;
down) cmd_down ;;
status) cmd_status ;;
kill-primary) cmd_kill_primary ;;
wait-sync) cmd_wait_sync ;;
pause-primary) cmd_pause primary ;;
pause-standby) cmd_pause standby ;;
restart) cmd_restart ;;
fill-wal) load_layout && fill_wal "$MEGABYTES" ;;
esac
