package corpusgen

import (
	"os"
	"path/filepath"
)

// MemFile is one generated transcript held in memory.
type MemFile struct {
	FileInfo
	Data []byte
}

// GenerateInMemory writes about perFormat bytes of each generated format
// (seed 1, loops planted, no file over maxFile bytes) to a temporary
// directory, reads every file back and removes the directory. The Go
// benchmarks of ingest, analyze and jsonx use it so that they measure
// parsing and replay, not disk reads, on the same corpus as the
// command-line benchmark. Files come format by format, in Formats order.
func GenerateInMemory(perFormat, maxFile int64) ([]MemFile, error) {
	dir, err := os.MkdirTemp("", "loopgate-gen")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var files []MemFile
	for _, format := range Formats {
		out := filepath.Join(dir, format)
		m, err := Generate(out, Config{Seed: 1, TotalBytes: perFormat,
			Formats: []string{format}, MaxFileBytes: maxFile, Loops: true})
		if err != nil {
			return nil, err
		}
		for _, f := range m.Files {
			data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(f.Path)))
			if err != nil {
				return nil, err
			}
			files = append(files, MemFile{FileInfo: f, Data: data})
		}
	}
	return files, nil
}
