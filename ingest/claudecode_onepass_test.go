package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// ccReadView is what the reader takes of a decoded Claude Code line,
// written out to compare two decodings.
type ccReadView struct {
	Line                                         ccLine
	ID, Role, Model, Usage                       string
	UsageRead                                    *Usage
	UsagePlain                                   bool
	Text                                         string
	IsString, HasContent, Unreadable, BadContent bool
	Blocks                                       []ccBlockView
}

type ccBlockView struct {
	Type, Text, Thinking, ID, Name, Input, ToolUseID, Result, ArgsRaw string
	IsError, ArgsCompact                                              bool
}

func viewOfRead(l ccLine, read *ccMessageRead) ccReadView {
	l.Message = nil // the one-pass decoding reads the message where it lies
	v := ccReadView{Line: l, ID: read.m.ID, Role: read.m.Role, Model: read.m.Model, Usage: string(read.m.Usage),
		UsageRead: read.usage, UsagePlain: read.usagePlain, Text: read.text, IsString: read.isString,
		HasContent: read.hasContent, Unreadable: read.unreadable, BadContent: read.badContent}
	for i := range read.blocks {
		b := &read.blocks[i]
		bv := ccBlockView{Type: b.Type, Text: b.Text, Thinking: b.Thinking, ID: b.ID, Name: b.Name,
			Input: string(b.Input), ToolUseID: b.ToolUseID, Result: b.resultText(), IsError: b.IsError}
		if b.Type == "tool_use" || b.Type == "server_tool_use" {
			// The reader takes a block's compact input only for a call
			// (the one pass writes any block's, not knowing its type yet).
			bv.ArgsRaw, bv.ArgsCompact = b.argsRaw, b.argsCompact
		}
		v.Blocks = append(v.Blocks, bv)
	}
	return v // no blocks: Blocks nil, whether read.blocks is nil or empty
}

// checkOnePass: a line the one-pass decoding takes (ccDecodeLine) reads as
// its generic decoding followed by readAssistant does: the usage and the
// calls' compact inputs that the one pass reads where they lie included,
// so ccDecodeRecord need not call readAssistant after the one pass.
func checkOnePass(t *testing.T, line []byte) (taken bool) {
	t.Helper()
	var l1 ccLine
	var r1 ccMessageRead
	if !ccDecodeLine(line, &l1, &r1, nil) {
		return false
	}
	var l2 ccLine
	var r2 ccMessageRead
	if err := ccDecodeGeneric(line, &l2, &r2); err != nil {
		t.Fatalf("the one pass takes a line the generic decoding rejects (%v): %q", err, line)
	}
	r2.readAssistant()
	if one, generic := viewOfRead(l1, &r1), viewOfRead(l2, &r2); !reflect.DeepEqual(one, generic) {
		t.Fatalf("line %q\none pass: %+v\ngeneric:  %+v", line, one, generic)
	}
	return true
}

// ccOnePassLines are lines for checkOnePass: usages plain and not (a
// negative, fractional or huge count, null, a string, nested objects and
// a list, a repeated or case-folded name), inputs of every shape (white
// space, escapes, a slash and \u escapes that compact writes otherwise,
// invalid UTF-8, deep nesting), and blocks of each kind.
var ccOnePassLines = []string{
	`{"type":"assistant","uuid":"a1","requestId":"r","message":{"id":"m","role":"assistant","model":"claude","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls","description":"list"}}],"usage":{"input_tokens":19,"cache_creation_input_tokens":471,"cache_read_input_tokens":35720,"output_tokens":537}}}`,
	`{"type":"assistant","message":{"usage":{"input_tokens":1,"output_tokens":2,"cache_creation":{"ephemeral_5m_input_tokens":3,"ephemeral_1h_input_tokens":0},"server_tool_use":{"web_search_requests":1},"service_tier":"standard"},"content":[]}}`,
	`{"type":"assistant","message":{"usage":{"input_tokens":-1,"output_tokens":2},"content":[]}}`,
	`{"type":"assistant","message":{"usage":{"input_tokens":1.5,"output_tokens":2},"content":[]}}`,
	`{"type":"assistant","message":{"usage":{"input_tokens":123456789012345678901,"output_tokens":2},"content":[]}}`,
	`{"type":"assistant","message":{"usage":{"input_tokens":01,"output_tokens":2},"content":[]}}`,
	`{"type":"assistant","message":{"usage":null,"content":[]}}`,
	`{"type":"assistant","message":{"usage":"none","content":[]}}`,
	`{"type":"assistant","message":{"usage":[1,2],"content":[]}}`,
	`{"type":"assistant","message":{"usage":{},"content":[]}}`,
	`{"type":"assistant","message":{"usage":{"output_tokens":7},"content":[]}}`,
	`{"type":"assistant","message":{"usage":{"input_tokens":1,"input_tokens":2},"content":[]}}`,
	`{"type":"assistant","message":{"usage":{"Input_Tokens":1},"content":[]}}`,
	`{"type":"assistant","message":{"usage":{"input_tokens":1,"x":{"y":{"z":[1,{"w":-2.5}]}},"t":"a\"b","u":"\u00e9"},"content":[]}}`,
	`{"type":"assistant","message":{"usage": { "input_tokens" : 1 , "output_tokens" : 2 } ,"content":[]}}`,
	`{"type":"assistant","message":{"usage":{"input_tokens":1},"usage":{"input_tokens":2},"content":[]}}`,
	`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Edit","input":{ "file_path" : "/a" , "old_string":"x\ny","new_string":"\/\u00e9\u001B\ud83d\ude00"}}]}}`,
	"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"Write\",\"input\":{\"content\":\"bad \xff utf-8\"}}]}}",
	`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"X","input":"just a string"},{"type":"tool_use","id":"u","name":"Y","input":null},{"type":"tool_use","id":"v","name":"Z","input":[1,{"b":2,"a":1}]}]}}`,
	`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"X","input":{"a":1},"input":{"a":2}}]}}`,
	`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"X","Input":{"a":1}}]}}`,
	`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"X","input":{"a":01}}]}}`,
	`{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"hmm","signature":"s"},{"type":"text","text":"ok"},{"type":"server_tool_use","id":"s","name":"web_search","input":{"query":"go"}},{"type":"web_search_tool_result","tool_use_id":"s","content":[{"type":"web_search_result","url":"u"}]}]}}`,
	`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"line\n\tnext \"q\"","is_error":true}]}}`,
	`{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}}`,
	`{"type":"user","message":{"role":"user","content":"typed","usage":{"input_tokens":3}}}`,
	`{"type":"system","subtype":"compact_boundary","uuid":"s1"}`,
	`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Deep","input":` + strings.Repeat(`[`, 509) + strings.Repeat(`]`, 509) + `}]}}`,
	`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Deep","input":` + strings.Repeat(`[`, 510) + strings.Repeat(`]`, 510) + `}]}}`,
	`{"type":"assistant","message":{"usage":{"input_tokens":1,"x":` + strings.Repeat(`[`, 510) + strings.Repeat(`]`, 510) + `},"content":[]}}`,
	`{"type":"assistant","message":{"usage":{"input_tokens":1,"x":` + strings.Repeat(`[`, 511) + strings.Repeat(`]`, 511) + `},"content":[]}}`,
}

// TestClaudeCodeOnePassMatchesGeneric holds the one-pass decoding of
// ccOnePassLines and of the Claude Code fixtures' lines to their generic
// decoding, and checks that it takes most of them (the point of it).
func TestClaudeCodeOnePassMatchesGeneric(t *testing.T) {
	lines := append([]string(nil), ccOnePassLines...)
	files, _ := filepath.Glob(filepath.Join("..", "fixtures", "ingest", "claude-code", "*.jsonl"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for line := range bytes.SplitSeq(data, []byte{'\n'}) {
			if len(bytes.TrimSpace(line)) > 0 {
				lines = append(lines, string(line))
			}
		}
	}
	taken := 0
	for _, line := range lines {
		if checkOnePass(t, []byte(line)) {
			taken++
		}
	}
	if len(files) == 0 || taken < len(lines)*2/3 {
		t.Fatalf("the one pass took %d of %d lines (%d fixture files)", taken, len(lines), len(files))
	}
	t.Logf("one pass took %d of %d lines", taken, len(lines))
}

// FuzzClaudeCodeOnePass: any line the one-pass decoding takes reads as
// its generic decoding reads it.
func FuzzClaudeCodeOnePass(f *testing.F) {
	for _, line := range ccOnePassLines {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkOnePass(t, line)
	})
}

// TestClaudeCodeArgsBufferBounded: a record keeps the buffer it wrote a
// call's input in for the next line only while the buffer is small, so a
// large input does not leave a large buffer in every record read ahead.
func TestClaudeCodeArgsBufferBounded(t *testing.T) {
	var rec ccRecord
	for _, size := range []int{10, 100 << 10, 10} {
		line := `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Write","input":{"content":"` +
			strings.Repeat("x", size) + `"}}]}}`
		ccDecodeRecord(nil, []byte(line), 1, &rec)
		if rec.err != nil || len(rec.read.blocks) != 1 || len(rec.read.blocks[0].argsRaw) != size+len(`{"content":""}`) {
			t.Fatalf("input of %d bytes: err %v, blocks %+v", size, rec.err, rec.read.blocks)
		}
		if c := cap(rec.read.argsBuf); c > maxKeptArgsBuf {
			t.Fatalf("after an input of %d bytes the record keeps a buffer of %d bytes", size, c)
		}
	}
}
