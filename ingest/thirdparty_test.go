package ingest

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestThirdPartySamplesRead: every agent transcript under
// shared/samples/third-party is read by its own format (issue 26), none is
// "of no known format", and each gives the sessions and calls its format's
// reading counts. The counts of the formats issue 26 added were counted
// apart from loopgate (a script over each file's own structure: tool_use
// blocks, tool_calls, actions, ATIF tool_calls, code blocks); the others
// are what their readers gave before this change, kept so that none moves
// unnoticed.
func TestThirdPartySamplesRead(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "samples", "third-party")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("samples not found at %s: %v", root, err)
	}
	want := map[string]struct {
		format          string
		sessions, calls int
	}{
		"claude-code/d-kimuson-claude-code-viewer/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl":                      {"claude-code", 1, 12},
		"claude-code/d-kimuson-claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl":                      {"claude-code", 3, 21},
		"claude-code/d-kimuson-claude-code-viewer/fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl":                      {"claude-code", 6, 167},
		"claude-code/daaain-claude-code-log/edge_cases.jsonl":                                                      {"claude-code", 1, 3},
		"claude-code/simonw-claude-code-transcripts/sample_session.json":                                           {"claude-code-loglines", 1, 12},
		"codex/Sinity-polylogue/functions_exec_multiple.jsonl":                                                     {"codex", 1, 1},
		"codex/madshn-localpush/rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl":            {"codex", 1, 118},
		"codex/madshn-localpush/rollout-2026-02-23T12-47-42-019c8a53-a0dd-7130-bcd7-95445d84846a.jsonl":            {"codex", 1, 144},
		"codex/madshn-localpush/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl":            {"codex", 1, 365},
		"codex/madshn-localpush/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl":            {"codex", 1, 1},
		"hermes/OcarCampos-hermes-backup/sessions/20260405_161026_d4fe9f.jsonl":                                    {"hermes-gateway", 1, 81},
		"hermes/OcarCampos-hermes-backup/sessions/20260524_153210_e6e08e06.jsonl":                                  {"hermes-gateway", 1, 91},
		"hermes/OcarCampos-hermes-backup/sessions/request_dump_20260405_183648_699058_20260405_183652_579976.json": {"hermes-request-dump", 1, 76},
		"hermes/OcarCampos-hermes-backup/sessions/session_20260524_153210_e6e08e06.json":                           {"hermes-snapshot", 1, 91},
		"hermes/RohithBalasubramani-NeuraReport-V2/prodo/trajectory_samples.jsonl":                                 {"hermes-trajectory", 74, 398},
		"hermes/Sinity-polylogue/nemo_relay_atif_v1.7_real_redacted.json":                                          {"atif", 1, 4},
		"nanobot/Arsapol-agent-npa-guy/cli_direct.jsonl":                                                           {"nanobot", 1, 26},
		"nanobot/Arsapol-agent-npa-guy/cron_f0323000.jsonl":                                                        {"nanobot", 1, 20},
		"nanobot/Arsapol-agent-npa-guy/telegram_1372818654.jsonl":                                                  {"nanobot", 1, 23},
		"nanobot/Qusshka-se-toolkit-lab-8/cli_direct.jsonl":                                                        {"nanobot", 1, 1},
		"openai-chat/SWE-agent-SWE-agent/function_calling_simple.traj":                                             {"swe-agent", 1, 5},
		"openai-chat/SWE-agent-mini-swe-agent/github_issue.traj.json":                                              {"mini-swe-agent", 1, 10},
		"openhands/OpenHands-OpenHands/basic_gui_mode.json":                                                        {"openhands", 1, 4},
		"openhands/OpenHands-OpenHands/multi_swe_bench_examples/output.jsonl":                                      {"openhands", 3, 105},
		"openhands/OpenHands-OpenHands/resolver_mock_output/output.jsonl":                                          {"openhands-resolver", 2, 26},
		"openhands/OpenHands-OpenHands/wrong_initial_state.json":                                                   {"openhands", 1, 4},
		"openhands/letta-ai-trajectory/tool-calls-input.json":                                                      {"openhands-v1", 1, 2},
	}
	files := Expand([]string{root}, func(p Problem) { t.Errorf("walk: %s: %s", p.File, p.Message) })
	seen := map[string]bool{}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		rel = filepath.ToSlash(rel)
		seen[rel] = true
		sessions, calls := 0, 0
		format := ""
		readAllAt(f, func(s *Session) {
			sessions++
			calls += s.NumCalls()
			format = s.Format
		}, func(p Problem) {
			if strings.Contains(p.Message, "of no known format") {
				t.Errorf("%s: %s", rel, p.Message)
			}
		})
		w, ok := want[rel]
		if !ok {
			t.Errorf("%s: a file this test does not know (read as %s, %d sessions, %d calls): add it", rel, format, sessions, calls)
			continue
		}
		if format != w.format || sessions != w.sessions || calls != w.calls {
			t.Errorf("%s: read as %s, %d sessions, %d calls; want %s, %d, %d", rel, format, sessions, calls, w.format, w.sessions, w.calls)
		}
	}
	var missing []string
	for rel := range want {
		if !seen[rel] {
			missing = append(missing, rel)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("the directory walk did not find %v", missing)
	}
}

func readAllAt(path string, onSession func(*Session), onProblem func(Problem)) {
	ReadFile(path, Options{}, &Sink{OnSession: onSession, OnProblem: onProblem})
}
