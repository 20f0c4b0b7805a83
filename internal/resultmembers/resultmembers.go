// Package resultmembers names the top-level members of a JSON object
// result that say how a call went: a reader (ingest) notes them while it
// decodes a result, and the guard (analyze/guard) reads a result's failure
// and its agent's note from them. It is its own small package because the
// guard may not import ingest, and both must use the one list.
package resultmembers

// Keys are the members, in the order of Members: hermes' "_warning" note,
// and the "error", "success" and "exit_code" that say a call failed.
var Keys = [...]string{"_warning", "error", "success", "exit_code"}

// Members are the raw texts of a result's Keys members, in Keys' order
// ("" for one that is absent), as jsonx.TopLevelFields(result, Keys[:]...)
// gives them.
type Members = [len(Keys)]string

// The index of each member in Keys and Members.
const (
	Warning = iota
	Error
	Success
	ExitCode
)
