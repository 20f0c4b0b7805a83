package report

import (
	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/analyze/gate"
	"github.com/loopgate/loopgate/internal/redact"
)

// Redact removes secrets from a text shown in a report (internal/redact,
// shared with the live hook's decision log).
func Redact(s string) string { return redact.Redact(s) }

// The names a rules file or a gate file gives (a rules name, a gate
// case's name) are text a user typed, where a secret may have been pasted
// as well as in a transcript: they are redacted as it is.

// preparedRules returns the rules' name and source redacted when
// opt.Redact.
func preparedRules(r analyze.RulesInfo, opt Options) analyze.RulesInfo {
	if opt.Redact {
		r.Name, r.Source = Redact(r.Name), Redact(r.Source)
	}
	return r
}

// preparedCompareRows returns a copy of compare rows with their rules'
// names and sources redacted when opt.Redact.
func preparedCompareRows(rows []analyze.CompareRow, opt Options) []analyze.CompareRow {
	if !opt.Redact {
		return rows
	}
	out := append([]analyze.CompareRow(nil), rows...)
	for i := range out {
		out[i].Name, out[i].Source = Redact(out[i].Name), Redact(out[i].Source)
	}
	return out
}

// preparedGate returns a copy of a gate's result whose case names and
// rules names are redacted when opt.Redact; res itself is not touched.
func preparedGate(res *gate.Result, opt Options) *gate.Result {
	if !opt.Redact {
		return res
	}
	out := *res
	out.Cases = append([]gate.CaseResult(nil), res.Cases...)
	for i := range out.Cases {
		cr := &out.Cases[i]
		if cr.Case != nil {
			c := *cr.Case
			c.Name = Redact(c.Name)
			cr.Case = &c
		}
		if cr.Report != nil {
			rep := *cr.Report
			rep.Rules = preparedRules(rep.Rules, opt)
			cr.Report = &rep
		}
	}
	return &out
}
