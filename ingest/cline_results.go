package ingest

// The text forms of Cline's native tool results, and Cline's usage.
// Sources: cline/cline at 9ee618111d58630fea30b27439216448225458e0,
// apps/vscode/src/core/task/tools/utils/ToolResultUtils.ts (the result
// text), src/core/task/ToolExecutor.ts (calls it did not run),
// src/core/prompts/responses.ts (toolAlreadyUsed, toolError, toolDenied),
// src/core/task/tools/handlers/*.ts (getDescription), src/core/task/index.ts
// (metrics.tokens) and src/core/api/providers/*.ts (what inputTokens is).

import (
	"strings"
	"time"
)

// clineCall is a native call of the last model response waiting for its
// result.
type clineCall struct{ id, tool string }

type clineCalls []clineCall

// answered drops the call a tool_result block answered.
func (cs *clineCalls) answered(id string) {
	for i, c := range *cs {
		if c.id == id {
			*cs = append((*cs)[:i], (*cs)[i+1:]...)
			return
		}
	}
}

// take removes and returns the call a text result of tool belongs to: the
// first waiting call of that tool, else (a description that does not
// name the tool: "[subagents]" for use_subagents) the first waiting call.
func (cs *clineCalls) take(tool string) (clineCall, bool) {
	if len(*cs) == 0 {
		return clineCall{}, false
	}
	at := 0
	for i, c := range *cs {
		if c.tool == tool {
			at = i
			break
		}
	}
	c := (*cs)[at]
	*cs = append((*cs)[:at], (*cs)[at+1:]...)
	return c, true
}

// clineResumed begins the user message of a task resumed after an
// interruption (Task.resumeTaskFromHistory).
const clineResumed = "[TASK RESUMPTION]"

// joinText joins the text results of a user message to the waiting
// native calls, in order, and returns how many it joined. A task
// resumption leaves the calls still waiting without a result, which
// finish reports with that reason.
func (cs *clineCalls) joinText(b *convBuilder, blocks []clineBlock, line int, t time.Time) int {
	n := 0
	for _, bl := range blocks {
		if len(*cs) == 0 {
			break
		}
		if bl.Type != "text" {
			continue
		}
		if strings.HasPrefix(bl.Text, clineResumed) {
			for _, c := range *cs {
				b.abandon(c.id, "interrupted (the task was resumed before its result was written)")
			}
			*cs = (*cs)[:0]
			break
		}
		tool, text, failed, ok := clineTextResult(bl.Text)
		if !ok {
			continue
		}
		c, _ := cs.take(tool)
		b.result(c.id, "", text, failed, line, t)
		n++
	}
	return n
}

// The texts of calls Cline did not run: toolAlreadyUsed, and the reasons
// createToolRejectionMessage puts before the call's description.
const (
	clineNotRunPrefix = "Tool ["
	clineNotRunSuffix = "] was not executed because a tool has already been used in this message."
	clineSkipped      = "Skipping tool due to user rejecting a previous tool. "
	clineInterrupted  = "Tool was interrupted and not executed due to user rejecting a previous tool. "
)

// clineTextResult reads one text block as a native call's result:
// "<description> Result:\n<result>", where the description is
// "[tool]", "[tool for '<what>']", "[subagents]" ..., or the text of a
// call Cline did not run (a failed result). tool is the name the text
// gives, which may not be the call's ("subagents").
func clineTextResult(text string) (tool, result string, failed, ok bool) {
	if strings.HasPrefix(text, clineNotRunPrefix) {
		name, rest, found := strings.Cut(text[len(clineNotRunPrefix):], "]")
		if found && strings.HasPrefix("]"+rest, clineNotRunSuffix) {
			return name, text, true, true
		}
	}
	for _, reason := range [...]string{clineSkipped, clineInterrupted} {
		if desc, found := strings.CutPrefix(text, reason); found && strings.HasPrefix(desc, "[") {
			return clineDescTool(desc), text, true, true
		}
	}
	if !strings.HasPrefix(text, "[") {
		return "", "", false, false
	}
	desc, rest, found := strings.Cut(text, "] Result:")
	if !found {
		return "", "", false, false
	}
	// "[attempt_completion] Result: Done" has no line break.
	rest = strings.TrimPrefix(strings.TrimPrefix(rest, "\n"), " ")
	return clineDescTool(desc), rest, clineFailed(rest), true
}

// clineDescTool is the tool a description names: "[read_file for 'x']"
// gives read_file.
func clineDescTool(desc string) string {
	desc = strings.TrimPrefix(desc, "[")
	if i := strings.IndexAny(desc, " ]:"); i >= 0 {
		desc = desc[:i]
	}
	return desc
}

// clineFailed says a result text is a failure: formatResponse.toolError
// and toolDenied, a command that exited non-zero
// (integrations/terminal/CommandOrchestrator.ts), and the "[ERROR]"/"Error"
// texts of the older results.
func clineFailed(text string) bool {
	return strings.HasPrefix(text, "The tool execution failed with the following error:") ||
		strings.HasPrefix(text, "The user denied this operation.") ||
		strings.HasPrefix(text, "Command failed with exit code") ||
		strings.HasPrefix(text, "Error") || strings.Contains(text, "[ERROR]")
}

// clineCacheApart are the providers whose inputTokens leave the cached
// tokens out (Anthropic's input_tokens, or prompt_tokens minus the cache
// read and written): metrics.tokens.prompt is then the uncached part and
// metrics.tokens.cached (cache written + cache read) comes on top. The
// others pass prompt_tokens on whole (openai, litellm, xai, qwen, zai,
// lmstudio, ...): the cached tokens are already in prompt.
var clineCacheApart = map[string]bool{
	"anthropic": true, "claude-code": true, "vertex": true, "bedrock": true, "cline": true,
	"openrouter": true, "vercel-ai-gateway": true, "requesty": true, "openai-native": true,
	"deepseek": true, "groq": true, "gemini": true, "moonshot": true, "minimax": true,
}

// clineUsage is a request's usage from metrics.tokens (Task: prompt is
// the stream's inputTokens, cached its cacheWriteTokens plus
// cacheReadTokens). Usage.Input counts the cached tokens: added to prompt
// for the providers that keep them apart, and for any provider when
// cached exceeds prompt (a prompt that held them could not be smaller).
func clineUsage(provider string, prompt, completion, cached int64) *Usage {
	if clineCacheApart[provider] || cached > prompt {
		return &Usage{Input: SaturatingAdd(prompt, cached), Output: completion, CacheRead: cached}
	}
	return &Usage{Input: prompt, Output: completion, CacheRead: cached}
}
