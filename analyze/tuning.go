package analyze

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/loopgate/loopgate/rules"
)

// Tuning: compare replays a corpus under several rules files, sweep under
// the cross product of --vary ranges over one rules file. Both read the
// files once (ReplayAll) and report one row per configuration.

// Vary is one `--vary KEY=RANGE` of a sweep: a rules key and the values it
// takes.
type Vary struct {
	Key    string
	Values []string
}

// maxSweepValues bounds one range, so that a typo such as 1..100000 fails
// fast instead of running for hours.
const maxSweepValues = 1000

// ParseVary reads KEY=RANGE. RANGE is a comma list (`2,3,5`, `30s,2m`,
// `true,false`) or an integer range `a..b` (step 1) or `a..b/step`.
func ParseVary(spec string) (Vary, error) {
	key, rng, ok := strings.Cut(spec, "=")
	key, rng = strings.TrimSpace(key), strings.TrimSpace(rng)
	if !ok || key == "" || rng == "" {
		return Vary{}, fmt.Errorf("--vary %q: write KEY=RANGE, e.g. tools.class:read.block_at=2..6 or detectors.repeat.block_at=3,4,5", spec)
	}
	v := Vary{Key: key}
	if lo, hi, ok := strings.Cut(rng, ".."); ok {
		step := 1
		if h, s, ok := strings.Cut(hi, "/"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n <= 0 {
				return Vary{}, fmt.Errorf("--vary %q: the step after / must be a positive whole number", spec)
			}
			hi, step = h, n
		}
		a, err1 := strconv.Atoi(strings.TrimSpace(lo))
		b, err2 := strconv.Atoi(strings.TrimSpace(hi))
		if err1 != nil || err2 != nil {
			return Vary{}, fmt.Errorf("--vary %q: a range a..b needs whole numbers", spec)
		}
		if b < a {
			return Vary{}, fmt.Errorf("--vary %q: the range ends before it starts", spec)
		}
		if (b-a)/step+1 > maxSweepValues {
			return Vary{}, fmt.Errorf("--vary %q: more than %d values", spec, maxSweepValues)
		}
		for x := a; x <= b; x += step {
			v.Values = append(v.Values, strconv.Itoa(x))
		}
		return v, nil
	}
	for _, s := range strings.Split(rng, ",") {
		if s = strings.TrimSpace(s); s != "" {
			v.Values = append(v.Values, s)
		}
	}
	if len(v.Values) == 0 {
		return Vary{}, fmt.Errorf("--vary %q: no values", spec)
	}
	if len(v.Values) > maxSweepValues {
		return Vary{}, fmt.Errorf("--vary %q: more than %d values", spec, maxSweepValues)
	}
	return v, nil
}

// Setting is one key=value of a sweep row.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// SweepRow is one configuration of a sweep and its replay summary.
type SweepRow struct {
	// Settings are the varied keys' values; in the base row, the base
	// rules' own values ("" where the base does not have the key).
	Settings []Setting `json:"settings"`
	// Base marks the row of the base rules as they are, unvaried: the
	// first row, what every other row is measured against.
	Base    bool    `json:"base,omitempty"`
	Summary Summary `json:"summary"`
	// Pareto marks rows that no other row beats on both savings
	// (context_tokens_saved, higher is better) and harm (harmful, lower is
	// better).
	Pareto bool `json:"pareto"`
}

// CompareRow is one configuration of a compare.
type CompareRow struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	// Group is the preset's group (rules.PresetGroup) or "rules files":
	// reports show the rows group by group.
	Group   string  `json:"group,omitempty"`
	Summary Summary `json:"summary"`
}

// maxSweepConfigs bounds the cross product.
const maxSweepConfigs = 10000

// Configs builds the cross product of the varies over base, first vary
// outermost. Every value is checked against the rules before anything runs.
func Configs(base *rules.Rules, varies []Vary) ([]*rules.Rules, [][]Setting, error) {
	total := 1
	for _, v := range varies {
		total *= len(v.Values)
		if total > maxSweepConfigs {
			return nil, nil, fmt.Errorf("the sweep has more than %d configurations; narrow the ranges", maxSweepConfigs)
		}
	}
	var cfgs []*rules.Rules
	var settings [][]Setting
	idx := make([]int, len(varies))
	for n := 0; n < total; n++ {
		r := base.Clone()
		var row []Setting
		for i, v := range varies {
			val := v.Values[idx[i]]
			if err := r.Set(v.Key, val); err != nil {
				return nil, nil, err
			}
			row = append(row, Setting{v.Key, val})
		}
		cfgs = append(cfgs, r)
		settings = append(settings, row)
		for i := len(idx) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(varies[i].Values) {
				break
			}
			idx[i] = 0
		}
	}
	return cfgs, settings, nil
}

// SweepRows makes the rows of a sweep from each configuration's settings
// and report (Configs, then ReplayAll), marking the Pareto
// front.
func SweepRows(settings [][]Setting, reports []*Report) []SweepRow {
	rows := make([]SweepRow, len(reports))
	for i, rep := range reports {
		rows[i] = SweepRow{Settings: settings[i], Summary: rep.Summary}
	}
	MarkPareto(rows)
	return rows
}

// MarkPareto marks the rows on the savings/harm Pareto front: a row is on
// it when no other row has at least its savings and at most its harmful
// stops, and is strictly better on one of them.
func MarkPareto(rows []SweepRow) {
	for i := range rows {
		a := rows[i].Summary
		rows[i].Pareto = true
		for j := range rows {
			b := rows[j].Summary
			if j != i && b.ContextTokensSaved >= a.ContextTokensSaved && b.Harmful <= a.Harmful &&
				(b.ContextTokensSaved > a.ContextTokensSaved || b.Harmful < a.Harmful) {
				rows[i].Pareto = false
				break
			}
		}
	}
}
