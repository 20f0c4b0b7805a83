package ingest

// Cline and Roo Code task histories: <globalStorage>/tasks/<task id>/
// api_conversation_history.json, the messages the extension sends to the
// model, in Anthropic Messages format (cline/cline,
// apps/vscode/src/shared/messages/content.ts: ClineStorageMessage =
// Anthropic.MessageParam plus id, modelInfo, metrics, ts; Roo Code's
// ApiMessage adds ts and isSummary). Docs: docs/formats/cline.md.
//
// Readings taken:
//   - Native tool calling: assistant tool_use blocks are the calls,
//     tool_result blocks of the next user message their results. Cline
//     writes most results of native calls as text blocks instead (a
//     tool_use whose id it cannot map gets the id "cline", and such a
//     result becomes a plain text block: ToolResultUtils.pushToolResult
//     and createToolResultBlock, apps/vscode/src/core/task/tools/utils/
//     ToolResultUtils.ts, cline/cline at 9ee6181): the text is the tool's
//     description, " Result:\n", then the result (clineTextResult). A
//     call Cline did not run gets a text of its own instead
//     (ToolExecutor.execute: formatResponse.toolAlreadyUsed, or a reason
//     before the description when the user rejected an earlier tool).
//     Text results are joined to the message's calls in order, Cline's
//     order of running them.
//   - The older XML tool calling (no tool_use blocks): the first
//     <tool_name>...</tool_name> element of a known Cline/Roo tool in the
//     assistant's text is the call (one per message, as the extension runs
//     one), its <param>value</param> children the arguments (strings, in
//     order); the result is the next user message's text that starts with
//     "[tool_name" and "] Result:" (Cline's formatResponse), up to the
//     environment details.
//   - A user message opens a turn when it holds no tool result: the task
//     (<task>), the user's follow-up, a task resumption. Messages made of
//     tool results (native or XML) continue the turn.
//   - A Roo message with isSummary (context condensing) marks the next turn
//     as compacted and is not a turn; so does Roo's sliding-window
//     truncation marker (isTruncationMarker: "[Sliding window truncation:
//     N messages hidden to reduce context]", a user message written by
//     truncateConversation, RooCodeInc/Roo-Code
//     src/core/context-management/index.ts): the messages it hides stay in
//     the file, tagged truncationParent, as condensed ones are tagged
//     condenseParent, and are read (they were sent before).
//   - Cline's metrics.tokens (prompt, completion, cached) are the
//     request's usage when present (clineUsage: whether prompt counts the
//     cached tokens depends on the provider).

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/lazyre"
)

const formatCline = "cline"

func init() {
	register(&Format{
		ID:        formatCline,
		Family:    "cline",
		Reads:     "Cline and Roo Code task histories `tasks/<id>/api_conversation_history.json` (Anthropic messages; native tool_use and the older XML tool calls).",
		Detection: "A JSON array of `role`/`content` messages in a file named `api_conversation_history.json`.",
		Priority:  27,
		Sniff: func(h *Head) bool {
			return h.Array && h.Name == "api_conversation_history.json" && h.Has("role", "content")
		},
		ParseDoc: parseCline,
	})
}

type clineMessage struct {
	Role      string           `json:"role"`
	Content   jsonx.RawMessage `json:"content"`
	Ts        int64            `json:"ts"`
	IsSummary bool             `json:"isSummary"`
	// IsTruncationMarker: Roo Code's sliding-window truncation marker.
	IsTruncationMarker bool `json:"isTruncationMarker"`
	ModelInfo          *struct {
		ModelID    string `json:"modelId"`
		ProviderID string `json:"providerId"`
	} `json:"modelInfo"`
	Metrics *struct {
		Tokens *struct {
			Prompt     int64 `json:"prompt"`
			Completion int64 `json:"completion"`
			Cached     int64 `json:"cached"`
		} `json:"tokens"`
	} `json:"metrics"`
}

// clineBlock is an Anthropic content block, as Claude Code's are.
type clineBlock = ccBlock

// clineBlocks reads a content member: a string is one text block.
func clineBlocks(raw jsonx.RawMessage) ([]clineBlock, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		err := jsonx.Unmarshal(raw, &s)
		return []clineBlock{{Type: "text", Text: s}}, err
	}
	var blocks []clineBlock
	err := jsonx.Unmarshal(raw, &blocks)
	return blocks, err
}

// decodeClineMessage decodes message i of a Cline transcript (either
// reader's message type) into m and reads its content member, which m's
// decoding wrote to content. A message of an unexpected shape is a problem
// at line at and is skipped (ok false).
func decodeClineMessage(raw jsonx.RawMessage, m any, content *jsonx.RawMessage, i, at int, out *Sink) (blocks []clineBlock, ok bool) {
	if err := jsonx.Unmarshal(raw, m); err != nil {
		out.Problemf(at, "message %d has an unexpected shape (%s); skipped", i+1, decodeErr(err))
		return nil, false
	}
	blocks, err := clineBlocks(*content)
	if err != nil {
		out.Problemf(at, "message %d: content of an unexpected shape (%s); skipped", i+1, decodeErr(err))
		return nil, false
	}
	return blocks, true
}

// clineToolUses adds an assistant message's tool_use blocks as calls of the
// request just opened, in order; each, when not nil, is told of every one.
func clineToolUses(b *convBuilder, blocks []clineBlock, t time.Time, at int, each func(*clineBlock)) {
	for i := range blocks {
		bl := &blocks[i]
		if bl.Type != "tool_use" {
			continue
		}
		c := Call{ID: bl.ID, Tool: bl.Name, Time: t, Line: at}
		c.SetArgsField(bl.Input)
		b.call(c)
		if each != nil {
			each(bl)
		}
	}
}

// clineXMLTools are the tools of Cline's and Roo Code's XML tool calling.
var clineXMLTools = []string{
	"execute_command", "read_file", "write_to_file", "replace_in_file", "search_files", "list_files",
	"list_code_definition_names", "browser_action", "use_mcp_tool", "access_mcp_resource",
	"ask_followup_question", "attempt_completion", "new_task", "plan_mode_respond",
	"load_mcp_documentation", "web_fetch", "condense", "summarize_task", "report_bug", "new_rule",
	"apply_diff", "insert_content", "search_and_replace", "switch_mode", "codebase_search",
	"update_todo_list", "fetch_instructions", "run_slash_command", "generate_image",
}

var clineToolOpen = lazyre.New(`<(` + strings.Join(clineXMLTools, "|") + `)>`)
var clineParam = lazyre.New(`(?s)<([a-z_]+)>\n?(.*?)\n?</([a-z_]+)>`)

// clineXMLCall finds the XML tool call in an assistant's text.
func clineXMLCall(text string) (tool string, args jsonx.Value, ok bool) {
	loc := clineToolOpen.Get().FindStringSubmatchIndex(text)
	if loc == nil {
		return "", jsonx.Value{}, false
	}
	tool = text[loc[2]:loc[3]]
	body := text[loc[1]:]
	if end := strings.Index(body, "</"+tool+">"); end >= 0 {
		body = body[:end]
	}
	args = jsonx.Value{Kind: jsonx.Object}
	for _, m := range clineParam.Get().FindAllStringSubmatch(body, -1) {
		if m[1] != m[3] {
			continue
		}
		args.Obj = append(args.Obj, jsonx.Member{Key: m[1], Val: jsonx.Value{Kind: jsonx.String, Str: m[2]}})
	}
	return tool, args, true
}

// clineXMLResult reads an XML-mode tool result from a user message's text
// blocks: "[tool for 'x'] Result:" then the result, up to the environment
// details.
func clineXMLResult(blocks []clineBlock) (tool, text string, ok bool) {
	for i, b := range blocks {
		if b.Type != "text" || !strings.HasPrefix(b.Text, "[") {
			continue
		}
		head, rest, found := strings.Cut(b.Text, "] Result:")
		if !found {
			continue
		}
		tool, _, _ = strings.Cut(head[1:], " ")
		parts := []string{strings.TrimPrefix(rest, "\n")}
		for _, more := range blocks[i+1:] {
			if more.Type != "text" || strings.HasPrefix(strings.TrimSpace(more.Text), "<environment_details>") {
				break
			}
			parts = append(parts, more.Text)
		}
		return tool, strings.TrimSpace(strings.Join(parts, "\n")), true
	}
	return "", "", false
}

func parseCline(doc []byte, h *Head, out *Sink) {
	pos := newDocPos(doc, h.Line)
	body := bytes.TrimSpace(doc)
	elems, ok := jsonx.SplitArray(body)
	if !ok {
		out.Problemf(h.Line, "not a JSON array of messages")
		return
	}
	lines := pos.elemLines(body)
	s := &Session{Format: formatCline, ID: filepath.Base(filepath.Dir(h.Path))}
	if s.ID == "." || s.ID == "" || s.ID == string(filepath.Separator) {
		s.ID = fileStem(h.Name)
	}
	b := newConvBuilder(s, out)
	xml := 0
	truncated := 0
	var xmlPending *Call  // the XML call waiting for the next user message
	var native clineCalls // the last response's native calls still waiting
	for i, raw := range elems {
		at := lineAtIndex(lines, i, h.Line)
		var m clineMessage
		blocks, ok := decodeClineMessage(raw, &m, &m.Content, i, at, out)
		if !ok {
			continue
		}
		t := msTime(m.Ts)
		switch m.Role {
		case "user":
			results := 0
			for _, bl := range blocks {
				if bl.Type == "tool_result" {
					results++
					text, _ := contentText(bl.Content)
					b.result(bl.ToolUseID, "", text, bl.IsError, at, t)
					native.answered(bl.ToolUseID)
				}
			}
			results += native.joinText(b, blocks, at, t)
			native = native[:0]
			if xmlPending != nil {
				if tool, text, ok := clineXMLResult(blocks); ok {
					results++
					setResult(xmlPending, text, strings.Contains(text, "[ERROR]") || strings.HasPrefix(text, "Error"), at)
					if tool != xmlPending.Tool {
						out.Problemf(at, "message %d: the result names tool %q, the call before it was %q; joined anyway", i+1, tool, xmlPending.Tool)
					}
				}
				xmlPending = nil
			}
			if m.IsSummary || m.IsTruncationMarker {
				b.compaction()
				if m.IsTruncationMarker {
					truncated++
				}
				continue
			}
			if results > 0 {
				continue
			}
			chars := 0
			var typed strings.Builder
			for _, bl := range blocks {
				chars += len(bl.Text)
				if bl.Type == "text" {
					typed.WriteString(bl.Text)
					typed.WriteByte('\n')
				}
			}
			b.turn(at, t, chars)
			keepUserText(b.s, clineUserText(typed.String()))
		case "assistant":
			xmlPending = nil // unanswered: finish reports it
			native = native[:0]
			var u *Usage
			if m.Metrics != nil && m.Metrics.Tokens != nil {
				tk := m.Metrics.Tokens
				provider := ""
				if m.ModelInfo != nil {
					provider = m.ModelInfo.ProviderID
				}
				u = clineUsage(provider, tk.Prompt, tk.Completion, tk.Cached)
			}
			if m.ModelInfo != nil && s.Model == "" {
				s.Model = m.ModelInfo.ModelID
			}
			chars := 0
			hasToolUse := false
			var text strings.Builder
			for _, bl := range blocks {
				chars += len(bl.Text) + len(bl.Thinking)
				text.WriteString(bl.Text)
				hasToolUse = hasToolUse || bl.Type == "tool_use"
			}
			if m.IsSummary || m.IsTruncationMarker {
				b.compaction()
				if m.IsTruncationMarker {
					truncated++
				}
				continue
			}
			b.request(at, t, chars, u)
			clineToolUses(b, blocks, t, at, func(bl *clineBlock) {
				native = append(native, clineCall{id: bl.ID, tool: bl.Name})
			})
			if !hasToolUse {
				if tool, args, ok := clineXMLCall(text.String()); ok {
					xml++
					c := Call{ID: fmt.Sprintf("xml-%d", i+1), Tool: tool, Time: t, Line: at}
					c.SetArgsValue(args)
					// Added as answered so the builder does not wait for
					// it; the next user message gives the result.
					c.HasResult = true
					b.call(c)
					rq := b.lastRequest()
					xmlPending = &rq.Calls[len(rq.Calls)-1]
					xmlPending.HasResult = false
				}
			}
		default:
			out.Problemf(at, "message %d with unknown role %q; skipped", i+1, m.Role)
		}
	}
	b.finish()
	zeroLines(s) // lines named the elements for problems only
	noteSkipped(s, xml, "call(s) read from XML tool tags in the assistant's text")
	noteSkipped(s, truncated, "sliding-window truncation marker(s) (Roo Code) read as compactions, not turns")
	out.Session(s)
}
