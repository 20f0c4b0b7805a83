#!/usr/bin/env bash
# tuning-tables.sh: regenerates the measured tables of docs/tuning.md
# ("How the loopgate preset was chosen"): the planted-loop corpora (seeds
# 7 and 99) and the real samples in ../shared/samples, the samples folder
# beside the repository (third-party/ included, and also alone), compare
# over every preset and the sweep of the loopgate preset. Prints markdown;
# paste it into docs/tuning.md.
#
#   scripts/tuning-tables.sh [WORKDIR]     (default: a temporary directory)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/loopgate-tuning.XXXXXX")}
samples=$repo/../shared/samples
cd "$repo"
go build -o "$work/loopgate" . && go build -o "$work/gencorpus" ./cmd/gencorpus
lg=$work/loopgate
for seed in 7 99; do
	[[ -f $work/seed$seed/.manifest.json ]] ||
		"$work/gencorpus" -out "$work/seed$seed" -size 20MB -loops -seed "$seed" -large 0 -max-file 2MiB -max-result 64KiB >/dev/null
done
sweep=(--preset loopgate --vary detectors.no_progress.block_at=1..3 --vary tools.class:shell.no_progress.block_at=1,2)
echo "### Sweep of the adopted preset (seed 7)"; echo
"$lg" sweep --tokenizer chars4 --format markdown "${sweep[@]}" "$work/seed7"
if [[ -d $samples ]]; then
	echo; echo "### Sweep on the real samples"; echo
	"$lg" sweep --tokenizer chars4 --format markdown "${sweep[@]}" "$samples"
fi
for seed in 7 99; do
	echo; echo "### All presets, seed $seed"; echo
	"$lg" compare --tokenizer chars4 --format markdown "$work/seed$seed"
done
if [[ -d $samples ]]; then
	echo; echo "### All presets on the real samples"; echo
	"$lg" compare --tokenizer chars4 --format markdown "$samples"
fi
if [[ -d $samples/third-party ]]; then
	echo; echo "### All presets on the third-party samples alone"; echo
	"$lg" compare --tokenizer chars4 --format markdown "$samples/third-party"
fi
