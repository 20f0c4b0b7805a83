package ingest

// What a cache of per-file results (analyze's Options.Cache) must know of
// the readers: which files are read from more than their own bytes.

// IsDatabase reports whether a file that begins with head is read as a
// database (ReadFile): what it holds depends on its -wal file as well.
func IsDatabase(head []byte) bool { return isSQLite(head) }

// ReadsBeside reports whether the format of id reads files beside the one
// it was given: OpenCode's storage reads a session's message and part
// files from the folders next to its session file, and a database format
// reads its -wal file.
func ReadsBeside(id string) bool {
	if id == formatOpenCodeStorage {
		return true
	}
	f := LookupFormat(id)
	return f != nil && f.ParseFile != nil
}
