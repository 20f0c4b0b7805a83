package live

import "strings"

// parseQwen reads Qwen Code's events, which are Claude Code's
// (QwenLM/qwen-code packages/core/src/hooks/types.ts), but for one: Qwen
// Code 0.24.4 fires UserPromptSubmit before every model request of a turn,
// the requests that send tool results back included (the published
// bundle's GeminiClient.sendMessageStream, chunks/chunk-DPEB6S2R.js, skips
// the event only for retry, steer, cron, notification, teammate and goal
// messages; a tool-result continuation is a "toolResult" message). Its
// prompt is then partToString of the functionResponse parts: "" (a
// genuine prompt is the user's text, never empty). So a UserPromptSubmit
// whose prompt is blank is no new turn: counted as one, it reset a
// turn-scoped guard at every call (found by the agent lab, docs/lab.md).
func parseQwen(w *wire) Event {
	ev := parseClaude(w)
	if ev.Kind == KindPrompt && strings.TrimSpace(w.Prompt) == "" {
		ev.Kind = KindOther
	}
	return ev
}
