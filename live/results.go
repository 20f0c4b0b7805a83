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
	// Outcomes reads a result that may be a list of per-item outcomes
	// (ingest.ClineOutcomes: the Cline CLI's run_commands and read_files
	// give their hooks the JSON of one {"query", "result", "error",
	// "success"} per item): the text the model was given and whether an
	// item failed; ok false leaves the result as it is.
	Outcomes func(result string) (text string, failed, ok bool)
}

func (r ResultReading) envelope(format string) func(string) (string, string) {
	if r.Envelope == nil {
		return nil
	}
	return r.Envelope(format)
}

// readOutcomes reads an event's result that may be a list of per-item
// outcomes as the transcript reader reads it.
func (r ResultReading) readOutcomes(ev *Event) {
	if ev.Kind != KindPost || !ev.outcomes || r.Outcomes == nil {
		return
	}
	if text, failed, ok := r.Outcomes(ev.Result); ok {
		ev.Result, ev.IsError = text, ev.IsError || failed
	}
}

// readError marks a result an error where its text says so, as the
// transcript reader marks it.
func (r ResultReading) readError(ev *Event) {
	if ev.Kind == KindPost && !ev.IsError && r.Failed != nil && r.Failed(ev.Format, ev.Tool, ev.Result) {
		ev.IsError = true
	}
}
