package live

// ResultReading is how the hook reads a result's text where the agent's
// transcript reader reads more from it than the hook event says: the
// parts of a result that change from one run of the same call to the next
// (its envelope), and a failure the text reports while the agent's event
// calls the call a success. The live package may not import the readers
// (ingest): the command hands their functions over (cli/hook.go), so that
// the hook and replay cannot read one result two ways.
type ResultReading struct {
	// Envelope is the envelope rule of a transcript format
	// (ingest.EnvelopeOf): it splits a result into the tool's output and
	// the rest. nil, or a nil rule: the result is the output whole.
	Envelope func(format string) func(result string) (output, envelope string)
	// Failed says whether a result of the tool, in that format, reports a
	// failure in its text (ingest.ResultFailed: Gemini CLI records a shell
	// command that exits non-zero as a success with "Exit Code: N" in its
	// output, and says so to its AfterTool hook alike).
	Failed func(format, tool, result string) bool
}

func (r ResultReading) envelope(format string) func(string) (string, string) {
	if r.Envelope == nil {
		return nil
	}
	return r.Envelope(format)
}

// readError marks a result an error where its text says so, as the
// transcript reader marks it.
func (r ResultReading) readError(ev *Event) {
	if ev.Kind == KindPost && !ev.IsError && r.Failed != nil && r.Failed(ev.Format, ev.Tool, ev.Result) {
		ev.IsError = true
	}
}
