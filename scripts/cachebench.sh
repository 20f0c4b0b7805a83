#!/usr/bin/env bash
# cachebench.sh: the replay cache's speed (docs/performance.md, "The replay
# cache").
#
#   scripts/cachebench.sh BINARY CORPUS [ROUNDS]
#
# Per round, on one corpus and one cache folder (a temporary one):
#   full       replay --no-cache                         (every file read)
#   unchanged  replay with the cache, nothing changed    (every file cached)
#   changed    replay with the cache after 5% of the corpus changed: a
#              JSONL file grown by a copy of its last line, a JSON document
#              touched (its time moved). CHANGE=files (the default) changes
#              every 20th file in path order, 5% of the files; CHANGE=bytes
#              changes files in a fixed shuffled order until they hold 5%
#              of the bytes (passing over one that would make it over 6%) (a corpus' few large files make the two differ)
# then the changed files are put back and the cache refreshed (a run that is
# not timed). Each timed run's report is compared with the full run's
# (cmp): a difference stops the script. It prints every time (wall and CPU,
# user + system), the load average, and the ratios full/unchanged and
# full/changed of each round, of wall time and of CPU time.
# Needs /usr/bin/time (GNU time) and cmp.
set -euo pipefail
bin=$(realpath "$1") corpus=$(realpath "$2") pairs=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LOOPGATE_CACHE_DIR=$work/cache
mapfile -t all < <(find "$corpus" -type f ! -name '.*' | sort)
total=0 part=0
for f in "${all[@]}"; do total=$((total + $(stat -c %s "$f"))); done
changed=()
if [ "${CHANGE:-files}" = bytes ]; then
	sum=0
	while read -r f; do
		[ $((sum * 20)) -ge "$total" ] && break
		size=$(stat -c %s "$f")
		# A file that would take the share past 6% is passed over.
		[ $(((sum + size) * 100)) -gt $((total * 6)) ] && continue
		changed+=("$f")
		sum=$((sum + size))
	done < <(printf '%s\n' "${all[@]}" | shuf --random-source=<(yes 54))
else
	for ((i = 0; i < ${#all[@]}; i += 20)); do changed+=("${all[i]}"); done
fi
mkdir -p "$work/orig"
for i in "${!changed[@]}"; do
	cp -p "${changed[i]}" "$work/orig/$i"
	part=$((part + $(stat -c %s "${changed[i]}")))
done
awk -v n=${#all[@]} -v t=$total -v c=${#changed[@]} -v p=$part 'BEGIN { printf "corpus: %d files, %d bytes; changed each round: %d files (%.1f%%), %d bytes (%.1f%%)\n", n, t, c, 100 * c / n, p, 100 * p / t }'
timed() { # NAME OUT ARGS...: runs the replay, prints its wall and CPU seconds
	local name=$1 out=$2
	shift 2
	/usr/bin/time -f "%e %M %U %S" -o "$work/t" "$bin" replay "$corpus" --format json "$@" >"$out"
	read -r secs rss user sys <"$work/t"
	echo "$name $secs s, CPU $user user + $sys sys, $rss KB" >&2
	awk -v e="$secs" -v u="$user" -v s="$sys" 'BEGIN { printf "%s %.2f\n", e, u + s }'
}
change() {
	for f in "${changed[@]}"; do
		case $f in
		*.jsonl) tail -n 1 "$f" >>"$f" ;;
		*) touch "$f" ;;
		esac
	done
}
restore() { for i in "${!changed[@]}"; do cp -p "$work/orig/$i" "${changed[i]}"; done; }
uptime
cold=$(timed cold-cache "$work/cold.json")
for ((r = 1; r <= pairs; r++)); do
	uptime
	full=$(timed full "$work/full.json" --no-cache)
	cmp -s "$work/full.json" "$work/cold.json" || { echo "round $r: the cold cache's report differs" >&2; exit 1; }
	same=$(timed unchanged "$work/same.json")
	cmp "$work/full.json" "$work/same.json"
	change
	timed full-changed "$work/fullc.json" --no-cache >/dev/null
	ch=$(timed changed "$work/changed.json")
	cmp "$work/fullc.json" "$work/changed.json"
	restore
	timed refresh "$work/refresh.json" >/dev/null
	cmp "$work/full.json" "$work/refresh.json"
	# Each of full, same, ch is "WALL CPU".
	awk -v r="$r" -v f="$full" -v s="$same" -v c="$ch" 'BEGIN {
		split(f, F, " "); split(s, S, " "); split(c, C, " ")
		printf "round %d: wall: full %.2f s, unchanged %.2f s (%.1fx), 5%% changed %.2f s (%.1fx); CPU: full %.2f s, unchanged %.2f s (%.1fx), 5%% changed %.2f s (%.1fx)\n",
			r, F[1], S[1], F[1] / S[1], C[1], F[1] / C[1], F[2], S[2], F[2] / S[2], C[2], F[2] / C[2] }'
done
echo "cold cache (first run, entries written): $cold s"
echo "cache folder: $(du -sb "$LOOPGATE_CACHE_DIR" | cut -f1) bytes"
