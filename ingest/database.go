package ingest

// Formats kept in an SQLite database (hermes' state.db, OpenCode's
// opencode.db) are not a stream of records: they are read whole, by path,
// through a pure-Go SQLite driver (modernc.org/sqlite, no cgo). ReadFile
// recognizes a database by the SQLite header and hands it to a format with
// a ParseFile reader; the streaming path (Read) never sees one, and says so
// when it is given one (standard input, a gzip file).
//
// A database is opened read-only and immutable (`mode=ro&immutable=1`): no
// lock is taken and nothing is written, so a running agent's database is
// never blocked or changed. An immutable open does not read a write-ahead
// log, and agents leave theirs un-checkpointed: OpenCode 1.18.33 keeps a
// whole new store in `opencode.db-wal` beside a `opencode.db` of no table
// (the agent lab). So when `<db>-wal` holds anything, the database and its
// log are copied into a private temporary folder and the copy is opened
// there, where SQLite reads the log (and may change the copy: the agent's
// files are only read).
//
// The driver is the program's to link, as database/sql has it: loopgate's
// command line links modernc.org/sqlite (package cli), and so does any
// program that reads agents' databases through ingest. ingest does not, so
// that a program that uses its readings of results but reads no database
// (the live hook's own binary, cmd/loopgate-hook) starts without the
// driver's initialization, a third of its start (docs/performance.md).

import (
	"bytes"
	"cmp"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// sqliteMagic is the first 16 bytes of every SQLite 3 database file.
var sqliteMagic = []byte("SQLite format 3\x00")

// isSQLite reports whether head (a file's first bytes) is an SQLite header.
func isSQLite(head []byte) bool { return bytes.HasPrefix(head, sqliteMagic) }

// databaseNames are the file names of the databases a directory walk reads
// (walk.go): any other .db file found in a walk is somebody else's. Kilo
// CLI, a fork of OpenCode, keeps OpenCode's database as kilo.db
// (~/.local/share/kilo/kilo.db: Database.Path = join(Global.Path.data,
// "kilo.db"), packages/opencode/src/storage/db.ts, Kilo-Org/kilocode at
// f10b24fc); its tables are OpenCode's, so the opencode reader reads it.
var databaseNames = []string{"state.db", "opencode.db", "kilo.db"}

// isDatabaseName reports whether a walked file is a known agent database.
func isDatabaseName(name string) bool {
	for _, n := range databaseNames {
		if name == n {
			return true
		}
	}
	return false
}

// sqliteURI is the read-only, immutable URI of the database at path.
func sqliteURI(path string) string { return fileURI(path) + "?mode=ro&immutable=1" }

// fileURI is the file: URI of path, with the characters a URI gives a
// meaning to escaped.
func fileURI(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return "file:" + r.Replace(filepath.ToSlash(abs))
}

// openDatabase opens path read-only and immutable.
func openDatabase(path string) (*sql.DB, error) { return openURI(sqliteURI(path)) }

// openCopy opens a private copy of a database (copyWithLog), where SQLite
// may read and replay the write-ahead log.
func openCopy(path string) (*sql.DB, error) { return openURI(fileURI(path)) }

func openURI(uri string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", uri)
	if err != nil {
		return nil, fmt.Errorf("this program links no SQLite driver (%v)", err)
	}
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// copyWithLog copies the database at path and its write-ahead log into a
// new private folder and returns the folder and the copy's path. The log
// is copied after the database: a checkpoint meanwhile moves rows from
// the log into the database, which the copy then has twice at worst, in
// the database and in its log, where SQLite reads the log's.
func copyWithLog(path string) (dir, copied string, err error) {
	dir, err = os.MkdirTemp("", "loopgate-db-")
	if err != nil {
		return "", "", err
	}
	copied = filepath.Join(dir, filepath.Base(path))
	for _, suffix := range []string{"", "-wal"} {
		if err := copyFile(path+suffix, copied+suffix); err != nil {
			os.RemoveAll(dir)
			return "", "", err
		}
	}
	return dir, copied, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// dbTables lists the tables of db and the columns of each.
func dbTables(db *sql.DB) (map[string]map[string]bool, error) {
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		return nil, err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	tables := map[string]map[string]bool{}
	for _, n := range names {
		cols := map[string]bool{}
		// pragma_table_info takes the name as a value: no quoting games.
		crows, err := db.Query(`SELECT name FROM pragma_table_info(?)`, n)
		if err != nil {
			return nil, err
		}
		for crows.Next() {
			var c string
			if err := crows.Scan(&c); err == nil {
				cols[c] = true
			}
		}
		crows.Close()
		tables[n] = cols
	}
	return tables, nil
}

// Database is what a database format's reader is given: the open database
// and its schema.
type Database struct {
	DB *sql.DB
	// Tables maps each table to its columns.
	Tables map[string]map[string]bool
	// MaxRecord bounds a cell read (--max-record): see Capped.
	MaxRecord int64
	// missing is what the latest Has that answered false did not find,
	// for the message of a format forced on another schema.
	missing string
}

// Has reports whether the database has the table with all the columns.
func (d *Database) Has(table string, cols ...string) bool {
	t, ok := d.Tables[table]
	if !ok {
		d.missing = "has no table " + table
		return false
	}
	for _, c := range cols {
		if !t[c] {
			d.missing = "table " + table + " has no column " + c
			return false
		}
	}
	return true
}

// Capped selects a column of table as two: its value, or NULL when the
// value is larger than MaxRecord, and the value's size in bytes. SQLite
// answers octet_length from the record without reading the value, so a
// cell of gigabytes costs nothing when it is skipped; the reader names it
// (CappedProblem) as a JSONL line over the limit is named.
func (d *Database) Capped(table, name string) string {
	if !d.Tables[table][name] {
		return `NULL AS "` + name + `", 0`
	}
	q := `"` + name + `"`
	return "CASE WHEN octet_length(" + q + ") > " + strconv.FormatInt(d.MaxRecord, 10) + " THEN NULL ELSE " + q + " END, octet_length(" + q + ")"
}

// CappedProblem reports a cell Capped left out (size over MaxRecord) as a
// problem of where (the table and row) and says whether it was.
func (d *Database) CappedProblem(out *Sink, where, name string, size sql.NullInt64) bool {
	if !size.Valid || size.Int64 <= d.MaxRecord {
		return false
	}
	out.Problemf(0, "%s%s is %s, over the --max-record limit of %s: it is skipped", where, name, FormatSize(size.Int64), FormatSize(d.MaxRecord))
	return true
}

// column returns name when the table has that column, else the SQL
// expression NULL AS name: readers select the columns of every schema
// version with one query.
func (d *Database) column(table, name string) string {
	if d.Tables[table][name] {
		return `"` + name + `"`
	}
	return `NULL AS "` + name + `"`
}

// tableNames lists the tables, sorted, for messages.
func (d *Database) tableNames() string {
	names := sortedNames(d.Tables)
	if len(names) == 0 {
		return "no tables"
	}
	return "tables " + strings.Join(names, ", ")
}

// readDatabase reads an SQLite file by path: opens it, offers its schema to
// the formats that read databases (or to the forced one), and lets the
// chosen format read it. Problems name the file (line 0: a database has no
// lines; each reader names the table and row instead).
func readDatabase(path string, opt Options, out *Sink) {
	out.File = path
	defer func() {
		if p := recover(); p != nil {
			out.Problemf(0, "internal error while reading this database (please report it): %v", p)
		}
	}()
	// An immutable open promises SQLite that nobody writes the file: one
	// written meanwhile reads as garbage ("database disk image is
	// malformed"). Its size and time before and after tell.
	before := fileStamp(path)
	defer func() {
		if after := fileStamp(path); after != before {
			out.Problemf(0, "the database changed while it was read: read a copy or try again (what is read above may be wrong)")
		}
	}()
	open := path
	if wal, err := os.Stat(path + "-wal"); err == nil && wal.Size() > 0 {
		dir, copied, err := copyWithLog(path)
		if err != nil {
			out.Problemf(0, "%s-wal holds %d bytes not yet checkpointed into the database, and the database could not be copied to read them (%v): those rows are not read", filepath.Base(path), wal.Size(), err)
		} else {
			defer os.RemoveAll(dir)
			open = copied
		}
	}
	var db *sql.DB
	var err error
	if open == path {
		db, err = openDatabase(path)
	} else {
		db, err = openCopy(open)
	}
	if err != nil {
		out.Problemf(0, "cannot open SQLite database: %v", err)
		return
	}
	defer db.Close()
	tables, err := dbTables(db)
	if err != nil {
		out.Problemf(0, "cannot read the schema of SQLite database: %v", err)
		return
	}
	if testDatabaseRead != nil {
		testDatabaseRead(path)
	}
	h := &Head{Path: path, Name: filepath.Base(path), Database: &Database{DB: db, Tables: tables, MaxRecord: int64(opt.maxRecord())}}
	var f *Format
	if opt.Format != "" {
		if f = forcedFormat(opt.Format, out); f == nil {
			return
		}
		if f.ParseFile == nil {
			out.Problemf(0, "format %s cannot read this file (it is an SQLite database; %s reads JSON records)", f.ID, f.ID)
			return
		}
		if f.Sniff != nil && !f.Sniff(h) {
			out.Problemf(0, "format %s cannot read this database: %s (%s)", f.ID, cmp.Or(h.Database.missing, "its schema is not the one this format reads"), h.Database.tableNames())
			return
		}
	} else {
		for _, c := range formats {
			if c.ParseFile != nil && c.Sniff != nil && c.Sniff(h) {
				f = c
				break
			}
		}
	}
	if f == nil {
		out.Problemf(0, "SQLite database of no known format (%s); name one with --input-format", h.Database.tableNames())
		return
	}
	// The sessions are chosen as a stream's are (dispatch).
	out, done := keepSink(out, opt)
	defer done()
	out.KeepText = opt.KeepText && f.Text
	read := out.Sessions() + out.Problems()
	f.ParseFile(h, out)
	if out.Sessions()+out.Problems() == read {
		out.Problemf(0, "no sessions in this %s database", f.ID)
	}
}

// dbProblemf reports a problem of one row: the table and the row are named,
// as a database has no lines.
func dbProblemf(out *Sink, table string, row any, format string, a ...any) {
	out.Problemf(0, "table %s, row %v: %s", table, row, fmt.Sprintf(format, a...))
}

// testDatabaseRead, when a test sets it, runs between reading a
// database's schema and its rows (a writer changing the file then).
var testDatabaseRead func(path string)

// fileStamp is a file's size and modification time ("" when it cannot be
// read).
func fileStamp(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return strconv.FormatInt(st.Size(), 10) + "@" + st.ModTime().Format(time.RFC3339Nano)
}
