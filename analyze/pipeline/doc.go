// Package pipeline reads many files in parallel and hands what each holds
// to one caller in the files' order, as one reader going through them one
// by one would: the shared skeleton of replay, compare, sweep and inspect.
//
// It bounds memory three ways: a file read ahead of its turn either waits
// (its worker stops) or, when the caller gives a Codec, puts its items on
// disk (spill.go) and never waits; the items of the file whose turn it is
// stream to the caller as they come; and a memory budget (budget.go)
// bounds the bytes that files being read hold in items not yet made, so
// that two files of one long session each are not held at once.
//
// It imports only the standard library: callers bring the reading (ingest)
// and the items (sessions, results, rows).
package pipeline
