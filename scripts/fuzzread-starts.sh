#!/usr/bin/env bash
# Writes ingest/testdata/fuzzread-starts.txt: the seeds FuzzRead's fuzzing
# runs start from, a greedy cover of the edges of loopgate's code that its
# seeds reach (ingest/fuzz_test.go, fuzzStarts, says why). Run it when
# fixtures or readers change; plain go test replays every seed whatever
# the list says, and a listed seed that no longer exists fails the fuzzing run.
#
# The tool reads the fuzzer's edge counters (internal/fuzz's coverage, by
# go:linkname, hence -checklinkname=0) of a build instrumented as go test
# -fuzz instruments it (-d=libfuzzer), for loopgate's packages only.
set -euo pipefail
cd "$(dirname "$0")/.."
go test -tags fuzzreadstarts -gcflags='github.com/loopgate/loopgate/...=-d=libfuzzer' \
  -ldflags=-checklinkname=0 -run '^TestWriteFuzzReadStarts$' -count=1 -v ./ingest | grep -E 'seeds of|^(ok|FAIL|---)'
