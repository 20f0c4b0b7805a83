// Package gate is the CI gate (`loopgate gate`): a gate file lists golden
// transcripts and what a replay of each must show: summary numbers
// ("blocked: 4", "precision: >= 0.9"), what must happen to given calls, and,
// through snapshots, every decision exactly. It loads the gate file
// strictly (every error names the file and line: load.go), replays and
// checks each case (check.go), and records or compares the snapshots
// (snapshot.go); a failure is located well enough to point a CI system at
// the transcript line.
//
// It imports analyze (the replay and its report), ingest (to list the
// transcripts a case names), rules and internal helpers; nothing imports
// it but the CLI and the report renderers of its result.
package gate
