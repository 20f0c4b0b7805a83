package corpusgen

import (
	"math/rand/v2"
	"strings"
)

// This file builds one session in memory (only one session is held at a
// time): turns of model responses with background calls whose arguments
// never repeat, and, when asked, planted loops of a known shape. The
// numbering pass then gives every call its 1-based index and computes the
// truth the manifest records.

type step struct {
	text      string
	reasoning string
	calls     []*call
}

type turn struct {
	user  string
	steps []*step
	final string
	at    int64 // unix microseconds of the user message
}

type session struct {
	id       string
	key      string // nanobot session key
	source   string // hermes source column
	parent   string // hermes parent session id (subagents)
	model    string
	start    int64 // unix microseconds
	end      int64
	turns    []*turn
	children []delegation // hermes subagent sessions, written before the parent
	loops    []*plant
	// truth, set by number()
	calls, redundant int
}

// delegation is a delegate_task call and the subagent session it ran.
type delegation struct {
	turn  *turn
	call  *call
	child *session
}

// delegateResult is the parent's view of a finished subagent
// (formats-hermes.md §2.7).
func delegateResult(r *rand.Rand, child *session) string {
	secs := flt(float64(child.end-child.start) / 1e6)
	return objString([]kv{{"results", []any{[]kv{
		{"task_index", 0}, {"status", "completed"}, {"summary", child.turns[len(child.turns)-1].final},
		{"api_calls", countSteps(child) + len(child.turns)}, {"duration_seconds", secs},
		{"model", child.model}, {"exit_reason", "completed"},
		{"tokens", []kv{{"input", 1200 + r.IntN(40000)}, {"output", 100 + r.IntN(4000)}}},
		{"tool_trace", toolTrace(child)},
	}}}, {"total_duration_seconds", secs}}, true)
}

// plant is a planted loop before numbering.
type plant struct {
	shape   string
	variant string
	calls   []*call
	// fold marks calls whose arguments differ only by case and surrounding
	// white space (web-repeat).
	fold bool
}

const (
	ShapeRepeat       = "repeat"
	ShapeAlternate    = "alternate"
	ShapeCycle3       = "cycle3"
	ShapeFailingRetry = "failing-retry"
	ShapePoll         = "poll"
	ShapeRereadWrite  = "reread-after-write"
	ShapeSearchRepeat = "search-repeat"
	ShapeWebRepeat    = "web-repeat"
)

// Shapes lists every planted loop shape.
var Shapes = []string{ShapeRepeat, ShapeAlternate, ShapeCycle3, ShapeFailingRetry, ShapePoll, ShapeRereadWrite, ShapeSearchRepeat, ShapeWebRepeat}

// builder makes sessions for one file.
type builder struct {
	r         *rand.Rand
	tk        *toolkit
	maxResult int
	loops     bool
	loopRate  int // percent of ordinary steps replaced by a further loop
	shapeNext int // rotates shapes so every shape appears even in small corpora
	// callExtra is what a format writes per call beyond estimate's
	// allowance: Claude Code and Codex wrap each call and each result in
	// a record of its own, with ids, times and usage.
	callExtra int64
	// noPoll leaves out poll loops: OpenHands has no poll tool (a running
	// command is polled with execute_bash and is_input), and a poll that
	// is a shell command looks like a repeated one (writeFile).
	noPoll bool
	clock  int64
}

// resultSize draws a result size: mostly tens of bytes to a few KB, a rare
// tail up to maxResult, never above what the session has left.
func (b *builder) resultSize(left int64) int {
	var n int64
	if b.r.IntN(40) == 0 && b.maxResult > 4096 {
		n = logUniform(b.r, 4096, int64(b.maxResult))
	} else {
		n = logUniform(b.r, 8, 3000)
	}
	// Leave room for the JSON a harness wraps around the text.
	n = min(n, int64(b.maxResult)*9/10, left/2)
	if n < 8 {
		n = 8
	}
	return int(n)
}

// background makes one call that repeats nothing else in the session.
func (b *builder) background(left int64) *call {
	t := b.tk
	n := b.resultSize(left)
	switch b.r.IntN(10) {
	case 0, 1, 2:
		return t.read(t.path(), n)
	case 3, 4:
		return t.search(t.pattern(), fileDirs[b.r.IntN(len(fileDirs))], n)
	case 5:
		if t.h == hNanobot {
			return t.list(fileDirs[b.r.IntN(len(fileDirs))] + "/" + word(b.r) + itoa(t.next()))
		}
		return t.shell(t.command(), b.tk.p.text(b.r, n), 0)
	case 6:
		return t.shell(t.command(), b.tk.p.text(b.r, n), 0)
	case 7:
		return t.write(t.path(), b.tk.p.text(b.r, min(n, 2000)))
	case 8:
		return t.webSearch(t.query(), min(n, 4000))
	default:
		return t.webFetch(t.url(), n)
	}
}

func (b *builder) prompt() string {
	return strings.Replace(strings.Replace(promptHeads[b.r.IntN(len(promptHeads))], "%s", word(b.r)+"_"+word(b.r)+itoa(b.tk.next()), 1), "%s", word(b.r), 1)
}

func (b *builder) final() string {
	return strings.Replace(strings.Replace(finals[b.r.IntN(len(finals))], "%s", word(b.r), 1), "%s", word(b.r), 1)
}

func (b *builder) thought() string {
	if b.r.IntN(3) == 0 {
		return ""
	}
	return "Check the " + word(b.r) + " before touching the " + word(b.r) + "."
}

// estimate is a rough encoded size of a call in any format.
func estimate(c *call) int64 {
	n := int64(len(c.result))*11/10 + 260
	for _, a := range c.args {
		if s, ok := a.v.(string); ok {
			n += int64(len(s)) * 11 / 10
		}
		n += 16
	}
	return n
}

// build makes a session of about budget bytes. subagents is true where the
// format keeps subagent sessions (hermes export); depth is 1 for a subagent.
func (b *builder) build(budget int64, subagents bool, depth int) *session {
	s := &session{}
	b.tk.uniq = 0
	left := budget - 600
	nTurns := 1 + b.r.IntN(5)
	if budget > 200_000 {
		nTurns += int(budget / 200_000)
		if nTurns > 400 {
			nTurns = 400
		}
	}
	// Decide the loops first: about 40% of sessions carry one, some two.
	var planned []string
	if b.loops && b.r.IntN(10) < 4 {
		planned = append(planned, b.nextShape())
		if b.r.IntN(5) == 0 {
			planned = append(planned, b.nextShape())
		}
	}
	delegateTurn := -1
	if subagents && depth == 0 && b.r.IntN(4) == 0 {
		delegateTurn = b.r.IntN(nTurns)
	}
	plantTurn := map[int][]string{}
	for _, sh := range planned {
		ti := b.r.IntN(nTurns)
		plantTurn[ti] = append(plantTurn[ti], sh)
	}
	for ti := 0; ti < nTurns; ti++ {
		t := &turn{user: b.prompt(), final: b.final()}
		left -= int64(len(t.user)+len(t.final)) + 200
		perTurn := left / int64(nTurns-ti)
		used := int64(0)
		shapes := plantTurn[ti]
		for used < perTurn || len(shapes) > 0 {
			if len(shapes) > 0 && (used >= perTurn || b.r.IntN(3) == 0) {
				steps, p := b.plant(shapes[0], max(perTurn-used, 2000))
				shapes = shapes[1:]
				for _, st := range steps {
					for _, c := range st.calls {
						used += estimate(c) + b.callExtra + b.callExtra
					}
				}
				t.steps = append(t.steps, steps...)
				s.loops = append(s.loops, p)
				continue
			}
			if used >= perTurn {
				break
			}
			// Drawn only when asked for, so that a corpus without
			// LoopRate stays byte-identical to one written before it.
			if b.loopRate > 0 && b.r.IntN(100) < b.loopRate {
				shapes = append(shapes, b.nextShape())
				continue
			}
			st := &step{text: "", reasoning: b.thought()}
			k := 1
			if b.r.IntN(6) == 0 {
				k = 2 + b.r.IntN(2) // parallel calls
			}
			for i := 0; i < k; i++ {
				c := b.background(perTurn - used)
				used += estimate(c) + b.callExtra
				st.calls = append(st.calls, c)
			}
			t.steps = append(t.steps, st)
			if len(t.steps) > 60 {
				break
			}
		}
		if ti == delegateTurn {
			child := b.buildChild(max(min(left/3, 400_000), 3000))
			goal := "Investigate the " + word(b.r) + " " + word(b.r) + itoa(b.tk.next()) + " and report back."
			// The result summarizing the child is filled in by timeSession,
			// once the child has its model and timestamps.
			c := &call{tool: "delegate_task", args: []kv{{"goal", goal}, {"context", "Parent session needs a short summary."}, {"toolsets", []string{"file", "terminal"}}}, resultJSON: true}
			t.steps = append(t.steps, &step{reasoning: "Delegate this part.", calls: []*call{c}})
			s.children = append(s.children, delegation{turn: t, call: c, child: child})
			left -= estimate(c) + b.callExtra + 600
		}
		left -= used
		s.turns = append(s.turns, t)
		if left <= 0 {
			break // the budget is spent: end the session early
		}
	}
	return s
}

func (b *builder) buildChild(budget int64) *session {
	saved := b.tk.uniq
	c := b.build(budget, false, 1)
	b.tk.uniq = saved + c.countCallsRaw()
	c.source = "subagent"
	return c
}

func (s *session) countCallsRaw() int {
	n := 0
	for _, t := range s.turns {
		for _, st := range t.steps {
			n += len(st.calls)
		}
	}
	return n
}

func countSteps(s *session) int {
	n := 0
	for _, t := range s.turns {
		n += len(t.steps)
	}
	return n
}

func toolTrace(s *session) []string {
	var out []string
	for _, t := range s.turns {
		for _, st := range t.steps {
			for _, c := range st.calls {
				out = append(out, c.tool)
			}
		}
	}
	return out
}

func (b *builder) nextShape() string {
	sh := Shapes[b.shapeNext%len(Shapes)]
	b.shapeNext++
	if sh == ShapePoll && b.noPoll {
		return b.nextShape()
	}
	return sh
}

func one(c *call) *step { return &step{calls: []*call{c}} }

// plant makes the steps of one loop of the given shape.
func (b *builder) plant(shape string, left int64) ([]*step, *plant) {
	t := b.tk
	p := &plant{shape: shape}
	var steps []*step
	add := func(st *step) {
		steps = append(steps, st)
		p.calls = append(p.calls, st.calls...)
	}
	switch shape {
	case ShapeRepeat:
		n := 3 + b.r.IntN(5)
		size := b.resultSize(left / int64(n))
		var c *call
		switch b.r.IntN(3) {
		case 0:
			c = t.read(t.path(), size)
			if b.r.IntN(2) == 0 {
				c.args = append(c.args, kv{"offset", 1}, kv{"limit", 200})
			}
		case 1:
			c = t.shell("git status --short "+fileDirs[b.r.IntN(len(fileDirs))]+"/"+word(b.r)+itoa(t.next()), t.p.text(b.r, size), 0)
		default:
			if t.h == hNanobot {
				c = t.list(fileDirs[b.r.IntN(len(fileDirs))] + "/" + word(b.r) + itoa(t.next()))
			} else {
				c = t.read(t.path(), size)
			}
		}
		switch b.r.IntN(4) {
		case 0:
			p.variant = "interleaved"
		case 1:
			p.variant = "parallel"
		case 2:
			if len(c.args) > 1 {
				p.variant = "key-order"
			}
		}
		for i := 0; i < n; i++ {
			d := c.clone()
			if p.variant == "key-order" && i%2 == 1 {
				for l, r := 0, len(d.args)-1; l < r; l, r = l+1, r-1 {
					d.args[l], d.args[r] = d.args[r], d.args[l]
				}
			}
			if p.variant == "parallel" && i == 1 {
				steps[0].calls = append(steps[0].calls, d)
				p.calls = append(p.calls, d)
				continue
			}
			add(one(d))
			if p.variant == "interleaved" && i < n-1 {
				steps = append(steps, one(b.background(left/int64(2*n))))
			}
		}
	case ShapeAlternate:
		a := t.read(t.path(), b.resultSize(left/8))
		c := t.search(t.pattern(), fileDirs[b.r.IntN(len(fileDirs))], b.resultSize(left/8))
		for i := 0; i < 2+b.r.IntN(3); i++ {
			add(one(a.clone()))
			add(one(c.clone()))
		}
	case ShapeCycle3:
		a := t.read(t.path(), b.resultSize(left/9))
		c := t.shell(t.command(), t.p.text(b.r, b.resultSize(left/9)), 0)
		d := t.search(t.pattern(), fileDirs[b.r.IntN(len(fileDirs))], b.resultSize(left/9))
		for i := 0; i < 2+b.r.IntN(2); i++ {
			add(one(a.clone()))
			add(one(c.clone()))
			add(one(d.clone()))
		}
	case ShapeFailingRetry:
		n := 3 + b.r.IntN(3)
		var fail, ok *call
		switch b.r.IntN(3) {
		case 0:
			cmd := "npm install --prefix " + fileDirs[b.r.IntN(len(fileDirs))] + " " + word(b.r) + "-" + word(b.r) + "@" + itoa(t.next())
			fail = t.shell(cmd, "npm ERR! network request failed, reason: socket hang up", 1)
			ok = t.shell(cmd, "added 12 packages in 3s", 0)
		case 1:
			u := t.url()
			fail = t.fetchFail(u)
			ok = t.webFetch(u, b.resultSize(left/4))
		default:
			path := t.path()
			fail = t.missing(path)
			ok = nil // a missing file stays missing
		}
		if ok != nil {
			ok.args = fail.args // the retry is the very same call
		}
		p.variant = "all-fail"
		succeed := ok != nil && b.r.IntN(5) < 2
		for i := 0; i < n; i++ {
			if i == n-1 && succeed {
				add(one(ok.clone()))
				p.variant = "last-succeeds"
				continue
			}
			add(one(fail.clone()))
		}
	case ShapePoll:
		job := "proc_" + randString(b.r, "0123456789abcdef", 12)
		cmd := "make build TARGET=" + word(b.r) + itoa(t.next())
		add(one(t.startJob(cmd, job)))
		n := 3 + b.r.IntN(6)
		out := ""
		for i := 1; i <= n; i++ {
			out += "[" + itoa(i*15) + "s] " + t.p.lines[b.r.IntN(len(t.p.lines))] + "\n"
			add(one(t.pollJob(job, i, i == n, strings.TrimRight(out, "\n"))))
		}
	case ShapeRereadWrite:
		path := t.path()
		var lines []string
		for i := 0; i < 4+b.r.IntN(30); i++ {
			lines = append(lines, t.p.lines[b.r.IntN(len(t.p.lines))])
		}
		add(one(t.readContent(path, lines)))
		k := b.r.IntN(len(lines))
		old := lines[k]
		newLine := old + " // " + word(b.r) + " fixed"
		lines2 := append([]string(nil), lines...)
		lines2[k] = newLine
		add(one(t.edit(path, old, newLine, strings.Join(lines2, "\n"))))
		add(one(t.readContent(path, lines2)))
		if b.r.IntN(2) == 0 {
			p.variant = "then-reread-unchanged"
			add(one(t.readContent(path, lines2)))
		}
	case ShapeSearchRepeat:
		n := 2 + b.r.IntN(4)
		c := t.search(t.pattern(), fileDirs[b.r.IntN(len(fileDirs))], b.resultSize(left/int64(n+1)))
		for i := 0; i < n; i++ {
			add(one(c.clone()))
		}
	case ShapeWebRepeat:
		p.fold = true
		n := 3 + b.r.IntN(2)
		var base *call
		var field, text string
		if b.r.IntN(2) == 0 || t.h == hHermes {
			text = t.query()
			base = t.webSearch(text, b.resultSize(left/int64(n+1)))
			field = "query"
		} else {
			text = t.url()
			base = t.webFetch(text, b.resultSize(left/int64(n+1)))
			field = "url"
		}
		variants := []string{text, recase(text), "  " + text + " ", text + "  "}
		if b.r.IntN(2) == 0 {
			p.variant = "with-exact-repeat"
			variants[2] = text
		}
		for i := 0; i < n; i++ {
			d := base.clone()
			v := variants[i%len(variants)]
			for j := range d.args {
				if d.args[j].k == field {
					d.args[j].v = v
				}
			}
			if t.h == hNanobot && field == "query" {
				// nanobot's web_search result echoes the query as sent
				d.result = "Results for: " + v + strings.TrimPrefix(base.result, "Results for: "+text)
			}
			add(one(d))
		}
	}
	return steps, p
}

// recase changes only the case of s: lower case when it has capitals, else
// a capital after every separator ("Https://Docs.Example.Com/...").
func recase(s string) string {
	if l := strings.ToLower(s); l != s {
		return l
	}
	b := []byte(s)
	up := true
	for i, c := range b {
		if up && c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
		up = c == ' ' || c == '/' || c == '.' || c == '-' || c == ':'
	}
	return string(b)
}
