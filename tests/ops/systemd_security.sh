#!/usr/bin/env bash
# systemd's own hardening assessment of the shipped exporter unit must stay at
# or below 2.0 (a regression check: a dropped sandboxing line raises it).
# Usage: systemd_security.sh UNIT_FILE [MAX]
set -euo pipefail
unit=$1
max=${2:-2.0}
out=$(systemd-analyze security --offline=true --no-pager "$unit" 2>&1) || true
score=$(printf '%s\n' "$out" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
if [[ -z "$score" ]]; then
  printf '%s\n' "$out" >&2
  echo "no exposure level in the output" >&2
  exit 1
fi
echo "exposure of $(basename "$unit"): $score (at most $max)"
if ! awk -v s="$score" -v m="$max" 'BEGIN { exit !(s <= m) }'; then
  printf '%s\n' "$out" | grep '✗' >&2
  exit 1
fi
