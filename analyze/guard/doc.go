// Package guard is loopgate's tool-call loop guard: the engine that
// replay runs over transcripts and that the live hook runs inside an
// agent, and that any Go program can embed.
//
// One Guard per agent scope of a session takes one call at a time: Before
// it runs (allow, steer, dedup, block or halt) and After its result is
// known; EndRequest closes a model response, UserTurn and Compaction mark
// the session's events. What it does is set by a rules.Rules: every preset
// (nanobot, hermes, pi-loopguard, attractor, ...) runs on this same engine,
// and the designs differ only in their rules (rules/presets/*.yaml).
//
// Each detector lives in a file of its own, named after it (repeat.go,
// no_progress.go, ...), with its documentation; the file registers its
// constructor under the detector's name in the rules' detector table
// (register, detector.go). A new detector is such a file, its row in
// that table (rules/detectors.go) and its section in docs/rules.md. The guard reads results as replay does (result.go, and
// hermes' own reading in hermesresult.go), so a caller feeds it the facts
// ResultFacts gives.
//
// The package knows nothing of transcript formats, tokenizers or reports:
// it imports only rules and small internal helpers (internal/jsonx).
// Replay (package analyze) builds CallEvents from ingested sessions; the
// live hook (live) builds them from an agent's hook input.
package guard
