#!/usr/bin/env bash
# deploy/install-patroni.sh: Patroni 4.1 from PyPI, with its etcd v3 and psycopg 3 extras, in a
# virtual environment of its own, for deploy/cluster.sh (Debian 12's patroni package, 3.0.2,
# can undo a failover after its node stalls: deploy/README.md).
#
#   install-patroni.sh [--print]   install when missing; --print only prints where it goes
#
# Where: $PATRONI_HOME, else /opt/saboteur-patroni as root, else
# ${XDG_DATA_HOME:-~/.local/share}/saboteur-patroni. As root the environment is made with
# /usr/bin/python3, which the postgres user can run (apt-get install -y python3-venv).
set -euo pipefail

# The version installed; change it here (and in deploy/README.md) to upgrade.
PATRONI_VERSION=4.1.5

if [[ -n ${PATRONI_HOME:-} ]]; then
  home=$PATRONI_HOME
elif [[ $(id -u) == 0 ]]; then
  home=/opt/saboteur-patroni
else
  home=${XDG_DATA_HOME:-$HOME/.local/share}/saboteur-patroni
fi
if [[ ${1:-} == --print ]]; then
  echo "$home"
  exit 0
fi

have=$("$home/bin/patroni" --version 2>/dev/null | awk '{print $2}' || true)
if [[ $have == "$PATRONI_VERSION" ]]; then
  exit 0
fi
python=python3
[[ -x /usr/bin/python3 ]] && python=/usr/bin/python3
echo "install-patroni.sh: installing Patroni $PATRONI_VERSION into $home" >&2
rm -rf -- "$home"
"$python" -m venv "$home" || {
  echo "install-patroni.sh: $python cannot make a virtual environment: apt-get install -y python3-venv" >&2
  exit 1
}
"$home/bin/pip" install -q --disable-pip-version-check \
  "patroni[etcd3,psycopg3]==$PATRONI_VERSION"
"$home/bin/patroni" --version >&2
