package testdiff

import "testing"

func TestFirstLine(t *testing.T) {
	for _, tc := range []struct{ want, got, out string }{
		{"a\nb\nc", "a\nB\nc", "line 2:\n  want: b\n  got:  B"},
		{"a\nb", "a\nb\nc", "line 3:\n  want: \n  got:  c"},
		{"a\nb\nc", "a", "line 2:\n  want: b\n  got:  "},
		{"a\n", "a\n", "(no line differs; whitespace at end?)"},
	} {
		if out := FirstLine(tc.want, tc.got); out != tc.out {
			t.Errorf("FirstLine(%q, %q) = %q, want %q", tc.want, tc.got, out, tc.out)
		}
	}
}
