package jsonx

// Benchmarks of the JSON layer (docs/performance.md) on realistic
// records: the lines (or whole documents) of a small corpus written by the
// seeded generator, per format. Run with
//
//	go test ./internal/jsonx -run '^$' -bench . -benchmem

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/loopgate/loopgate/internal/corpusgen"
)

// benchRecords is the records of one generated format and file kind: the
// lines of JSONL files, or the whole text of JSON documents.
type benchRecords struct {
	name    string // format id plus file extension
	records [][]byte
	texts   []string // records as strings, for the string-based readers
	bytes   int64
}

var (
	benchRecordsOnce sync.Once
	benchRecordSets  []*benchRecords
	benchRecordsErr  error
)

// loadBenchRecords generates (once per process) about 1 MiB per format and
// splits it into records.
func loadBenchRecords(b *testing.B) []*benchRecords {
	b.Helper()
	benchRecordsOnce.Do(func() {
		files, err := corpusgen.GenerateInMemory(1<<20, 256<<10)
		if err != nil {
			benchRecordsErr = err
			return
		}
		byName := map[string]*benchRecords{}
		for _, f := range files {
			ext := filepath.Ext(f.Path)
			set := byName[f.Format+ext]
			if set == nil {
				set = &benchRecords{name: f.Format + ext}
				byName[set.name] = set
				benchRecordSets = append(benchRecordSets, set)
			}
			if ext != ".jsonl" {
				set.records = append(set.records, f.Data)
				set.bytes += int64(len(f.Data))
				continue
			}
			for _, line := range bytes.Split(f.Data, []byte("\n")) {
				if line = bytes.TrimSpace(line); len(line) > 0 {
					set.records = append(set.records, line)
					set.bytes += int64(len(line))
				}
			}
		}
		for _, set := range benchRecordSets {
			for _, rec := range set.records {
				set.texts = append(set.texts, string(rec))
			}
		}
		sort.Slice(benchRecordSets, func(i, j int) bool { return benchRecordSets[i].name < benchRecordSets[j].name })
	})
	if benchRecordsErr != nil {
		b.Fatal(benchRecordsErr)
	}
	return benchRecordSets
}

// benchEach runs one sub-benchmark per record set, calling fn on every
// record of the set per op; fn returns false on a record it should accept.
func benchEach(b *testing.B, fn func(rec []byte) bool) {
	for _, set := range loadBenchRecords(b) {
		b.Run(set.name, func(b *testing.B) {
			b.SetBytes(set.bytes)
			b.ReportAllocs()
			for b.Loop() {
				for _, rec := range set.records {
					if !fn(rec) {
						b.Fatalf("a generated %s record was rejected: %.200s", set.name, rec)
					}
				}
			}
		})
	}
}

// BenchmarkValid checks syntax without building values (detection and
// ingest call it on every line).
func BenchmarkValid(b *testing.B) {
	benchEach(b, Valid)
}

// BenchmarkParse builds the order-preserving value tree.
func BenchmarkParse(b *testing.B) {
	benchEach(b, func(rec []byte) bool {
		_, err := Parse(rec)
		return err == nil
	})
}

// BenchmarkTopLevelFields reads a few top-level members without building
// values, with keys the ingesters ask for.
func BenchmarkTopLevelFields(b *testing.B) {
	for _, set := range loadBenchRecords(b) {
		b.Run(set.name, func(b *testing.B) {
			b.SetBytes(set.bytes)
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range set.texts {
					_ = TopLevelFields(s, "role", "content", "tool_calls", "type", "id")
				}
			}
		})
	}
}

// BenchmarkTopLevel finds one top-level member.
func BenchmarkTopLevel(b *testing.B) {
	benchEach(b, func(rec []byte) bool {
		_, _ = TopLevel(rec, "role")
		return true
	})
}

// BenchmarkUnmarshal decodes into a narrow struct, as the ingesters'
// struct decoder does.
func BenchmarkUnmarshal(b *testing.B) { benchUnmarshal(b, Unmarshal) }

// BenchmarkUnmarshalStd decodes the same with encoding/json in
// goccy/go-json's place: docs/performance.md weighs whether the binary
// needs goccy/go-json beside encoding/json.
func BenchmarkUnmarshalStd(b *testing.B) { benchUnmarshal(b, json.Unmarshal) }

func benchUnmarshal(b *testing.B, unmarshal func([]byte, any) error) {
	type message struct {
		Role      string     `json:"role"`
		Content   RawMessage `json:"content"`
		ToolCalls RawMessage `json:"tool_calls"`
		Type      RawMessage `json:"type"`
		ID        RawMessage `json:"id"`
	}
	benchEach(b, func(rec []byte) bool {
		if rec[0] != '{' {
			var v []RawMessage
			return unmarshal(rec, &v) == nil
		}
		var m message
		return unmarshal(rec, &m) == nil
	})
}

// benchValues parses every record of every set once, for the encoding
// benchmarks.
func benchValues(b *testing.B) map[string][]Value {
	b.Helper()
	out := map[string][]Value{}
	for _, set := range loadBenchRecords(b) {
		for _, rec := range set.records {
			v, err := Parse(rec)
			if err != nil {
				b.Fatalf("%s: %v", set.name, err)
			}
			out[set.name] = append(out[set.name], v)
		}
	}
	return out
}

// BenchmarkAppend encodes parsed records in each style into one reused
// buffer (the guards' keys and signatures encode arguments this way).
func BenchmarkAppend(b *testing.B) {
	values := benchValues(b)
	for _, style := range []struct {
		name  string
		style Style
	}{{"Compact", Compact}, {"Sorted", Sorted}} {
		for _, set := range loadBenchRecords(b) {
			b.Run(style.name+"/"+set.name, func(b *testing.B) {
				b.SetBytes(set.bytes)
				b.ReportAllocs()
				var buf []byte
				for b.Loop() {
					for _, v := range values[set.name] {
						buf = v.Append(buf[:0], style.style)
					}
				}
			})
		}
	}
}

// BenchmarkParseString is Parse for records held as strings.
func BenchmarkParseString(b *testing.B) { benchParseTexts(b, ParseString) }

// BenchmarkParseStringShared is ParseString whose strings may share the
// input's memory.
func BenchmarkParseStringShared(b *testing.B) { benchParseTexts(b, ParseStringShared) }

// benchParseTexts runs parse over every record held as a string.
func benchParseTexts(b *testing.B, parse func(string) (Value, error)) {
	for _, set := range loadBenchRecords(b) {
		b.Run(set.name, func(b *testing.B) {
			b.SetBytes(set.bytes)
			b.ReportAllocs()
			for b.Loop() {
				for _, s := range set.texts {
					if _, err := parse(s); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkStr is the string decoding every reader ends in (parser.str,
// behind Parse, DecodeString and DecodeObject), over every string of the
// records.
func BenchmarkStr(b *testing.B) {
	for _, set := range loadBenchRecords(b) {
		var strs [][]byte // each a JSON string, quotes included
		var n int64
		for _, rec := range set.records {
			for i := 0; i < len(rec); i++ {
				if rec[i] != '"' {
					continue
				}
				end, _, err := scanString(rec, i+1)
				if err != nil {
					break
				}
				strs = append(strs, rec[i:end+1])
				n += int64(end + 1 - i)
				i = end
			}
		}
		b.Run(set.name, func(b *testing.B) {
			b.SetBytes(n)
			b.ReportAllocs()
			p := parserPool.Get().(*parser)
			defer p.release()
			for b.Loop() {
				for _, s := range strs {
					p.data, p.pos = s, 0
					if _, err := p.str(); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
