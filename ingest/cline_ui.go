package ingest

// Cline's task UI log: <globalStorage>/tasks/<task id>/ui_messages.json, the
// ClineMessage list the extension shows (cline/cline
// apps/vscode/src/shared/ExtensionMessage.ts: ClineMessage {ts, type:
// "ask"|"say", ask, say, text, partial, ...}, ClineSayTool,
// ClineApiReqInfo). The task's model conversation is the
// api_conversation_history.json beside it (cline.go); this file is what a
// user has when only the UI log was kept or shared.
// Docs: docs/formats/cline-ui.md.
//
// Readings taken:
//   - say "api_req_started" is a request; its text is ClineApiReqInfo JSON:
//     tokensIn, tokensOut, cacheWrites, cacheReads are the usage (tokensIn
//     without the cache: Input adds both cache counts), and request is the
//     user content sent with it, its blocks joined by blank lines
//     (src/core/task/index.ts, formatContentBlockToMarkdown), which holds the
//     previous round's tool results as "[tool for 'x'] Result:" text.
//   - The calls of a round are the messages between two api_req_started:
//     say/ask "tool" (its JSON's tool kind: readFile is read_file, ...),
//     "command" (execute_command), "use_mcp_server" (use_mcp_tool or
//     access_mcp_resource), "followup", "plan_mode_respond", say
//     "completion_result" (attempt_completion), "load_mcp_documentation",
//     "browser_action_launch", "new_task", "condense", "summarize_task",
//     "report_bug", "use_subagents". A partial message was never finished:
//     not a call.
//   - Roo Code's and Kilo Code's tool kinds are named as their tools;
//     their api_req_started has no request: then a call's result is the
//     output the log shows (command_output, mcp_server_response,
//     subtask_result, codebase_search_result, the user's answer to a
//     question or completion), else none. Their condense_context and
//     sliding_window_truncation messages mark the next turn compacted.
//   - Their results are the result blocks of the next api_req_started's
//     request, joined in order to the first unused block of a tool the
//     call's kind can be (an edit of an existing file is replace_in_file or
//     write_to_file: the block's header names which); the call takes the
//     block's tool name.
//   - say "task", a say "text" before the first request (older Cline wrote
//     the task so) and say "user_feedback" open a turn; feedback while a
//     call waits for its result (after attempt_completion, a question)
//     stays in that result, as in the conversation history.
//   - say "text" and "reasoning" count as the request's text.

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/lazyre"
)

const formatClineUI = "cline-ui"

func init() {
	register(&Format{
		ID:        formatClineUI,
		Family:    "cline",
		Reads:     "Cline's task UI log `tasks/<id>/ui_messages.json` (ClineMessage ask/say list): requests with their usage, the tool, command and MCP messages as calls, results from the next request's text.",
		Detection: "A JSON array whose first element has `ts`, `type` and `say` or `ask` (a ClineMessage).",
		Priority:  27,
		Sniff: func(h *Head) bool {
			return h.Array && h.Has("ts", "type") && (h.Has("say") || h.Has("ask"))
		},
		ParseDoc: parseClineUI,
	})
}

type clineUIMessage struct {
	ModelInfo *struct {
		ProviderID string `json:"providerId"`
	} `json:"modelInfo"`
	Ts      int64  `json:"ts"`
	Type    string `json:"type"`
	Ask     string `json:"ask"`
	Say     string `json:"say"`
	Text    string `json:"text"`
	Partial bool   `json:"partial"`
}

type clineUIReqInfo struct {
	Request     *string `json:"request"`
	ApiProtocol string  `json:"apiProtocol"`
	TokensIn    int64   `json:"tokensIn"`
	TokensOut   int64   `json:"tokensOut"`
	CacheWrites int64   `json:"cacheWrites"`
	CacheReads  int64   `json:"cacheReads"`
}

// clineUIToolNames are the tools a ClineSayTool kind is written for
// (src/core/task/tools/handlers: each handler's say/ask "tool" message).
var clineUIToolNames = map[string][]string{
	"readFile":                {"read_file"},
	"listFilesTopLevel":       {"list_files"},
	"listFilesRecursive":      {"list_files"},
	"listCodeDefinitionNames": {"list_code_definition_names"},
	"searchFiles":             {"search_files"},
	"webFetch":                {"web_fetch"},
	"webSearch":               {"web_search"},
	"editedExistingFile":      {"replace_in_file", "write_to_file", "apply_patch"},
	"newFileCreated":          {"write_to_file", "apply_patch"},
	"fileDeleted":             {"apply_patch"},
	"summarizeTask":           {"summarize_task"},
	"useSkill":                {"use_skill"},
	// Roo Code's and Kilo Code's kinds (RooCodeInc/Roo-Code
	// packages/types/src/vscode-extension-host.ts, ClineSayTool, at
	// cb836567; Kilo-Org/kilocode adds deleteFile), named as their tools
	// are; appliedDiff is shown by apply_diff, apply_patch, edit_file,
	// edit and search_replace (src/core/tools), named as the first.
	"appliedDiff":       {"apply_diff", "apply_patch", "edit_file", "edit", "search_replace"},
	"insertContent":     {"insert_content"},
	"searchAndReplace":  {"search_and_replace"},
	"codebaseSearch":    {"codebase_search"},
	"fetchInstructions": {"fetch_instructions"},
	"switchMode":        {"switch_mode"},
	"newTask":           {"new_task"},
	"generateImage":     {"generate_image"},
	"runSlashCommand":   {"run_slash_command"},
	"updateTodoList":    {"update_todo_list"},
	"deleteFile":        {"delete_file"},
}

// clineUINotCalls are tool kinds that ask about a call already read:
// Roo Code's finishTask asks to hand a subtask's attempt_completion (its
// completion_result) back to the parent task, and imageGenerated shows
// generate_image's image.
var clineUINotCalls = map[string]bool{"finishTask": true, "imageGenerated": true}

// clineUIAskTools are the other call messages and their tools.
var clineUIAskTools = map[string]string{
	"command":                "execute_command",
	"followup":               "ask_followup_question",
	"plan_mode_respond":      "plan_mode_respond",
	"completion_result":      "attempt_completion",
	"load_mcp_documentation": "load_mcp_documentation",
	"browser_action_launch":  "browser_action",
	"new_task":               "new_task",
	"condense":               "condense",
	"summarize_task":         "summarize_task",
	"report_bug":             "report_bug",
	"use_subagents":          "use_subagents",
}

// clineUIResultHead is a result block's header in a request's text
// (formatResponse's "[tool for 'x'] Result:" and "[tool] Result:").
var clineUIResultHead = lazyre.New(`(?m)^\[([a-z_]+)(?: for '(?s:.*?)')?\] Result:`)

type clineUIBlock struct {
	tool, text string
	used       bool
}

// clineUIResults splits a request's text into its tool result blocks.
func clineUIResults(req string) []clineUIBlock {
	locs := clineUIResultHead.Get().FindAllStringSubmatchIndex(req, -1)
	var blocks []clineUIBlock
	for i, l := range locs {
		end := len(req)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		text := req[l[1]:end]
		if k := strings.Index(text, "<environment_details>"); k >= 0 {
			text = text[:k]
		}
		blocks = append(blocks, clineUIBlock{tool: req[l[2]:l[3]], text: strings.TrimSpace(text)})
	}
	return blocks
}

// clineUIIsError: Cline's formatResponse.toolError and its [ERROR] notes.
func clineUIIsError(text string) bool {
	return strings.HasPrefix(text, "The tool execution failed") || strings.HasPrefix(text, "Error") || strings.Contains(text, "[ERROR]")
}

type clineUIWait struct {
	id    string
	tools []string
	// ui is the output the UI log shows for the call (its command_output
	// or mcp_server_response messages), read as its result when the next
	// request carries no text to take results from.
	ui    strings.Builder
	hasUI bool
}

// clineUIOutputTools are the tools whose output the UI log shows, by the
// message that shows it.
// Roo Code's subtask_result (the subtask's completion, said in the parent
// task) and codebase_search_result answer new_task and codebase_search.
var clineUIOutputTools = map[string][]string{
	"command_output":         {"execute_command"},
	"mcp_server_response":    {"use_mcp_tool", "access_mcp_resource"},
	"subtask_result":         {"new_task"},
	"codebase_search_result": {"codebase_search"},
}

// clineUIAnswered are the calls the user's feedback answers: what the user
// types while one waits is its result (the answer to a question, the
// feedback on a completion or a plan).
var clineUIAnswered = []string{"ask_followup_question", "attempt_completion", "plan_mode_respond"}

func parseClineUI(doc []byte, h *Head, out *Sink) {
	pos := newDocPos(doc, h.Line)
	body := bytes.TrimSpace(doc)
	elems, ok := jsonx.SplitArray(body)
	if !ok {
		out.Problemf(h.Line, "not a JSON array of Cline messages")
		return
	}
	lines := pos.elemLines(body)
	s := &Session{Format: formatClineUI, ID: parentDirName(h.Path)}
	if s.ID == "" {
		s.ID = fileStem(h.Name)
	}
	b := newConvBuilder(s, out)
	var waiting []*clineUIWait // this round's calls, in order
	requests, partial, unjoined, demo, deleted, bare := 0, 0, 0, 0, 0, 0
	lastAsk := ""
	provider := ""
	// settle ends the round's calls when the request after them carries
	// no text (Roo Code's api_req_started holds the usage only): a call
	// whose output the UI log showed has it as its result; the others have
	// none the file records.
	settle := func(at int, t time.Time, end bool) {
		for _, w := range waiting {
			if w.hasUI {
				text := w.ui.String()
				b.result(w.id, w.tools[0], text, clineUIIsError(text), at, t)
			} else if !end {
				b.abandon(w.id, "the UI log records no result for it (the request after it carries no request text, as Roo Code writes it)")
			}
		}
	}
	for i, raw := range elems {
		at := lineAtIndex(lines, i, h.Line)
		var m clineUIMessage
		if err := jsonx.Unmarshal(raw, &m); err != nil {
			out.Problemf(at, "message %d has an unexpected shape (%s); skipped", i+1, decodeErr(err))
			continue
		}
		t := msTime(m.Ts)
		if m.ModelInfo != nil && m.ModelInfo.ProviderID != "" {
			provider = m.ModelInfo.ProviderID
		}
		kind := m.Say
		if m.Type == "ask" {
			kind = m.Ask
		}
		if m.Partial {
			if kind == "text" || kind == "reasoning" {
				b.lastRequest().TextChars += len(m.Text)
			} else {
				partial++
			}
			continue
		}
		call := func(tools []string, args jsonx.Value) {
			id := fmt.Sprintf("ui-%d", i+1)
			c := Call{ID: id, Tool: tools[0], Time: t, Line: at}
			c.SetArgsValue(args)
			b.call(c)
			waiting = append(waiting, &clineUIWait{id: id, tools: tools})
		}
		switch {
		case m.Type == "say" && m.Say == "api_req_started":
			var info clineUIReqInfo
			err := jsonx.Unmarshal([]byte(m.Text), &info)
			if err != nil {
				out.Problemf(at, "message %d: api_req_started text is not ClineApiReqInfo JSON (%s); read as a request without usage", i+1, decodeErr(err))
			}
			if len(waiting) > 0 && info.Request != nil {
				unjoined += clineUIJoin(b, waiting, clineUIResults(*info.Request), at, t)
			} else if len(waiting) > 0 {
				settle(at, t, false)
			}
			if info.Request == nil && err == nil {
				bare++
			}
			waiting = waiting[:0]
			b.request(at, t, 0, clineUIUsage(info, provider))
			requests++
		case m.Type == "say" && (m.Say == "task" || (m.Say == "text" && requests == 0)):
			b.turn(at, t, len(m.Text))
			keepUserText(b.s, m.Text)
		case m.Type == "say" && m.Say == "user_feedback":
			resumed := lastAsk == "resume_task" || lastAsk == "resume_completed_task"
			if len(waiting) == 0 || resumed {
				b.turn(at, t, len(m.Text))
				if !resumed {
					// A resumed task's message does not name what
					// changed meanwhile (clineUserText).
					keepUserText(b.s, m.Text)
				}
			} else if w := waiting[len(waiting)-1]; slices.Contains(clineUIAnswered, w.tools[0]) && !w.hasUI {
				// Kept for a log whose next request carries no text.
				w.ui.WriteString(m.Text)
				w.hasUI = true
			}
		case m.Type == "say" && (m.Say == "condense_context" || m.Say == "sliding_window_truncation"):
			// Roo Code condensed or truncated the context the model sees.
			b.compaction()
		case m.Type == "say" && (m.Say == "text" || m.Say == "reasoning"):
			b.lastRequest().TextChars += len(m.Text)
		case kind == "tool" || kind == "use_mcp_server":
			args, err := jsonx.ParseString(m.Text)
			if err != nil || args.Kind != jsonx.Object {
				out.Problemf(at, "message %d: %s message text is not a JSON object; skipped", i+1, kind)
				continue
			}
			if kind == "tool" {
				k, _ := args.GetString("tool")
				if clineUINotCalls[k] {
					continue
				}
				tools := clineUIToolNames[k]
				if tools == nil {
					tools = []string{k}
				}
				args.Obj = slices.DeleteFunc(args.Obj, func(mb jsonx.Member) bool { return mb.Key == "tool" })
				call(tools, args)
			} else if k, _ := args.GetString("type"); k == "access_mcp_resource" {
				call([]string{"access_mcp_resource"}, args)
			} else {
				call([]string{"use_mcp_tool", "access_mcp_resource"}, args)
			}
		case clineUIOutputTools[kind] != nil:
			if len(waiting) > 0 {
				if w := waiting[len(waiting)-1]; slices.Contains(clineUIOutputTools[kind], w.tools[0]) {
					if w.hasUI && m.Text != "" && w.ui.Len() > 0 {
						w.ui.WriteByte('\n')
					}
					w.ui.WriteString(m.Text)
					w.hasUI = true
				}
			}
		case kind == "command" && len(waiting) > 0 && waiting[len(waiting)-1].tools[0] == "attempt_completion":
			// attempt_completion's own command, shown after its result
			// (AttemptCompletionHandler): part of that call.
			demo++
		case m.Type == "say" && m.Say == "deleted_api_reqs":
			var info clineUIReqInfo
			if jsonx.Unmarshal([]byte(m.Text), &info) == nil && (info.TokensIn != 0 || info.TokensOut != 0 || info.CacheReads != 0 || info.CacheWrites != 0) {
				b.request(at, t, 0, clineUIUsage(info, provider))
				deleted++
			}
		case clineUIAskTools[kind] != "" && !(m.Type == "ask" && kind == "completion_result"):
			tool := clineUIAskTools[kind]
			args, err := jsonx.ParseString(m.Text)
			if err != nil || args.Kind != jsonx.Object {
				key := "text"
				switch tool {
				case "execute_command":
					key = "command"
				case "attempt_completion":
					key = "result"
				}
				args = jsonx.Value{Kind: jsonx.Object, Obj: []jsonx.Member{{Key: key, Val: jsonx.Value{Kind: jsonx.String, Str: m.Text}}}}
			}
			call([]string{tool}, args)
		}
		if m.Type == "ask" {
			lastAsk = m.Ask
		} else if m.Say == "user_feedback" || m.Say == "api_req_started" {
			lastAsk = ""
		}
	}
	if bare > 0 && len(waiting) > 0 {
		// The last round's calls, in a log whose requests carry no text.
		settle(0, time.Time{}, true)
	}
	b.finish()
	zeroLines(s)
	noteSkipped(s, partial, "partial (never finished) tool message(s) not read as calls")
	noteSkipped(s, demo, "attempt_completion command(s) (its demonstration, shown after its result) not read as calls")
	noteSkipped(s, deleted, "deleted_api_reqs record(s) (the usage of requests a checkpoint restore removed) read as requests with that usage")
	noteSkipped(s, unjoined, "tool result block(s) in a request's text with no call of that tool in the UI log before it")
	noteSkipped(s, bare, "request(s) whose api_req_started carries no request text (Roo Code): the calls before them have as result only the output the UI log shows (command_output, mcp_server_response)")
	s.Notes = append(s.Notes, "read from the UI log: a call's arguments are the UI's record of it (ClineSayTool), its result the text sent with the next request")
	out.Session(s)
}

// clineUIUsage is a ClineApiReqInfo's usage (nil when it has none).
// Cline's providers give tokensIn without the cache (anthropic, openrouter,
// cline, deepseek: src/core/api/providers), except the OpenAI-compatible
// one, whose inputTokens is the whole prompt_tokens (openai.ts). Roo Code
// writes the whole input as tokensIn, whatever the protocol
// (calculateApiCostAnthropic and calculateApiCostOpenAI's totalInputTokens,
// RooCodeInc/Roo-Code src/core/task/Task.ts from commit 416fa572 on); its
// api_req_started carries apiProtocol without the request text from
// commit 4405f5a0 on, which tells such a log.
func clineUIUsage(info clineUIReqInfo, provider string) *Usage {
	if info.TokensIn == 0 && info.TokensOut == 0 && info.CacheReads == 0 && info.CacheWrites == 0 {
		return nil
	}
	in := info.TokensIn + info.CacheReads + info.CacheWrites
	if provider == "openai" || (info.ApiProtocol != "" && info.Request == nil) {
		in = info.TokensIn
	}
	return &Usage{Input: in, Output: info.TokensOut, CacheRead: info.CacheReads, CacheWrite: info.CacheWrites}
}

// clineUIJoin gives the round's calls their results from the next
// request's result blocks, in order; it returns the blocks no call took.
func clineUIJoin(b *convBuilder, calls []*clineUIWait, blocks []clineUIBlock, line int, t time.Time) int {
	for _, c := range calls {
		for j := range blocks {
			bl := &blocks[j]
			if bl.used || !slices.Contains(c.tools, bl.tool) {
				continue
			}
			bl.used = true
			if q := b.pending[c.id]; len(q) > 0 {
				b.ref(q[0]).Tool = bl.tool
			}
			b.result(c.id, bl.tool, bl.text, clineUIIsError(bl.text), line, t)
			break
		}
	}
	left := 0
	for _, bl := range blocks {
		if !bl.used {
			left++
		}
	}
	return left
}
