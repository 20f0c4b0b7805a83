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
