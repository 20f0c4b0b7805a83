package ingest

import "strings"

// A session's selector names it alone among the sessions of its file, for
// --session: all the agent scopes of a Claude Code file (the main chain and
// each subagent) share the file's session id, so the id alone cannot pick a
// subagent. The selector is the id for a main scope and "ID/SCOPE" for any
// other (ID/sidechain-f4546a51, ID/a1b2c3d4, a pi branch).

// Selector is the session's selector (SessionSelector of its ID and Agent).
func (s *Session) Selector() string { return SessionSelector(s.ID, s.Agent) }

// SessionSelector is the selector of the session id with the agent scope.
func SessionSelector(id, agent string) string {
	if isMainScope(id, agent) {
		return id
	}
	return id + "/" + agent
}

// isMainScope: formats with no scopes leave Agent empty or repeat the id.
func isMainScope(id, agent string) bool {
	return agent == "" || agent == "main" || agent == id
}

// SelectorMatches says whether a --session value names the session: a
// prefix of its selector (so a prefix of the id keeps every scope of the
// session, as it always did), or "ID/main" for its main scope alone.
func SelectorMatches(id, agent, want string) bool {
	return strings.HasPrefix(SessionSelector(id, agent), want) || SelectorExact(id, agent, want)
}

// SelectorExact says whether want names the session exactly: its
// selector, or "ID/main" for a main scope. Where several sessions match a
// value, the one it names exactly is the one meant.
func SelectorExact(id, agent, want string) bool {
	return want == SessionSelector(id, agent) || isMainScope(id, agent) && want == id+"/main"
}
