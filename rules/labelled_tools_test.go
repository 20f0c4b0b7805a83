package rules

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

// The loopgate preset's word tables (verb: and word: entries, docs/rules.md
// "Tools in no class list") are checked against real MCP tools whose
// servers declare what they do (testdata/mcp-tool-annotations.tsv; its
// README says where each row comes from).

var updateLabelled = flag.Bool("update", false, "rewrite the loopgate column of testdata/mcp-tool-annotations.tsv")

const labelledToolsFile = "testdata/mcp-tool-annotations.tsv"

// labelledTool is one row of the labelled set.
type labelledTool struct {
	line     int
	server   string
	tool     string
	readOnly string // readOnlyHint as declared: true, false or empty
	label    string // read, poll or act
	loopgate string // the class the loopgate preset gives the name
}

// The columns of the labelled set, in order.
var labelledColumns = []string{"server", "tool", "readOnlyHint", "idempotentHint",
	"destructiveHint", "openWorldHint", "label", "loopgate", "source", "note"}

// readLabelledTools parses the labelled set, returning its lines too (for
// -update).
func readLabelledTools(t *testing.T) ([]labelledTool, []string) {
	t.Helper()
	data, err := os.ReadFile(labelledToolsFile)
	if err != nil {
		t.Fatal(err)
	}
	var rows []labelledTool
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	header := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		lines = append(lines, line)
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != len(labelledColumns) {
			t.Fatalf("%s:%d: %d columns, want %d", labelledToolsFile, n, len(f), len(labelledColumns))
		}
		if !header {
			if strings.Join(f, " ") != strings.Join(labelledColumns, " ") {
				t.Fatalf("%s:%d: header %q, want %q", labelledToolsFile, n, f, labelledColumns)
			}
			header = true
			continue
		}
		r := labelledTool{line: n, server: f[0], tool: f[1], readOnly: f[2], label: f[6], loopgate: f[7]}
		switch {
		case r.label != "read" && r.label != "poll" && r.label != "act":
			t.Fatalf("%s:%d: label %q", labelledToolsFile, n, r.label)
		case r.readOnly != "true" && r.label != "act":
			// The specification's default for a missing readOnlyHint is false.
			t.Fatalf("%s:%d: %s is not declared read-only but labelled %s", labelledToolsFile, n, r.tool, r.label)
		case f[8] == "" || !strings.Contains(f[8], "@"):
			t.Fatalf("%s:%d: source %q has no file@commit", labelledToolsFile, n, f[8])
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) < 500 {
		t.Fatalf("%s: %d rows, want the whole set", labelledToolsFile, len(rows))
	}
	return rows, lines
}

// answeredClasses are the classes whose repeated call the loopgate preset
// answers from the earlier result by the tool's name alone (dedup.only;
// shell and write are answered only when the call's arguments say it only
// looks, which a tool of an MCP server's never is).
var answeredClasses = map[string]bool{"read": true, "search": true, "list": true, "web_search": true, "web_fetch": true}

// TestLabelledToolsLoopgateClass: each labelled tool gets the class the
// file records. A change to the preset's tables that moves a tool shows up
// here and in the file's diff (rewrite it with -update and review it).
func TestLabelledToolsLoopgateClass(t *testing.T) {
	r, err := Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	rows, lines := readLabelledTools(t)
	changed := 0
	for _, row := range rows {
		got := r.ClassOf(row.tool)
		if got == row.loopgate {
			continue
		}
		changed++
		if *updateLabelled {
			f := strings.Split(lines[row.line-1], "\t")
			f[7] = got
			lines[row.line-1] = strings.Join(f, "\t")
			continue
		}
		t.Errorf("%s:%d: %s (%s, labelled %s) is classed %s, the file says %s", labelledToolsFile, row.line, row.tool, row.server, row.label, got, row.loopgate)
	}
	if *updateLabelled && changed > 0 {
		if err := os.WriteFile(labelledToolsFile, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %d rows of %s", changed, labelledToolsFile)
	}
}

// TestLabelledToolsNeverAnswerAnAct: no tool that its server declares not
// read-only, nor one whose result changes by itself, is in a class the
// preset answers. Answering such a call would hide what it did or return
// a stale result: the harm the preset must never do. knownExceptions
// lists the rows allowed through, each with why; it is empty.
func TestLabelledToolsNeverAnswerAnAct(t *testing.T) {
	knownExceptions := map[string]string{}
	r, err := Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := readLabelledTools(t)
	var answered, answeredRead, labelledRead int
	for _, row := range rows {
		class := r.ClassOf(row.tool)
		if row.label == "read" {
			labelledRead++
		}
		if !answeredClasses[class] {
			continue
		}
		answered++
		if row.label == "read" {
			answeredRead++
			continue
		}
		key := row.server + " " + row.tool
		if why, ok := knownExceptions[key]; ok {
			t.Logf("known exception %s: %s", key, why)
			continue
		}
		t.Errorf("%s:%d: %s (%s) is labelled %s but classed %s, which the preset answers", labelledToolsFile, row.line, row.tool, row.server, row.label, class)
	}
	if answered == 0 {
		t.Fatal("no labelled tool is answered: the preset's word tables are not applied")
	}
	// Nor is one labelled act in poll: a poll call clears no count, so a
	// read repeated after it would be answered with what it may have
	// changed. knownActPolls lists the rows allowed, each with why.
	knownActPolls := map[string]string{
		"grafana/mcp-grafana find_error_pattern_logs": "starts a Sift investigation of logs it only reads: its first word is find and no word says it acts",
		"grafana/mcp-grafana find_slow_requests":      "the same, of traces",
	}
	for _, row := range rows {
		if row.label != "act" || r.ClassOf(row.tool) != "poll" {
			continue
		}
		if why, ok := knownActPolls[row.server+" "+row.tool]; ok {
			t.Logf("known act classed poll %s: %s", row.tool, why)
			continue
		}
		t.Errorf("%s:%d: %s (%s) is labelled act but classed poll, which clears nothing", labelledToolsFile, row.line, row.tool, row.server)
	}
	t.Logf("%d labelled tools, %d answered by name: %d labelled read (precision %s), %d of %d read-only tools labelled read answered (coverage %s)",
		len(rows), answered, answeredRead, percent(answeredRead, answered), answeredRead, labelledRead, percent(answeredRead, labelledRead))
}

func percent(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
}

// labelledServerNames are names a user may give each labelled server in
// an agent's configuration: the short name and the repository's.
var labelledServerNames = map[string][]string{
	"ChromeDevTools/chrome-devtools-mcp":              {"chrome-devtools", "chrome-devtools-mcp"},
	"containers/kubernetes-mcp-server":                {"kubernetes", "kubernetes-mcp-server"},
	"getsentry/sentry-mcp":                            {"sentry", "sentry-mcp"},
	"github/github-mcp-server":                        {"github", "github-mcp-server"},
	"grafana/mcp-grafana":                             {"grafana", "mcp-grafana"},
	"hashicorp/terraform-mcp-server":                  {"terraform", "terraform-mcp-server"},
	"microsoft/playwright-mcp":                        {"playwright", "playwright-mcp"},
	"mongodb-js/mongodb-mcp-server":                   {"mongodb", "mongodb-mcp-server"},
	"sooperset/mcp-atlassian":                         {"atlassian", "mcp-atlassian"},
	"stripe/agent-toolkit":                            {"stripe", "agent-toolkit"},
	"supabase-community/supabase-mcp":                 {"supabase", "supabase-mcp"},
	"modelcontextprotocol/servers:filesystem":         {"filesystem", "server-filesystem"},
	"modelcontextprotocol/servers:everything":         {"everything", "server-everything"},
	"modelcontextprotocol/servers:git":                {"git", "mcp-server-git"},
	"modelcontextprotocol/servers:memory":             {"memory", "server-memory"},
	"modelcontextprotocol/servers:time":               {"time", "mcp-server-time"},
	"modelcontextprotocol/servers:sequentialthinking": {"sequential-thinking", "server-sequential-thinking"},
}

// agentToolNames returns the names agents give a server's tool
// (rules/namewords.go, toolPart, cites each agent's source).
func agentToolNames(server, tool string) []string {
	flat := strings.ReplaceAll(server, "-", "_")
	return []string{
		"mcp__" + flat + "__" + tool,   // Claude Code, Codex, newer hermes
		server + "__" + tool,           // Goose, Cline's SDK
		"mcp--" + server + "--" + tool, // Roo Code
		"mcp_" + server + "_" + tool,   // Gemini CLI 0.34+, nanobot
		"mcp_" + flat + "_" + tool,     // older hermes
		server + "_" + tool,            // OpenCode
		server + "-" + tool,            // Copilot CLI
	}
}

// TestLabelledToolsBehindAServerName: every labelled tool, named as each
// agent names an MCP server's tool, under the names its own server goes by
// and under server names that end in a read verb (published MCP servers:
// brave-search, duckduckgo-search, fetch). A single _ or - cannot be told
// from one inside the server's name, so the verb a name is classed by may
// be the server's; then only a word of the tool's own name that says it
// acts (an act: entry) keeps it out of read. None of the tools labelled
// act or poll may be answered under its own server's names; under a
// server named after a read verb, only the tools in readVerbServerGaps,
// whose names have no word that says they act or poll.
func TestLabelledToolsBehindAServerName(t *testing.T) {
	r, err := Preset("loopgate")
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := readLabelledTools(t)
	readVerbServerGaps := map[string]bool{
		"gzip-file-as-resource":        true,
		"lighthouse_audit":             true,
		"reprioritize_sub_issue":       true,
		"tekton_pipelinerun_lifecycle": true,
		"vm_lifecycle":                 true,
		"nodes_stats_summary":          true,
		"nodes_top":                    true,
		"retrieve_balance":             true,
		"sequentialthinking":           true,
		"vm_guest_info":                true,
		"vm_troubleshoot":              true,
	}
	var own, ownRead, ownLabelledRead int
	gaps := map[string]bool{}
	for _, row := range rows {
		servers, ok := labelledServerNames[row.server]
		if !ok {
			continue
		}
		for _, s := range servers {
			for _, name := range agentToolNames(s, row.tool) {
				own++
				class := r.ClassOf(name)
				if row.label == "read" {
					ownLabelledRead++
					if answeredClasses[class] {
						ownRead++
					}
					continue
				}
				if answeredClasses[class] {
					t.Errorf("%s:%d: %s (%s, labelled %s) is classed %s, which the preset answers", labelledToolsFile, row.line, name, row.server, row.label, class)
				}
			}
		}
		if row.label == "read" {
			continue
		}
		for _, s := range []string{"brave-search", "duckduckgo-search", "fetch"} {
			for _, name := range agentToolNames(s, row.tool) {
				if !answeredClasses[r.ClassOf(name)] {
					continue
				}
				gaps[row.tool] = true
				if !readVerbServerGaps[row.tool] {
					t.Errorf("%s:%d: %s (%s, labelled %s) is answered behind a server named %s", labelledToolsFile, row.line, name, row.server, row.label, s)
				}
			}
		}
	}
	for tool, gap := range readVerbServerGaps {
		if gap && !gaps[tool] {
			t.Errorf("%s is in readVerbServerGaps but is answered behind no server: remove it", tool)
		}
	}
	if ownRead == 0 {
		t.Fatal("no labelled read tool is answered behind its server's name")
	}
	t.Logf("%d agent names of labelled tools under their own servers' names: %d of %d read ones answered (%s); %d act or poll tools answered behind a server named after a read verb",
		own, ownRead, ownLabelledRead, percent(ownRead, ownLabelledRead), len(gaps))
}
