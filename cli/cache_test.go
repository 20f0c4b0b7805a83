package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopgate/loopgate/internal/filecache"
)

// The package's tests replay with the cache on, as users do, in a folder
// of the temporary directory rather than the cache folder of whoever runs
// them (the cache bounds it).
func init() {
	if os.Getenv(filecache.EnvDir) == "" {
		os.Setenv(filecache.EnvDir, filepath.Join(os.TempDir(), "loopgate-cli-test-cache"))
	}
}

// TestCacheFlags: --cache-size is checked, --cache-dir is where entries
// go, and --no-cache writes none.
func TestCacheFlags(t *testing.T) {
	file := filepath.Join("..", "fixtures", "demo", "nanobot-telegram_42.jsonl")
	if _, err := os.Stat(file); err != nil {
		t.Skipf("fixture %s: %v", file, err)
	}
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		stderr  string
		entries bool
	}{
		{"bad size", []string{"--cache-size", "lots"}, ExitUsage, "--cache-size", false},
		{"no cache", []string{"--no-cache"}, ExitOK, "", false},
		{"cache", nil, ExitOK, "", true},
		{"small bound", []string{"--cache-size", "1"}, ExitOK, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"replay", "--format", "json", "--tokenizer", "chars4", "--cache-dir", dir, file}, tc.args...)
			_, stderr, code := loopgate(t, args...)
			if code != tc.code || !strings.Contains(stderr, tc.stderr) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr, tc.code, tc.stderr)
			}
			c, err := filecache.Open(dir, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Size() > 0; got != tc.entries {
				t.Errorf("entries in --cache-dir: %v, want %v", got, tc.entries)
			}
		})
	}
}
