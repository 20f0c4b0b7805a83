#!/usr/bin/env bash
# hookinstructions.sh: compare two loopgate builds by the instructions one
# live hook call executes, counted by valgrind's cachegrind
# (docs/performance.md, "The live hook, every preset").
#
#   scripts/hookinstructions.sh [-n RUNS] OLD NEW PRESET [-- HOOKBENCH-ARGS...]
#
# For each build, cmd/hookbench -keep makes the state of a Claude Code
# session of 2,000 calls with that build (its checkpoint is the build's
# own) and the event of one more call (HOOKBENCH-ARGS add to its flags:
# `-- -event post` for the call's PostToolUse). The call then runs under
# cachegrind RUNS times (default 2), OLD and NEW alternately, the state's
# files written back in place before each run, as hookbench does: a copy of
# the state elsewhere has other inodes, so its checkpoint would be ignored
# and the whole log replayed, and a binary written again misses the rules
# cache. Prints each run's count, then the ratio NEW / OLD of the medians.
#
# Needs: valgrind, go (to build cmd/hookbench), awk.
set -euo pipefail

# shellcheck source=scripts/twobuilds.sh
source "$(dirname "$0")/twobuilds.sh" # usage, two_builds, medians_ratio
two_builds 2 3 "$@"
runs=$count preset=${operands[2]}
old=$(realpath "$old") new=$(realpath "$new")
command -v valgrind >/dev/null || {
	echo "hookinstructions.sh: valgrind is required (apt-get install valgrind)" >&2
	exit 2
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/loopgate-hookinstructions.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$(dirname "$0")/.." && go build -o "$tmp/hookbench" ./cmd/hookbench)

# keep NAME BIN: the state of BIN's session in $tmp/NAME, saved in $tmp/NAME.saved.
keep() {
	mkdir -p "$tmp/$1" "$tmp/$1.saved"
	"$tmp/hookbench" -loopgate "$2" -preset "$preset" -keep "$tmp/$1" "${rest[@]}" >/dev/null
	cp -p "$tmp/$1"/s-* "$tmp/$1.saved/"
}

# hookword BIN: the words before the hook's flags: "hook" for loopgate, none for the hook's
# own binary (loopgate-hook, cmd/loopgate-hook).
hookword() {
	case ${1##*/} in loopgate-hook*) ;; *) echo hook ;; esac
}

# count NAME WORD: one hook call under cachegrind on NAME's state; prints its instructions.
# cpu.rdtscp=off: as in scripts/instructions.sh.
count() {
	local d=$tmp/$1 f
	for f in "$d"/s-*; do
		[[ -e $d.saved/${f##*/} ]] || rm -f "$f"
	done
	for f in "$d".saved/s-*; do
		cp "$f" "$d/" # in place: the same inodes
	done
	GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off valgrind --tool=cachegrind --cache-sim=no \
		--cachegrind-out-file=/dev/null "$d/loopgate.bin" $2 --agent claude-code --preset "$preset" \
		--state-dir "$d" <"$d/event.json" >/dev/null 2>"$tmp/err" || {
		echo "hookinstructions.sh: the hook failed under valgrind:" >&2
		tail -5 "$tmp/err" >&2
		exit 1
	}
	awk '/I *refs:/ {gsub(",", "", $NF); print $NF}' "$tmp/err"
}

keep old "$old"
keep new "$new"
echo "run  old instructions  new instructions"
for ((i = 1; i <= runs; i++)); do
	o=$(count old "$(hookword "$old")")
	n=$(count new "$(hookword "$new")")
	printf '%3d  %16s  %16s\n' "$i" "$o" "$n" | tee -a "$tmp/counts"
done
medians_ratio "$tmp/counts"
