package ingest

import (
	"math"
	"strconv"
	"strings"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// usageProblem checks the numbers of a usage object as a transcript wrote
// it (its members and those of the objects in it, prompt_tokens_details
// and the like): a token count must be a whole number from 0 to the
// largest int64. A negative count, a fraction or exponent (1e308), or a
// count too large for an int64 (40 digits) was taken as 0 or wrapped the
// totals; now the first such member is named in a problem, and the caller
// drops the usage ("" when every number is fine).
func usageProblem(raw jsonx.RawMessage) string {
	v, err := jsonx.Parse(raw)
	if err != nil || v.Kind != jsonx.Object {
		return ""
	}
	return usageMembers(v, "", 0)
}

func usageMembers(v jsonx.Value, prefix string, depth int) string {
	for _, m := range v.Obj {
		name := prefix + m.Key
		switch m.Val.Kind {
		case jsonx.Number:
			if msg := badTokenCount(m.Val.Str); msg != "" {
				return "usage " + name + " is " + cutNumber(m.Val.Str) + ", " + msg + "; the record's usage is not counted"
			}
		case jsonx.Object:
			if depth < 2 {
				if msg := usageMembers(m.Val, name+".", depth+1); msg != "" {
					return msg
				}
			}
		}
	}
	return ""
}

// badTokenCount says what is wrong with a number as a token count, or "".
func badTokenCount(lit string) string {
	switch {
	case strings.HasPrefix(lit, "-"):
		if f, err := strconv.ParseFloat(lit, 64); err == nil && f == 0 {
			return "" // -0
		}
		return "a negative token count"
	case strings.ContainsAny(lit, ".eE"):
		// 12.5, 1e308, and 1e3 too: the readers take integers only.
		return "not a whole number of tokens"
	}
	if _, err := strconv.ParseInt(lit, 10, 64); err != nil {
		return "too large for a token count"
	}
	return ""
}

// cutNumber keeps a number short enough for a message.
func cutNumber(lit string) string {
	if len(lit) > 24 {
		return lit[:20] + "… (" + strconv.Itoa(len(lit)) + " characters)"
	}
	return lit
}

// SaturatingAdd is a + b for token totals, held at the int64 limits
// instead of wrapping (counts near the int64 maximum are valid, their sum
// is not).
func SaturatingAdd(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

// checkedUsage is parse(raw) when every number of raw is a token count,
// else nil after a problem at line.
func checkedUsage(out *Sink, line int, raw jsonx.RawMessage, parse func(jsonx.RawMessage) *Usage) *Usage {
	if raw == nil {
		return nil
	}
	if msg := usageProblem(raw); msg != "" {
		out.Problemf(line, "%s", msg)
		return nil
	}
	return parse(raw)
}

// parseOpenAIUsage normalizes Chat Completions or Responses usage. OpenAI's
// prompt_tokens / input_tokens already include cached tokens, and LiteLLM's
// Anthropic-backed prompt_tokens include cache creation and reads, so Input
// is taken as written. Returns nil for a usage with no numbers.
func parseOpenAIUsage(raw jsonx.RawMessage) *Usage {
	var u struct {
		PromptTokens        *int64 `json:"prompt_tokens"`
		CompletionTokens    int64  `json:"completion_tokens"`
		InputTokens         *int64 `json:"input_tokens"`
		OutputTokens        int64  `json:"output_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		InputTokensDetails *struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"input_tokens_details"`
		CacheCreation int64 `json:"cache_creation_input_tokens"`
		CacheRead     int64 `json:"cache_read_input_tokens"`
	}
	if jsonx.Unmarshal(raw, &u) != nil {
		return nil
	}
	var n Usage
	switch {
	case u.PromptTokens != nil:
		n.Input, n.Output = *u.PromptTokens, u.CompletionTokens
		if u.PromptTokensDetails != nil {
			n.CacheRead = u.PromptTokensDetails.CachedTokens
		}
	case u.InputTokens != nil:
		n.Input, n.Output = *u.InputTokens, u.OutputTokens
		if u.InputTokensDetails != nil {
			n.CacheRead = u.InputTokensDetails.CachedTokens
		}
	default:
		return nil
	}
	if u.CacheRead > n.CacheRead {
		n.CacheRead = u.CacheRead
	}
	n.CacheWrite = u.CacheCreation
	return &n
}

// --- Responses API ---

// anthropicUsageNames are the members anthropicUsage reads, in the order
// of usageScan.counts.
var anthropicUsageNames = [...]string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"}

// anthropicUsagePlain reads a usage object in one pass, without the
// generic tree of usageProblem or the reflection of anthropicUsage: ok
// says the usage is plain, and then usageProblem(raw) is "" and u is
// anthropicUsage(raw). Plain means valid JSON, an object whose keys
// (members of the objects in it included) are ASCII without escapes,
// none of the four names above written twice or with its case changed,
// each of them a whole number from 0 to the largest int64 written without
// a sign, a leading zero, a fraction or an exponent, and every other
// number usageProblem checks (in objects up to two levels down) of that
// form too. Anything else, a bad count above all, is not ok: the caller
// then runs usageProblem and anthropicUsage, whose problem and reading
// stand. TestAnthropicUsagePlain and FuzzAnthropicUsagePlain hold it to
// them.
func anthropicUsagePlain(raw []byte) (u *Usage, ok bool) {
	s := usageScan{data: raw}
	s.ws()
	if !s.object(0) {
		return nil, false
	}
	if s.ws(); s.pos != len(raw) {
		return nil, false
	}
	return s.usage(), true
}

// anthropicUsagePlainAt is anthropicUsagePlain of the value that starts
// at data[pos], depth levels deep in data, read where it lies: end is the
// index just past it. A reader that finds a usage member inside a record
// reads it so in the record's own pass, where taking it as a raw member
// then reading that took two walks over it. ok says the usage is plain,
// which takes only a value that Valid of the whole record takes there.
func anthropicUsagePlainAt(data []byte, pos, depth int) (u *Usage, end int, ok bool) {
	s := usageScan{data: data, pos: pos, depth: depth}
	if depth+2 > jsonx.MaxDepth || !s.object(0) { // objects two levels down are read here
		return nil, 0, false
	}
	return s.usage(), s.pos, true
}

// usageScan is anthropicUsagePlain's reading position and what it read.
type usageScan struct {
	data   []byte
	pos    int
	depth  int // of the usage in data
	counts [len(anthropicUsageNames)]int64
	seen   uint8
}

// usage is what the scan of a plain usage read.
func (s *usageScan) usage() *Usage {
	if s.seen&1 == 0 {
		return nil // no input_tokens: anthropicUsage reads none
	}
	input, output, write, read := s.counts[0], s.counts[1], s.counts[2], s.counts[3]
	return &Usage{Input: SaturatingAdd(SaturatingAdd(input, write), read), Output: output, CacheRead: read, CacheWrite: write}
}

func (s *usageScan) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// object reads the object at s.pos, level objects down in the usage (0
// for the usage itself), checking the numbers of its members as
// usageMembers does: those of level 2 objects are its last.
func (s *usageScan) object(level int) bool {
	if s.pos >= len(s.data) || s.data[s.pos] != '{' {
		return false
	}
	s.pos++
	s.ws()
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		return true
	}
	for {
		key, ok := s.key()
		if !ok {
			return false
		}
		s.ws()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return false
		}
		s.pos++
		s.ws()
		if s.pos >= len(s.data) {
			return false
		}
		known := -1
		if level == 0 {
			for i, name := range anthropicUsageNames {
				switch {
				case len(key) != len(name):
				case string(key) == name:
					known = i
				case jsonx.EqualFoldASCII(name, key):
					return false // Unmarshal matches a name whatever its case
				}
			}
			if known >= 0 && s.seen&(1<<known) != 0 {
				return false // Unmarshal takes the last of a repeated name
			}
		}
		switch c := s.data[s.pos]; {
		case c >= '0' && c <= '9':
			n, ok := s.count()
			if !ok {
				return false
			}
			if known >= 0 {
				s.counts[known] = n
				s.seen |= 1 << known
			}
		case known >= 0:
			return false // null, a string...: Unmarshal's judgement
		case c == '{' && level < 2:
			if !s.object(level + 1) {
				return false
			}
		case c == '-':
			return false // a negative count (or -0): usageProblem words it
		case c == '"' && s.plainString():
		default:
			// Strings, literals, arrays, and objects deeper than
			// usageMembers looks: checked as Valid checks them.
			_, end, ok := jsonx.SkipValue(s.data, s.pos, s.depth+level+1)
			if !ok {
				return false
			}
			s.pos = end
		}
		s.ws()
		if s.pos >= len(s.data) {
			return false
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
			s.ws()
		case '}':
			s.pos++
			return true
		default:
			return false
		}
	}
}

// key reads a member's key: plain ASCII, no escape, no control character.
func (s *usageScan) key() ([]byte, bool) {
	start := s.pos + 1
	if s.pos >= len(s.data) || s.data[s.pos] != '"' || !s.plainString() {
		return nil, false
	}
	return s.data[start : s.pos-1], true
}

// plainString moves past the string at s.pos when it is plain ASCII
// without escapes (jsonx.PlainStringEnd), which is valid JSON; anything
// else is left to the caller (key declines it, a value is skipped by
// SkipValue).
func (s *usageScan) plainString() bool {
	end := jsonx.PlainStringEnd(s.data, s.pos+1)
	if end < 0 {
		return false
	}
	s.pos = end + 1
	return true
}

// count reads a whole number of at most 18 digits (below the largest
// int64, so that it cannot overflow), without a leading zero, fraction or
// exponent.
func (s *usageScan) count() (int64, bool) {
	start := s.pos
	var n int64
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		n = n*10 + int64(s.data[s.pos]-'0')
		s.pos++
	}
	digits := s.pos - start
	if digits > 18 || digits > 1 && s.data[start] == '0' {
		return 0, false
	}
	if s.pos < len(s.data) {
		switch s.data[s.pos] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	return n, true
}
