#!/usr/bin/env bash
# `systemd-analyze verify` of the units as installed. verify checks that the
# ExecStart= binaries exist, so it runs against a scratch root holding the
# project installed with prefix /usr, plus copies of what the units refer to
# outside the project: the host's system units (targets), kill and adb.
# Usage: systemd_verify.sh BUILD_DIR
set -euo pipefail
build=$1
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

DESTDIR="$root" cmake --install "$build" --prefix /usr --strip >/dev/null
mkdir -p "$root/usr/lib/systemd" "$root/usr/bin"
ln -s usr/bin "$root/bin"
ln -s usr/lib "$root/lib"
# Only files: the host's units (sysinit.target, multi-user.target, …) keep
# their relative symlinks; the project's own are already installed.
cp -a --no-clobber /usr/lib/systemd/system/. "$root/usr/lib/systemd/system/"
cp "$(type -P kill)" "$root/usr/bin/kill"
cp "$(readlink -f "$(command -v adb)")" "$root/usr/bin/adb"

status=0
for unit in jank_exporter.service jank-adb-server.service; do
  test -f "$root/usr/lib/systemd/system/$unit" || { echo "$unit not installed" >&2; exit 1; }
  # Any message is a finding: verify prints nothing for a clean unit.
  out=$(systemd-analyze verify --man=no --root="$root" "$unit" 2>&1) || status=1
  if [[ -n "$out" ]]; then
    printf '%s: %s\n' "$unit" "$out" >&2
    status=1
  else
    echo "$unit: clean"
  fi
done
exit $status
