#!/usr/bin/env bash
# samereports.sh BIN OUT [CORPUS]: write every report loopgate makes on fixtures/,
# ../shared/samples and a generated corpus into OUT, one file per command, standard
# error and exit code included. ../shared/samples is the samples folder beside
# the repository; without it, fixtures and the corpus only. Run it with the binary built before a refactor and
# with the one built after, then `diff -r` the two folders: a refactor that changes
# no behaviour leaves them byte-identical.
#
#   go build -o /tmp/lg-before . && scripts/samereports.sh /tmp/lg-before /tmp/before
#   (refactor)
#   go build -o /tmp/lg-after .  && scripts/samereports.sh /tmp/lg-after /tmp/after
#   diff -r /tmp/before /tmp/after && echo identical
#
# CORPUS defaults to /tmp/samereports-corpus, generated once with cmd/gencorpus
# (fixed seed, loops planted, every format the generator writes).
set -uo pipefail
cd "$(dirname "$0")/.."

bin=$(realpath "${1:?usage: samereports.sh BIN OUT [CORPUS]}")
out=${2:?usage: samereports.sh BIN OUT [CORPUS]}
corpus=${3:-/tmp/samereports-corpus}
samples=../shared/samples
unset GITHUB_STEP_SUMMARY GITHUB_ACTIONS

if [ ! -d "$corpus" ]; then
  go run ./cmd/gencorpus -out "$corpus" -size 40MB -max-file 8MiB -loops -loop-rate 10 -seed 7 >/dev/null
fi
mkdir -p "$out"

# run NAME ARGS...: the command's stdout, stderr and exit code, in OUT/NAME.*
run() {
  local name=$1; shift
  ( cd "$work" && NO_COLOR=1 COLUMNS=100 "$bin" "$@" >"$out/$name.out" 2>"$out/$name.err" </dev/null
    echo $? >"$out/$name.rc" )
}

work=$PWD
inputs=(fixtures)
[ -d "$samples" ] && inputs+=("$samples") || echo "samereports: $samples absent; fixtures and the corpus only" >&2
inputs+=("$corpus")

presets=$("$bin" rules print --list | awk '{print $1}')
for p in $presets; do
  run "rules-$p" rules print --preset "$p"
  run "rules-src-$p" rules print --preset "$p" --source
done
run formats formats

i=0
for in in "${inputs[@]}"; do
  i=$((i+1))
  tag="in$i"
  for p in $presets; do
    run "$tag-replay-json-$p" replay -f json --preset "$p" "$in"
  done
  run "$tag-replay-table" replay -f table --color never --top 0 --max-decisions 0 --by day "$in"
  run "$tag-replay-markdown" replay -f markdown --top 0 --by day "$in"
  run "$tag-replay-jsonl" replay -f jsonl "$in"
  run "$tag-replay-html" replay -f html "$in"
  run "$tag-replay-cl100k" replay -f json --tokenizer cl100k_base "$in"
  run "$tag-replay-chars4" replay -f json --tokenizer chars4 --no-redact "$in"
  run "$tag-replay-filters" replay -f json --tool read_file --since 2020-01-01 "$in"
  run "$tag-compare-json" compare -f json $(for p in $presets; do printf -- '--preset %s ' "$p"; done) "$in"
  run "$tag-compare-table" compare -f table --color never --preset loopgate --preset hermes --preset nanobot "$in"
  run "$tag-compare-html" compare -f html --preset loopgate --preset hermes "$in"
  run "$tag-sweep-json" sweep -f json --vary detectors.repeat.block_at=2..4 --vary detectors.consecutive.block_at=3,6 "$in"
  run "$tag-sweep-table" sweep -f table --color never --vary detectors.repeat.block_at=3,5 --vary tools.class:read.block_at=2..3 "$in"
  run "$tag-inspect" inspect -f table --color never "$in"
  run "$tag-inspect-json" inspect -f json --calls "$in"
  run "$tag-sweep-csv" sweep -f csv --vary detectors.repeat.block_at=3,5 "$in"
  for k in 1 2 3; do
    run "$tag-shard-$k" replay -f jsonl --shard "$k/3" "$in"
  done
  ( cd "$out" && NO_COLOR=1 "$bin" merge -f json "$tag-shard-1.out" "$tag-shard-2.out" "$tag-shard-3.out" >"$tag-merge.out" 2>"$tag-merge.err"; echo $? >"$tag-merge.rc" )
done

for g in fixtures/gate/*.yaml fixtures/golden/*.gate.yaml; do
  [ -f "$g" ] || continue
  name=$(basename "$g" .yaml)
  run "gate-$name" gate --color never --junit "$out/gate-$name.junit" --sarif "$out/gate-$name.sarif" --sarif-decisions "$g"
  run "gate-html-$name" gate -f html "$g"
  run "gate-github-$name" gate --github --color never "$g"
done
run where where
# JUnit's time attributes are wall-clock durations: the one part that may differ.
sed -i -E 's/ time="[0-9.]+"/ time="T"/g' "$out"/*.junit
echo "samereports: $(ls "$out" | wc -l) files in $out"
