// Package cli is loopgate's command line: the app, one file per command
// (replay, compare, sweep, merge, gate, gate init, inspect, rules, formats,
// hook, hook simulate, where, explain), the flags and option helpers they
// share (flags.go, input.go, limits.go), and the argument permutation that
// lets flags follow paths. It only wires: reading is ingest's, replaying
// analyze's, rendering report's.
//
// It may import every package of the module except package main; nothing
// but package main imports it. A new command is a file here with a
// function returning its *cli.Command, and one line in newApp.
package cli
