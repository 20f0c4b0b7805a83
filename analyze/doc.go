// Package analyze is loopgate's guard engine and replay.
//
// The engine (engine.go, detectors.go) takes one call at a time and answers
// with a Verdict: allow, steer, dedup, block or halt. It knows nothing of
// transcript formats, so the same Guard could sit in a live agent; replay is
// a loop over it.
//
// Replay (prepare.go, replay.go, corpus.go) turns ingested sessions into
// engine input, judges every verdict against the transcript's own results
// (truth.go: redundant calls, harmful stops, the agent's own guard notes)
// and counts the tokens a guard would have saved. memcorpus.go and sweep.go
// hold a corpus in memory to replay many configurations over one reading of
// the files (compare, sweep).
package analyze
