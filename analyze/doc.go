// Package analyze replays transcripts through the loop guard and judges
// what it did: it turns ingested sessions into guard input, runs a
// guard.Guard (package analyze/guard, the engine) over every call in
// transcript order, and reports each steer, block, dedup and halt with
// whether it was right and what it saved.
//
// Files by job:
//   - replay: prepare.go (a session reduced to what a replay needs, with
//     the rules-independent truth computed once), replay.go (Run: one
//     session under one rules, and the judging of every verdict),
//     explain.go (why the guard did what it did with one call);
//   - truth: truth.go (the agent's own guard notes in results, and the
//     call signature that says which calls were redundant);
//   - savings: savings.go (tokens, through a memo) and calibrate.go
//     (bytes per token from the usage a transcript records);
//   - the report: result.go (Report, SessionResult, Decision), problems.go,
//     replay_files.go (Replay, ReplayAll: every file of a corpus) and
//     aggregate.go (session results summed into one report);
//   - tuning: tuning.go (compare's and sweep's configurations, rows and
//     Pareto front); ReplayAll runs each session under every
//     configuration in turn;
//   - sharding: shard.go and merge.go (a corpus split over machines, and
//     the partial reports merged back);
//   - reading files in parallel: replay_files.go and inorder.go (inspect's
//     ReadInOrder) run on analyze/pipeline (the ordered parallel
//     pipeline, its memory budget and its spill to disk); spill.go is the
//     session summaries' encoding on disk and the report's spill. The CI
//     gate is analyze/gate, which imports analyze.
//
// analyze imports rules, ingest, internal/tokens, analyze/guard and
// analyze/pipeline; it never imports report or the CLI. A new detector
// goes in analyze/guard, not here.
package analyze
