package ingest

import (
	"encoding/json"
	"time"
)

// Dump is a plain, deterministic view of what was read from one file: the
// form the golden tests compare and `inspect --format json --calls --full`
// could print.
type Dump struct {
	Sessions []DumpSession `json:"sessions"`
	Problems []Problem     `json:"problems"`
}

// DumpSession mirrors Session.
type DumpSession struct {
	Format string     `json:"format"`
	ID     string     `json:"id"`
	Agent  string     `json:"agent"`
	Parent string     `json:"parent,omitempty"`
	Model  string     `json:"model,omitempty"`
	Line   int        `json:"line"`
	Notes  []string   `json:"notes,omitempty"`
	Turns  []DumpTurn `json:"turns"`
}

// DumpTurn mirrors Turn.
type DumpTurn struct {
	Index     int           `json:"index"`
	Line      int           `json:"line"`
	Time      string        `json:"time,omitempty"`
	UserChars int           `json:"user_chars"`
	Compacted bool          `json:"compacted_before,omitempty"`
	Requests  []DumpRequest `json:"requests"`
}

// DumpRequest mirrors Request.
type DumpRequest struct {
	Line      int        `json:"line"`
	TextChars int        `json:"text_chars"`
	Usage     *Usage     `json:"usage,omitempty"`
	Calls     []DumpCall `json:"calls"`
}

// DumpCall mirrors Call.
type DumpCall struct {
	ID         string `json:"id"`
	Tool       string `json:"tool"`
	Args       string `json:"args"`
	ArgsOK     bool   `json:"args_ok"`
	Result     string `json:"result"`
	HasResult  bool   `json:"has_result"`
	IsError    bool   `json:"is_error,omitempty"`
	Time       string `json:"time,omitempty"`
	Line       int    `json:"line"`
	ResultLine int    `json:"result_line"`
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// DumpOf converts sessions and problems into a Dump.
func DumpOf(sessions []*Session, problems []Problem) Dump {
	d := Dump{Sessions: []DumpSession{}, Problems: problems}
	if d.Problems == nil {
		d.Problems = []Problem{}
	}
	for _, s := range sessions {
		ds := DumpSession{Format: s.Format, ID: s.ID, Agent: s.Agent, Parent: s.Parent, Model: s.Model, Line: s.Line, Notes: s.Notes, Turns: []DumpTurn{}}
		for _, t := range s.Turns {
			dt := DumpTurn{Index: t.Index, Line: t.Line, Time: fmtTime(t.Time), UserChars: t.UserChars, Compacted: t.CompactedBefore, Requests: []DumpRequest{}}
			for _, r := range t.Requests {
				dr := DumpRequest{Line: r.Line, TextChars: r.TextChars, Usage: r.Usage, Calls: []DumpCall{}}
				for _, c := range r.Calls {
					dr.Calls = append(dr.Calls, DumpCall{ID: c.ID, Tool: c.Tool, Args: c.ArgsRaw, ArgsOK: c.ArgsOK, Result: c.Result, HasResult: c.HasResult, IsError: c.IsError, Time: fmtTime(c.Time), Line: c.Line, ResultLine: c.ResultLine})
				}
				dt.Requests = append(dt.Requests, dr)
			}
			ds.Turns = append(ds.Turns, dt)
		}
		d.Sessions = append(d.Sessions, ds)
	}
	return d
}

// MarshalIndent renders the dump for golden files.
func (d Dump) MarshalIndent() []byte {
	b, _ := json.MarshalIndent(d, "", "  ")
	return append(b, '\n')
}
