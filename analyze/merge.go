package analyze

import (
	"cmp"
	"container/heap"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/loopgate/loopgate/rules"
)

// Partial says what a shard's report covers and what made it: everything
// a merge needs beyond the report's own numbers (which are counts, never
// ratios alone, so that they add up). It is written into a report only
// when the run was given --shard (docs/scale.md).
type Partial struct {
	// Version is loopgate's version (its module version, or the VCS
	// revision of a development build).
	Version string `json:"loopgate_version"`
	// RulesHashes identify the effective rules of each configuration, in
	// the report's order (one for replay; one per row for compare and
	// sweep): RulesHash.
	RulesHashes []string `json:"rules_hashes"`
	Tokenizer   string   `json:"tokenizer"`
	// Shard is "K/N".
	Shard string `json:"shard"`
	// TotalFiles is how many files all the shards share out.
	TotalFiles int `json:"total_files"`
	// Files are this shard's files and FileIndex each one's place among
	// all of them: the order one run over every file reads them in, which
	// a merge restores.
	Files     []string `json:"files"`
	FileIndex []int    `json:"file_index"`
	// EarlyProblems counts the report's first problems, found before any
	// file was read (a PATH that could not be listed): every shard finds
	// them, and a merge keeps one copy.
	EarlyProblems int `json:"early_problems"`
}

// RulesHash is a short digest of the effective rules (their YAML, as
// 'loopgate rules print' writes it): two reports carry the same hash when
// they were made under the same rules, whatever file or preset named them.
func RulesHash(r *rules.Rules) string {
	b, err := r.YAML()
	if err != nil {
		b = []byte("unprintable rules: " + err.Error())
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// ReplayPart is one shard's replay report, read back from its JSON lines.
type ReplayPart struct {
	Name    string // where it was read from, for messages
	Partial Partial
	Report  *Report // summary, rules, tokens, tools and problems
	// Sessions are the shard's sessions, and Partial.Files and
	// Partial.FileIndex its files, when Source is nil.
	Sessions []SessionResult
	// Source, when set, reads the shard's files and sessions where they
	// are stored, as the merge walks them: a merge of millions of
	// sessions then holds a few of each shard's at a time
	// (Partial.Files, Partial.FileIndex and Sessions are not read).
	Source PartSource
}

// PartSource reads a shard's files and sessions in the order of its report,
// which is the order one run over all the files gives (a shard keeps that
// order: analyze.ShardFiles, and the sessions of each file as it reads
// them). Each call starts a new reading from the beginning.
type PartSource interface {
	Files() (Cursor[FilePlace], error)
	Sessions() (Cursor[*SessionResult], error)
}

// FilePlace is one of a shard's files and its place among all the files
// (Partial.Files and Partial.FileIndex).
type FilePlace struct {
	File  string
	Index int
}

// Cursor reads items one at a time: Next returns false at the end or at
// an error (err says which). The item is valid until the next call.
type Cursor[T any] interface {
	Next() (item T, ok bool, err error)
	Close() error
}

// memSource is the PartSource of a shard's report held in memory.
type memSource struct {
	name     string
	p        *Partial
	sessions []SessionResult
}

func (m memSource) Files() (Cursor[FilePlace], error) {
	if len(m.p.Files) != len(m.p.FileIndex) {
		return nil, fmt.Errorf("%s: its files and file_index differ in length", m.name)
	}
	i := 0
	return cursorFunc[FilePlace](func() (FilePlace, bool, error) {
		if i == len(m.p.Files) {
			return FilePlace{}, false, nil
		}
		i++
		return FilePlace{m.p.Files[i-1], m.p.FileIndex[i-1]}, true, nil
	}), nil
}

func (m memSource) Sessions() (Cursor[*SessionResult], error) {
	i := 0
	return cursorFunc[*SessionResult](func() (*SessionResult, bool, error) {
		if i == len(m.sessions) {
			return nil, false, nil
		}
		i++
		return &m.sessions[i-1], true, nil
	}), nil
}

// cursorFunc is a Cursor with nothing to close.
type cursorFunc[T any] func() (T, bool, error)

func (f cursorFunc[T]) Next() (T, bool, error) { return f() }
func (f cursorFunc[T]) Close() error           { return nil }

// checkParts refuses parts that cannot be merged: made by different
// versions, under different rules or tokenizers, over different inputs,
// or the same shard twice (checkFiles checks their lists of files). allowMissing lets a merge go on without some
// shards (they are returned); otherwise a missing shard is an error.
func checkParts(names []string, ps []*Partial, allowMissing bool) (missing []string, err error) {
	if len(ps) == 0 {
		return nil, fmt.Errorf("nothing to merge")
	}
	first := ps[0]
	n := 0
	seen := map[int]string{}
	for i, p := range ps {
		sh, err := ParseShard(p.Shard)
		if err != nil {
			return nil, fmt.Errorf("%s: not a shard's report (%v); make partial reports with --shard K/N", names[i], err)
		}
		if i == 0 {
			n = sh.N
		}
		switch {
		case p.Version != first.Version:
			return nil, fmt.Errorf("%s was made by loopgate %s, %s by %s: merge reports of one version", names[i], p.Version, names[0], first.Version)
		case strings.Join(p.RulesHashes, ",") != strings.Join(first.RulesHashes, ","):
			return nil, fmt.Errorf("%s was made under other rules than %s (rules hashes %s and %s): merge reports made under the same rules", names[i], names[0], strings.Join(p.RulesHashes, ","), strings.Join(first.RulesHashes, ","))
		case p.Tokenizer != first.Tokenizer:
			return nil, fmt.Errorf("%s counted tokens with %s, %s with %s: merge reports of one tokenizer", names[i], p.Tokenizer, names[0], first.Tokenizer)
		case sh.N != n:
			return nil, fmt.Errorf("%s is shard %s, %s is shard %s: merge shards of one split", names[i], p.Shard, names[0], first.Shard)
		case p.TotalFiles != first.TotalFiles:
			return nil, fmt.Errorf("%s shares out %d files, %s %d: the shards were not given the same inputs", names[i], p.TotalFiles, names[0], first.TotalFiles)
		case p.TotalFiles < 0:
			return nil, fmt.Errorf("%s: partial.total_files is %d: a count cannot be negative", names[i], p.TotalFiles)
		case p.EarlyProblems < 0:
			return nil, fmt.Errorf("%s: partial.early_problems is %d: a count cannot be negative", names[i], p.EarlyProblems)
		}
		if prev, dup := seen[sh.K]; dup {
			return nil, fmt.Errorf("shard %s is given twice (%s and %s)", p.Shard, prev, names[i])
		}
		seen[sh.K] = names[i]
	}
	// The first few missing shards are named, the rest counted.
	count := n - len(seen)
	for k := 1; k <= n && len(missing) < maxNamedMissing && len(missing) < count; k++ {
		if _, ok := seen[k]; !ok {
			missing = append(missing, Shard{K: k, N: n}.String())
		}
	}
	if count > len(missing) {
		missing = append(missing, fmt.Sprintf("and %d more", count-len(missing)))
	}
	if count > 0 && !allowMissing {
		list := strings.Join(missing, ", ")
		if count > maxNamedMissing {
			return missing, fmt.Errorf("%d of %d shards missing (%s): the merge would not be the report of one run (--allow-missing merges what is there)", count, n, list)
		}
		return missing, fmt.Errorf("shard(s) %s of %d missing: the merge would not be the report of one run (--allow-missing merges what is there)", list, n)
	}
	return missing, nil
}

// maxNamedMissing is how many missing shards a merge names.
const maxNamedMissing = 10

// checkFiles refuses lists of files that no run writes: file indexes
// outside the files shared out, given by two shards, or out of the order a
// shard lists its files in; and, when no shard is missing, shards that do
// not list total_files files in all. It walks every shard's list at once,
// in the order of the indexes, so that its memory follows the number of
// shards, not of files. It returns, for each shard, the indexes of the
// files its problems name (want[i]) that are among its files.
func checkFiles(names []string, srcs []PartSource, ps []*Partial, missing bool, want []map[string]int) error {
	type walk struct {
		c    Cursor[FilePlace]
		at   FilePlace
		j    int // at's place in the shard's list
		prev int // the index before at, -1 at the start
	}
	walks := make([]*walk, len(srcs))
	defer func() {
		for _, w := range walks {
			if w != nil {
				w.c.Close()
			}
		}
	}()
	// next moves shard i's walk on; ok is false at the end of its list.
	next := func(i int) (bool, error) {
		w := walks[i]
		at, ok, err := w.c.Next()
		if err != nil || !ok {
			return false, err
		}
		w.j++
		p := ps[i]
		if at.Index < 0 || at.Index >= p.TotalFiles {
			return false, fmt.Errorf("%s: partial.file_index[%d] is %d, outside 0 to %d (total_files %d)", names[i], w.j, at.Index, p.TotalFiles-1, p.TotalFiles)
		}
		if at.Index <= w.prev {
			return false, fmt.Errorf("%s: partial.file_index[%d] is %d, after %d: a shard lists its files in the order of one run (a report was altered)", names[i], w.j, at.Index, w.prev)
		}
		w.at, w.prev = at, at.Index
		if m := want[i]; m != nil {
			if _, ok := m[at.File]; ok {
				m[at.File] = at.Index
			}
		}
		return true, nil
	}
	var h placeHeap
	for i, src := range srcs {
		c, err := src.Files()
		if err != nil {
			return err
		}
		walks[i] = &walk{c: c, j: -1, prev: -1}
		ok, err := next(i)
		if err != nil {
			return err
		}
		if ok {
			h = append(h, placeItem{i, walks[i].at.Index})
		}
	}
	heap.Init(&h)
	listed, last, lastPart := 0, -1, -1
	for len(h) > 0 {
		top := h[0]
		listed++
		if top.index == last {
			// Ties go to the report given first (placeHeap), which is
			// taken to own the index: the later one is named.
			return fmt.Errorf("%s: partial.file_index[%d] is %d, also given by %s: a file belongs to one shard", names[top.part], walks[top.part].j, top.index, names[lastPart])
		}
		last, lastPart = top.index, top.part
		ok, err := next(top.part)
		if err != nil {
			return err
		}
		if ok {
			h[0].index = walks[top.part].at.Index
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	if !missing && listed != ps[0].TotalFiles {
		return fmt.Errorf("the shards list %d files in all, but their partial.total_files is %d: a report was altered, or the shards were not given the same inputs", listed, ps[0].TotalFiles)
	}
	return nil
}

// placeItem is a shard's next file (or session) in a walk over all the
// shards in the order of one run: index is its file's place.
type placeItem struct{ part, index int }

// placeHeap orders the shards by their next item's place.
type placeHeap []placeItem

func (h placeHeap) Len() int { return len(h) }
func (h placeHeap) Less(a, b int) bool {
	return h[a].index < h[b].index || h[a].index == h[b].index && h[a].part < h[b].part
}
func (h placeHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *placeHeap) Push(x any)   { *h = append(*h, x.(placeItem)) }
func (h *placeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// sources are the parts' PartSources (a memSource for a part held in
// memory).
func sources(parts []ReplayPart) []PartSource {
	srcs := make([]PartSource, len(parts))
	for i := range parts {
		srcs[i] = parts[i].Source
		if srcs[i] == nil {
			srcs[i] = memSource{parts[i].Name, &parts[i].Partial, parts[i].Sessions}
		}
	}
	return srcs
}

// MergeReplays combines shards' replay reports into the report one run
// over all their files gives: the same summary, per-tool table, sessions
// and problems, in the same order. It returns the shards missing (when
// allowMissing let the merge go on without them).
//
// It walks the shards' sessions at once, in the order of their files
// (each shard lists them in that order), and keeps the merged list in a
// temporary file (Report.EachSession reads it back; Report.Close removes
// it): its memory follows the number of shards, not of sessions.
func MergeReplays(parts []ReplayPart, allowMissing bool) (*Report, []string, error) {
	names := make([]string, len(parts))
	ps := make([]*Partial, len(parts))
	for i := range parts {
		names[i], ps[i] = parts[i].Name, &parts[i].Partial
		if parts[i].Report == nil {
			return nil, nil, fmt.Errorf("%s has no summary line", names[i])
		}
	}
	missing, err := checkParts(names, ps, allowMissing)
	if err != nil {
		return nil, missing, err
	}
	for i := range parts {
		r := parts[i].Report
		if err := refuseNegative(names[i], "summary", r.Summary, "tokens", r.Tokens, "tools", r.Tools); err != nil {
			return nil, missing, err
		}
	}
	srcs := sources(parts)
	// The files the problems name, whose places the walk over the files
	// finds.
	problemFiles := make([]map[string]int, len(parts))
	for i := range parts {
		for j, p := range parts[i].Report.Problems {
			if j >= parts[i].Partial.EarlyProblems {
				if problemFiles[i] == nil {
					problemFiles[i] = map[string]int{}
				}
				problemFiles[i][p.File] = -1
			}
		}
	}
	if err := checkFiles(names, srcs, ps, len(missing) > 0, problemFiles); err != nil {
		return nil, missing, err
	}
	type placedProblem struct {
		file, seq int
		p         Problem
	}
	var problems []placedProblem
	files := 0
	problemCount := 0
	for i := range parts {
		part := &parts[i]
		files += part.Report.Summary.Files
		early := part.Partial.EarlyProblems
		if early > len(part.Report.Problems) {
			return nil, missing, fmt.Errorf("%s: early_problems %d exceeds the %d problems listed", part.Name, early, len(part.Report.Problems))
		}
		problemCount += part.Report.Summary.Problems - early
		for j, p := range part.Report.Problems {
			if j < early {
				continue
			}
			fi := problemFiles[i][p.File]
			if fi < 0 {
				fi = part.Partial.TotalFiles // after every file, in the order met
			}
			problems = append(problems, placedProblem{fi, len(problems), p})
		}
	}
	sort.SliceStable(problems, func(a, b int) bool { return problems[a].file < problems[b].file })

	first := parts[0].Report
	agg := &Aggregator{toolIndex: map[string]int{}}
	agg.rep.Sessions = []SessionResult{}
	agg.rep.Tools = []ToolStat{}
	agg.rep.Problems = []Problem{}
	agg.rep.Rules = first.Rules
	agg.rep.Tokens.Tokenizer = first.Tokens.Tokenizer
	earlyList := first.Problems[:parts[0].Partial.EarlyProblems]
	for _, p := range earlyList {
		agg.AddProblem(p)
	}
	for _, p := range problems {
		agg.rep.Problems = append(agg.rep.Problems, p.p)
	}
	agg.rep.Summary.Problems = len(earlyList) + problemCount
	err = mergeSessions(names, srcs, func(s *SessionResult) {
		agg.AddSession(*s, nil, false)
		agg.rep.keepSession(*s, true)
		agg.rep.Tokens.NoteUsage(s)
	})
	if err != nil {
		agg.rep.Close()
		return nil, missing, err
	}
	for i := range parts {
		agg.addTools(parts[i].Report.Tools)
		// Each shard says how many of its texts were estimated.
		agg.rep.Tokens.EstimatedTexts += parts[i].Report.Tokens.EstimatedTexts
	}
	agg.rep.Summary.Files = files
	return agg.Finish(), missing, nil
}

// mergeSessions calls add with the shards' sessions in the order of one
// run: by their files' places, each file's sessions in the order its
// shard lists them. A session is placed by walking its shard's files
// along (both lists are in that order); a session naming no file of its
// shard, or not in the order of its files, is an error.
func mergeSessions(names []string, srcs []PartSource, add func(*SessionResult)) error {
	type walk struct {
		files    Cursor[FilePlace]
		sessions Cursor[*SessionResult]
		at       FilePlace
		s        *SessionResult
		j        int // s's place in the shard's list
	}
	walks := make([]*walk, len(srcs))
	defer func() {
		for _, w := range walks {
			if w != nil {
				w.files.Close()
				w.sessions.Close()
			}
		}
	}()
	// next reads shard i's next session and finds its file.
	next := func(i int) (bool, error) {
		w := walks[i]
		s, ok, err := w.sessions.Next()
		if err != nil || !ok {
			return false, err
		}
		w.j++
		if p, n := negativeCount(reflect.ValueOf(s).Elem(), "sessions["+strconv.Itoa(w.j)+"]"); p != "" {
			return false, fmt.Errorf("%s: %s is %d: a count cannot be negative", names[i], p, n)
		}
		for s.File != w.at.File || w.at.Index < 0 {
			at, ok, err := w.files.Next()
			if err != nil {
				return false, err
			}
			if !ok {
				return false, fmt.Errorf("%s: session %q names file %q, which is not among the shard's files (or not in their order)", names[i], s.ID, s.File)
			}
			w.at = at
		}
		w.s = s
		return true, nil
	}
	var h placeHeap
	for i, src := range srcs {
		fc, err := src.Files()
		if err != nil {
			return err
		}
		sc, err := src.Sessions()
		if err != nil {
			fc.Close()
			return err
		}
		walks[i] = &walk{files: fc, sessions: sc, at: FilePlace{Index: -1}, j: -1}
		ok, err := next(i)
		if err != nil {
			return err
		}
		if ok {
			h = append(h, placeItem{i, walks[i].at.Index})
		}
	}
	heap.Init(&h)
	for len(h) > 0 {
		i := h[0].part
		add(walks[i].s)
		ok, err := next(i)
		if err != nil {
			return err
		}
		if ok {
			h[0].index = walks[i].at.Index
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return nil
}

// TuningPart is one shard's compare or sweep report.
type TuningPart struct {
	Name    string
	Partial Partial
	Corpus  CorpusFacts
	// Compare holds a compare's rows, Sweep a sweep's (one of them).
	Compare []CompareRow
	Sweep   []SweepRow
	// Base is a sweep's base rules label.
	Base string
	// Problems are the input problems the report lists (its early
	// problems, Partial.EarlyProblems, first).
	Problems []Problem
}

// MergeTuning combines shards' compare or sweep reports row by row: each
// configuration's counts add up and its ratios are computed again from
// them, and a sweep's Pareto front is marked again.
func MergeTuning(parts []TuningPart, allowMissing bool) (*TuningPart, []string, error) {
	names := make([]string, len(parts))
	ps := make([]*Partial, len(parts))
	for i := range parts {
		names[i], ps[i] = parts[i].Name, &parts[i].Partial
	}
	missing, err := checkParts(names, ps, allowMissing)
	if err != nil {
		return nil, missing, err
	}
	srcs := make([]PartSource, len(parts))
	for i := range parts {
		srcs[i] = memSource{name: names[i], p: ps[i]}
	}
	if err := checkFiles(names, srcs, ps, len(missing) > 0, make([]map[string]int, len(parts))); err != nil {
		return nil, missing, err
	}
	for i, p := range parts {
		if err := refuseNegative(names[i], "corpus", p.Corpus, "rows", p.Compare, "rows", p.Sweep); err != nil {
			return nil, missing, err
		}
	}
	out := &TuningPart{Name: "merged", Base: parts[0].Base}
	sweep := parts[0].Sweep != nil
	for i, p := range parts {
		if (p.Sweep != nil) != sweep || len(p.Compare) != len(parts[0].Compare) || len(p.Sweep) != len(parts[0].Sweep) {
			return nil, missing, fmt.Errorf("%s and %s are not reports of the same command and configurations", names[i], names[0])
		}
	}
	out.Problems = mergeProblems(parts)
	out.Compare = append([]CompareRow(nil), parts[0].Compare...)
	out.Sweep = append([]SweepRow(nil), parts[0].Sweep...)
	out.Corpus = parts[0].Corpus
	early := parts[0].Partial.EarlyProblems
	for _, p := range parts[1:] {
		c := &out.Corpus
		c.Files += p.Corpus.Files
		c.Sessions += p.Corpus.Sessions
		c.Turns += p.Corpus.Turns
		c.Requests += p.Corpus.Requests
		c.Calls += p.Corpus.Calls
		c.Redundant += p.Corpus.Redundant
		c.Problems += p.Corpus.Problems - early
		for r := range out.Compare {
			out.Compare[r].Summary.add(&p.Compare[r].Summary, early)
		}
		for r := range out.Sweep {
			out.Sweep[r].Summary.add(&p.Sweep[r].Summary, early)
		}
	}
	for r := range out.Compare {
		out.Compare[r].Summary.computeRates()
	}
	for r := range out.Sweep {
		out.Sweep[r].Summary.computeRates()
	}
	if sweep {
		MarkPareto(out.Sweep)
	}
	return out, missing, nil
}

// mergeProblems lists the shards' input problems as one run lists them:
// the early problems once (every shard has them), then each file's in the
// files' order (a problem of no listed file after them all).
func mergeProblems(parts []TuningPart) []Problem {
	type placed struct {
		file int
		p    Problem
	}
	var list []placed
	early := min(parts[0].Partial.EarlyProblems, len(parts[0].Problems))
	out := append([]Problem{}, parts[0].Problems[:early]...)
	for i := range parts {
		part := &parts[i]
		where := map[string]int{}
		for j, f := range part.Partial.Files {
			if j < len(part.Partial.FileIndex) {
				where[f] = part.Partial.FileIndex[j]
			}
		}
		for j, p := range part.Problems {
			if j < part.Partial.EarlyProblems {
				continue
			}
			fi, ok := where[p.File]
			if !ok {
				fi = part.Partial.TotalFiles
			}
			list = append(list, placed{fi, p})
		}
	}
	sort.SliceStable(list, func(a, b int) bool { return list[a].file < list[b].file })
	for _, x := range list {
		out = append(out, x.p)
	}
	return out
}

// negativeCount names the first member of v (numbers read back from a
// partial report) that holds a negative integer, by its JSON path under
// path, with the value; "" when there is none. Every integer of a report
// is a count or a place (files, calls, tokens, lines), which no run
// writes negative.
func negativeCount(v reflect.Value, path string) (string, int64) {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Int() < 0 {
			return path, v.Int()
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return negativeCount(v.Elem(), path)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" {
				continue
			}
			sub := path
			if name != "" || !f.Anonymous {
				sub = path + "." + cmp.Or(name, f.Name)
			}
			if p, n := negativeCount(v.Field(i), sub); p != "" {
				return p, n
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if p, n := negativeCount(v.Index(i), path+"["+strconv.Itoa(i)+"]"); p != "" {
				return p, n
			}
		}
	}
	return "", 0
}

// refuseNegative is the error of a partial report holding a negative
// count among members (pairs of a JSON path and its value).
func refuseNegative(name string, members ...any) error {
	for i := 0; i+1 < len(members); i += 2 {
		if p, n := negativeCount(reflect.ValueOf(members[i+1]), members[i].(string)); p != "" {
			return fmt.Errorf("%s: %s is %d: a count cannot be negative", name, p, n)
		}
	}
	return nil
}
