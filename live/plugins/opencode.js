// loopgate hook: written by 'loopgate hook install', removed by 'loopgate hook uninstall'
//
// OpenCode plugin: runs `loopgate hook --agent opencode` before and after
// each tool call (the plugin hooks tool.execute.before and
// tool.execute.after) and when the user sends a message (chat.message),
// with one event on its standard input (or, installed with --http, posts
// the event to `loopgate hook serve` at URL), and does what the answer says:
// {"block", "reason"} throws, which keeps the tool from running and gives
// the model the reason; {"context"} is appended to the tool's output;
// {"halt"} aborts the session's run. The hook fails open: whatever goes
// wrong here, the call runs.
import { spawnSync } from "node:child_process"

const COMMAND = "__LOOPGATE_COMMAND__"
const HOOK_URL = "__LOOPGATE_URL__"
const TOKEN = "__LOOPGATE_TOKEN__"
const TIMEOUT_MS = 10000

// answerOf reads the hook's answer: a JSON object, else nothing.
function answerOf(text) {
  if (!text || !text.trim()) return {}
  const answer = JSON.parse(text)
  return answer && typeof answer === "object" ? answer : {}
}

async function ask(event) {
  if (HOOK_URL) {
    try {
      const r = await fetch(HOOK_URL, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Loopgate-Token": TOKEN },
        body: JSON.stringify(event),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      })
      return r.ok ? answerOf(await r.text()) : {}
    } catch {
      return {}
    }
  }
  try {
    const r = spawnSync("/bin/sh", ["-c", COMMAND], {
      input: JSON.stringify(event),
      encoding: "utf8",
      timeout: TIMEOUT_MS,
    })
    return r.error ? {} : answerOf(r.stdout)
  } catch {
    return {}
  }
}

async function abort(client, sessionID) {
  try {
    await client.session.abort({ path: { id: sessionID } })
  } catch {}
}

export const LoopgatePlugin = async ({ client }) => {
  // tool.execute.after carries the call's arguments in newer versions
  // only: they are kept from tool.execute.before, by call id.
  const args = new Map()
  return {
    "chat.message": async (input, output) => {
      // The user's own text: the message's text parts, without those
      // OpenCode adds (synthetic: a file it read for an @-mention, ...);
      // OpenCode 1.18.33 triggers chat.message with {message, parts} in
      // SessionPrompt.createUserMessage.
      const parts = (output && Array.isArray(output.parts)) ? output.parts : []
      const prompt = parts
        .filter((p) => p && p.type === "text" && !p.synthetic && !p.ignored && typeof p.text === "string")
        .map((p) => p.text)
        .join("\n")
      await ask({ hook_event_name: "UserPromptSubmit", session_id: input.sessionID, prompt })
    },
    "tool.execute.before": async (input, output) => {
      args.set(input.callID, output.args)
      const a = await ask({
        hook_event_name: "PreToolUse",
        session_id: input.sessionID,
        tool_name: input.tool,
        tool_use_id: input.callID,
        tool_input: output.args,
      })
      if (a.halt) await abort(client, input.sessionID)
      if (a.block) {
        args.delete(input.callID)
        throw new Error(a.reason || "loopgate: call not run")
      }
    },
    "tool.execute.after": async (input, output) => {
      const a = await ask({
        hook_event_name: "PostToolUse",
        session_id: input.sessionID,
        tool_name: input.tool,
        tool_use_id: input.callID,
        tool_input: input.args ?? args.get(input.callID),
        tool_response: output.output,
        // A bash command that exits non-zero is a completed call whose
        // metadata holds the exit code (the part's state.metadata.exit in
        // opencode.db, OpenCode 1.18.33): a failure, as the reader reads it.
        is_error: !!(output.metadata && typeof output.metadata.exit === "number" && output.metadata.exit !== 0),
        // The exit code itself: "(no output)" with exit code 1 is a command
        // that found nothing, which the rules may answer when it repeats.
        exit_code: output.metadata && typeof output.metadata.exit === "number" ? output.metadata.exit : undefined,
      })
      args.delete(input.callID)
      if (a.context) output.output = (output.output || "") + "\n\n" + a.context
      if (a.halt) await abort(client, input.sessionID)
    },
  }
}
