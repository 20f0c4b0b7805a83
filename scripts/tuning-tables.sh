#!/usr/bin/env bash
# tuning-tables.sh: measures the presets with the built binary and prints
# the measured tables of docs/tuning.md as markdown ("Measured tables").
#
#   scripts/tuning-tables.sh [--jobs N] [--write] [WORKDIR]
#
# --jobs N   files read in parallel (default 1: the machine stays usable)
# --write    replace the block between the tuning-tables markers in
#            docs/tuning.md with the output, instead of printing it
# WORKDIR    where the binaries, corpora and tuned rules go (default: a
#            temporary directory); corpora already there are reused
#
# What it measures (tokenizer chars4, the replay cache in WORKDIR):
#  1. The real transcripts of the samples folder beside the checkout
#     (docs/conformance.md; or $LOOPGATE_SAMPLES), split in two halves by a
#     hash of each file's path under that folder: loopgate's --shard 1/2
#     (the tune half) and --shard 2/2 (the held-out half), FNV-1a of the
#     path, the same split on every run and machine. Per half: every
#     preset side by side (compare), and the loopgate preset per source
#     (the format family loopgate read each session as). Then `loopgate
#     tune --shard 1/2` chooses a setting on the tune half, and the chosen
#     rules are replayed on both halves beside the preset. Skipped, with a
#     message, when the folder is absent.
#  2. Generated corpora (cmd/gencorpus, docs/generator.md): the two the
#     preset was designed on (seeds 7 and 99, every preset), five it was
#     not (seeds 1, 2, 42, 123, 2024), and a loop-heavy one (half the
#     steps loops): the loopgate preset on each.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=1 write=0 work=
while (($#)); do
	case $1 in
	--jobs) jobs=$2; shift 2 ;;
	--jobs=*) jobs=${1#--jobs=}; shift ;;
	--write) write=1; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "tuning-tables.sh: unknown flag $1" >&2; exit 2 ;;
	*) work=$1; shift ;;
	esac
done
work=${work:-$(mktemp -d "${TMPDIR:-/tmp}/loopgate-tuning.XXXXXX")}
mkdir -p "$work"
work=$(cd "$work" && pwd)
samples=${LOOPGATE_SAMPLES:-$repo/../shared/samples}
export LOOPGATE_CACHE_DIR=$work/cache
cd "$repo"
go build -o "$work/loopgate" . && go build -o "$work/gencorpus" ./cmd/gencorpus
lg=$work/loopgate
common=(--jobs "$jobs" --progress never --tokenizer chars4)

# The code measured: the commit, its branch, and whether files other than
# docs/tuning.md differ from it.
state() {
	local rev branch dirty=""
	rev=$(git -C "$repo" rev-parse --short=12 HEAD)
	branch=$(git -C "$repo" branch --show-current)
	if [[ -n $(git -C "$repo" status --porcelain -- . ':!docs/tuning.md') ]]; then
		dirty=", with uncommitted changes"
	fi
	echo "commit \`$rev\` (branch \`${branch:-detached}\`$dirty)"
}

# compare_md ARGS...: compare's markdown without its title.
compare_md() {
	"$lg" compare "${common[@]}" --format markdown "$@" 2>/dev/null | sed '1{/^## /d}' | sed '1{/^$/d}'
}

# The per-source table of a replay's JSON report: sessions grouped by the
# format family they were read as (hermes-export, hermes-gateway, ... are
# hermes), then the total.
# Numbers as compare writes them: thousands separated, ratios to a tenth.
jq_defs='
def commas: tostring | if length > 3 then (.[:-3] | commas) + "," + .[-3:] else . end;
def ratio(p): if p == null then "n/a" else (p * 1000 | round) as $t | "\($t / 10 | floor).\($t % 10)%" end;
def pct(a; b): if b == 0 then "n/a" else ratio(a / b) end;'
per_source=$jq_defs'
def family: sub("-(export|gateway|request-dump|snapshot|trajectory|resolver|v1|ui)$"; "");
def row(name; s): "| \(name) | \(s | map(.file) | unique | length) | \(s | length) | \(s | map(.calls) | add | commas) | \(s | map(.redundant) | add) | \(s | map(.redundant_stopped) | add) | \(pct(s | map(.redundant_stopped) | add; s | map(.redundant) | add)) | \(s | map(.harmful) | add) | \(s | map(.stopped_actions) | add) | \(s | map(.steered) | add) | \(s | map(.tokens_saved) | add | commas) |";
"| source | files | sessions | calls | redundant | stopped | recall | harmful | stopped actions | steered | tokens saved |",
"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
(.sessions | group_by(.format | family)[] | row(.[0].format | family; .)),
row("**all**"; .sessions)'

# loopgate_row LABEL DIR: the loopgate preset's figures on a corpus, one row.
loopgate_row() {
	"$lg" replay "${common[@]}" --format json --preset loopgate "$2" 2>/dev/null | jq -r --arg name "$1" "$jq_defs"'
		.summary | "| \($name) | \(.calls | commas) | \(.redundant | commas) | \(.redundant_stopped | commas) | \(ratio(.recall)) | \(.harmful) | \(.stopped_actions) | \(.steered) | \(.tokens_saved | commas) |"'
}

# ensure DIR gencorpus-flags...: generate unless DIR holds the corpus this
# generator (the same binary, the same flags) wrote.
ensure() {
	local dir=$1 stamp
	shift
	stamp="$(sha256sum <"$work/gencorpus" | cut -c1-64) $*"
	if [[ -f $dir/.manifest.json && $(cat "$dir/.tuning-stamp" 2>/dev/null) == "$stamp" ]]; then
		return
	fi
	rm -rf "$dir"
	"$work/gencorpus" -out "$dir" "$@" >/dev/null
	echo "$stamp" >"$dir/.tuning-stamp"
}

tables() {
	echo "Measured by \`scripts/tuning-tables.sh\` with the code of $(state); tokenizer chars4."
	echo
	echo "### The real transcripts, tune half and held-out half"
	echo
	if [[ ! -d $samples ]]; then
		echo "tuning-tables.sh: no samples folder at $samples: the real-transcript tables are skipped" >&2
		echo "(Skipped: this run had no samples folder beside the checkout.)"
	else
		local parent base
		parent=$(cd "$samples/.." && pwd) base=$(basename "$samples")
		cd "$parent" # paths in the output are relative: SAMPLES/...
		echo "SAMPLES is the lab's samples folder (docs/conformance.md), \`third-party/\` included."
		echo "Each file found there falls in the tune half (\`--shard 1/2\`) or the held-out half"
		echo "(\`--shard 2/2\`) by an FNV-1a hash of its path under SAMPLES: the same split on every run."
		echo "The held-out half is never used to choose anything below."
		local half name
		for half in 1 2; do
			name=$([[ $half == 1 ]] && echo "Tune half" || echo "Held-out half")
			echo
			echo "#### $name (\`--shard $half/2\`): every preset"
			echo
			compare_md --shard "$half/2" "$base"
			echo
			echo "#### $name: the \`loopgate\` preset per source"
			echo
			"$lg" replay "${common[@]}" --format json --preset loopgate --shard "$half/2" "$base" 2>/dev/null | jq -r "$per_source"
		done
		echo
		echo "#### \`loopgate tune\` on the tune half, checked on the held-out half"
		echo
		echo '```text'
		echo "\$ loopgate tune --tokenizer chars4 --max-harm 0 --shard 1/2 -o tuned.yaml SAMPLES"
		rm -f "$work/tuned.yaml"
		"$lg" tune "${common[@]}" --max-harm 0 --shard 1/2 -o "$work/tuned.yaml" "$base" 2>/dev/null |
			sed "s|$work/||g" || echo "(tune exited $?)"
		echo '```'
		if [[ -f $work/tuned.yaml ]]; then
			echo
			echo "The rules file's header:"
			echo
			echo '```yaml'
			sed -n '/^#/p; /^$/q' "$work/tuned.yaml"
			echo '```'
			for half in 1 2; do
				name=$([[ $half == 1 ]] && echo "tune half" || echo "held-out half")
				echo
				echo "The chosen rules (\`loopgate-tuned\`) beside the preset on the $name:"
				echo
				compare_md --preset loopgate --rules "$work/tuned.yaml" --shard "$half/2" "$base"
			done
		fi
		cd "$repo"
	fi
	echo
	echo "### Generated corpora"
	echo
	local seed
	for seed in 7 99; do
		ensure "$work/seed$seed" -size 20MB -loops -seed "$seed" -large 0 -max-file 2MiB -max-result 64KiB
	done
	for seed in 1 2 42 123 2024; do
		ensure "$work/heldout$seed" -size 8MB -loops -seed "$seed"
	done
	ensure "$work/loop-heavy" -size 8MB -loops -seed 1 -loop-rate 50 -max-result 80KB
	echo "The \`loopgate\` preset on each: the two corpora it was designed on (\`gencorpus -size 20MB"
	echo "-loops -seed N -large 0 -max-file 2MiB -max-result 64KiB\`, N 7 and 99), five it was not"
	echo "(\`-size 8MB -loops -seed N\`), and a loop-heavy one (\`-size 8MB -loops -seed 1 -loop-rate 50"
	echo "-max-result 80KB\`, a loop in place of half the ordinary steps)."
	echo
	echo "| corpus | calls | redundant | stopped | recall | harmful | stopped actions | steered | tokens saved |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	for seed in 7 99; do loopgate_row "seed $seed (designed on)" "$work/seed$seed"; done
	for seed in 1 2 42 123 2024; do loopgate_row "seed $seed" "$work/heldout$seed"; done
	loopgate_row "loop-heavy, seed 1" "$work/loop-heavy"
	for seed in 7 99; do
		echo
		echo "#### Every preset, seed $seed"
		echo
		compare_md "$work/seed$seed"
	done
}

if ((write)); then
	out=$(tables)
	doc=$repo/docs/tuning.md
	begin='<!-- tuning-tables: begin (scripts/tuning-tables.sh --write) -->'
	end='<!-- tuning-tables: end -->'
	grep -qxF "$begin" "$doc" && grep -qxF "$end" "$doc" || {
		echo "tuning-tables.sh: docs/tuning.md lacks the markers $begin / $end" >&2
		exit 1
	}
	printf '%s\n' "$out" >"$work/tables.md"
	awk -v b="$begin" -v e="$end" -v f="$work/tables.md" '
		$0 == b { print; while ((getline l < f) > 0) print l; skip = 1; next }
		$0 == e { skip = 0 }
		!skip' "$doc" >"$work/tuning.md"
	cp "$work/tuning.md" "$doc"
	echo "tuning-tables.sh: docs/tuning.md rewritten between its markers (work in $work)" >&2
else
	tables
fi
