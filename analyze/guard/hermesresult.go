package guard

import (
	"strings"
	"unicode/utf8"

	"github.com/loopgate/loopgate/internal/jsonx"
)

// How hermes-agent reads a tool result (rules results.failure and
// results.hash set to "hermes" or "hermes-2026-06"). Sources, in
// NousResearch/hermes-agent:
//   - agent/tool_guardrails.py @ 06c25ac90be8 (the newest stored):
//     classify_tool_failure, _result_hash, _without_execute_code_metadata;
//   - agent/tool_guardrails.py @ 25568f9f704f (the June 2026 build the
//     hermes-2026-06 presets follow): the same classifier without the
//     guardrail-refusal test, and _result_hash without the execute_code
//     clean-up;
//   - agent/tool_result_classification.py: file_mutation_result_landed,
//     is_guardrail_refusal.
//
// hermes judges the tool's own output, before it appends its guard notes
// and before the untrusted-result envelope: both are removed first
// (NousResearch/hermes-agent agent/tool_guardrails.py at 06c25ac90be8, docs/rules.md).

// hermesOutput is the tool's own output within a transcript's result.
func hermesOutput(result string) string {
	return unwrapEnvelope(cutNotes(result))
}

// hermesFailed is classify_tool_failure(tool_name, result). terminal is
// whether the call is hermes' terminal tool (by name on hermes' own
// transcripts, by class elsewhere); newest adds the guardrail-refusal test
// of the Aug-Sep 2026 builds.
func hermesFailed(tool, result string, terminal, newest bool) bool {
	out := hermesOutput(result)
	data, isJSON := pyJSONLoads(out)
	if fileMutationLanded(tool, out) {
		return false
	}
	// "A harness REFUSAL of a redundant call ... carries "error" for the
	// model's benefit ... but nothing failed" (tool_guardrails.py).
	if newest && isGuardrailRefusal(out) {
		return false
	}
	if terminal {
		if !isJSON || data.Kind != jsonx.Object {
			return false
		}
		code, ok := pyGet(data, "exit_code")
		return ok && code.Kind != jsonx.Null && !code.PyZero()
	}
	if tool == "memory" && isJSON && data.Kind == jsonx.Object {
		if s, ok := pyGet(data, "success"); ok && s.Kind == jsonx.Bool && !s.Bool {
			if e, ok := pyGet(data, "error"); ok && e.Kind == jsonx.String && strings.Contains(e.Str, "exceed the limit") {
				return true
			}
		}
	}
	// lower = result[:500].lower()
	head := out
	if n := utf8.RuneCountInString(out); n > 500 {
		i, k := 0, 0
		for i = range out {
			if k == 500 {
				break
			}
			k++
		}
		head = out[:i]
	}
	lower := strings.ToLower(head)
	return strings.Contains(lower, `"error"`) || strings.Contains(lower, `"failed"`) || strings.HasPrefix(out, "Error")
}

// fileMutationLanded is file_mutation_result_landed: a write_file or patch
// whose JSON result shows the edit landed is never a failure.
func fileMutationLanded(tool, out string) bool {
	if tool != "write_file" && tool != "patch" {
		return false
	}
	data, ok := pyJSONLoads(strings.TrimSpace(out))
	if !ok || data.Kind != jsonx.Object {
		return false
	}
	if a, ok := pyGet(data, "applied"); ok && a.Kind == jsonx.Bool && a.Bool {
		return true
	}
	if e, ok := pyGet(data, "error"); ok && e.PyTruthy() {
		return false
	}
	if tool == "write_file" {
		_, ok := pyGet(data, "bytes_written")
		return ok
	}
	s, ok := pyGet(data, "success")
	return ok && s.Kind == jsonx.Bool && s.Bool
}

// isGuardrailRefusal is is_guardrail_refusal: a JSON object whose
// "guardrail_refusal" is true.
func isGuardrailRefusal(out string) bool {
	data, ok := pyJSONLoads(strings.TrimSpace(out))
	if !ok || data.Kind != jsonx.Object {
		return false
	}
	v, ok := pyGet(data, "guardrail_refusal")
	return ok && v.Kind == jsonx.Bool && v.Bool
}

// hermesResultHash is _result_hash: a JSON result hashed as its canonical
// form (keys sorted, compact, numbers as Python writes them), any other
// text hashed as it is, white space included. newest drops execute_code's
// per-run bookkeeping (duration_seconds, kernel.execution_count) first.
// hash is HashString, or portableHash for a guard whose state is saved
// (NewSavableGuard).
func hermesResultHash(tool, result string, newest bool, hash func(string) uint64) uint64 {
	out := hermesOutput(result)
	data, ok := pyJSONLoads(out)
	if !ok {
		return hash(out)
	}
	if newest && tool == "execute_code" {
		data = withoutExecuteCodeMetadata(data)
	}
	// A marker byte keeps a JSON text's canonical form apart from a raw
	// text that happens to read the same.
	return hash("\x00json" + string(jsonx.PyNumbers(data).Append(nil, jsonx.Sorted)))
}

func withoutExecuteCodeMetadata(v jsonx.Value) jsonx.Value {
	if v.Kind != jsonx.Object {
		return v
	}
	out := jsonx.Value{Kind: jsonx.Object}
	for _, m := range v.Obj {
		switch m.Key {
		case "duration_seconds":
			continue
		case "kernel":
			if m.Val.Kind == jsonx.Object {
				k := jsonx.Value{Kind: jsonx.Object}
				for _, km := range m.Val.Obj {
					if km.Key != "execution_count" {
						k.Obj = append(k.Obj, km)
					}
				}
				m.Val = k
			}
		}
		out.Obj = append(out.Obj, m)
	}
	return out
}

// pyJSONLoads is hermes' safe_json_loads: the parsed value, or false when
// the text is not JSON.
func pyJSONLoads(s string) (jsonx.Value, bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return jsonx.Value{}, false
	}
	v, err := jsonx.ParseString(t)
	return v, err == nil
}

// pyGet is dict.get after json.loads: of repeated keys the last wins.
func pyGet(v jsonx.Value, key string) (jsonx.Value, bool) {
	for i := len(v.Obj) - 1; i >= 0; i-- {
		if v.Obj[i].Key == key {
			return v.Obj[i].Val, true
		}
	}
	return jsonx.Value{}, false
}

// hermesMemo holds a call's hermes readings once worked out: failed[i] for
// reading i (hermesReading), 0 unknown, 1 no, 2 yes; hash[j] for newest j.
type hermesMemo struct {
	failed [4]uint8
	hashed [2]bool
	hash   [2]uint64
}

// hermesReading numbers the four ways hermesFailed is called.
func hermesReading(terminal, newest bool) int {
	i := 0
	if terminal {
		i |= 1
	}
	if newest {
		i |= 2
	}
	return i
}

// resultOf returns how the rules read the call's result: failed or not,
// and the hash that says which results are the same.
func (g *Guard) resultOf(ev *CallEvent) (failed bool, hash uint64) {
	res := g.r.Results
	failed, hash = ev.Failed, ev.ResultHash
	if ev.OutputHash != 0 && res.Envelope != "keep" {
		hash = ev.OutputHash
	}
	if f := res.Failure; f == "hermes" || f == "hermes-2026-06" {
		newest := f == "hermes"
		native := g.r.NativeTools()
		terminal := ev.Tool == "terminal"
		if !native {
			// Elsewhere hermes' terminal is the shell class, and the
			// transcript's own error flag is that agent's own reading.
			terminal = ev.Class == "shell" || g.r.ClassOf(ev.ClassName()) == "shell"
		}
		i := hermesReading(terminal, newest)
		m := &ev.hermes.failed[i]
		if *m == 0 {
			*m = 1
			if hermesFailed(ev.Tool, ev.Result, terminal, newest) {
				*m = 2
			}
		}
		failed = *m == 2 || (!native && ev.IsError)
	}
	if h := res.Hash; h == "hermes" || h == "hermes-2026-06" {
		j := 0
		if h == "hermes" {
			j = 1
		}
		if g.portable {
			// Not memoized: the memo may hold another guard's
			// per-process hash of the same event.
			return failed, hermesResultHash(ev.Tool, ev.Result, j == 1, portableHash)
		}
		if !ev.hermes.hashed[j] {
			ev.hermes.hash[j] = hermesResultHash(ev.Tool, ev.Result, j == 1, HashString)
			ev.hermes.hashed[j] = true
		}
		hash = ev.hermes.hash[j]
	}
	return failed, hash
}
