package rules

import "strings"

// Classes by the words of a tool's name (docs/rules.md, "Tools in no class
// list"). Many tools an agent calls are an MCP server's or an
// application's own (get_schema, read_template, mcp__github__list_issues),
// and no class table can list them all. Their names follow a convention
// (the MCP specification's examples, and the servers built after them,
// name a tool verb first: get_weather, list_files, search_repositories), so
// a class table may class them by the words of their name instead:
//
//   - "verb:get" under a class matches a tool whose name's first word is
//     get (getSchema, get_schema, get-schema, List_Budgets for verb:list),
//     after an MCP server prefix where the name alone says where the
//     server ends (mcp__server__, server__, mcp--server--; see toolPart);
//   - "word:status" moves a tool a verb entry classed to its own class
//     when status is any other word of its name (get_preview_status,
//     get_health for word:health); it never classes a name by itself;
//   - "act:create", under other only, keeps a tool with create as any word
//     of its name out of every class a word entry gives (get_or_create_user
//     stays other). In a table with act: entries, a name whose first word
//     is no verb is classed by its first later verb (jira_get_issue,
//     mcp_github_list_issues): see classOf.
//
// Words are cut at _, -, ., spaces and lower-to-upper case changes, and
// compared lower-cased. A name in a class list, or matched by a glob,
// keeps that class; so a rules file can keep the tools whose result
// changes by itself (a status, a job's state) out of the class a verb
// would give them.

// The prefixes of a name entry in a class table that select by words.
const (
	verbPrefix = "verb:"
	wordPrefix = "word:"
	actPrefix  = "act:"
)

// maxWordLen bounds the words looked up: longer ones match no entry.
const maxWordLen = 48

// nameWords calls yield with each word of a tool's name, lower-cased,
// after the MCP server prefix (toolPart); first is true for the first
// word. It stops when yield returns false. The word's memory is valid only
// during the call.
func nameWords(name string, yield func(word []byte, first bool) bool) {
	var buf [maxWordLen]byte
	first := true
	eachWord(toolPart(name), func(w string) bool {
		if len(w) > maxWordLen {
			first = false
			return true
		}
		b := buf[:len(w)]
		for i := 0; i < len(w); i++ {
			c := w[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b[i] = c
		}
		ok := yield(b, first)
		first = false
		return ok
	})
}

// eachWord calls yield with each word of s as it is written, cut at _, -,
// ., spaces, / and : and where a capital follows a small letter; it stops
// when yield returns false.
func eachWord(s string, yield func(w string) bool) {
	start := -1
	emit := func(end int) bool {
		if start < 0 {
			return true
		}
		w := s[start:end]
		start = -1
		return yield(w)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c == '-' || c == '.' || c == ' ' || c == '/' || c == ':':
			if !emit(i) {
				return
			}
		case 'A' <= c && c <= 'Z' && start >= 0 && i > 0 && 'a' <= s[i-1] && s[i-1] <= 'z':
			// getNodeTree: a capital after a small letter starts a word.
			if !emit(i) {
				return
			}
			start = i
		default:
			if start < 0 {
				start = i
			}
		}
	}
	emit(len(s))
}

// How each agent names an MCP server's tool in the name the model calls,
// which is the name its transcripts and hook events carry (read from each
// agent's source; docs/rules.md, "Tools in no class list", has the table):
//
//   - mcp__SERVER__TOOL: Claude Code (code.claude.com/docs/en/mcp and
//     /hooks; a plugin's server is plugin_PLUGIN_SERVER; its sanitizing
//     is not documented), Codex
//     (openai/codex codex-rs/codex-mcp/src/tools.rs at 00a35b1b and
//     mcp_tool_names.rs at 52a0ab12: MCP_TOOL_NAME_DELIMITER "__", every
//     character outside [A-Za-z0-9_] made _, at most 64 bytes, a
//     "_"+12-hex SHA-1 suffix on a cut or colliding name), Qwen Code
//     (QwenLM/qwen-code packages/core/src/tools/mcp-tool.ts at 03977054
//     and utils/tool-name-utils.ts: [A-Za-z0-9_-], at most 63, a
//     "_"+7-character hash suffix), newer hermes-agent
//     (NousResearch/hermes-agent tools/mcp_tool_schema.py at 1ff257df,
//     MCP_TOOL_NAME_PREFIX: [A-Za-z0-9_], no length limit);
//   - SERVER__TOOL: Goose (block/goose crates/goose/src/agents/
//     extension_manager.rs at 005a5658: the extension's name lower-cased,
//     [a-zA-Z0-9_-], spaces dropped), Cline's SDK (cline/cline
//     sdk/packages/core/src/extensions/mcp/name-transform.ts at 21cb8d25:
//     runs outside [a-zA-Z0-9_-] made one _, at most 64 with a "_"+8-hex
//     suffix), Gemini CLI before 0.34 when two servers share a tool's name
//     (else the bare tool name);
//   - mcp--SERVER--TOOL: Roo Code (RooCodeInc/Roo-Code src/utils/
//     mcp-name.ts at cb836567: -- in a name made -, cut at 64 with no
//     hash);
//   - mcp_SERVER_TOOL: Gemini CLI since 0.34 (google-gemini/gemini-cli
//     packages/core/src/tools/mcp-tool.ts at 5411f113: [a-zA-Z0-9_.:-],
//     over 63 the middle replaced by "..."), nanobot (HKUDS/nanobot
//     nanobot/agent/tools/mcp.py at 3852956a: [a-zA-Z0-9_-] with runs of _
//     made one, at most 64 with a "_"+8-hex suffix), older hermes-agent
//     (the single-underscore form that, by the comment at
//     MCP_TOOL_NAME_PREFIX in mcp_tool_schema.py, the double one replaced;
//     [A-Za-z0-9_], hyphens made _);
//   - SERVER_TOOL: OpenCode (anomalyco/opencode packages/opencode/src/
//     mcp/index.ts at 001133bc: [a-zA-Z0-9_-], no limit);
//   - SERVER-TOOL: GitHub Copilot CLI (github/copilot-sdk READMEs at
//     cc0438d6: "<server-key>-<tool-name>").
//
// A name alone tells where the server ends only for the double
// separators, and only when the separator appears once: a single _ or -
// is also written inside server names (hermes makes my-server my_server,
// Copilot's keys are often github-mcp-server). So toolPart cuts only at a
// lone __ or -- and keeps every other name whole, whose first word is
// then the server's or the mcp prefix (no verb): a wrong cut could make an
// acting tool a read (mcp_web_search_clear_cache cut after web is
// search_clear_cache). Such a name is classed by a later verb only where
// act: entries can say the tool acts (classOf).
//
// A cut name can lose the end of its first word (Roo Code cuts at 64;
// Codex, Qwen Code, nanobot and Cline cut and add _HASH; Gemini CLI puts
// "..." in the middle), and "get" left of "getaway" would read as a verb.
// So a name that may have been cut (truncatedLen or longer, or with
// "...") is cut at its server only when its tool part has three words or
// more: a truncated first word is followed by at most the hash.

// truncatedLen is a length below which no agent above has cut a name
// (their limits are 63 and 64).
const truncatedLen = 60

// toolPart returns the part of a tool's name after its MCP server prefix
// when the name alone says where that is, else the whole name.
func toolPart(name string) string {
	if strings.Contains(name, "...") {
		// Gemini CLI's cut: the word before the dots may be any part of one.
		return name
	}
	var part string
	var ok bool
	if rest, roo := strings.CutPrefix(name, "mcp--"); roo {
		part, ok = cutLone(rest, "--")
	} else {
		part, ok = cutLone(strings.TrimPrefix(name, "mcp__"), "__")
	}
	if !ok {
		return name
	}
	if len(name) >= truncatedLen {
		words := 0
		eachWord(part, func(string) bool {
			words++
			return words < 3
		})
		if words < 3 {
			return name
		}
	}
	return part
}

// cutLone returns what follows sep in s when sep occurs exactly once,
// neither at either end nor within a longer run of its character.
func cutLone(s, sep string) (string, bool) {
	i := strings.Index(s, sep)
	if i <= 0 || i+len(sep) >= len(s) {
		return "", false
	}
	rest := s[i+len(sep):]
	if rest[0] == sep[0] || strings.Contains(rest, sep) {
		return "", false
	}
	return rest, true
}

// wordClasses is the part of a class table that selects by words.
type wordClasses struct {
	verbs map[string]string   // a verb -> class
	words map[string]string   // any word -> class
	acts  map[string]struct{} // a word that says the tool acts
}

// reserve sizes w's maps for the entries of c that add records, and
// returns how many of c's entries are others (names and globs). Grown an
// entry at a time, the maps were rehashed over and over: a fifth of the
// rules' compile, which a live hook call runs on every call
// (docs/performance.md, "The live hook, every preset"). A map stays nil
// when no entry goes there, as add leaves it.
func (w *wordClasses) reserve(c ClassTable) (others int) {
	var verbs, words, acts int
	for _, names := range c {
		for _, name := range names {
			switch {
			case strings.HasPrefix(name, verbPrefix):
				verbs++
			case strings.HasPrefix(name, wordPrefix):
				words++
			case strings.HasPrefix(name, actPrefix):
				acts++
			default:
				others++
			}
		}
	}
	if verbs > 0 {
		w.verbs = make(map[string]string, verbs)
	}
	if words > 0 {
		w.words = make(map[string]string, words)
	}
	if acts > 0 {
		w.acts = make(map[string]struct{}, acts)
	}
	return others
}

// add records a class table entry if it selects by words, reporting
// whether it did. An act: entry is recorded whatever its class: the
// loader accepts it only under other.
func (w *wordClasses) add(entry, class string) bool {
	if v, ok := strings.CutPrefix(entry, verbPrefix); ok {
		if w.verbs == nil {
			w.verbs = map[string]string{}
		}
		w.verbs[strings.ToLower(v)] = class
		return true
	}
	if v, ok := strings.CutPrefix(entry, wordPrefix); ok {
		if w.words == nil {
			w.words = map[string]string{}
		}
		w.words[strings.ToLower(v)] = class
		return true
	}
	if v, ok := strings.CutPrefix(entry, actPrefix); ok {
		if w.acts == nil {
			w.acts = map[string]struct{}{}
		}
		w.acts[strings.ToLower(v)] = struct{}{}
		return true
	}
	return false
}

// classOf returns the class the words of a tool's name give it, if any.
// A name with a word of an act: entry gets none, whatever its other words
// (get_or_create_user, fetch_create_issue: OpenCode's name of a fetch
// server's create_issue). Otherwise the class of its verb: its first word
// when that is a verb entry's; when it is not and the table has act:
// entries, its first later word that is (jira_get_issue, helm_list,
// mcp_github_list_issues), unless the name may have been cut short (an
// act word may have been cut off its end). Then a word entry for any word
// but the verb moves it (pods_list is a poll by pods). Word entries only
// ever move a name a verb classed: a tool that acts (run_tests,
// send_messages) is never made a poll by a word of its name.
//
// A later verb is taken only where act: entries can veto it: a single _
// or - is written inside server names, so the verb may be the server's
// (web_search_clear_cache, OpenCode's name of a web-search server's
// clear_cache) and only the act word clear says the tool acts.
func (w *wordClasses) classOf(tool string) (string, bool) {
	if len(w.verbs) == 0 {
		return "", false
	}
	later := len(w.acts) > 0 && len(tool) < truncatedLen && !strings.Contains(tool, "...")
	var byVerb, byWord string
	acts := false
	nameWords(tool, func(word []byte, first bool) bool {
		if _, ok := w.acts[string(word)]; ok {
			acts = true
			return false
		}
		if byVerb == "" && (first || later) {
			if c, ok := w.verbs[string(word)]; ok {
				byVerb = c
				return true
			}
		}
		if first && !later {
			return false
		}
		if c, ok := w.words[string(word)]; ok && byWord == "" {
			byWord = c
			// Without act: entries nothing after this changes the answer.
			return len(w.acts) > 0
		}
		return true
	})
	switch {
	case acts || byVerb == "":
		return "", false
	case byWord != "":
		return byWord, true
	}
	return byVerb, true
}

// isWordEntry reports whether a class table entry selects by words.
func isWordEntry(entry string) bool {
	return strings.HasPrefix(entry, verbPrefix) || strings.HasPrefix(entry, wordPrefix) ||
		strings.HasPrefix(entry, actPrefix)
}
