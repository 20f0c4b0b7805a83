package resultmembers

import "testing"

// TestIndexes: each index constant names its member in Keys.
func TestIndexes(t *testing.T) {
	for _, c := range []struct {
		i    int
		want string
	}{{Warning, "_warning"}, {Error, "error"}, {Success, "success"}, {ExitCode, "exit_code"}} {
		if Keys[c.i] != c.want {
			t.Errorf("Keys[%d] = %q, want %q", c.i, Keys[c.i], c.want)
		}
	}
}
