package report

import (
	"bufio"
	"io"

	"github.com/loopgate/loopgate/analyze"
)

// JSONL writes a report as JSON lines while the replay runs: one line per
// session as soon as it is analyzed, then one summary line. A consumer can
// tell the lines apart by their keys: a session line has "id", the last line
// has "summary".
//
// Lines are buffered, 64 KiB at a time, until Flush or Finish: one write
// per session line was a tenth of the time of a replay of many short
// sessions. A caller that streams calls Flush when a file is done.
type JSONL struct {
	w       *bufio.Writer
	opt     Options
	scratch []byte // a line (appendSessionJSON)
	err     error  // the first write error, returned by every later call
}

// NewJSONL returns a streaming writer to w.
func NewJSONL(w io.Writer, opt Options) *JSONL {
	return &JSONL{w: bufio.NewWriterSize(w, 64<<10), opt: opt}
}

// Session writes one session's line.
func (j *JSONL) Session(s *analyze.SessionResult) error {
	if j.err != nil {
		return j.err
	}
	out := preparedSession(s, j.opt)
	if b, ok := appendSessionJSON(j.scratch[:0], &out, "", false); ok {
		j.scratch = append(b, '\n')
		_, j.err = j.w.Write(j.scratch)
	} else {
		j.err = writeJSON(j.w, &out, "")
	}
	return j.err
}

// Flush writes out the lines buffered so far.
func (j *JSONL) Flush() error {
	if j.err == nil {
		j.err = j.w.Flush()
	}
	return j.err
}

// jsonlSummary is the last line: everything of the report but the sessions.
type jsonlSummary struct {
	Summary  analyze.Summary    `json:"summary"`
	Rules    analyze.RulesInfo  `json:"rules"`
	Tokens   analyze.TokensInfo `json:"tokens"`
	Tools    []analyze.ToolStat `json:"tools"`
	Problems []analyze.Problem  `json:"problems"`
	Partial  *analyze.Partial   `json:"partial,omitempty"`
}

// Finish writes the summary line. rep.Sessions is not read (the sessions
// were written by Session), so a caller may have dropped them.
func (j *JSONL) Finish(rep *analyze.Report) error {
	if rep == nil {
		rep = &analyze.Report{}
	}
	if j.err == nil {
		j.err = writeJSON(j.w, &jsonlSummary{
			Summary:  rep.Summary,
			Rules:    preparedRules(rep.Rules, j.opt),
			Tokens:   rep.Tokens,
			Tools:    preparedTools(rep.Tools, j.opt),
			Problems: preparedProblems(rep.Problems, j.opt),
			Partial:  j.opt.Partial,
		}, "")
	}
	return j.Flush()
}
