#!/usr/bin/env bash
# Replay throughput benchmark: generates a threadtime stream (10 M lines by
# default, about 1 line in 200 a Choreographer skip, plus long lines, stack
# traces, Davey frames and decoys) and times, on the same file and in the same
# run, `jank_exporter replay` (the whole pipeline down to the exposition),
# `wc -l`, `grep -c Choreographer` and mtail (--one_shot, with
# bench/skipped_frames.mtail counting the same skips per pid). Each tool but
# mtail runs 3 times and the best time is reported (mtail, 50x slower, once).
# Checks that replay's and mtail's totals equal the generator's ground truth.
#
# Usage: bench/replay_throughput.sh [LINES] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
lines=${1:-10000000}
seed=${2:-1}
build=build
[[ -x $build/jank_exporter && -x $build/bench/jank_gen_logcat ]] || scripts/build >/dev/null
scripts/deps --bench

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/bench.log
"$build/bench/jank_gen_logcat" "$lines" "$seed" > "$log" 2> "$work/truth"
bytes=$(stat -c %s "$log")
cat "$log" > /dev/null  # page cache warm for every tool alike

best() {  # best elapsed seconds and its peak RSS over 3 runs of "$@"
  local best_s="" best_kb=""
  for _ in 1 2 3; do
    /usr/bin/time -f "%e %M" -o "$work/t" "$@" > "$work/out" 2>/dev/null
    read -r s kb < "$work/t"
    if [[ -z $best_s ]] || awk -v a="$s" -v b="$best_s" 'BEGIN{exit !(a<b)}'; then best_s=$s; best_kb=$kb; fi
  done
  echo "$best_s $best_kb"
}

read -r replay_s replay_kb < <(best "$build/jank_exporter" replay --serial bench "$log")
"$build/jank_exporter" replay --serial bench "$log" > "$work/replay.prom"
read -r wc_s wc_kb < <(best wc -l "$log")
read -r grep_s grep_kb < <(best grep -c Choreographer "$log")
/usr/bin/time -f "%e %M" -o "$work/t" mtail --one_shot --one_shot_format prometheus \
  --progs bench/skipped_frames.mtail --logs "$log" --logtostderr > "$work/mtail.prom" 2>/dev/null
read -r mtail_s mtail_kb < "$work/t"

truth_frames=$(sed -E 's/.*skipped_frames=([0-9]+).*/\1/' "$work/truth")
truth_davey=$(sed -E 's/.*davey_lines=([0-9]+).*/\1/' "$work/truth")
sum_family() { awk -v f="$1" '$1 ~ "^"f"\\{" {s+=$2} END{printf "%d", s}' "$work/replay.prom"; }
got_frames=$(sum_family android_choreographer_skipped_frames_total)
got_davey=$(sum_family android_hwui_davey_frames_total)
got_lines=$(awk '$1 ~ /^jank_exporter_logcat_lines_total\{/ {s+=$2} END{printf "%d", s}' "$work/replay.prom")
mtail_frames=$(awk '$1 ~ /^skipped_frames\{/ {s+=$2} END{printf "%d", s}' "$work/mtail.prom")

rate() { awk -v n="$1" -v s="$2" 'BEGIN{ if (s <= 0) s = 0.001; printf "%.0f", n / s }'; }
mbps() { awk -v n="$1" -v s="$2" 'BEGIN{ if (s <= 0) s = 0.001; printf "%.0f", n / s / 1e6 }'; }
echo "input: $lines lines, $bytes bytes ($(cat "$work/truth"))"
printf '%-22s %8s %14s %9s %10s\n' tool seconds lines/s MB/s peak_RSS_KB
printf '%-22s %8s %14s %9s %10s\n' "jank_exporter replay" "$replay_s" "$(rate "$lines" "$replay_s")" "$(mbps "$bytes" "$replay_s")" "$replay_kb"
printf '%-22s %8s %14s %9s %10s\n' "wc -l" "$wc_s" "$(rate "$lines" "$wc_s")" "$(mbps "$bytes" "$wc_s")" "$wc_kb"
printf '%-22s %8s %14s %9s %10s\n' "grep -c Choreographer" "$grep_s" "$(rate "$lines" "$grep_s")" "$(mbps "$bytes" "$grep_s")" "$grep_kb"
printf '%-22s %8s %14s %9s %10s\n' "mtail --one_shot" "$mtail_s" "$(rate "$lines" "$mtail_s")" "$(mbps "$bytes" "$mtail_s")" "$mtail_kb"
awk -v r="$replay_s" -v g="$grep_s" -v m="$mtail_s" -v w="$wc_s" 'BEGIN{
  printf "replay speed / grep: %.2fx, / mtail: %.1fx, / wc -l: %.2fx\n", g / r, m / r, w / r }'
status=0
[[ $got_frames == "$truth_frames" ]] || { echo "MISMATCH skipped frames: replay $got_frames, truth $truth_frames"; status=1; }
[[ $got_davey == "$truth_davey" ]] || { echo "MISMATCH Davey frames: replay $got_davey, truth $truth_davey"; status=1; }
[[ $got_lines == "$lines" ]] || { echo "MISMATCH lines: replay accounted $got_lines of $lines"; status=1; }
[[ $mtail_frames == "$truth_frames" ]] || { echo "MISMATCH skipped frames: mtail $mtail_frames, truth $truth_frames"; status=1; }
[[ $status == 0 ]] && echo "totals agree with the generator: skipped frames $got_frames (mtail $mtail_frames), Davey $got_davey, lines $got_lines"
exit $status
