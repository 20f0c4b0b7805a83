package report

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/internal/jsonx"
)

// ReadPartial reads back a shard's report for 'loopgate merge': replay's
// JSON lines (session lines, then the summary line with its "partial"
// member) or JSON document (with a "partial" member), or compare's or
// sweep's JSON document. Exactly one of the results is set. name is used
// in messages.
func ReadPartial(name string, r io.Reader) (*analyze.ReplayPart, *analyze.TuningPart, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	first, err := br.Peek(2)
	if err != nil && len(first) == 0 {
		return nil, nil, fmt.Errorf("%s: empty: not a report", name)
	}
	if bytes.Equal(first, []byte("{\n")) {
		data, err := io.ReadAll(br)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %v", name, err)
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
	rp, err := readReplayPart(name, br)
	return rp, nil, err
}

func readReplayPart(name string, br *bufio.Reader) (*analyze.ReplayPart, error) {
	part := &analyze.ReplayPart{Name: name}
	var line []byte
	for n := 1; ; n++ {
		chunk, err := br.ReadSlice('\n')
		line = append(line[:0], chunk...)
		for errors.Is(err, bufio.ErrBufferFull) {
			chunk, err = br.ReadSlice('\n')
			line = append(line, chunk...)
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
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
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
