package ingest

import (
	"strings"
	"testing"
)

// TestContentTextParts: text parts are read as their text, and a part that
// is not text stands as its type with a digest of the part, so that results
// made of different images or search results are not read as the same.
func TestContentTextParts(t *testing.T) {
	shotA := `{"type":"image","source":{"media_type":"image/png","path":"images/step_2_computer_screenshot_2.png"}}`
	shotB := `{"type":"image","source":{"media_type":"image/png","path":"images/step_4_computer_screenshot_3.png"}}`
	dataA := `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgoAAA"}}`
	tests := []struct {
		name, content string
		want          string // exact, or "" to compare with same/differ only
		same, differ  string // another content that must read the same / differently
	}{
		{name: "string", content: `"ok"`, want: "ok"},
		{name: "text parts", content: `[{"type":"text","text":"a"},{"type":"text","text":"b"}]`, want: "a\nb"},
		{name: "bare type", content: `[{"type":"image"}]`, want: "[image]"},
		{name: "two screenshots by path", content: "[" + shotA + "]", differ: "[" + shotB + "]"},
		{name: "the same image twice", content: "[" + dataA + "]", same: "[" + dataA + "]", differ: "[" + shotA + "]"},
		{name: "text beside an image", content: `[{"type":"text","text":"a"},` + dataA + `]`, differ: `[{"type":"text","text":"a"},` + shotA + `]`},
		{name: "nested tool result", content: `[{"type":"tool_result","content":[` + shotA + `]}]`, same: "[" + shotA + "]", differ: "[" + shotB + "]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ContentText([]byte(tc.content))
			if tc.want != "" && got != tc.want {
				t.Errorf("ContentText = %q, want %q", got, tc.want)
			}
			if strings.Contains(tc.content, `"source"`) && !strings.HasPrefix(got[strings.LastIndex(got, "\n")+1:], "[image ") {
				t.Errorf("ContentText = %q, want an image placeholder with a digest", got)
			}
			if tc.same != "" {
				if other := ContentText([]byte(tc.same)); other != got {
					t.Errorf("%q and %q read differently: %q, %q", tc.content, tc.same, got, other)
				}
			}
			if tc.differ != "" {
				if other := ContentText([]byte(tc.differ)); other == got {
					t.Errorf("%q and %q read the same: %q", tc.content, tc.differ, got)
				}
			}
		})
	}
}
