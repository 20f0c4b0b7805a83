#!/usr/bin/env python3
"""Run a loopgate replay as N shards on a Dask cluster, then merge them.

    dask-shards.py --scheduler tcp://HOST:8786 --shards N --out DIR \\
        [--loopgate loopgate] [--workers W] [--format json] [--merged FILE] PATH...

Each shard K of N is one Dask task: it runs
`loopgate replay PATH... --shard K/N --format jsonl` on whichever worker
the scheduler gives it and writes DIR/part-K.jsonl there. The driver then
runs `loopgate merge DIR/part-*.jsonl --format FORMAT` and writes the
merged report (the report one run over every file gives) to --merged, or
standard output. DIR and the PATHs must be reachable at the same place
from every worker and from the driver (a shared mount; on one host, any
folder), and loopgate must be installed on every worker (docs/scale.md).

--workers W waits until W workers have joined, then hands shards to them
in turn (a shard still runs elsewhere if its worker is gone). The exit
status is the merge's, or 1 when a shard failed; a shard's exit 1 (a
--fail-on threshold tripped) is a finding, not a failure.

Needs the `distributed` Python package (Debian: python3-distributed).
"""

import argparse
import os
import subprocess
import sys

from dask.distributed import Client


def replay_shard(loopgate, paths, k, n, out, extra):
    """One shard's replay, run on a worker: its report goes to out.

    Returns (k, the worker's address, loopgate's exit code, its standard
    error): exit 1 only says a --fail-on threshold tripped.
    """
    from dask.distributed import get_worker

    cmd = [loopgate, "replay", *paths, "--shard", f"{k}/{n}", "--format", "jsonl", *extra]
    with open(out + ".tmp", "wb") as f:
        done = subprocess.run(cmd, stdout=f, stderr=subprocess.PIPE, check=False)
    if done.returncode in (0, 1):
        # Only a whole report takes the part's name: a retried task
        # never leaves half a report where the merge looks.
        os.replace(out + ".tmp", out)
    return k, get_worker().address, done.returncode, done.stderr.decode(errors="replace")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scheduler", required=True, help="the Dask scheduler's address, tcp://HOST:PORT")
    ap.add_argument("--shards", type=int, required=True, help="N: how many shards (tasks)")
    ap.add_argument("--out", required=True, help="folder for the parts, shared by the workers and the driver")
    ap.add_argument("--loopgate", default="loopgate", help="the loopgate binary on the workers and the driver")
    ap.add_argument("--workers", type=int, default=0, help="wait for this many workers and hand them shards in turn")
    ap.add_argument("--format", default="json", help="the merged report's format (loopgate merge --format)")
    ap.add_argument("--merged", help="write the merged report here (default: standard output)")
    ap.add_argument("--replay-arg", action="append", default=[], help="one more argument for every shard's replay (repeatable)")
    ap.add_argument("paths", nargs="+", metavar="PATH")
    a = ap.parse_args()
    if a.shards < 1:
        ap.error("--shards must be 1 or more")
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    paths = [os.path.abspath(p) for p in a.paths]

    with Client(a.scheduler, timeout="30s") as client:
        if a.workers > 0:
            client.wait_for_workers(a.workers, timeout=60)
        workers = sorted(client.scheduler_info()["workers"])
        futures = []
        for k in range(1, a.shards + 1):
            where = {}
            if a.workers > 0:
                where = {"workers": [workers[(k - 1) % len(workers)]], "allow_other_workers": True}
            part = os.path.join(out, f"part-{k}.jsonl")
            futures.append(client.submit(replay_shard, a.loopgate, paths, k, a.shards, part,
                                         a.replay_arg, key=f"loopgate-shard-{k}-of-{a.shards}",
                                         pure=False, **where))
        failed = False
        for k, worker, code, err in client.gather(futures):
            print(f"dask-shards: shard {k}/{a.shards} on worker {worker}: exit {code}", file=sys.stderr)
            if code not in (0, 1):
                failed = True
                sys.stderr.write(err)
        if failed:
            return 1

    parts = [os.path.join(out, f"part-{k}.jsonl") for k in range(1, a.shards + 1)]
    merged = open(a.merged, "wb") if a.merged else sys.stdout.buffer
    try:
        done = subprocess.run([a.loopgate, "merge", *parts, "--format", a.format], stdout=merged, check=False)
    finally:
        if a.merged:
            merged.close()
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
