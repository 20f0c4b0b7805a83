package ingest

// ResultFailed says whether a result of the tool, in the given transcript
// format, reports a failure in its text although the agent recorded the
// call as a success: the reading the format's reader gives the result's
// error flag. The live hook reads its events' results this way too
// (live.ResultReading), so that hook and replay agree.
func ResultFailed(format, tool, result string) bool {
	switch format {
	case formatGemini:
		return geminiExitFailed(tool, result)
	}
	return false
}
