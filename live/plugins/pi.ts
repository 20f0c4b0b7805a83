// loopgate hook: written by 'loopgate hook install', removed by 'loopgate hook uninstall'
//
// pi extension: runs `loopgate hook --agent pi` before and after each tool
// call (pi.on("tool_call") and pi.on("tool_result")) and when the user
// sends a prompt (pi.on("before_agent_start")), with one event on its
// standard input (or, installed with --http, posts the event to `loopgate
// hook serve` at URL), and does what the answer says: {"block", "reason"} is
// returned as pi's {block, reason}, which keeps the tool from running and
// gives the model the reason; {"context"} is appended to the tool's
// result content, or added to the prompt as a message; {"halt"} aborts the
// agent's run (ctx.abort()). The hook fails open: whatever goes wrong
// here, the call runs.
import { spawnSync } from "node:child_process";

const COMMAND = "__LOOPGATE_COMMAND__";
const HOOK_URL = "__LOOPGATE_URL__";
const TOKEN = "__LOOPGATE_TOKEN__";
const TIMEOUT_MS = 10000;

// answerOf reads the hook's answer: a JSON object, else nothing.
function answerOf(text: string | null | undefined): any {
	if (!text || !text.trim()) return {};
	const answer = JSON.parse(text);
	return answer && typeof answer === "object" ? answer : {};
}

async function ask(event: Record<string, unknown>): Promise<any> {
	if (HOOK_URL) {
		try {
			const r = await fetch(HOOK_URL, {
				method: "POST",
				headers: { "Content-Type": "application/json", "X-Loopgate-Token": TOKEN },
				body: JSON.stringify(event),
				signal: AbortSignal.timeout(TIMEOUT_MS),
			});
			return r.ok ? answerOf(await r.text()) : {};
		} catch {
			return {};
		}
	}
	try {
		const r = spawnSync("/bin/sh", ["-c", COMMAND], {
			input: JSON.stringify(event),
			encoding: "utf8",
			timeout: TIMEOUT_MS,
		});
		return r.error ? {} : answerOf(r.stdout);
	} catch {
		return {};
	}
}

function sessionOf(ctx: any): string {
	try {
		return ctx.sessionManager.getSessionId() || ctx.sessionManager.getSessionFile() || "pi";
	} catch {
		return "pi";
	}
}

export default function (pi: any) {
	pi.on("before_agent_start", async (event: any, ctx: any) => {
		const a = await ask({ hook_event_name: "UserPromptSubmit", session_id: sessionOf(ctx), prompt: event.prompt });
		if (a.context) {
			return { message: { customType: "loopgate", content: a.context, display: true } };
		}
	});
	pi.on("tool_call", async (event: any, ctx: any) => {
		const a = await ask({
			hook_event_name: "PreToolUse",
			session_id: sessionOf(ctx),
			tool_name: event.toolName,
			tool_use_id: event.toolCallId,
			tool_input: event.input,
		});
		if (a.halt) ctx.abort();
		if (a.block) return { block: true, reason: a.reason || "loopgate: call not run" };
	});
	pi.on("tool_result", async (event: any, ctx: any) => {
		const a = await ask({
			hook_event_name: "PostToolUse",
			session_id: sessionOf(ctx),
			tool_name: event.toolName,
			tool_use_id: event.toolCallId,
			tool_input: event.input,
			tool_response: event.content,
			is_error: event.isError,
		});
		if (a.halt) ctx.abort();
		// The steer is a paragraph of its own: pi's transcript keeps the
		// blocks, which a reader joins with a line break, so the block
		// starts with one more; replay then finds the rules' message after
		// a blank line and compares the result without it, as the hook did.
		if (a.context) return { content: [...(event.content || []), { type: "text", text: "\n" + a.context }] };
	});
}
