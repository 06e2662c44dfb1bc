#!/usr/bin/env bash
# The unit's seccomp and socket-family limits must allow what the daemon does.
# No systemd needed: the real binary follows simulated devices (real adb
# server + jank_devsim), is scraped, reloaded (SIGHUP) and stopped (SIGTERM)
# under strace; every system call and socket family it used must be allowed by
# the SystemCallFilter= and RestrictAddressFamilies= lines of the unit, as
# systemd-analyze expands them. A new call in @privileged/@resources would
# otherwise pass every test and fail only in production (EPERM).
# Usage: sandbox_syscalls.sh UNIT EXPORTER DEVSIM
set -euo pipefail
unit=$1 exporter=$2 devsim=$3
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

free_port() {
  local p
  for _ in $(seq 100); do
    p=$((20000 + RANDOM % 12000))  # below the kernel's ephemeral ports
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
  fail "no free port"
}
wait_for() {  # wait_for SECONDS COMMAND...
  local end=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do ((SECONDS < end)) || return 1; sleep 0.2; done
}

mkdir -p "$work/home" "$work/tmp"
export HOME=$work/home TMPDIR=$work/tmp ADB_LOCAL_TRANSPORT_MAX_PORT=5000
unset ADB_SERVER_SOCKET ANDROID_SERIAL
adb_port=$(free_port)
adb -P "$adb_port" nodaemon server >"$work/adb.log" 2>&1 &
pids+=($!)
"$devsim" --devices 2 --ready-file "$work/ready.json" --stall-prob 0.05 >"$work/sim.log" 2>&1 &
pids+=($!)
wait_for 20 test -s "$work/ready.json" || fail "jank_devsim did not start"
# Wait on the socket itself: an adb client that finds no server starts one of
# its own on the port, racing ours.
wait_for 20 bash -c "exec 3<>/dev/tcp/127.0.0.1/$adb_port" || fail "adb server did not start"
kill -0 "${pids[0]}" || { cat "$work/adb.log" >&2; fail "adb server exited"; }
for p in $(grep -o '"port":[0-9]*' "$work/ready.json" | cut -d: -f2); do
  adb -P "$adb_port" connect "127.0.0.1:$p" >/dev/null
done

http_port=$(free_port)
printf 'gfxinfo:\n  poll_interval_seconds: 1\n  fast_poll_interval_seconds: 1\ncheckpoint_interval_seconds: 1\n' >"$work/c.yaml"
NOTIFY_SOCKET="$work/notify" WATCHDOG_USEC=1000000 \
  strace -f -qq -o "$work/trace" "$exporter" --config "$work/c.yaml" --adb "127.0.0.1:$adb_port" \
  --listen "127.0.0.1:$http_port" --state-dir "$work/state" >"$work/exporter.log" 2>&1 &
strace_pid=$!
pids+=("$strace_pid")
scrape() { curl -sf "http://127.0.0.1:$http_port/metrics"; }
# Not `scrape | grep -q`: grep quits at the first match, curl then fails on
# the closed pipe, and pipefail turns a match into a failure.
gfx_polled() { grep -q '^android_gfxinfo_frames_rendered_total' <<<"$(scrape)"; }
wait_for 40 gfx_polled || { cat "$work/exporter.log" >&2; fail "the exporter never polled gfxinfo"; }
daemon=$(pgrep -P "$strace_pid" -x jank_exporter) || fail "no exporter under strace"
kill -HUP "$daemon"
sleep 2
scrape >/dev/null || fail "no scrape after SIGHUP"
kill -TERM "$daemon"
wait_for 15 bash -c "! kill -0 $daemon" || fail "the exporter did not stop"

# System calls and socket families the daemon used (execve is systemd's own).
used=$(sed -nE 's/^[0-9]+ +([a-z0-9_]+)\(.*/\1/p' "$work/trace" | sort -u | grep -vx execve)
families=$(grep -oE '\bsocket\((AF_[A-Z0-9]+)' "$work/trace" | sed 's/.*(//' | sort -u)
[[ $(wc -w <<<"$used") -gt 20 ]] || fail "too few system calls traced: $used"

# The unit's filter: allow-lists first, then ~deny-lists, groups expanded.
filter_lines=$(sed -n 's/^SystemCallFilter=//p' "$unit")
allow=$(grep -v '^~' <<<"$filter_lines" | tr ' ' '\n' | grep . || true)
deny=$(grep '^~' <<<"$filter_lines" | sed 's/^~//' | tr ' ' '\n' | grep . || true)
[[ -n $allow ]] || fail "no SystemCallFilter= allow-list in $unit"
expand() {
  systemd-analyze syscall-filter 2>/dev/null | awk -v want="$*" '
    /^@/ { group = $1; next }
    /^ +#/ || /^ *$/ { next }
    /^ +/ { members[group] = members[group] " " $1 }
    function add(x,   n, i, parts) {
      if (x in seen) return
      seen[x] = 1
      if (substr(x, 1, 1) != "@") { print x; return }
      n = split(members[x], parts, " ")
      for (i = 1; i <= n; i++) add(parts[i])
    }
    END { n = split(want, w, " "); for (i = 1; i <= n; i++) add(w[i]) }' | sort -u
}
allowed=$(comm -23 <(expand $allow) <(expand $deny))
[[ $(wc -l <<<"$allowed") -gt 100 ]] || fail "could not expand the filter groups"
blocked=$(comm -23 <(echo "$used") <(echo "$allowed"))
[[ -z $blocked ]] || fail "system calls the unit's SystemCallFilter= refuses: $blocked"

restricted=$(sed -n 's/^RestrictAddressFamilies=//p' "$unit" | tr ' ' '\n' | grep . | sort -u)
for f in $families; do
  grep -qx "$f" <<<"$restricted" || fail "socket family $f is not in RestrictAddressFamilies="
done
echo "$(wc -l <<<"$used") system calls and families $(echo $families) are allowed by $(basename "$unit")"
