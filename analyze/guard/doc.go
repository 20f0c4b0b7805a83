// Package guard is loopgate's tool-call loop guard: the engine that
// replay runs over transcripts and that the live hook runs inside an
// agent, and that any Go program can embed.
//
// One Guard per agent scope of a session takes one call at a time: Before
// it runs (allow, steer, dedup, block or halt) and After its result is
// known; EndRequest closes a model response, UserTurn (or UserPrompt, with
// the message's text) and Compaction mark the session's events. What it does is set by its Rules (ParseRules,
// LoadRules, PresetRules; docs/rules.md): every preset (nanobot, hermes,
// pi-loopguard, attractor, ...) runs on this same engine, and the designs
// differ only in their rules (rules/presets/*.yaml). A guard built with
// NewSavableGuard can save its state (AppendState) and have it restored in
// another process (RestoreState), as the live hook does between an
// agent's calls.
//
// A CallEvent is one call as the guard sees it: its tool, its arguments'
// text (ArgsRaw, parsed by the guard when it needs them) and, for After,
// its result read as the guard reads results (ResultFacts, HashString).
// What counts as the same call, the call's key under the rules' key
// section, is built here (callkey.go). Each detector is one file of its
// own, named after it (repeat.go, no_progress.go, ...), with its
// documentation, its settings type (its keys under detectors.NAME), their
// defaults and checks, the fields its per-tool override takes, and its
// logic; the file registers the settings with the rules and its
// constructor here (register, detector.go). A new detector is such a file
// and its section in docs/rules.md. The guard reads results as replay does
// (result.go, and hermes' own reading in hermesresult.go).
//
// The package knows nothing of transcript formats, tokenizers or reports:
// it imports only rules and small internal helpers. Replay (package
// analyze) builds CallEvents from ingested sessions, and reuses work from
// one guard to the next through package replayfast, its own entry point
// (key numbering shared by many rules, guards' tables, arguments its
// readers parsed already); the live hook (live) builds CallEvents from an
// agent's hook input with this package alone.
//
// # Stability
//
// The exported API of this package (Guard, CallEvent, Verdict, Action,
// Rules and their functions) is what a program embedding the guard uses;
// its example builds in a module of its own (TestExampleOutsideModule).
// loopgate has made no release yet (CHANGELOG.md): until its first, this
// API may still change, and the changelog names each change. The verdicts
// given under some Rules are the documented behaviour of those rules
// (docs/rules.md) and change only with them. Package replayfast is
// loopgate's own and has no stability promise.
package guard
