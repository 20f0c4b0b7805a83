# twobuilds.sh: the command line that scripts/pairs.sh and
# scripts/instructions.sh share, sourced by both:
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
