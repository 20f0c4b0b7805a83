package rules

import (
	"reflect"
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
		// A single _ may be inside the server's name: not cut.
		{"mcp_filesystem_read_file", "*mcp filesystem read file"},
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
		{"mcp_figma_get_node", "other"},
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
	for _, bad := range []string{"'verb:'", "'word:get_x'", "'verb:a b'", "'word:x-y'", "'act:'", "'act:set_x'"} {
		_, err := Parse([]byte("name: t\nclasses:\n  other: ["+bad+"]\n"), "t.yaml")
		if err == nil || !strings.Contains(err.Error(), "verb:, word: or act:") {
			t.Errorf("entry %s: error %v, want one about verb:, word: or act:", bad, err)
		}
	}
	_, err := Parse([]byte("name: t\nclasses:\n  read: ['act:delete']\n"), "t.yaml")
	if err == nil || !strings.Contains(err.Error(), "act: entries go under other") {
		t.Errorf("act: under read: error %v, want one saying act: entries go under other", err)
	}
}

// TestToolPartAgents builds, for each agent's convention (rules/namewords.go
// cites the source of each), the name the agent gives an MCP server's tool,
// and checks where toolPart cuts it. A name whose server end cannot be told
// from the name stays whole.
func TestToolPartAgents(t *testing.T) {
	long := strings.Repeat("x", 40) // a long server name
	// Roo Code cuts its names at 64 characters: getaway_plan left as get.
	roo64 := ("mcp--" + long + "-server-abcdef--getaway_plan")[:64]
	if !strings.HasSuffix(roo64, "--get") {
		t.Fatalf("roo64 = %q, want it to end in --get", roo64)
	}
	tests := []struct {
		agent, name, want string
	}{
		// mcp__SERVER__TOOL.
		{"claude code", "mcp__github__list_issues", "list_issues"},
		{"claude code, plugin server", "mcp__plugin_acme_tracker__get_ticket", "get_ticket"},
		{"claude code, claude.ai connector", "mcp__claude_ai_Linear__list_projects", "list_projects"},
		{"codex", "mcp__my_db__run_query", "run_query"},
		{"codex, colliding namespace hashed", "mcp__github_0123456789ab__list_issues", "list_issues"},
		{"codex, long tool cut with hash", "mcp__" + long + "__get_file_contents_of_0123456789ab", "get_file_contents_of_0123456789ab"},
		{"codex, truncated first word and hash", "mcp__" + long + "__get_0123456789ab", "mcp__" + long + "__get_0123456789ab"},
		{"codex, cut within the server", "mcp__get_" + long + "_0123456789ab", "mcp__get_" + long + "_0123456789ab"},
		{"qwen code", "mcp__context7__resolve-library-id", "resolve-library-id"},
		{"hermes, newer", "mcp__filesystem__read_text_file", "read_text_file"},
		{"hermes, newer, hyphens in the server made _", "mcp__my__srv__delete_x", "mcp__my__srv__delete_x"},
		// SERVER__TOOL.
		{"goose", "developer__text_editor", "text_editor"},
		{"cline sdk", "linear__get_issue", "get_issue"},
		{"gemini cli before 0.34, clash", "github__search_code", "search_code"},
		{"gemini cli before 0.34, cut", "github_srv_" + long + "...search_code_in_repo", "github_srv_" + long + "...search_code_in_repo"},
		// mcp--SERVER--TOOL.
		{"roo code", "mcp--github--list_issues", "list_issues"},
		{"roo code, hyphenated names", "mcp--brave-search--brave_web_search", "brave_web_search"},
		{"roo code, cut at 64", roo64, roo64},
		// Single separators: never cut.
		{"gemini cli 0.34+", "mcp_github_list_issues", "mcp_github_list_issues"},
		{"nanobot", "mcp_lms_list_labs", "mcp_lms_list_labs"},
		{"hermes, older", "mcp_web_search_clear_cache", "mcp_web_search_clear_cache"},
		{"opencode", "github_list_issues", "github_list_issues"},
		{"copilot cli", "github-mcp-server-list_issues", "github-mcp-server-list_issues"},
		// Not MCP names.
		{"plain", "read_file", "read_file"},
		{"dunder", "__init__", "__init__"},
		{"two separators", "a__b__c", "a__b__c"},
		{"run of three", "srv___get_x", "srv___get_x"},
	}
	for _, tt := range tests {
		if got := toolPart(tt.name); got != tt.want {
			t.Errorf("%s: toolPart(%q) = %q, want %q", tt.agent, tt.name, got, tt.want)
		}
	}
}

// TestClassOfAgentNames checks that no wrong cut makes an acting tool a
// read: each name below is one an agent writes for a tool that acts, with a
// reading verb placed where a wrong cut would find it.
func TestClassOfAgentNames(t *testing.T) {
	r, err := Parse([]byte(`name: t
classes:
  read: ['verb:get', 'verb:list', 'verb:search', 'verb:read']
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ tool, want string }{
		{"mcp__github__list_issues", "read"},
		{"mcp--github--list_issues", "read"},
		{"github__list_issues", "read"},
		// hermes (older) server web-search, tool clear_cache.
		{"mcp_web_search_clear_cache", "other"},
		// nanobot / Gemini CLI server my_get, tool delete_all.
		{"mcp_my_get_delete_all", "other"},
		// OpenCode server get_tools, tool delete_all: its first word.
		{"get_tools_delete_all", "read"},
		// Codex cut a getaway_plan tool to get and added a hash.
		{"mcp__" + strings.Repeat("s", 40) + "__get_0123456789ab", "other"},
		// Roo Code cut getaway to get at 64.
		{"mcp--" + strings.Repeat("s", 50) + "--get", "other"},
		// Gemini CLI cut getaway to get before its dots.
		{"mcp_srv_get...away_plan", "other"},
	}
	for _, tt := range tests {
		if got := r.ClassOf(tt.tool); got != tt.want {
			t.Errorf("ClassOf(%q) = %q, want %q", tt.tool, got, tt.want)
		}
	}
}

// TestClassOfLaterVerb: with act: entries, a name whose first word is no
// verb is classed by its first later verb, and a name with an act word by
// none of its words.
func TestClassOfLaterVerb(t *testing.T) {
	r, err := Parse([]byte(`name: t
classes:
  read: ['verb:get', 'verb:list', 'verb:search', 'verb:read']
  poll: ['word:status', 'word:pods', 'word:run']
  other: ['act:create', 'act:clear', 'act:delete', 'act:run']
`), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("s", 50)
	tests := []struct{ tool, want string }{
		{"get_schema", "read"},
		// Server or resource first (OpenCode, Gemini CLI 0.34+, nanobot,
		// older hermes, Copilot CLI, or the server's own naming).
		{"jira_get_issue", "read"},
		{"helm_list", "read"},
		{"issue_read", "read"},
		{"mcp_github_list_issues", "read"},
		{"github-mcp-server-list_issues", "read"},
		{"atlas-list-clusters", "read"},
		// A word entry before or after the verb moves it.
		{"pods_list", "poll"},
		{"jira_get_sync_status", "poll"},
		// An act word anywhere keeps every name out: OpenCode's and older
		// hermes' names of a web-search server's clear_cache, a fetch
		// server's create_issue, and verb-first names.
		{"web_search_clear_cache", "other"},
		{"mcp_web_search_clear_cache", "other"},
		{"fetch-create_issue", "other"},
		{"get_or_create_user", "other"},
		{"mcp__github__delete_file", "other"},
		// An act word wins over a word entry: a tool that acts is never a poll.
		{"get_run", "other"},
		{"jira_create_status", "other"},
		// No verb at all.
		{"git_status", "other"},
		{"pods_exec", "other"},
		// A name that may have been cut is classed by its first word only:
		// its act word may be what was cut.
		{"mcp_" + long + "_get_issue", "other"},
		{"mcp_srv_get...issue", "other"},
		{"get_" + long + "_issue", "read"},
		// Listed names keep their class.
		{"read_file", "read"},
	}
	for _, tt := range tests {
		if got := r.ClassOf(tt.tool); got != tt.want {
			t.Errorf("ClassOf(%q) = %q, want %q", tt.tool, got, tt.want)
		}
	}
}

// TestReserve: a class table's word entries recorded into maps reserve
// sized give the same wordClasses as recorded into none (nil maps where no
// entry goes, reflect.DeepEqual tells nil from empty), and reserve's count
// of others is the entries add does not record: under every preset and a
// table of one kind of entry each.
func TestReserve(t *testing.T) {
	tables := map[string]ClassTable{
		"empty":      {},
		"verbs only": {"read": {"verb:get", "verb:List"}},
		"acts only":  {"other": {"act:create"}},
		"names only": {"read": {"Read", "mcp__*__get"}},
	}
	for _, name := range PresetNames() {
		r, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		tables["preset "+name] = r.Classes
	}
	for name, c := range tables {
		t.Run(name, func(t *testing.T) {
			var plain, reserved wordClasses
			others := reserved.reserve(c)
			rejected := 0
			for class, entries := range c {
				for _, e := range entries {
					if !plain.add(e, class) {
						rejected++
					}
					reserved.add(e, class)
				}
			}
			if !reflect.DeepEqual(plain, reserved) {
				t.Errorf("reserved then added = %+v, added = %+v", reserved, plain)
			}
			if others != rejected {
				t.Errorf("reserve counted %d others, add rejected %d", others, rejected)
			}
		})
	}
}
