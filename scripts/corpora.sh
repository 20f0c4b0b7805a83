# corpora.sh: the generated corpora of scripts/bench.sh and scripts/pgo.sh,
# sourced by both, so that default.pgo is profiled on the corpora the
# benchmark measures. The caller sets gencorpus to a built cmd/gencorpus.

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
		"$gencorpus" -out "$dir" -seed 1 -size "$size" -loops "$@"
	fi
}

# ensure_ratio_corpora DIR SIZE: the two corpora of the goals' ratios,
# DIR/claude-code (Claude Code only, laid out as ~/.claude/projects) and
# DIR/loop-heavy (all formats, a loop planted in place of half the ordinary
# steps, results up to 80 KB).
ensure_ratio_corpora() {
	ensure_corpus "$1/claude-code" "$2" -formats claude-code
	ensure_corpus "$1/loop-heavy" "$2" -loop-rate 50 -max-result 80KB
}
