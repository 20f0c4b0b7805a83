package ingest

import "strings"

// keepUserText records text as the user message of the turn just opened
// (Turn.UserText). A reader passes only what the user typed (or named, as
// an attachment's path): a guard under scope.reset: mentioned keeps the
// observations of every path the text does not name, so text left out
// could keep a file the user changed, while text put in only clears more.
// No turn, or no text: nothing is kept ("" is a message of unknown text).
func keepUserText(s *Session, text string) {
	if n := len(s.Turns); n > 0 && strings.TrimSpace(text) != "" {
		s.Turns[n-1].UserText = text
	}
}

// taggedText returns what the elements named tags hold in text (each
// element's content, joined by line breaks), and whether any was found.
// An element is <tag> or <tag attributes...>, closed by </tag>; one left
// open runs to the end of the text.
func taggedText(text string, tags ...string) (string, bool) {
	var out strings.Builder
	found := false
	for _, tag := range tags {
		rest := text
		for {
			i := strings.Index(rest, "<"+tag)
			if i < 0 {
				break
			}
			after := rest[i+1+len(tag):]
			if after == "" || (after[0] != '>' && after[0] != ' ' && after[0] != '\n') {
				rest = after
				continue
			}
			gt := strings.IndexByte(after, '>')
			if gt < 0 {
				break
			}
			body := after[gt+1:]
			end := strings.Index(body, "</"+tag+">")
			if end < 0 {
				end = len(body)
			}
			if out.Len() > 0 {
				out.WriteByte('\n')
			}
			out.WriteString(body[:end])
			found = true
			rest = body[end:]
		}
	}
	return out.String(), found
}

// withoutFileContents replaces each <file_content path="P">...</file_content>
// element (a file's text that an agent put after the user's message because
// the message mentioned the file: Cline's parseMentions) by its path P: the
// user named the file, not what the file says.
func withoutFileContents(text string) string {
	const open, closing = "<file_content", "</file_content>"
	if !strings.Contains(text, open) {
		return text
	}
	var out strings.Builder
	for {
		i := strings.Index(text, open)
		if i < 0 {
			out.WriteString(text)
			return out.String()
		}
		out.WriteString(text[:i])
		el := text[i:]
		gt := strings.IndexByte(el, '>')
		if gt < 0 {
			out.WriteString(el)
			return out.String()
		}
		if p, ok := attrValue(el[:gt], "path"); ok {
			out.WriteString(p)
		}
		end := strings.Index(el, closing)
		if end < 0 {
			return out.String()
		}
		text = el[end+len(closing):]
	}
}

// attrValue returns the value of the double-quoted attribute name in a
// start tag's text.
func attrValue(tag, name string) (string, bool) {
	_, v, ok := strings.Cut(tag, " "+name+`="`)
	if !ok {
		return "", false
	}
	v, _, ok = strings.Cut(v, `"`)
	return v, ok
}

// fileContentPaths are the paths of text's <file_content path="P"> elements.
func fileContentPaths(text string) []string {
	var out []string
	for {
		i := strings.Index(text, "<file_content ")
		if i < 0 {
			return out
		}
		text = text[i:]
		gt := strings.IndexByte(text, '>')
		if gt < 0 {
			return out
		}
		if p, ok := attrValue(text[:gt], "path"); ok {
			out = append(out, p)
		}
		text = text[gt:]
	}
}

// clineUserText is what the user wrote in a Cline or Roo Code user
// message's text: Cline puts "all user generated content" in <task>,
// <feedback>, <answer> and <user_message> elements (the comment on
// loadContext's mention parsing in src/core/task/index.ts, cline/cline
// 9ee618111d58630fea30b27439216448225458e0; the resumption message's
// <user_message> in src/core/prompts/responses.ts), Cline CLI 3.x in
// <user_input mode="...">. The files the user attached or mentioned are
// named by their paths (their <file_content> elements, whose text is the
// file's). With none of these elements, the text without Cline's
// <environment_details> (the editor's state: open tabs, a file listing):
// text put in only clears more. A task resumed after an interruption
// ("[TASK RESUMPTION] ... the project state may have changed", with or
// without new instructions: formatResponse.taskResumption, at the same
// commit, src/core/prompts/responses.ts) keeps none: whatever the user changed
// meanwhile, the message does not name it.
func clineUserText(text string) string {
	if strings.Contains(text, "[TASK RESUMPTION]") {
		return ""
	}
	typed, ok := taggedText(text, "task", "feedback", "answer", "user_message", "user_input")
	if !ok {
		typed = withoutElement(text, "environment_details")
	}
	typed = withoutFileContents(typed)
	if ps := fileContentPaths(text); len(ps) > 0 {
		typed += "\n" + strings.Join(ps, "\n")
	}
	return typed
}

// withoutElement cuts every <tag>...</tag> element out of text.
func withoutElement(text, tag string) string {
	return cutBetween(text, "<"+tag+">", "</"+tag+">")
}

// cutBetween cuts out of text every span from start to end, both included
// (one left open: to the end of the text).
func cutBetween(text, start, end string) string {
	for {
		i := strings.Index(text, start)
		if i < 0 {
			return text
		}
		j := strings.Index(text[i:], end)
		if j < 0 {
			return text[:i]
		}
		text = text[:i] + text[i+j+len(end):]
	}
}

// geminiUserText is what the user typed in a Gemini CLI (or Qwen Code)
// user message: the CLI sends the files an @path names after the query,
// between "--- Content from referenced files ---" and "--- End of
// content ---" (REFERENCE_CONTENT_START/END, used by handleAtCommand in
// packages/cli/src/ui/hooks/atCommandProcessor.ts, google-gemini/gemini-cli
// 04fbf50725b94cef0a8f37be6436bd0a84dafc9b); the query keeps the @path
// itself, so the section is cut whole.
func geminiUserText(text string) string {
	return cutBetween(text, "--- Content from referenced files ---", "--- End of content ---")
}

// claudeCompactSummary tells the summary Claude Code writes when it compacts
// a conversation, which the session then holds as a user message
// (isCompactSummary in its own JSONL; a plain user message in the
// OpenAI-chat exports made of such sessions), by its opening sentence.
func claudeCompactSummary(text string) bool {
	return strings.HasPrefix(strings.TrimSpace(text), "This session is being continued from a previous conversation that ran out of context.")
}
