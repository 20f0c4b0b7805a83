package formatcheck

import (
	"io/fs"
	"path/filepath"
	"sort"
)

// SampleFiles lists every file under root, hidden folders and files
// included (agents keep their sessions under ~/.claude, ~/.codex, and
// Aider writes .aider.chat.history.md), as paths relative to root with
// forward slashes, sorted. ORIGIN.md files describe where the samples came
// from: they are not transcripts and are left out.
func SampleFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || d.Name() == "ORIGIN.md" {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(out)
	return out, err
}
