package ingest

import (
	"strings"
	"testing"
)

// TestAiderNotes: Aider's notes after a reply, as aider/coders/base_coder.py
// writes them (Aider-AI/aider at 5dc9490b): apply_updates' "Applied edit
// to" lines come before the shell commands the reply suggested, git's own
// errors ("Unable to list files in git repo") are no edit's failure, and a
// group of commands shares the one question about its output
// (handle_shell_commands). A user input's lines end with two spaces
// (io.py user_input): a "#### " heading in the reply is not an input.
func TestAiderNotes(t *testing.T) {
	runConformance(t, formatAider, []conformanceCase{
		{
			name: "edits joined before the commands; a group of commands shares its notes",
			file: ".aider.chat.history.md",
			text: `
# aider chat started at 2026-03-01 10:00:00

> Aider v0.86.2  

#### fix the greeting  

hello.py
` + "`" + `` + "`" + `` + "`" + `python
<<<<<<< SEARCH
print("helo")
=======
print("hello")
>>>>>>> REPLACE
` + "`" + `` + "`" + `` + "`" + `

> Tokens: 1.2k sent, 90 received.  
> Unable to list files in git repo: BadObject: b'00ff'  
> Is your git repo corrupted?  
> Applied edit to hello.py  
> Commit 1a2b3c4 fix: greeting  
> python hello.py  
python -V  
> Run shell commands? (Y)es/(N)o/(D)on't ask again [Yes]: y  
> Running python hello.py  
> Running python -V  
> Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y  
> Added 2 lines of output to the chat.  
`,
			sessions: "2026-03-01 10:00:00 main 1t 1r edit-8-1/edit=Applied edit to hello.py run-25/run=Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y\nAdded 2 lines of output to the chat. run-26/run=Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y\nAdded 2 lines of output to the chat.",
		},
		{
			name:     "a heading in the reply's REPLACE text is not a user input",
			file:     ".aider.chat.history.md",
			text:     aiderHeadingHistory,
			sessions: "2026-03-01 11:00:00 main 1t 1r edit-8-1/edit=Applied edit to README.md",
		},
		{
			// Without the trailing spaces nothing tells the heading from an
			// input: it cuts the block, as Aider's parser would refuse it.
			name:     "trailing spaces stripped: every #### line is an input",
			file:     ".aider.chat.history.md",
			text:     stripTrailing(aiderHeadingHistory),
			sessions: "2026-03-01 11:00:00 main 2t 2r ",
		},
		{
			// io.tool_output puts "> " before a note's first line only; the
			// repo map --show-repo-map prints at start runs on as plain
			// text. A run with no input has no turn (Aider asked no
			// model); the next run's commands alone open none either.
			name: "runs without input: a repo map is no reply, and no turn",
			file: ".aider.chat.history.md",
			text: `
# aider chat started at 2026-02-09 20:24:36

> Aider v0.86.1  
> Here are summaries of some files present in my git repository.
Do not propose changes to these files, treat them as *read-only*.

src/app.ts:
│export const app = 1;

# aider chat started at 2026-02-09 20:30:00

> Aider v0.86.1  

#### /add src/app.ts  
> Added src/app.ts to the chat  

# aider chat started at 2026-02-09 20:40:00

> Aider v0.86.1  

#### explain app.ts  

It exports a constant.

> Tokens: 1k sent, 10 received.  
`,
			sessions: "2026-02-09 20:24:36 main 0t 0r  | 2026-02-09 20:30:00 main 0t 0r  | 2026-02-09 20:40:00 main 1t 1r ",
			check: func(t *testing.T, s []*Session) {
				if len(s) != 3 || s[0].Time.IsZero() || s[1].Time.IsZero() {
					t.Errorf("the runs with no turn keep no start time: %d sessions", len(s))
				}
			},
		},
	})
}

// aiderHeadingHistory is a reply whose REPLACE text holds a "#### "
// heading, Aider's own lines ending with their two spaces.
var aiderHeadingHistory = `
# aider chat started at 2026-03-01 11:00:00

> Aider v0.86.2  

#### document the modes  

README.md
` + "`" + `` + "`" + `` + "`" + `` + "`" + `markdown
<<<<<<< SEARCH
## Modes
=======
## Modes

#### Edit mode
Draw the circuit.
>>>>>>> REPLACE
` + "`" + `` + "`" + `` + "`" + `` + "`" + `

> Tokens: 2k sent, 100 received.  
> Applied edit to README.md  
`

// stripTrailing removes every line's trailing spaces, as some
// repositories' hooks do.
func stripTrailing(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}
