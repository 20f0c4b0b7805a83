package ingest

// ContentText is a message content (a string, or a list of content
// blocks) as the readers read a tool result: the blocks' texts joined by
// newlines, other blocks named by their type. The live hook reads a Claude
// Code tool_response given as content blocks with it, so that a result
// reads the same live and in replay.
func ContentText(raw []byte) string {
	text, _ := contentText(raw)
	return text
}
