package formatcheck

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// Aider appends its chat to .aider.chat.history.md (aider/io.py): a run
// starts with "# aider chat started at <time>", the user's input is written
// as "#### " lines (commands too: "#### /run <command>"), Aider's own
// output as "> " lines, and the model's reply as plain Markdown. With the
// diff edit formats a reply's edits are SEARCH/REPLACE blocks: the file's
// path on the line before "<<<<<<< SEARCH" (inside or before the code
// fence), then "=======" and ">>>>>>> REPLACE"; once applied, Aider writes
// "> Applied edit to <path>" (aider/coders/editblock_coder.py,
// base_coder.py; https://github.com/Aider-AI/aider). Usage is the
// "> Tokens: <sent> sent, … <received> received." line after each reply,
// its figures rounded as Aider prints them (2.3k, 23k).
//
// This reading counts, per run: an edit call for each SEARCH/REPLACE block
// (with a result when "> Applied edit to <its path>" follows before the
// next user input), and a run call for each "#### /run" command, whose
// output the history does not hold (only "> Added N lines of output to the
// chat."): such a call counts as with a result when that line follows.
// Whole-file and unified-diff edit formats are not counted.

var aiderTokens = regexp.MustCompile(`^> Tokens: ([0-9.]+k?) sent,.* ([0-9.]+k?) received\.`)

// aiderNumber reads a token figure as Aider prints it: 950, 2.3k, 23k.
func aiderNumber(s string) int64 {
	mult := 1.0
	if t, ok := strings.CutSuffix(s, "k"); ok {
		s, mult = t, 1000
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return int64(f*mult + 0.5)
}

func countAider(data []byte) (Count, error) {
	if !bytes.Contains(data, []byte("# aider chat started at")) {
		return Count{}, ErrUnknown
	}
	c := Count{Format: "aider"}
	var s *session
	var edits []*call // edit calls since the last user input, waiting for "Applied edit"
	var editPaths []string
	var run *call
	var prev string // the last non-empty line that is not a code fence
	inSearch := false
	path := "" // the file of the edit block being read
	var block strings.Builder
	flush := func() {
		if s != nil {
			c.tally(s)
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		raw := strings.TrimRight(sc.Text(), " \r")
		switch {
		case strings.HasPrefix(raw, "# aider chat started at"):
			flush()
			s = newSession()
			edits, editPaths, run, inSearch = nil, nil, nil, false
			continue
		case s == nil:
			continue
		case inSearch:
			if raw == ">>>>>>> REPLACE" {
				inSearch = false
				edits = append(edits, s.add("", "edit", block.String()))
				editPaths = append(editPaths, path)
				continue
			}
			block.WriteString(raw)
			block.WriteByte('\n')
			continue
		case raw == "<<<<<<< SEARCH":
			inSearch = true
			block.Reset()
			block.WriteString(prev + "\n")
			path = prev
			continue
		case strings.HasPrefix(raw, "#### "):
			edits, editPaths, run = nil, nil, nil
			if cmd, ok := strings.CutPrefix(raw, "#### /run "); ok {
				run = s.add("", "run", strings.TrimSpace(cmd))
			}
		case strings.HasPrefix(raw, "> Applied edit to "):
			path := strings.TrimPrefix(raw, "> Applied edit to ")
			for i, p := range editPaths {
				if p == path {
					edits[i].hasResult = true
				}
			}
		case strings.HasPrefix(raw, "> Added ") && strings.HasSuffix(raw, " of output to the chat."):
			if run != nil {
				run.hasResult = true
			}
		default:
			if m := aiderTokens.FindStringSubmatch(raw); m != nil {
				s.tokens += aiderNumber(m[1]) + aiderNumber(m[2])
			}
		}
		if t := strings.TrimSpace(raw); t != "" && !strings.HasPrefix(t, "```") {
			prev = t
		}
	}
	flush()
	return c, nil
}
