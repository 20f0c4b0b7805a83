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
//     after an MCP server prefix (mcp__server__, server__, or hermes'
//     mcp_server_ where the server is one word);
//   - "word:status" moves a tool a verb entry classed to its own class
//     when status is any later word of its name (get_preview_status,
//     get_health for word:health); it never classes a name by itself.
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
)

// maxWordLen bounds the words looked up: longer ones match no entry.
const maxWordLen = 48

// nameWords calls yield with each word of a tool's name, lower-cased,
// after the MCP server prefix; first is true for the first word. It stops
// when yield returns false. The word's memory is valid only during the
// call.
func nameWords(name string, yield func(word []byte, first bool) bool) {
	name = toolPart(name)
	var buf [maxWordLen]byte
	first := true
	start := -1
	emit := func(end int) bool {
		if start < 0 {
			return true
		}
		w := name[start:end]
		start = -1
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
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == '.' || c == ' ' || c == '/' || c == ':':
			if !emit(i) {
				return
			}
		case 'A' <= c && c <= 'Z' && start >= 0 && i > 0 && 'a' <= name[i-1] && name[i-1] <= 'z':
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
	emit(len(name))
}

// toolPart strips the MCP server prefix from a tool's name: Claude
// Code's and Codex's mcp__server__tool, a server__tool name (Gemini CLI
// names a server's tool so when two servers share it), hermes'
// mcp_server_tool when the server is one word.
func toolPart(name string) string {
	if i := strings.LastIndex(name, "__"); i >= 0 && i+2 < len(name) {
		return name[i+2:]
	}
	if rest, ok := strings.CutPrefix(name, "mcp_"); ok {
		if i := strings.IndexByte(rest, '_'); i > 0 && i+1 < len(rest) {
			return rest[i+1:]
		}
	}
	return name
}

// wordClasses is the part of a class table that selects by words.
type wordClasses struct {
	verbs map[string]string // first word -> class
	words map[string]string // any word -> class
}

// add records a class table entry if it selects by words, reporting
// whether it did.
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
	return false
}

// classOf returns the class the words of a tool's name give it, if any:
// none unless its first word is a verb entry's; then a word entry for any
// of its words, else the verb's. Word entries only ever move a name a verb
// classed: a tool that acts (run_tests, send_messages) is never made a
// poll by a word of its name.
func (w *wordClasses) classOf(tool string) (string, bool) {
	if len(w.verbs) == 0 {
		return "", false
	}
	var byWord, byVerb string
	nameWords(tool, func(word []byte, first bool) bool {
		if first {
			byVerb = w.verbs[string(word)]
			return byVerb != ""
		}
		if c, ok := w.words[string(word)]; ok {
			byWord = c
			return false
		}
		return true
	})
	switch {
	case byVerb == "":
		return "", false
	case byWord != "":
		return byWord, true
	}
	return byVerb, true
}

// isWordEntry reports whether a class table entry selects by words.
func isWordEntry(entry string) bool {
	return strings.HasPrefix(entry, verbPrefix) || strings.HasPrefix(entry, wordPrefix)
}
