package rules

import (
	"strings"
	"testing"
)

func TestNameWords(t *testing.T) {
	tests := []struct {
		name string
		want string // words joined by spaces, the first marked with *
	}{
		{"get_schema", "*get schema"},
		{"getNodeTree", "*get node tree"},
		{"List_Budgets", "*list budgets"},
		{"notion-fetch", "*notion fetch"},
		{"mcp__claude_ai_Notion__notion-fetch", "*notion fetch"},
		{"mcp__github__list_issues", "*list issues"},
		{"github__search_repositories", "*search repositories"},
		{"mcp_filesystem_read_file", "*read file"},
		{"mcp_", "*mcp"},
		{"mcp__server__", "*mcp server"},
		{"HTTPGet", "*httpget"},
		{"a..b", "*a b"},
		{"", ""},
	}
	for _, tt := range tests {
		var words []string
		nameWords(tt.name, func(w []byte, first bool) bool {
			s := string(w)
			if first {
				s = "*" + s
			}
			words = append(words, s)
			return true
		})
		if got := strings.Join(words, " "); got != tt.want {
			t.Errorf("nameWords(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestClassOfByWords(t *testing.T) {
	r, err := Parse([]byte(`name: t
classes:
  read: ['verb:get', 'verb:list', 'verb:read']
  poll: ['word:status', 'word:job', 'word:run']
  shell: [run_tests]
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ tool, want string }{
		{"get_schema", "read"},
		{"getSchema", "read"},
		{"List_Budgets", "read"},
		{"mcp__supabase__list_tables", "read"},
		{"mcp_figma_get_node", "read"},
		{"get_preview_status", "poll"},
		{"getJobStatus", "poll"},
		{"get_run", "poll"},
		// A word entry never classes a name whose first word is no verb.
		{"run_script", "other"},
		{"send_status", "other"},
		{"session_get_state", "other"},
		{"forget_it", "other"},
		{"getaway", "other"},
		// Names and globs listed win over words.
		{"run_tests", "shell"},
		{"read_file", "read"},
		{"process_poll", "poll"},
		{"Read", "read"},
		{"write_file", "write"},
	}
	for _, tt := range tests {
		if got := r.ClassOf(tt.tool); got != tt.want {
			t.Errorf("ClassOf(%q) = %q, want %q", tt.tool, got, tt.want)
		}
	}
}

func TestWordEntryValidation(t *testing.T) {
	for _, bad := range []string{"'verb:'", "'word:get_x'", "'verb:a b'", "'word:x-y'"} {
		_, err := Parse([]byte("name: t\nclasses:\n  read: ["+bad+"]\n"), "t.yaml")
		if err == nil || !strings.Contains(err.Error(), "verb: or word:") {
			t.Errorf("entry %s: error %v, want one about verb: or word:", bad, err)
		}
	}
}
