// Package formatcheck is a second reading of agents' transcript files,
// deliberately simple and written from each format's own structure with
// encoding/json alone: it shares no code with loopgate's readers (ingest),
// so that the two readings can be compared (cmd/formatcheck). For each
// file it counts sessions, calls, calls with results, repeated calls (the
// same tool and arguments as an earlier call of the session) and the
// tokens of the usage the file records. It also holds the expectations
// file's reader: the checks known to fail on the real files, with the
// reason for each (docs/conformance.md).
package formatcheck
