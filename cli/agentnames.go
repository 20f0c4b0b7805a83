package cli

import (
	"os"
	"path/filepath"
	"strings"
)

// inGoBuildCache says whether the program path is one 'go run' built: in
// the build cache or a go-build work folder, which the go command deletes
// (at exit, or when the cache is trimmed), so an agent's settings must not
// name it.
func inGoBuildCache(prog string) bool {
	for _, part := range strings.Split(filepath.ToSlash(prog), "/") {
		// The default cache (~/.cache/go-build) and a work folder
		// (/tmp/go-build123456789).
		if rest, ok := strings.CutPrefix(part, "go-build"); ok && strings.Trim(rest, "0123456789") == "" {
			return true
		}
	}
	if cache := os.Getenv("GOCACHE"); cache != "" && cache != "off" {
		if rel, err := filepath.Rel(cache, prog); err == nil && !strings.HasPrefix(rel, "..") {
			return true
		}
	}
	return false
}
