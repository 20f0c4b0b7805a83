package analyze

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/loopgate/loopgate/rules"
)

// Tune: `loopgate tune` searches thresholds with the sweep engine
// (Configs, ReplayAll) and picks the best setting under a harm budget.

// TuneRow is one setting tried by tune and its replay summary.
type TuneRow struct {
	Settings []Setting
	Summary  Summary
	// Base marks the base rules as given; Front the rows no other row
	// beats on both harm (fewer harmful stops) and recall (more redundant
	// calls stopped).
	Base, Front bool
}

// RuleValue is the value of a settable key in r as `rules print` writes
// it, "" when r does not set it. A tool override that r leaves unset
// inherits its detector's value (tools.T.D.F falls back to
// detectors.D.F), which is what the guard uses for that tool.
func RuleValue(r *rules.Rules, key string) string {
	b, err := r.YAML()
	if err != nil {
		return ""
	}
	var m map[string]any
	if yaml.Unmarshal(b, &m) != nil {
		return ""
	}
	if v, ok := lookup(m, strings.Split(key, ".")); ok {
		return v
	}
	if segs := strings.Split(key, "."); len(segs) == 4 && segs[0] == "tools" {
		if v, ok := lookup(m, []string{"detectors", segs[2], segs[3]}); ok {
			return v
		}
	}
	return ""
}

func lookup(m map[string]any, segs []string) (string, bool) {
	var cur any = m
	for _, s := range segs {
		mm, ok := cur.(map[string]any)
		if !ok {
			return "", false
		}
		if cur, ok = mm[s]; !ok {
			return "", false
		}
	}
	switch v := cur.(type) {
	case map[string]any, []any, nil:
		return "", false
	default:
		return fmt.Sprint(v), true
	}
}

// TuneGrid is tune's default search over base: every enabled detector
// that blocks varies its block_at (dedup its dedup_at, at least 2) from one below its value (at least 1)
// (and above its steer_at) to two above; and when the no-progress detector covers shell calls,
// the shell class's own block_at is tried from one below its value (the
// detector's, unless the rules set one; at least 1) to one above (docs/tuning.md: a shell command may be a poll, which a higher
// threshold spares); and, with any of those, scope.reset is tried at turn
// and session (and mentioned, under invalidate: path). It is empty when base has no blocking detector.
func TuneGrid(base *rules.Rules) []Vary {
	b, err := base.YAML()
	if err != nil {
		return nil
	}
	var m struct {
		Detectors map[string]map[string]any `yaml:"detectors"`
	}
	if yaml.Unmarshal(b, &m) != nil {
		return nil
	}
	var varies []Vary
	for _, name := range rules.DetectorNames {
		d := m.Detectors[name]
		// A detector that answers from the earlier result stops from
		// dedup_at, at least 2 (the first call has no earlier result).
		key, least := "block_at", 1
		if _, ok := d[key]; !ok {
			if _, ok := d["dedup_at"]; ok {
				key, least = "dedup_at", 2
			}
		}
		at, ok := d[key].(int)
		if on, _ := d["enabled"].(bool); !on || !ok || at <= 0 {
			continue
		}
		v := Vary{Key: "detectors." + name + "." + key}
		steer, _ := d["steer_at"].(int) // a steer must come before the block
		for x := max(least, at-1, steer+1); x <= at+2; x++ {
			v.Values = append(v.Values, strconv.Itoa(x))
		}
		varies = append(varies, v)
		if name != "no_progress" {
			continue
		}
		if only, _ := d["only"].([]any); !coversShell(only) {
			continue
		}
		key = "tools.class:shell.no_progress.block_at"
		cur, err := strconv.Atoi(RuleValue(base, key))
		if err != nil || cur <= 0 {
			cur = at
		}
		v = Vary{Key: key}
		for x := max(1, cur-1); x <= cur+1; x++ {
			v.Values = append(v.Values, strconv.Itoa(x))
		}
		varies = append(varies, v)
	}
	if len(varies) > 0 {
		// When the counts start afresh is a threshold of its own: a
		// turn reset forgets every repeat across a user's message, which
		// spares the repeats whose result changed meanwhile but misses
		// the rest (docs/tuning.md).
		if r := RuleValue(base, "scope.reset"); r == "turn" || r == "session" || r == "mentioned" {
			v := Vary{Key: "scope.reset", Values: []string{"turn", "session"}}
			if RuleValue(base, "scope.write_clears_reads.invalidate") == "path" {
				// A user's message clearing only what it names needs
				// the observations' paths.
				v.Values = append(v.Values, "mentioned")
			}
			varies = append(varies, v)
		}
	}
	return varies
}

func coversShell(only []any) bool {
	if len(only) == 0 {
		return true // no list: every tool
	}
	for _, o := range only {
		if o == "class:shell" {
			return true
		}
	}
	return false
}

// TuneConfigs is the configurations tune replays: the base rules first
// (row 0, its settings the base's values of the varied keys), then the
// cross product of varies without the setting equal to the base's.
func TuneConfigs(base *rules.Rules, varies []Vary) ([]*rules.Rules, [][]Setting, error) {
	cfgs, settings, err := Configs(base, varies)
	if err != nil {
		return nil, nil, err
	}
	var baseSet []Setting
	for _, v := range varies {
		baseSet = append(baseSet, Setting{v.Key, RuleValue(base, v.Key)})
	}
	outCfgs, outSet := []*rules.Rules{base}, [][]Setting{baseSet}
	for i := range cfgs {
		if !sameSettings(settings[i], baseSet) {
			outCfgs, outSet = append(outCfgs, cfgs[i]), append(outSet, settings[i])
		}
	}
	return outCfgs, outSet, nil
}

func sameSettings(a, b []Setting) bool {
	for i := range a {
		if a[i].Value != b[i].Value {
			return false
		}
	}
	return len(a) == len(b)
}

// TuneRows makes tune's rows (row 0 the base) and marks the front.
func TuneRows(settings [][]Setting, reports []*Report) []TuneRow {
	rows := make([]TuneRow, len(reports))
	for i, rep := range reports {
		rows[i] = TuneRow{Settings: settings[i], Summary: rep.Summary, Base: i == 0}
	}
	for i := range rows {
		a := rows[i].Summary
		rows[i].Front = true
		for j := range rows {
			b := rows[j].Summary
			if j != i && b.Harmful <= a.Harmful && b.RedundantStopped >= a.RedundantStopped &&
				(b.Harmful < a.Harmful || b.RedundantStopped > a.RedundantStopped) {
				rows[i].Front = false
				break
			}
		}
	}
	return rows
}

// Choose picks the best row with at most maxHarm harmful stops: the most
// redundant calls stopped (highest recall), then the fewest steers, then
// the fewest stopped actions, then the closest to the base (row 0). It
// returns -1 when no row keeps to the budget.
func Choose(rows []TuneRow, maxHarm int) int {
	best := -1
	for i := range rows {
		if rows[i].Summary.Harmful > maxHarm {
			continue
		}
		if best < 0 || better(rows[i], rows[best], rows[0].Settings) {
			best = i
		}
	}
	return best
}

func better(a, b TuneRow, base []Setting) bool {
	x, y := a.Summary, b.Summary
	switch {
	case x.RedundantStopped != y.RedundantStopped:
		return x.RedundantStopped > y.RedundantStopped
	case x.Steered != y.Steered:
		return x.Steered < y.Steered
	case x.StoppedActions != y.StoppedActions:
		return x.StoppedActions < y.StoppedActions
	}
	return distance(a.Settings, base) < distance(b.Settings, base)
}

// distance is how far a setting is from the base's: the sum over keys of
// the difference of whole numbers, 1 for any other change.
func distance(s, base []Setting) int {
	d := 0
	for i := range s {
		if s[i].Value == base[i].Value {
			continue
		}
		a, err1 := strconv.Atoi(s[i].Value)
		b, err2 := strconv.Atoi(base[i].Value)
		if err1 != nil || err2 != nil {
			d++
			continue
		}
		d += max(a-b, b-a)
	}
	return d
}

// FrontOrder lists the front rows' indexes, least harmful first, then
// highest recall, then most context saved.
func FrontOrder(rows []TuneRow) []int {
	var idx []int
	for i := range rows {
		if rows[i].Front {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(i, j int) bool {
		a, b := rows[idx[i]].Summary, rows[idx[j]].Summary
		if a.Harmful != b.Harmful {
			return a.Harmful < b.Harmful
		}
		if a.RedundantStopped != b.RedundantStopped {
			return a.RedundantStopped > b.RedundantStopped
		}
		return a.ContextTokensSaved > b.ContextTokensSaved
	})
	return idx
}

// TuneCorpus describes the corpus tune measured, for the rules file's
// comments.
type TuneCorpus struct {
	Facts CorpusFacts
	// Newest is the end of the newest session (RFC 3339), "" when no
	// transcript records a time.
	Newest string
	// Shard is the K/N of the files tune read ("" for all of them), out
	// of TotalFiles found.
	Shard      string
	TotalFiles int
}

// Percent formats a ratio as tune prints it: "n/a" when it is null.
func Percent(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*p*100, 'f', 1, 64) + "%"
}

// Figures is one row's figures in a line, as tune prints them and the
// rules file records them.
func Figures(s Summary) string {
	return fmt.Sprintf("harmful %d, stopped %d of %d redundant (recall %s), precision %s, steered %d, stopped actions %d, tokens saved %d (context %d)",
		s.Harmful, s.RedundantStopped, s.Redundant, Percent(s.Recall), Percent(s.Precision), s.Steered, s.StoppedActions, s.TokensSaved, s.ContextTokensSaved)
}

// TuneFile writes the chosen rules (cfg, the configuration of
// rows[chosen]) as a complete rules file: the effective rules with a
// header that says what was measured on which corpus, and why each
// varied key has its value (what the neighbouring values would have
// stopped and cost), and a comment on each varied key's line.
func TuneFile(cfg *rules.Rules, baseName string, rows []TuneRow, chosen, maxHarm int, corpus TuneCorpus) ([]byte, error) {
	r := cfg.Clone()
	r.Name = baseName + "-tuned"
	r.Source = ""
	body, err := r.YAML()
	if err != nil {
		return nil, err
	}
	// YAML's own two-line header names the effective rules; ours replaces it.
	text := string(body)
	for i := 0; i < 2; i++ {
		if strings.HasPrefix(text, "#") {
			if _, rest, ok := strings.Cut(text, "\n"); ok {
				text = rest
			}
		}
	}
	row := rows[chosen]
	var h strings.Builder
	h.WriteString("# Rules written by `loopgate tune` from " + baseName + ", with the values below.\n")
	h.WriteString("# Keys and defaults: docs/rules.md; how they were chosen: docs/tuning.md \"loopgate tune\".\n#\n")
	f := corpus.Facts
	newest := corpus.Newest
	if newest == "" {
		newest = "unknown (no transcript records a time)"
	}
	if corpus.Shard != "" {
		h.WriteString(wrapComment(fmt.Sprintf("Tuned on shard %s of the %d files found (a hash of each file's path; `loopgate replay --shard` with the other shards and the same paths replays the files held out).", corpus.Shard, corpus.TotalFiles)))
	}
	fmt.Fprintf(&h, "# Measured on %d files, %d sessions, %d calls (%d redundant, %d input problems);\n# the newest session ended %s.\n", f.Files, f.Sessions, f.Calls, f.Redundant, f.Problems, newest)
	fmt.Fprintf(&h, "# Harm budget: at most %d harmful stops. %d settings tried; chosen for the highest\n# recall, then fewest steers, then fewest stopped actions, then closest to %s.\n#\n", maxHarm, len(rows), baseName)
	h.WriteString(wrapComment("These rules: " + Figures(row.Summary) + "."))
	h.WriteString(wrapComment(baseName + " as given: " + Figures(rows[0].Summary) + "."))
	for k, s := range row.Settings {
		fmt.Fprintf(&h, "#\n# %s: %s (%s: %s)\n", s.Key, s.Value, baseName, rows[0].Settings[k].Value)
		h.WriteString(wrapIndented("caught here: "+caught(row.Summary)+".", "  "))
		h.WriteString(wrapIndented("why: "+whyValue(rows, chosen, k)+".", "  "))
		for _, alt := range neighbours(rows, chosen, k) {
			a := rows[alt]
			h.WriteString(wrapIndented(fmt.Sprintf("with %s: %s%s.", a.Settings[k].Value, caught(a.Summary), overBudget(a.Summary, maxHarm)), "  "))
		}
	}
	h.WriteString("\n")
	for _, s := range row.Settings {
		text = commentKey(text, s.Key, "tuned: see the header")
	}
	return []byte(h.String() + text), nil
}

// whyValue says why key k has its value in rows[chosen], against the rows
// that differ from it in k only.
func whyValue(rows []TuneRow, chosen, k int) string {
	stops := rows[chosen].Summary.RedundantStopped
	more, as := 0, 0
	for _, alt := range neighbours(rows, chosen, k) {
		switch n := rows[alt].Summary.RedundantStopped; {
		case n > stops:
			more++
		case n == stops:
			as++
		}
	}
	switch {
	case more > 0:
		return "the values that stop more make more harmful stops than the budget allows"
	case as > 0:
		return "no value tried stops more; of those that stop as many, this one steers least, then stops fewest actions, then is nearest the base"
	case len(neighbours(rows, chosen, k)) == 0:
		return "the only value tried"
	}
	return "every other value tried stops fewer"
}

// caught is what a setting stopped and what it cost, for the rules file's
// comments: the redundant calls and the tokens they would have saved, and
// the costs: harmful stops (information hidden), stopped actions, steers.
func caught(s Summary) string {
	return fmt.Sprintf("%d redundant calls stopped (%d tokens saved), %d harmful, %d stopped actions, %d steered",
		s.RedundantStopped, s.TokensSaved, s.Harmful, s.StoppedActions, s.Steered)
}

func overBudget(s Summary, maxHarm int) string {
	if s.Harmful > maxHarm {
		return " (over the harm budget)"
	}
	return ""
}

// neighbours are the rows that differ from rows[chosen] in key k only.
func neighbours(rows []TuneRow, chosen, k int) []int {
	var out []int
	seen := map[string]bool{rows[chosen].Settings[k].Value: true}
	for i, r := range rows {
		if seen[r.Settings[k].Value] {
			continue
		}
		same := true
		for j, s := range r.Settings {
			if j != k && s.Value != rows[chosen].Settings[j].Value {
				same = false
				break
			}
		}
		if same {
			seen[r.Settings[k].Value] = true
			out = append(out, i)
		}
	}
	return out
}

// commentKey appends a comment to the line of the dotted key in a YAML
// text written by rules.YAML (block mappings, two spaces a level); the
// text is unchanged when the key is not found.
func commentKey(text, key, comment string) string {
	segs := strings.Split(key, ".")
	lines := strings.Split(text, "\n")
	depth := 0
	for i, l := range lines {
		trim := strings.TrimLeft(l, " ")
		indent := (len(l) - len(trim)) / 2
		if trim == "" || strings.HasPrefix(trim, "#") || strings.HasPrefix(trim, "-") || indent > depth {
			continue
		}
		if indent < depth {
			break // left the mapping we were in: the key is not there
		}
		name, _, ok := strings.Cut(trim, ": ")
		if !ok && strings.HasSuffix(trim, ":") {
			name, ok = strings.TrimSuffix(trim, ":"), true
		}
		if strings.HasPrefix(trim, "'") || strings.HasPrefix(trim, "\"") {
			q := trim[:1]
			end := strings.Index(trim[1:], q)
			if end < 0 {
				continue
			}
			name, ok = trim[1:end+1], true
		}
		if !ok || name != segs[depth] {
			continue
		}
		if depth == len(segs)-1 {
			lines[i] = l + " # " + comment
			return strings.Join(lines, "\n")
		}
		depth++
	}
	return text
}

// wrapComment writes text as comment lines of at most 80 columns, the
// lines after the first indented.
func wrapComment(text string) string { return wrapIndented(text, "") }

// wrapIndented is wrapComment with every line indented by indent after
// its "#".
func wrapIndented(text, indent string) string {
	var b strings.Builder
	first, next := "#"+indent, "#"+indent+"  "
	line := first
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > 80 && line != first && line != next {
			b.WriteString(line + "\n")
			line = next
		}
		line += " " + w
	}
	return b.String() + line + "\n"
}
