package analyze

// What a caller outside replay needs to drive a Guard exactly as replay
// does: the live hook (internal/live) builds its CallEvents and combines
// its verdicts with these, so that hook and replay cannot drift apart.

// ResultFacts returns a result as the guard compares it (the agent's
// own guard notes and trailing white space removed) and whether the call
// failed (the error flag, or an error-shaped result): the reading Prepare
// gives every call of a transcript.
func ResultFacts(result string, isError bool) (norm string, failed bool) {
	return normalizeFailed(result, isError, nil)
}

// Raise keeps in *a the stronger of two verdicts on the same call, as
// replay combines a call's Before, After and EndRequest verdicts.
func Raise(a, b *Verdict) { raise(a, b) }

// TurnForgets reports whether a genuine user turn leaves the guard in a
// state that nothing before the turn can change: every detector resets at
// a turn, and so does the time window's timer, if any. The live hook then
// rebuilds a session's guard from its latest turn only.
func (g *Guard) TurnForgets() bool {
	return g.turnClearsAll && (g.r.Scope.Window <= 0 || g.r.Scope.Reset == "turn")
}
