#!/usr/bin/env bash
# pgo.sh: write default.pgo, the CPU profile that `go build` and `go install`
# optimize the loopgate command with (profile-guided optimization: the
# compiler inlines and lays out the hot paths the profile shows; see
# https://go.dev/doc/pgo and docs/performance.md).
#
#   scripts/pgo.sh [DIR]
#
# The profile merges three replays, each run twice: the Claude Code corpus
# with the default tokenizer, and the loop-heavy corpus of all formats with
# o200k_base and with chars4. They are scripts/bench.sh's corpora (DIR/
# claude-code and DIR/loop-heavy, 500MB each), generated into DIR (seed 1)
# unless already there; without DIR they go to a temporary directory
# removed at the end. The command profiled is built with -pgo=off, so that
# the profile does not describe a build optimized by the one it replaces.
#
# Run it again when the hot paths change a lot: a profile a little out of
# date still applies (the compiler matches functions by name and lines
# relative to their start), it just optimizes less.
set -euo pipefail

case ${1:-} in -h | --help)
	awk 'NR > 1 && /^#/ {print; next} NR > 1 {exit}' "$0" | sed 's/^# \{0,1\}//'
	exit 2
	;;
esac

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/loopgate-pgo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dir=${1:-$tmp/corpora}

echo "== building loopgate (-pgo=off) and gencorpus"
(cd "$repo" && go build -pgo=off -o "$tmp/loopgate" . && go build -o "$tmp/gencorpus" ./cmd/gencorpus)

gencorpus=$tmp/gencorpus
# shellcheck source=scripts/corpora.sh
source "$repo/scripts/corpora.sh"
ensure_ratio_corpora "$dir" 500MB

profiles=()
for run in 1 2; do
	for job in "claude-code/claude/projects" "loop-heavy" "loop-heavy --tokenizer chars4"; do
		read -r sub opts <<<"$job"
		out=$tmp/cpu-$run-${sub%%/*}${opts:+-chars4}.prof
		echo "== replay $dir/$sub${opts:+ $opts} (run $run)"
		# shellcheck disable=SC2086 # opts is empty or one flag and its value
		"$tmp/loopgate" --cpuprofile="$out" replay --format json $opts "$dir/$sub" >/dev/null
		profiles+=("$out")
	done
done
go tool pprof -proto "${profiles[@]}" >"$tmp/merged.pgo"
mv "$tmp/merged.pgo" "$repo/default.pgo"
echo "== wrote $repo/default.pgo ($(wc -c <"$repo/default.pgo") bytes)"
