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
// of a reply (with a result when "> Applied edit to <its path>" follows
// before the next user input, or Aider's failure report, which answers
// every block of the reply), and a run call for each "#### /run", "#### !"
// and "#### /test" command and each "> Running <command>" line, whose
// output the history does not hold: such a call counts as with a result
// when a "> " line follows it (the question whether to add the output,
// "Added N lines of output to the chat."); commands run one after the
// other with no line between share the lines after the last (Aider asks
// once about a group's output, base_coder.py handle_shell_commands). The failure report
// ("> # N SEARCH/REPLACE block(s) failed to match!", apply_edits) goes on
// without "> " and quotes the failed blocks: its lines, up to "The SEARCH
// section must exactly match ..." and, when some blocks were applied, on
// to "Just reply with fixed versions ...", are not a reply.
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
	var runs []*call // the commands run since Aider last wrote a line of its own
	var prev string  // the last non-empty line that is not a code fence
	inSearch := false
	path := "" // the file of the edit block being read
	var block strings.Builder
	flush := func() {
		if s != nil {
			c.tally(s)
		}
	}
	report := 0 // in a failure report: 1 its body, 2 after its closing sentence, 3 its note on the applied blocks
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	// Aider ends each line of its own (a user input's "#### " lines,
	// its "> " notes) with two spaces (io.py append_chat_history); the
	// reply keeps the model's text. Once a file shows it keeps those
	// spaces, a "#### " line without them is a heading of the reply.
	spaced := false
	for sc.Scan() {
		text := strings.TrimRight(sc.Text(), "\r")
		raw := strings.TrimRight(text, " ")
		twoSpaces := strings.HasSuffix(text, "  ")
		input := strings.HasPrefix(raw, "#### ") && (twoSpaces || !spaced)
		if twoSpaces && (strings.HasPrefix(raw, "> ") || strings.HasPrefix(raw, "####")) {
			spaced = true
		}
		if report > 0 && raw != "" && !strings.HasPrefix(raw, "> ") && !input {
			switch {
			case report == 1 && strings.HasPrefix(raw, "The SEARCH section must exactly match"):
				report = 2
				continue
			case report == 2 && strings.HasPrefix(raw, "# The other"):
				report = 3
				continue
			case report == 3 && strings.HasPrefix(raw, "Just reply with fixed versions"):
				report = 0
				continue
			case report != 2:
				continue
			}
			report = 0
		} else if report > 0 && raw != "" {
			report = 0
		}
		if strings.HasPrefix(raw, "> ") && !strings.HasPrefix(raw, "> Running ") {
			for _, r := range runs {
				r.hasResult = true
			}
			runs = nil
		}
		switch {
		case strings.HasPrefix(raw, "# aider chat started at"):
			flush()
			s = newSession()
			edits, editPaths, runs, inSearch = nil, nil, nil, false
			continue
		case s == nil:
			continue
		case inSearch && input:
			// A block cut short by the user's next input is not an edit
			// (Aider's parser refuses a block without its REPLACE line);
			// the input is read below.
			inSearch = false
		}
		switch {
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
		case input:
			edits, editPaths, runs = nil, nil, nil
			for _, p := range []string{"#### /run ", "#### /test ", "#### !"} {
				if cmd, ok := strings.CutPrefix(raw, p); ok {
					runs = append(runs, s.add("", "run", strings.TrimSpace(cmd)))
				}
			}
		case strings.HasPrefix(raw, "> Running "):
			runs = append(runs, s.add("", "run", strings.TrimSpace(strings.TrimPrefix(raw, "> Running "))))
		case strings.HasPrefix(raw, "> ") && (strings.Contains(raw, "failed to match!") || strings.Contains(raw, "did not conform to the edit format")):
			if strings.Contains(raw, "failed to match!") {
				report = 1
			}
			for _, e := range edits {
				e.hasResult = true
			}
		case strings.HasPrefix(raw, "> Applied edit to "):
			path := strings.TrimPrefix(raw, "> Applied edit to ")
			for i, p := range editPaths {
				if p == path {
					edits[i].hasResult = true
				}
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
