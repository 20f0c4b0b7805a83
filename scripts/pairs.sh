#!/usr/bin/env bash
# pairs.sh: compare two loopgate binaries by alternating runs (docs/performance.md).
#
#   scripts/pairs.sh [-n PAIRS] OLD NEW [-- ARGS...]
#
# Runs OLD and NEW one after the other PAIRS times (default 8) with the
# same arguments (default: replay --format json --tokenizer chars4
# /tmp/bench11), output to /dev/null, each under GNU time, and prints every
# run's wall and CPU (user + system) seconds and peak RSS, then the mean
# paired difference NEW - OLD of wall and CPU with its standard error, and
# the median and range of the pairs' ratios NEW / OLD of wall, CPU and peak
# RSS (scripts/bench.sh reads that line). On a shared machine
# whose speed drifts, alternating runs and comparing each pair's CPU time
# resolve a change of a few percent that single runs, or wall times, do
# not. OLD and NEW may be any executables (a script that sets GOGC and
# execs loopgate compares a setting).
#
# Needs: /usr/bin/time (GNU time), awk.
set -euo pipefail

# shellcheck source=scripts/twobuilds.sh
source "$(dirname "$0")/twobuilds.sh" # usage, two_builds
two_builds 8 2 "$@"
pairs=$count
args=("${rest[@]}")
[[ ${#args[@]} -gt 0 ]] || args=(replay --format json --tokenizer chars4 /tmp/bench11)
[[ -x /usr/bin/time ]] || {
	echo "pairs.sh: /usr/bin/time (GNU time) is required" >&2
	exit 2
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/loopgate-pairs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# run BIN: one run; sets wall and cpu (seconds) and rss (MB). A run that fails stops
# the comparison: its times would measure something else.
run() {
	local status=0
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$1" "${args[@]}" >/dev/null || status=$?
	if ((status != 0)); then
		echo "pairs.sh: $1 ${args[*]} exited with status $status" >&2
		exit 1
	fi
	read -r wall cpu rss < <(awk 'END {printf "%.2f %.2f %.0f\n", $1, $2 + $3, $4 / 1024}' "$tmp/time")
}

echo "pair  old wall  old cpu  old MB  new wall  new cpu  new MB   (seconds; cpu = user + system; MB = peak RSS)"
for ((i = 1; i <= pairs; i++)); do
	run "$old"
	ow=$wall oc=$cpu orss=$rss
	run "$new"
	printf '%4d  %8s  %7s  %6s  %8s  %7s  %6s\n' "$i" "$ow" "$oc" "$orss" "$wall" "$cpu" "$rss" | tee -a "$tmp/pairs"
done
# ratios COLUMN: the median and range of one column of $tmp/ratios.
ratios() {
	awk -v c="$1" '{print $c}' "$tmp/ratios" | sort -g | awk '
		{v[NR] = $1}
		END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.2f (%.2f-%.2f)", m, v[1], v[NR]}'
}
awk 'function r(a, b) { return b > 0 ? a / b : 0 } {printf "%.4f %.4f %.4f\n", r($5, $2), r($6, $3), r($7, $4)}' "$tmp/pairs" >"$tmp/ratios"
awk '
{ dw = $5 - $2; dc = $6 - $3; sw += dw; sw2 += dw * dw; sc += dc; sc2 += dc * dc; ow += $2; oc += $3; n++ }
function se(s, s2) { return n > 1 ? sqrt((s2 - s * s / n) / (n - 1) / n) : 0 }
END {
	printf "mean old: wall %.3f s, cpu %.3f s\n", ow / n, oc / n
	printf "new - old, mean of %d pairs: wall %+.3f s (standard error %.3f), cpu %+.3f s (standard error %.3f), cpu %+.1f%%\n",
		n, sw / n, se(sw, sw2), sc / n, se(sc, sc2), 100 * sc / oc
}' "$tmp/pairs"
echo "new/old, median (range) of $pairs pairs: wall $(ratios 1), cpu $(ratios 2), peak RSS $(ratios 3)"
