#!/usr/bin/env bash
# bench.sh: the loopgate benchmark (docs/performance.md).
#
#   scripts/bench.sh [SIZE] [DIR]        the goals' ratios: replay
#                                        against ccusage, o200k_base against
#                                        chars4, CPU use, throughput against
#                                        a floor; a summary block at the end
#   scripts/bench.sh --throughput [SIZE] [DIR]
#                                        the throughput table: replay, reading
#                                        alone (inspect), sweep, jq reference
#   scripts/bench.sh --memory [DIR]      peak memory on two corpus sizes and
#                                        two counts of short sessions
#
# SIZE is a corpus size for cmd/gencorpus (default 500MB for the ratios,
# 1GiB for --throughput). DIR holds the corpora: each is generated (seed 1)
# unless its directory already holds one (a .manifest.json); when DIR is
# omitted they go to a temporary directory removed at the end. The ratios
# use two corpora of SIZE each: DIR/claude-code (Claude Code only, laid out
# as ~/.claude/projects, which ccusage reads through CLAUDE_CONFIG_DIR) and
# DIR/loop-heavy (all formats, results up to 80 KB, a loop planted in place
# of half the ordinary steps: gencorpus -loop-rate 50). Every ratio comes
# from paired, alternating runs (scripts/pairs.sh), BENCH_PAIRS pairs
# (default 5), and is printed as the median of the pairs and their range.
# Run it from anywhere inside the repository.
#
# ccusage (npm package ccusage and its native build
# @ccusage/ccusage-linux-<arch>; the first alone does not bring the binary)
# is installed with npm into BENCH_CACHE (default ~/.cache/loopgate-bench)
# when absent; CCUSAGE=/path/to/native/ccusage uses another, and
# CCUSAGE_VERSION and CCUSAGE_NATIVE_VERSION pick the versions of the two
# packages (default 20.0.26 and 20.0.24: see ccusage_binary).
#
# Needs: go, /usr/bin/time (GNU time, for peak RSS), jq (the reference
# parser and the summary reader), cmp, awk; npm for the ratios unless
# CCUSAGE is set.
#
# Every replay runs with --no-cache: the benchmark measures full replays,
# and a replay cache filled by the run before would time its look-ups
# instead (docs/cli.md, "The replay cache").
#
# Environment: BENCH_JOBS (the "default" jobs of the replay, 0 = one per
# core as loopgate does), JQ_JOBS (jq processes run side by side over the
# files, default nproc: the same cores loopgate gets), BENCH_RUNS (how many
# times the headline replay, inspect and the sweep of --throughput run,
# default 3: their rows show the median, and every run's time is printed
# below the table; on a shared machine one run can be 20% off. Each sweep
# runs right after a replay of its own, and the sweep/replay ratio is the
# median of those pairs' ratios).
set -euo pipefail

usage() {
	# The comment at the top of this file, whole.
	awk 'NR > 1 && /^#/ {print; next} NR > 1 {exit}' "$0" | sed 's/^# \{0,1\}//'
	exit 2
}

mode=ratios
case ${1:-} in
--memory | --throughput)
	mode=${1#--}
	shift
	;;
esac
case ${1:-} in -h | --help) usage ;; esac

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ncpu=$(nproc)
jobs=${BENCH_JOBS:-0}
jobs_label=$jobs
[[ $jobs == 0 ]] && jobs_label=$ncpu
jq_jobs=${JQ_JOBS:-$ncpu}
runs=${BENCH_RUNS:-3}
[[ $runs =~ ^[1-9][0-9]*$ ]] || {
	echo "bench.sh: BENCH_RUNS must be a positive number, not $runs" >&2
	exit 2
}

for tool in go jq cmp awk; do
	command -v "$tool" >/dev/null || {
		echo "bench.sh: $tool is required" >&2
		exit 2
	}
done
[[ -x /usr/bin/time ]] || {
	echo "bench.sh: /usr/bin/time (GNU time) is required for peak RSS" >&2
	exit 2
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/loopgate-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "== building loopgate, gencorpus and linefloor"
(cd "$repo" && go build -o "$tmp/loopgate" . && go build -o "$tmp/gencorpus" ./cmd/gencorpus && go build -o "$tmp/linefloor" ./cmd/linefloor)
lg=$tmp/loopgate

gencorpus=$tmp/gencorpus
# shellcheck source=scripts/corpora.sh
source "$repo/scripts/corpora.sh" # ensure_corpus, ensure_ratio_corpora

# corpus_bytes DIR: bytes of the transcripts (dot-files such as the
# manifest are skipped, as loopgate skips them).
corpus_bytes() {
	find "$1" -type f ! -name '.*' \( -name '*.json' -o -name '*.jsonl' -o -name '*.gz' \) -printf '%s\n' |
		awk '{s += $1} END {printf "%d\n", s}'
}

# largest_file DIR: bytes of the largest transcript.
largest_file() {
	find "$1" -type f ! -name '.*' -printf '%s\n' | sort -n | tail -1
}

# measure NAME OUT CMD...: run CMD with stdout to OUT under GNU time;
# sets wall (seconds), cpu (user + system seconds, all threads and
# children) and rss (MB).
measure() {
	local name=$1 out=$2 user sys
	shift 2
	echo "-- $name" >&2
	/usr/bin/time -f '%e %M %U %S' -o "$tmp/time" "$@" >"$out"
	read -r wall rss_kb user sys <"$tmp/time"
	rss=$(awk -v k="$rss_kb" 'BEGIN {printf "%.0f", k / 1024}')
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.2f", u + s}')
}

# measure_runs NAME OUT CMD...: measure BENCH_RUNS times; sets wall and cpu
# to the medians, rss to the largest peak, and all_walls to every run's
# wall time, sorted. OUT holds the last run's output. When paired_with
# names a function that measures (sets wall), it runs right before each
# run, and ratio is set to the median of run/paired wall times, all_ratios
# to each pair's, in order.
measure_runs() {
	local name=$1 out=$2 k peak=0 walls=() cpus=() ratios=() before
	shift 2
	for ((k = 1; k <= runs; k++)); do
		if [[ -n ${paired_with:-} ]]; then
			"$paired_with"
			before=$wall
		fi
		measure "$name (run $k of $runs)" "$out" "$@"
		walls+=("$wall")
		cpus+=("$cpu")
		((rss > peak)) && peak=$rss
		if [[ -n ${paired_with:-} ]]; then
			ratios+=("$(div "$wall" "$before" %.2f)")
		fi
	done
	all_walls=$(printf '%s\n' "${walls[@]}" | sort -n | paste -sd' ')
	all_ratios=${ratios[*]} ratio=
	if ((${#ratios[@]})); then
		ratio=$(printf '%s\n' "${ratios[@]}" | median)
	fi
	wall=$(printf '%s\n' "${walls[@]}" | median)
	cpu=$(printf '%s\n' "${cpus[@]}" | median)
	rss=$peak
}

# median: the median of the numbers on standard input, one per line.
median() {
	sort -n | awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

div() { awk -v a="$1" -v b="$2" -v f="${3:-%.1f}" 'BEGIN {if (b > 0) printf f, a / b; else print "-"}'; }

rows=()
# row LABEL WALL CPU RSS [SESSIONS]: one line of the final table.
row() {
	local label=$1 w=$2 c=$3 r=$4 s=${5:-}
	local mbs sps="-"
	mbs=$(div "$bytes" "$(awk -v w="$w" 'BEGIN {print w * 1e6}')")
	[[ -n $s ]] && sps=$(div "$s" "$w" %.0f)
	rows+=("$(printf '%-38s %9s %9s %9s %11s %10s' "$label" "$w" "$c" "$mbs" "$sps" "$r")")
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
start_load=$(loadavg)
start_date=$(date -u '+%Y-%m-%d %H:%M UTC')

# print_machine: the machine and its load; other processes on a shared
# machine slow every figure, so the load is part of the result.
print_machine() {
	echo "machine: $ncpu cores, $(go version | cut -d' ' -f3-)"
	echo "run:     $start_date to $(date -u '+%H:%M UTC'); load average (1, 5, 15 min) $start_load at start, $(loadavg) at end"
}

throughput() {
	local size=${1:-1GiB} dir=${2:-}
	[[ -z $dir ]] && dir=$tmp/corpus
	ensure_corpus "$dir" "$size"
	bytes=$(corpus_bytes "$dir")
	local files
	files=$(find "$dir" -type f ! -name '.*' \( -name '*.json' -o -name '*.jsonl' -o -name '*.gz' \) | wc -l)
	echo "== corpus: $dir, $files files, $bytes bytes (largest file $(largest_file "$dir") bytes)"

	local jopt=()
	[[ $jobs != 0 ]] && jopt=(--jobs "$jobs")

	# The reference parser: jq reads every file (a JSONL stream or a JSON
	# document alike), JQ_JOBS processes side by side.
	measure "jq -c . (x$jq_jobs)" /dev/null sh -c \
		'find "$1" -type f ! -name ".*" \( -name "*.json" -o -name "*.jsonl" \) -print0 | xargs -0 -r -n 8 -P "$2" jq -c . >/dev/null' \
		sh "$dir" "$jq_jobs"
	local jq_wall=$wall
	row "jq -c . ($jq_jobs processes)" "$wall" "$cpu" "$rss"

	measure_runs "replay chars4" "$tmp/replay-chars4.json" "$lg" replay --no-cache --format json --tokenizer chars4 "${jopt[@]}" "$dir"
	local sessions rc4_wall=$wall rc4_walls=$all_walls
	sessions=$(jq '.summary.sessions' "$tmp/replay-chars4.json")
	row "replay chars4 (jobs $jobs_label)" "$wall" "$cpu" "$rss" "$sessions"

	measure "replay chars4 --jobs 1" "$tmp/replay-jobs1.json" "$lg" replay --no-cache --format json --tokenizer chars4 --jobs 1 "$dir"
	row "replay chars4 (jobs 1)" "$wall" "$cpu" "$rss" "$(jq '.summary.sessions' "$tmp/replay-jobs1.json")"
	local same=DIFFER
	cmp -s "$tmp/replay-chars4.json" "$tmp/replay-jobs1.json" && same=OK

	measure "replay o200k_base" "$tmp/replay-o200k.json" "$lg" replay --no-cache --format json "${jopt[@]}" "$dir"
	row "replay o200k_base (jobs $jobs_label)" "$wall" "$cpu" "$rss" "$(jq '.summary.sessions' "$tmp/replay-o200k.json")"

	# Reading alone: the files parsed into sessions, nothing replayed. The
	# part of replay's time that is reading, and a bound on what a faster
	# guard or report could give.
	measure_runs "inspect (reading only)" "$tmp/inspect.json" "$lg" inspect --format json "${jopt[@]}" "$dir"
	local inspect_walls=$all_walls
	row "inspect, reading only (jobs $jobs_label)" "$wall" "$cpu" "$rss" "$(jq '.sessions | length' "$tmp/inspect.json")"

	# The sweep, BENCH_RUNS times, each run right after a replay of its own:
	# the machine's speed drifts within a minute, so the ratio is taken
	# within each pair and the median of the pairs' ratios is reported.
	replay_for_pair() {
		measure "replay chars4 before a sweep" /dev/null "$lg" replay --no-cache --format json --tokenizer chars4 "${jopt[@]}" "$dir"
	}
	paired_with=replay_for_pair measure_runs "sweep 50 configs chars4" "$tmp/sweep.json" \
		"$lg" sweep --format json --tokenizer chars4 "${jopt[@]}" \
		--preset loopgate \
		--vary detectors.no_progress.block_at=1..5 \
		--vary tools.class:shell.no_progress.block_at=1..10 "$dir"
	local configs sweep_ratio=$ratio sweep_ratios=$all_ratios
	configs=$(jq '.rows | length' "$tmp/sweep.json")
	row "sweep $configs configs chars4" "$wall" "$cpu" "$rss" "$(jq '.corpus.sessions' "$tmp/sweep.json")"

	echo
	echo "== loopgate benchmark: $size corpus, $files files, $(div "$bytes" 1e6 %.0f) MB, $sessions sessions"
	print_machine
	printf '%-38s %9s %9s %9s %11s %10s\n' "run" "wall s" "CPU s" "MB/s" "sessions/s" "peak MB"
	printf '%s\n' "${rows[@]}"
	echo "replay chars4 and inspect: the median of $runs runs (BENCH_RUNS); wall s of each run:"
	echo "  replay chars4 (jobs $jobs_label): $rc4_walls"
	echo "  inspect (jobs $jobs_label):       $inspect_walls"
	echo "sweep: the median of $runs runs, each right after a replay; sweep/replay of each pair: $sweep_ratios"
	echo "ratio sweep/replay (chars4):   $sweep_ratio   (the median of the pairs; target <= 3)"
	echo "ratio replay/jq (chars4):      $(div "$rc4_wall" "$jq_wall" %.2f)"
	echo "--jobs 1 vs --jobs $jobs_label JSON output: $same"
	echo "targets: replay >= 600 MB/s, peak RSS <= 200 MB (docs/performance.md)"
	[[ $dir == "$tmp/corpus" ]] && echo "(the corpus was temporary; pass DIR to keep it for the next run)"
	return 0
}

# many_sessions FILE N: an OpenAI request log of N short conversations, one
# per line, 1 to 4 reads of the same file each (every repeat redundant, and
# stopped by the default preset): the shape of a proxy's log, where the
# sessions, not the bytes, are many. Deterministic; written unless FILE exists.
many_sessions() {
	local file=$1 n=$2
	[[ -f $file ]] && return
	echo "== writing $n short sessions into $file"
	mkdir -p "$(dirname "$file")"
	awk -v n="$n" 'BEGIN {
		for (i = 0; i < n; i++) {
			line = sprintf("{\"metadata\":{\"session_id\":\"s%d\"},\"messages\":[{\"role\":\"user\",\"content\":\"read it %d\"}", i, i)
			for (c = 0; c <= i % 4; c++) {
				line = line sprintf(",{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"c%d\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"f%d\\\"}\"}}]}", c, i % 5)
				line = line sprintf(",{\"role\":\"tool\",\"tool_call_id\":\"c%d\",\"content\":\"same text %d\"}", c, i % 5)
			}
			print line ",{\"role\":\"assistant\",\"content\":\"done\"}]}"
		}
	}' >"$file.tmp" && mv "$file.tmp" "$file"
}

# memory: the same replay on two corpus sizes whose largest file (hence
# largest session) is capped alike, and on two request logs of 200 000 and
# 2 000 000 short sessions; peak RSS should follow neither the size nor
# the number of sessions.
memory() {
	local dir=${1:-$tmp/corpus} size
	local sizes=(100MB 400MB)
	local mrows=()
	for size in "${sizes[@]}"; do
		ensure_corpus "$dir/mem-$size" "$size" -large 0 -max-file 8MiB
	done
	for n in 200000 2000000; do
		many_sessions "$dir/sessions-$n/log.jsonl" "$n"
	done
	local mrow='%-8s %-7s %9s %10s %9s %11s %10s'
	for size in "${sizes[@]}"; do
		local d=$dir/mem-$size b sessions
		b=$(corpus_bytes "$d")
		measure "replay $size --format json" "$tmp/mem-$size.json" "$lg" replay --no-cache --format json --tokenizer chars4 "$d"
		sessions=$(jq '.summary.sessions' "$tmp/mem-$size.json")
		mrows+=("$(printf "$mrow" "$size" json "$(div "$b" 1e6 %.0f)" "$(largest_file "$d")" "$wall" "$(div "$sessions" "$wall" %.0f)" "$rss")")
		measure "replay $size --format jsonl" /dev/null "$lg" replay --no-cache --format jsonl --tokenizer chars4 "$d"
		mrows+=("$(printf "$mrow" "$size" jsonl "$(div "$b" 1e6 %.0f)" "$(largest_file "$d")" "$wall" "$(div "$sessions" "$wall" %.0f)" "$rss")")
	done
	for n in 200000 2000000; do
		local d=$dir/sessions-$n b
		b=$(corpus_bytes "$d")
		for fmt in json jsonl; do
			# The reports of these logs are large; their session count
			# is known.
			measure "replay $n sessions --format $fmt" /dev/null "$lg" replay --no-cache --format "$fmt" --tokenizer chars4 "$d"
			mrows+=("$(printf "$mrow" "${n}s" "$fmt" "$(div "$b" 1e6 %.0f)" "$(largest_file "$d")" "$wall" "$(div "$n" "$wall" %.0f)" "$rss")")
		done
	done
	echo
	echo "== loopgate memory benchmark (replay --tokenizer chars4; corpora generated with -large 0 -max-file 8MiB)"
	print_machine
	printf "$mrow\n" "corpus" "format" "MB" "largest B" "wall s" "sessions/s" "peak MB"
	printf '%s\n' "${mrows[@]}"
	echo "(corpus 200000s: a request log of that many short sessions. --format json keeps each"
	echo " session's summary for the report, on disk past 8192; jsonl streams them)"
}

# ccusage_binary: the path of ccusage's native binary, installed with npm
# into the cache when absent. The npm package ccusage is a launcher whose
# binary comes in an optional per-platform package; both are installed, and
# the benchmark runs the binary itself (no Node start-up in its times).
# ccusage 20.0.26 asks for @ccusage/ccusage-linux-x64@20.0.26, which npm
# does not have (its newest is 20.0.24, checked 2026-11-25 with npm view):
# that is why installing ccusage alone brings no binary, and why the
# platform package's version is named apart.
ccusage_binary() {
	if [[ -n ${CCUSAGE:-} ]]; then
		echo "$CCUSAGE"
		return
	fi
	local version=${CCUSAGE_VERSION:-20.0.26} native=${CCUSAGE_NATIVE_VERSION:-20.0.24} arch
	case $(uname -m) in
	x86_64) arch=x64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*)
		echo "bench.sh: no ccusage build for $(uname -m); set CCUSAGE" >&2
		return 2
		;;
	esac
	local cache=${BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/loopgate-bench}/ccusage-$version-$native
	local bin=$cache/node_modules/@ccusage/ccusage-linux-$arch/bin/ccusage
	if [[ ! -f $bin ]]; then
		command -v npm >/dev/null || {
			echo "bench.sh: npm is required to install ccusage (or set CCUSAGE)" >&2
			return 2
		}
		echo "== installing ccusage $version and @ccusage/ccusage-linux-$arch $native into $cache" >&2
		mkdir -p "$cache"
		npm install --no-audit --no-fund --prefix "$cache" \
			"ccusage@$version" "@ccusage/ccusage-linux-$arch@$native" >&2 || return 2
	fi
	# npm leaves the binary without the execute bit its launcher would set.
	chmod +x "$bin" || return 2
	echo "$bin"
}

# pair_stat FILE AWK-EXPR [FORMAT]: the median and range, over the pairs
# in FILE (scripts/pairs.sh output), of an expression of a pair's columns:
# $2 old wall, $3 old cpu, $4 old MB, $5 new wall, $6 new cpu, $7 new MB.
pair_stat() {
	awk "/^ *[0-9]+ / {printf \"%.4f\\n\", $2}" "$1" | sort -g | awk -v f="${3:-%.2f}" '
		{v[NR] = $1}
		END {m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf f " (" f "-" f ")", m, v[1], v[NR]}'
}

# pairs NAME OLD NEW DIR: scripts/pairs.sh of OLD and NEW on DIR, its
# output shown and kept in $tmp/NAME.pairs.
pairs() {
	echo "-- $1: $(basename "$2") then $(basename "$3"), $pairs_n pairs on $4"
	"$repo/scripts/pairs.sh" -n "$pairs_n" "$2" "$3" -- "$4" | tee "$tmp/$1.pairs"
}

# wrapper NAME COMMAND...: an executable $tmp/run/NAME running COMMAND with
# the corpus directory as its last argument (pairs.sh passes it). The
# wrappers live apart from the binaries so that none can run itself.
wrapper() {
	local name=$1
	shift
	mkdir -p "$tmp/run"
	{
		echo '#!/bin/sh'
		printf '%q ' exec "$@"
		echo '"$1"'
	} >"$tmp/run/$name"
	chmod +x "$tmp/run/$name"
}

ratios() {
	local size=${1:-500MB} dir=${2:-}
	[[ -z $dir ]] && dir=$tmp/corpus
	pairs_n=${BENCH_PAIRS:-5}
	[[ $pairs_n =~ ^[1-9][0-9]*$ ]] || {
		echo "bench.sh: BENCH_PAIRS must be a positive number, not $pairs_n" >&2
		exit 2
	}
	local cc
	cc=$(ccusage_binary) || exit 2
	local claude=$dir/claude-code loops=$dir/loop-heavy
	ensure_ratio_corpora "$dir" "$size"
	[[ -d $claude/claude/projects ]] || {
		echo "bench.sh: $claude/claude/projects is missing: not a Claude Code corpus" >&2
		exit 2
	}
	local claude_bytes loops_bytes
	claude_bytes=$(corpus_bytes "$claude")
	loops_bytes=$(corpus_bytes "$loops")
	echo "== corpora: $claude ($claude_bytes bytes), $loops ($loops_bytes bytes)"

	# ccusage reads CLAUDE_CONFIG_DIR/projects; HOME is an empty directory
	# so that it finds no other agent's logs of this machine.
	mkdir -p "$tmp/home" "$tmp/run"
	{
		echo '#!/bin/sh'
		printf 'HOME=%q CLAUDE_CONFIG_DIR="$1/claude" exec %q session --json --offline\n' "$tmp/home" "$cc"
	} >"$tmp/run/ccusage-session"
	chmod +x "$tmp/run/ccusage-session"
	local jopt=()
	[[ $jobs != 0 ]] && jopt=(--jobs "$jobs")
	wrapper loopgate-replay "$lg" replay --no-cache --format json "${jopt[@]}"
	wrapper loopgate-chars4 "$lg" replay --no-cache --format json --tokenizer chars4 "${jopt[@]}"
	wrapper linefloor "$tmp/linefloor" "${jopt[@]}"

	# What each side found: the same sessions, or the ratio means nothing.
	"$tmp/run/ccusage-session" "$claude" >"$tmp/ccusage.json"
	"$tmp/run/loopgate-replay" "$claude" >"$tmp/replay-claude.json"
	local cc_sessions lg_sessions
	cc_sessions=$(jq '.session | length' "$tmp/ccusage.json")
	lg_sessions=$(jq '.summary.sessions' "$tmp/replay-claude.json")
	echo "== sessions in $claude: ccusage $cc_sessions, loopgate $lg_sessions"

	# 1. A full replay (the default tokenizer, o200k_base) against ccusage's
	# session report, which only sums the usage each record carries.
	pairs ccusage "$tmp/run/loopgate-replay" "$tmp/run/ccusage-session" "$claude"
	# 2. o200k_base against chars4 on the loop-heavy corpus.
	pairs tokenizer "$tmp/run/loopgate-chars4" "$tmp/run/loopgate-replay" "$loops"
	# 5. Replay against the floor: lines split and checked as JSON, on
	# every core, nothing else.
	pairs floor "$tmp/run/linefloor" "$tmp/run/loopgate-replay" "$claude"

	"$tmp/run/loopgate-replay" "$loops" >"$tmp/replay-loops.json"
	"$lg" replay --no-cache --format json --jobs 1 "$loops" >"$tmp/replay-loops-jobs1.json"
	local same=DIFFER
	cmp -s "$tmp/replay-loops.json" "$tmp/replay-loops-jobs1.json" && same=OK
	local stopped blocked largest
	stopped=$(jq -r '.summary | (.steered + .blocked + .deduped + .halted) / .calls * 100 | floor' "$tmp/replay-loops.json")
	blocked=$(jq -r '.summary | (.blocked + .deduped + .halted) / .calls * 100 | floor' "$tmp/replay-loops.json")
	largest=$(jq -r '.totals.max_result_bytes' "$loops/.manifest.json")

	local mb=1e6
	echo
	echo "== loopgate against its goals: $size corpora, $pairs_n alternating pairs each"
	print_machine
	echo "ccusage: $("$cc" --version 2>/dev/null | head -1) (native binary; session --json --offline), loopgate replay --format json (o200k_base unless said)"
	echo "each ratio: the median of the pairs (lowest-highest)"
	echo "1. speed against ccusage, ccusage wall / loopgate wall:        $(pair_stat "$tmp/ccusage.pairs" '$5 / $2')   goal >= 3"
	echo "   memory against ccusage, loopgate peak RSS / ccusage's:      $(pair_stat "$tmp/ccusage.pairs" '$4 / $7')   goal <= 0.4"
	echo "   (Claude Code corpus, $(div "$claude_bytes" "$mb" %.0f) MB, $lg_sessions sessions; CPU ccusage / loopgate $(pair_stat "$tmp/ccusage.pairs" '$6 / $3'); peak RSS loopgate $(pair_stat "$tmp/ccusage.pairs" '$4' %.0f) MB, ccusage $(pair_stat "$tmp/ccusage.pairs" '$7' %.0f) MB)"
	echo "2. o200k_base / chars4 replay wall time:                      $(pair_stat "$tmp/tokenizer.pairs" '$5 / $2')   goal <= 1.25"
	echo "   (loop-heavy corpus, $(div "$loops_bytes" "$mb" %.0f) MB, all formats: $stopped% of calls stopped, $blocked% blocked or halted; results up to $largest bytes; CPU ratio $(pair_stat "$tmp/tokenizer.pairs" '$6 / $3'))"
	echo "3. replay CPU use, (user + system) / wall, of $((ncpu * 100))%:         $(pair_stat "$tmp/ccusage.pairs" '100 * $3 / $2' %.0f%%) Claude Code corpus; $(pair_stat "$tmp/tokenizer.pairs" '100 * $6 / $5' %.0f%%) loop-heavy (o200k_base), $(pair_stat "$tmp/tokenizer.pairs" '100 * $3 / $2' %.0f%%) (chars4)"
	echo "4. live hook p99: not measured here (docs/live.md)"
	echo "5. replay throughput / floor (lines split and checked, all cores): $(pair_stat "$tmp/floor.pairs" '$2 / $5')   goal >= 0.9"
	echo "   (Claude Code corpus: replay $(pair_stat "$tmp/floor.pairs" "$claude_bytes / \$5 / $mb" %.0f) MB/s, floor $(pair_stat "$tmp/floor.pairs" "$claude_bytes / \$2 / $mb" %.0f) MB/s; CPU floor / replay $(pair_stat "$tmp/floor.pairs" '$3 / $6'))"
	echo "--jobs 1 vs --jobs $jobs_label JSON output (loop-heavy): $same"
	[[ $dir == "$tmp/corpus" ]] && echo "(the corpora were temporary; pass DIR to keep them for the next run)"
	return 0
}

case $mode in
memory) memory "${1:-}" ;;
throughput) throughput "${1:-1GiB}" "${2:-}" ;;
ratios) ratios "${1:-500MB}" "${2:-}" ;;
esac
