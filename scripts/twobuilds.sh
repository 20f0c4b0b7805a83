# twobuilds.sh: the command line that scripts/pairs.sh,
# scripts/instructions.sh and scripts/hookinstructions.sh share, sourced by
# them:
#
#   [-n COUNT] OLD NEW [MORE...] [-- ARGS...]
#
# OLD and NEW are the two builds compared; MORE are the script's other
# operands.

# usage: the calling script's comment at the top, whole; exit 2.
usage() {
	awk 'NR > 1 && /^#/ {print; next} NR > 1 {exit}' "$0" | sed 's/^# \{0,1\}//'
	exit 2
}

# two_builds COUNT OPERANDS ARGS...: reads ARGS (the script's own) into
# count (-n, default COUNT; a positive number), old and new, operands (all
# OPERANDS operands, OLD and NEW first: at least 2) and rest (what
# follows them, after an optional --). OLD and NEW must be executables.
two_builds() {
	count=$1
	local want=$2 me
	me=$(basename "$0")
	shift 2
	while [[ $# -gt 0 ]]; do
		case $1 in
		-n)
			[[ $# -ge 2 ]] || usage
			count=$2
			shift 2
			;;
		-h | --help) usage ;;
		*) break ;;
		esac
	done
	[[ $# -ge $want ]] || usage
	operands=("${@:1:want}")
	old=$1 new=$2
	shift "$want"
	if [[ ${1:-} == -- ]]; then
		shift
	fi
	rest=("$@")
	[[ $count =~ ^[1-9][0-9]*$ ]] || {
		echo "$me: -n must be a positive number, not $count" >&2
		exit 2
	}
	for bin in "$old" "$new"; do
		[[ -x $bin ]] || {
			echo "$me: $bin is not an executable" >&2
			exit 2
		}
	done
}

# medians_ratio FILE: FILE's lines are "RUN OLD NEW" counts; prints the ratio
# NEW / OLD of their medians.
medians_ratio() {
	awk '{o[NR] = $2; n[NR] = $3}
	function median(v, k,    i, j, t) {
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
		return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
	}
	END { mo = median(o, NR); mn = median(n, NR); printf "new/old, medians: %.4f (%+.1f%%)\n", mn / mo, 100 * (mn / mo - 1) }' "$1"
}
