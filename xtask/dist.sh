#!/usr/bin/env bash
# `dist.sh BIN OUT`: packs the server binary BIN as a release archive in the folder OUT:
# `saboteur-VERSION-TARGET.tar.gz` (one folder of that name holding `saboteur`, `LICENSE` and
# `README.md`) and its `.sha256`, in the format `sha256sum -c` reads. VERSION is what
# `BIN --version` says, TARGET the platform it was built on (`rustc -vV`'s host). Prints the
# archive's path. `cargo xtask dist` builds the release binary and runs this; the test command
# runs it on the binary the tests built (tests/clients/released.sh), then starts what it packed.
set -euo pipefail
bin=${1:?usage: dist.sh BIN OUT}
out=${2:?usage: dist.sh BIN OUT}
root=$(cd "$(dirname "$0")/.." && pwd)
version=$("$bin" --version | awk '{ print $2 }')
target=$(rustc -vV | sed -n 's/^host: //p')
[ -n "$version" ] && [ -n "$target" ] || { echo "dist.sh: no version or target" >&2; exit 1; }
name="saboteur-$version-$target"
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
install -m 755 "$bin" "$stage/$name/saboteur"
install -m 644 "$root/LICENSE" "$root/README.md" "$stage/$name/"
# The same bytes from the same files: entries sorted, owned by nobody, dated by the commit.
when=$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$when" \
  -C "$stage" -cf - "$name" | gzip -n >"$out/$name.tar.gz"
(cd "$out" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
echo "$out/$name.tar.gz"
