package ingest

import (
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// Converted exports ({"messages": [...], "meta": {...}}, the chat messages of
// another agent's session) may keep the session's usage beside the
// messages rather than on them: meta.token_counts, a list of Codex
// token_count events, each with its own "_timestamp" and info's
// last_token_usage / total_token_usage. The events' timestamps are those of
// the model's messages, so each event's usage goes to the request of the
// model's message written at that time.
//
// A converter from Claude Code writes one event per line of the session,
// and Claude Code splits one API response over several lines, each
// repeating the response's input and cache figures while its output count
// grows (the lines of one message.id, read once by the claude-code reader).
// So consecutive events with the same input and cached figures are one
// response, and its last event holds its usage; an event that repeats the
// running total of the one before is the same response reported twice.
// input_tokens includes the cached tokens in Codex's own events; a Claude
// Code converter writes Anthropic's split (the cached count beside a
// smaller input), and then the cached tokens are added to the input.

type tokenCountEvent struct {
	Timestamp jsonx.RawMessage `json:"_timestamp"`
	Info      *struct {
		Total *codexTokens `json:"total_token_usage"`
		Last  *codexTokens `json:"last_token_usage"`
	} `json:"info"`
}

// tokenCountUsages reads meta.token_counts into one usage per response, each
// with the time of the response's last event; events that are not
// token_count usage (no info, no last_token_usage) are left out.
func tokenCountUsages(raw jsonx.RawMessage) ([]time.Time, []*Usage, bool) {
	var events []tokenCountEvent
	if jsonx.Unmarshal(raw, &events) != nil {
		return nil, nil, false
	}
	var times []time.Time
	var usages []*Usage
	var prevTotal, prevLast *codexTokens
	for _, e := range events {
		if e.Info == nil || e.Info.Last == nil {
			continue
		}
		at := textOrMillisTime(e.Timestamp)
		if t := e.Info.Total; t != nil {
			if prevTotal != nil && *t == *prevTotal {
				// The same response again, on a later line of it: the
				// response is dated by its last line, as below. Its first
				// line may be one the converter wrote no message for (a
				// thinking block), dated before the response's messages.
				if len(times) > 0 && !at.IsZero() {
					times[len(times)-1] = at
				}
				continue
			}
			prevTotal = t
		}
		last := e.Info.Last
		u := last.usage()
		if last.Cached > last.Input {
			u.Input += last.Cached
		}
		if prevLast != nil && last.Input == prevLast.Input && last.Cached == prevLast.Cached && len(usages) > 0 {
			usages[len(usages)-1], times[len(times)-1] = u, at // the same response, a later line of it
		} else {
			usages, times = append(usages, u), append(times, at)
		}
		prevLast = last
	}
	return times, usages, true
}

// applyTokenCounts gives each response's usage to the model's message
// written at its time (the last one before it when no message has that
// exact time). Messages that carry usage of their own keep it: then the
// export is not of this shape and meta.token_counts is not read. It says
// on out how many responses' usage found no message.
func applyTokenCounts(items []oaItem, raw jsonx.RawMessage, out *Sink, line int) {
	for i := range items {
		if items[i].kind == 'a' && items[i].usage != nil {
			return
		}
	}
	times, usages, ok := tokenCountUsages(raw)
	if !ok {
		out.Problemf(line, "meta.token_counts is not a list of token_count events; the session's usage is not counted")
		return
	}
	lost := 0
	for k, u := range usages {
		at := times[k]
		target := -1
		for i := range items {
			// A subagent's messages (a scope of their own) are not in the
			// main session's token_count events.
			if items[i].kind != 'a' || items[i].scope != "" || at.IsZero() || items[i].time.After(at) {
				continue
			}
			if target < 0 || !items[i].time.Before(items[target].time) {
				target = i
			}
			if items[i].time.Equal(at) {
				target = i
				break
			}
		}
		if target < 0 {
			lost++
			continue
		}
		if prev := items[target].usage; prev != nil {
			sum := *prev
			sum.Input += u.Input
			sum.Output += u.Output
			sum.CacheRead += u.CacheRead
			sum.CacheWrite += u.CacheWrite
			u = &sum
		}
		items[target].usage = u
	}
	if lost > 0 {
		out.Problemf(line, "meta.token_counts: the usage of %d responses is dated before every model message (or undated); not counted", lost)
	}
}
