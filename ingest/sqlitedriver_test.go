package ingest

// The tests read agents' databases, as the command line does: with the
// driver it links (database.go).
import _ "modernc.org/sqlite"
