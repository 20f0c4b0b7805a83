package ingest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNewFormatsRealFiles reads the public real files of the formats added
// for agents users have (Gemini CLI stream-json, Cline's UI log, Kimi Code's
// wire journal, Aider's chat history, the converted exports) and checks the
// format each is read as, its sessions, calls and calls with a result. The
// counts were taken apart from loopgate's reader (a script over each file's
// own records: tool_use and tool_result events, the UI log's call messages,
// Aider's SEARCH markers less those quoted in its failure reports, ...).
// The files are not in the repository: the test skips without them.
func TestNewFormatsRealFiles(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "samples", "third-party")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("samples not found at %s: %v", root, err)
	}
	const gsj = "gemini-stream-json/metaphi-agent-figma-eval-"
	tests := []struct {
		file                         string
		format                       string
		sessions, calls, withResults int
	}{
		{gsj + "010ac575-gemini_cli/transcript.jsonl", formatGeminiStream, 2, 68, 67},
		{gsj + "49bdd49a-5831-4dca-ad1b-a66b7b9901fa-gemini_cli/transcript.jsonl", formatGeminiStream, 2, 84, 83},
		{gsj + "65829f23-19f2-4c9a-9dc9-9be934780ffc-gemini_cli/transcript.jsonl", formatGeminiStream, 1, 34, 33},
		{gsj + "6d91b0b6-ef54-439d-9d50-06e79090dce5-gemini_cli/transcript.jsonl", formatGeminiStream, 1, 44, 43},
		{gsj + "d00f7a9b-ecaf-4a62-b8e7-388b8cc18957-gemini_cli/transcript.jsonl", formatGeminiStream, 1, 41, 40},
		{"cline/CoreGems-Cline-Xray/task_sample/ui_messages.json", formatClineUI, 1, 72, 71},
		{"cline/Jeehunter-mcp-vscode-server/MCP/ui_messages.json", formatClineUI, 1, 59, 57},
		{"cline/Jeehunter-mcp-vscode-server/ui_messages.json", formatClineUI, 1, 60, 58},
		{"cline/haram-333-fineye/ui_messages.json", formatClineUI, 1, 24, 22},
		{"aider/0202alcc-luvatrix/.aider.chat.history.md", formatAider, 1, 0, 0},
		{"aider/0xf1e-health-analyzer-poc/.aider.chat.history.md", formatAider, 2, 8, 8},
		{"aider/121378-cell-Spartan_ai_studio/.aider.chat.history.md", formatAider, 11, 0, 0},
		{"aider/87maxi-SupplyChainTracker2/.aider.chat.history.md", formatAider, 17, 106, 4},
		{"aider/Ahmedrali-rfp_response_platform/.aider.chat.history.md", formatAider, 2, 3, 3},
		{"aider/AlexShchuka-mozgoslav/.aider.chat.history.md", formatAider, 3, 0, 0},
		{"aider/AndrewJacop-Simple-Calulator/.aider.chat.history.md", formatAider, 1, 25, 24},
		{"aider/AndrewJacop-doc_processor/.aider.chat.history.md", formatAider, 1, 0, 0},
		{"aider/BeehiveInnovations-zen-mcp-server/.aider.chat.history.md", formatAider, 4, 0, 0},
		{"hermes/JadonInfotech-hermes-config/sync_sessions/DESKTOP-FHU4_20260629_052414_e1a23a.json", "hermes-export", 1, 37, 35},
		{"hermes/JadonInfotech-hermes-config/state.db.backup", formatHermesState, 0, 0, 0},
		{"kimi-code/jazzyalex-agent-sessions/assistant_tools.jsonl", formatKimiCode, 1, 19, 19},
		{"openai-chat/richh-s-TASK-20260318-393C91/sessions/develop-1.json", formatOpenAIChat, 1, 249, 247},
		{"other-converted/epha-b1-ProctorWorks/sessions/2026-04-02-003826-local-command-caveatcaveat-the-messages-below-w.jsonl", formatConvertedText, 1, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			sessions, _ := readAll(t, filepath.Join(root, tt.file), Options{})
			calls, withResults := 0, 0
			for _, s := range sessions {
				if s.Format != tt.format {
					t.Errorf("session %s read as %s, want %s", s.ID, s.Format, tt.format)
				}
				for _, tr := range s.Turns {
					for _, rq := range tr.Requests {
						for _, c := range rq.Calls {
							calls++
							if c.HasResult {
								withResults++
							}
						}
					}
				}
			}
			if len(sessions) != tt.sessions || calls != tt.calls || withResults != tt.withResults {
				t.Errorf("%d sessions, %d calls, %d with a result; want %d, %d, %d",
					len(sessions), calls, withResults, tt.sessions, tt.calls, tt.withResults)
			}
		})
	}
}

// TestFixtureOnlyMarked: the formats written from source alone say so
// (`loopgate formats` prints "fixture only"); those read from real files
// do not.
func TestFixtureOnlyMarked(t *testing.T) {
	for id, want := range map[string]bool{
		formatQwen: false, formatGeminiLogs: false, formatGeminiCheckpoint: false, formatGeminiStream: false, formatClineUI: false,
		formatKimiCode: false, formatAider: false, formatConvertedText: false,
	} {
		f := LookupFormat(id)
		if f == nil {
			t.Errorf("format %s is not registered", id)
			continue
		}
		if f.FixtureOnly != want {
			t.Errorf("%s: FixtureOnly %v, want %v", id, f.FixtureOnly, want)
		}
	}
}
