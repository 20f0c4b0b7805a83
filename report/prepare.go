package report

// What every renderer starts from: a copy of the report with secrets
// redacted and arguments abbreviated.

import "github.com/loopgate/loopgate/analyze"

// prepared returns a copy of rep that renderers may show: secrets redacted
// when opt.Redact, and every list non-nil (the JSON contract says [] not
// null). The caller's report is not touched. The copy holds every session
// in Sessions, those a replay spilled to disk included (the table and
// markdown formats, made for people, hold their rows); its fields are
// copied one by one, so that it shares no spill with rep.
func prepared(rep *analyze.Report, opt Options) (*analyze.Report, error) {
	out := &analyze.Report{Summary: rep.Summary, Rules: preparedRules(rep.Rules, opt), Tokens: rep.Tokens}
	out.Sessions = make([]analyze.SessionResult, 0, rep.SessionCount())
	err := rep.EachSession(func(s *analyze.SessionResult) error {
		out.Sessions = append(out.Sessions, preparedSession(s, opt))
		return nil
	})
	out.Tools = preparedTools(rep.Tools, opt)
	out.Problems = preparedProblems(rep.Problems, opt)
	return out, err
}

func preparedSession(s *analyze.SessionResult, opt Options) analyze.SessionResult {
	out := *s
	if opt.Redact {
		// Names and ids come from the transcript too and may hold
		// anything; a file name may hold a secret too.
		out.ID, out.Agent, out.Parent, out.File = Redact(out.ID), Redact(out.Agent), Redact(out.Parent), Redact(out.File)
		out.Selector = Redact(out.Selector)
		// A note may quote the model's text (a text detector's message).
		if len(s.Notes) > 0 {
			out.Notes = make([]string, len(s.Notes))
			for i, n := range s.Notes {
				out.Notes[i] = Redact(n)
			}
		}
	}
	out.Decisions = make([]analyze.Decision, len(s.Decisions))
	copy(out.Decisions, s.Decisions)
	for i := range out.Decisions {
		d := &out.Decisions[i]
		if opt.Redact {
			d.Args = Redact(d.Args)
			d.Message = Redact(d.Message)
			d.CallID = Redact(d.CallID) // an id from the transcript may hold anything
			d.Tool = Redact(d.Tool)
		}
		// Abbreviate after redacting, so that a cut can never leave part
		// of a secret behind in a form the patterns no longer recognize.
		d.Args = AbbreviateArgs(d.Args, DecisionArgsChars)
	}
	return out
}

// DecisionArgsChars is how much of a decision's arguments the machine
// formats (json, jsonl) keep; tables and markdown cut shorter.
const DecisionArgsChars = 240

// preparedTools copies the per-tool table with tool names redacted.
func preparedTools(ts []analyze.ToolStat, opt Options) []analyze.ToolStat {
	out := append([]analyze.ToolStat{}, ts...)
	if opt.Redact {
		for i := range out {
			out[i].Tool = Redact(out[i].Tool)
		}
	}
	return out
}

func preparedProblems(ps []analyze.Problem, opt Options) []analyze.Problem {
	out := make([]analyze.Problem, len(ps))
	copy(out, ps)
	if opt.Redact {
		for i := range out {
			out[i].Message, out[i].File = Redact(out[i].Message), Redact(out[i].File)
		}
	}
	return out
}
