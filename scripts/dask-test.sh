#!/usr/bin/env bash
# dask-test.sh [BIN]: shards on a real Dask cluster give the report of one run.
#
# Starts a dask-scheduler and two dask-workers on 127.0.0.1 (free ports, no
# dashboards), runs scripts/dask-shards.py on a generated corpus (one
# `loopgate replay --shard K/N -f jsonl` task per shard, then `loopgate
# merge`), and compares the merged report with one run's, byte for byte, in
# json and jsonl. Everything it started is stopped and its files removed on
# exit. BIN defaults to a loopgate built from this checkout.
#
# Needs Debian's python3-distributed (dask-scheduler, dask-worker and the
# `distributed` module for /usr/bin/python3); where they are missing it
# says so and exits 0 (skipped). Exit 1 when a report differs or a step
# fails.
set -euo pipefail
cd "$(dirname "$0")/.."

py=/usr/bin/python3
for tool in /usr/bin/dask-scheduler /usr/bin/dask-worker "$py"; do
	if [[ ! -x $tool ]]; then
		echo "skip: $tool is not installed (apt-get install python3-distributed)"
		exit 0
	fi
done
if ! "$py" -c 'import distributed' 2>/dev/null; then
	echo "skip: $py cannot import distributed (apt-get install python3-distributed)"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/loopgate-dask.XXXXXX")
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

bin=${1:-}
if [[ -z $bin ]]; then
	bin=$tmp/loopgate
	go build -o "$bin" .
fi
bin=$(realpath "$bin")

# A free port on 127.0.0.1 (the kernel's choice; released just before use).
port=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sched=tcp://127.0.0.1:$port

(cd "$tmp" && exec /usr/bin/dask-scheduler --host 127.0.0.1 --port "$port" --no-dashboard >"$tmp/scheduler.log" 2>&1) &
pids+=($!)
for w in 1 2; do
	mkdir -p "$tmp/worker-$w"
	# Worker and nanny ports 0: the kernel picks free ones.
	(cd "$tmp/worker-$w" && exec /usr/bin/dask-worker "$sched" --host 127.0.0.1 --no-dashboard \
		--nworkers 1 --nthreads 1 --worker-port 0 --nanny-port 0 \
		--local-directory "$tmp/worker-$w" --name "loopgate-$w" >"$tmp/worker-$w.log" 2>&1) &
	pids+=($!)
done

# A corpus of many session files, loops planted, every format the generator writes.
go run ./cmd/gencorpus -out "$tmp/corpus" -size 4MB -max-file 256KiB -large 0 -loops -loop-rate 10 -seed 11 >/dev/null

shards=5
status=0
if ! "$py" scripts/dask-shards.py --scheduler "$sched" --workers 2 --shards "$shards" \
	--loopgate "$bin" --out "$tmp/parts" --format json --merged "$tmp/merged.json" "$tmp/corpus" 2>"$tmp/driver.log"; then
	echo "FAIL: the Dask run failed"
	for log in "$tmp"/*.log; do echo "--- $log"; tail -20 "$log"; done
	exit 1
fi
cat "$tmp/driver.log"
# The shards ran as Dask tasks on both workers, not in the driver.
used=$(grep -o 'on worker tcp://[0-9.:]*' "$tmp/driver.log" | sort -u | wc -l)
if [[ $used -lt 2 ]]; then
	echo "FAIL: the shards ran on $used Dask worker(s), not 2"
	status=1
fi
"$bin" merge "$tmp"/parts/part-*.jsonl --format jsonl >"$tmp/merged.jsonl"
"$bin" replay "$tmp/corpus" --format json >"$tmp/one.json" || [[ $? == 1 ]]
"$bin" replay "$tmp/corpus" --format jsonl >"$tmp/one.jsonl" || [[ $? == 1 ]]
for f in json jsonl; do
	if cmp -s "$tmp/one.$f" "$tmp/merged.$f"; then
		echo "ok: $shards shards on 2 Dask workers, merged ($f) = one run ($(wc -c <"$tmp/one.$f") bytes)"
	else
		echo "FAIL: the merged report ($f) differs from one run's:"
		diff <(head -c 2000 "$tmp/one.$f") <(head -c 2000 "$tmp/merged.$f") || true
		status=1
	fi
done
# The check is empty if the corpus gave no sessions.
if ! grep -q '"sessions": [1-9]' "$tmp/one.json"; then
	echo "FAIL: the one-run report lists no sessions: the comparison proves nothing"
	status=1
fi
exit $status
