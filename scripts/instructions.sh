#!/usr/bin/env bash
# instructions.sh: compare two loopgate builds by the instructions a replay
# executes, counted by valgrind's cachegrind (docs/performance.md).
#
#   scripts/instructions.sh [-n RUNS] OLD NEW DIR [-- ARGS...]
#
# Runs `replay --format json --jobs 1 DIR` (ARGS replace `--format json`)
# under cachegrind, OLD and NEW alternately RUNS times each (default 2),
# on one core (GOMAXPROCS=1: the scheduler's and the collector's helpers
# then add few instructions of their own), and prints each run's count of
# instructions, then the ratio NEW / OLD of the medians. On this project's
# shared machine the counts repeat to about half a percent, where paired
# timings (scripts/pairs.sh) have a standard error of 1-1.5% after 40
# pairs: a change of a percent or two shows here first. Fewer
# instructions are not always less time: a walk over bytes still in the
# cache is cheap, a look-up in a table as large as the session is not.
# Time, measured with pairs.sh, decides. A corpus of one large file (a
# 50 MB Claude Code session takes about 15 s a run) keeps it short.
#
# Needs: valgrind (apt-get install valgrind), awk.
set -euo pipefail

# shellcheck source=scripts/twobuilds.sh
source "$(dirname "$0")/twobuilds.sh" # usage, two_builds
two_builds 2 3 "$@"
runs=$count dir=${operands[2]}
args=("${rest[@]}")
[[ ${#args[@]} -gt 0 ]] || args=(--format json)
command -v valgrind >/dev/null || {
	echo "instructions.sh: valgrind is required (apt-get install valgrind)" >&2
	exit 2
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/loopgate-instructions.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# count BIN: one run under cachegrind; prints its instructions. cpu.rdtscp=off:
# Go 1.26's runtime reads the time stamp counter with RDTSCP, which valgrind does
# not know, and without it the process dies of SIGILL part way, its count a
# fraction of the run's (docs/performance.md, "How to measure").
count() {
	GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=cachegrind --cache-sim=no \
		--cachegrind-out-file="$tmp/out" "$1" replay "${args[@]}" --jobs 1 "$dir" >/dev/null 2>"$tmp/err" || {
		echo "instructions.sh: $1 failed under valgrind:" >&2
		tail -5 "$tmp/err" >&2
		exit 1
	}
	awk '/I *refs:/ {gsub(",", "", $NF); print $NF}' "$tmp/err"
}

echo "run  old instructions  new instructions"
for ((i = 1; i <= runs; i++)); do
	o=$(count "$old")
	n=$(count "$new")
	printf '%3d  %16s  %16s\n' "$i" "$o" "$n" | tee -a "$tmp/counts"
done
medians_ratio "$tmp/counts"
