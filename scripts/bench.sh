#!/usr/bin/env bash
# bench.sh: the loopgate benchmark (issue 7, docs/performance.md).
#
#   scripts/bench.sh [SIZE] [DIR]        throughput: replay, reading alone
#                                        (inspect), sweep, jq reference
#   scripts/bench.sh --memory [DIR]      peak memory on two corpus sizes and
#                                        two counts of short sessions
#
# SIZE is a corpus size for cmd/gencorpus (default 1GiB; 200MB for a quick
# run). DIR holds the corpus: when it has no generated corpus yet
# (no DIR/.manifest.json) one is generated there with seed 1; when DIR is
# omitted the corpus goes to a temporary directory removed at the end.
# Run it from anywhere inside the repository.
#
# Needs: go, /usr/bin/time (GNU time, for peak RSS), jq (the reference
# parser and the summary reader), cmp, awk.
#
# Environment: BENCH_JOBS (the "default" jobs of the replay, 0 = one per
# core as loopgate does), JQ_JOBS (jq processes run side by side over the
# files, default nproc: the same cores loopgate gets), BENCH_RUNS (how many
# times the headline replay, inspect and the sweep run, default 3: their
# rows show the median, and every run's time is printed below the table;
# on a shared machine one run can be 20% off. Each sweep runs right after
# a replay of its own, and the sweep/replay ratio is the median of those
# pairs' ratios).
set -euo pipefail

usage() {
	# The comment at the top of this file, whole.
	awk 'NR > 1 && /^#/ {print; next} NR > 1 {exit}' "$0" | sed 's/^# \{0,1\}//'
	exit 2
}

mode=throughput
if [[ ${1:-} == --memory ]]; then
	mode=memory
	shift
fi
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

echo "== building loopgate and gencorpus"
(cd "$repo" && go build -o "$tmp/loopgate" . && go build -o "$tmp/gencorpus" ./cmd/gencorpus)
lg=$tmp/loopgate

# ensure_corpus DIR SIZE [gencorpus flags...]: generate unless DIR already
# holds a generated corpus.
ensure_corpus() {
	local dir=$1 size=$2
	shift 2
	if [[ -f $dir/.manifest.json ]]; then
		echo "== using the corpus already in $dir (SIZE $size not applied)"
	else
		echo "== generating $size into $dir (seed 1)"
		mkdir -p "$dir"
		"$tmp/gencorpus" -out "$dir" -seed 1 -size "$size" -loops "$@"
	fi
}

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

	measure_runs "replay chars4" "$tmp/replay-chars4.json" "$lg" replay --format json --tokenizer chars4 "${jopt[@]}" "$dir"
	local sessions rc4_wall=$wall rc4_walls=$all_walls
	sessions=$(jq '.summary.sessions' "$tmp/replay-chars4.json")
	row "replay chars4 (jobs $jobs_label)" "$wall" "$cpu" "$rss" "$sessions"

	measure "replay chars4 --jobs 1" "$tmp/replay-jobs1.json" "$lg" replay --format json --tokenizer chars4 --jobs 1 "$dir"
	row "replay chars4 (jobs 1)" "$wall" "$cpu" "$rss" "$(jq '.summary.sessions' "$tmp/replay-jobs1.json")"
	local same=DIFFER
	cmp -s "$tmp/replay-chars4.json" "$tmp/replay-jobs1.json" && same=OK

	measure "replay o200k_base" "$tmp/replay-o200k.json" "$lg" replay --format json "${jopt[@]}" "$dir"
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
		measure "replay chars4 before a sweep" /dev/null "$lg" replay --format json --tokenizer chars4 "${jopt[@]}" "$dir"
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
		measure "replay $size --format json" "$tmp/mem-$size.json" "$lg" replay --format json --tokenizer chars4 "$d"
		sessions=$(jq '.summary.sessions' "$tmp/mem-$size.json")
		mrows+=("$(printf "$mrow" "$size" json "$(div "$b" 1e6 %.0f)" "$(largest_file "$d")" "$wall" "$(div "$sessions" "$wall" %.0f)" "$rss")")
		measure "replay $size --format jsonl" /dev/null "$lg" replay --format jsonl --tokenizer chars4 "$d"
		mrows+=("$(printf "$mrow" "$size" jsonl "$(div "$b" 1e6 %.0f)" "$(largest_file "$d")" "$wall" "$(div "$sessions" "$wall" %.0f)" "$rss")")
	done
	for n in 200000 2000000; do
		local d=$dir/sessions-$n b
		b=$(corpus_bytes "$d")
		for fmt in json jsonl; do
			# The reports of these logs are large; their session count
			# is known.
			measure "replay $n sessions --format $fmt" /dev/null "$lg" replay --format "$fmt" --tokenizer chars4 "$d"
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

if [[ $mode == memory ]]; then
	memory "${1:-}"
else
	throughput "${1:-1GiB}" "${2:-}"
fi
