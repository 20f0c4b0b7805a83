package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/jsonx"
)

// ReadPartialMax reads back a shard's report for 'loopgate merge': replay's
// JSON lines (session lines, then the summary line with its "partial"
// member) or JSON document (with a "partial" member), or compare's or
// sweep's JSON document. Exactly one of the results is set. name is used
// in messages. It holds at most maxRecord bytes of a line (or of a compare
// or sweep document, --max-record): a longer one is an error naming its
// line, read past without being kept.
func ReadPartialMax(name string, r io.Reader, maxRecord int64) (*analyze.ReplayPart, *analyze.TuningPart, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	first, err := br.Peek(2)
	if err != nil && len(first) == 0 {
		return nil, nil, fmt.Errorf("%s: empty: not a report", name)
	}
	if bytes.Equal(first, []byte("{\n")) {
		data, err := io.ReadAll(io.LimitReader(br, maxRecord+1))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", name, err)
		}
		if int64(len(data)) > maxRecord {
			return nil, nil, fmt.Errorf("%s:1: the report is over the --max-record limit of %s: not read", name, ingest.FormatSize(maxRecord))
		}
		var probe struct {
			Summary  jsonx.RawMessage `json:"summary"`
			Sessions jsonx.RawMessage `json:"sessions"`
		}
		if jsonx.Unmarshal(data, &probe) == nil && probe.Summary != nil && probe.Sessions != nil {
			rp, err := readReplayDoc(name, data)
			return rp, nil, err
		}
		t, err := readTuningPart(name, data)
		return nil, t, err
	}
	rp, err := readReplayPart(name, br, maxRecord)
	return rp, nil, err
}

func readReplayPart(name string, br *bufio.Reader, maxRecord int64) (*analyze.ReplayPart, error) {
	part := &analyze.ReplayPart{Name: name}
	// The line reader holds at most maxRecord bytes of a line, in blocks
	// (ingest.LineReader): a longer line is an error, read past.
	lr := ingest.NewLineReader(br)
	var over error
	lr.SetMax(int(min(maxRecord, 1<<40)), func(n int, size int64) {
		over = fmt.Errorf("%s:%d: line of %s, over the --max-record limit of %s: not a line of a replay report (raise --max-record if it is one)", name, n, ingest.FormatSize(size), ingest.FormatSize(maxRecord))
	})
	for {
		line, n, ok := lr.Next()
		if over != nil {
			return nil, over
		}
		if !ok {
			break
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if part.Report != nil {
				return nil, fmt.Errorf("%s:%d: a line after the summary line: not one replay report", name, n)
			}
			var probe struct {
				Summary *analyze.Summary `json:"summary"`
			}
			if e := jsonx.Unmarshal(line, &probe); e != nil {
				return nil, fmt.Errorf("%s:%d: not a JSON line of a replay report (%v)", name, n, e)
			}
			if probe.Summary != nil {
				var sum jsonlSummary
				if e := jsonx.Unmarshal(line, &sum); e != nil {
					return nil, fmt.Errorf("%s:%d: summary line: %v", name, n, e)
				}
				if sum.Partial == nil {
					return nil, fmt.Errorf("%s:%d: the summary line has no \"partial\" member: make partial reports with --shard K/N", name, n)
				}
				part.Partial = *sum.Partial
				part.Report = &analyze.Report{Summary: sum.Summary, Rules: sum.Rules, Tokens: sum.Tokens, Tools: sum.Tools, Problems: sum.Problems}
			} else {
				var s analyze.SessionResult
				if e := jsonx.Unmarshal(line, &s); e != nil {
					return nil, fmt.Errorf("%s:%d: session line: %v", name, n, e)
				}
				part.Sessions = append(part.Sessions, s)
			}
		}
	}
	if err := lr.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if part.Report == nil {
		return nil, fmt.Errorf("%s: no summary line: the report was cut short, or is not a replay report in --format jsonl", name)
	}
	return part, nil
}

// readReplayDoc reads replay's JSON document: the report of --format json,
// whose "partial" member a sharded run wrote.
func readReplayDoc(name string, data []byte) (*analyze.ReplayPart, error) {
	var doc struct {
		jsonlSummary
		Sessions []analyze.SessionResult `json:"sessions"`
	}
	if err := jsonx.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: not a replay report in --format json (%v)", name, err)
	}
	if doc.Partial == nil {
		return nil, fmt.Errorf("%s: no \"partial\" member: make partial reports with --shard K/N", name)
	}
	return &analyze.ReplayPart{Name: name, Partial: *doc.Partial, Sessions: doc.Sessions,
		Report: &analyze.Report{Summary: doc.Summary, Rules: doc.Rules, Tokens: doc.Tokens, Tools: doc.Tools, Problems: doc.Problems}}, nil
}

func readTuningPart(name string, data []byte) (*analyze.TuningPart, error) {
	var doc struct {
		Base     *string             `json:"base"`
		Corpus   analyze.CorpusFacts `json:"corpus"`
		Rows     jsonx.RawMessage    `json:"rows"`
		Problems []analyze.Problem   `json:"problems"`
		Partial  *analyze.Partial    `json:"partial"`
	}
	if err := jsonx.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: not a compare or sweep report in --format json (%v)", name, err)
	}
	if doc.Partial == nil {
		return nil, fmt.Errorf("%s: no \"partial\" member: make partial reports with --shard K/N", name)
	}
	t := &analyze.TuningPart{Name: name, Partial: *doc.Partial, Corpus: doc.Corpus, Problems: doc.Problems}
	var err error
	if doc.Base != nil {
		t.Base = *doc.Base
		t.Sweep = []analyze.SweepRow{}
		err = jsonx.Unmarshal(doc.Rows, &t.Sweep)
	} else {
		t.Compare = []analyze.CompareRow{}
		err = jsonx.Unmarshal(doc.Rows, &t.Compare)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: rows: %v", name, err)
	}
	return t, nil
}
