package guard

import (
	"cmp"
	"regexp"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// The content_loop detector (rules: detectors.content_loop) watches the
// model's streamed text, fed piece by piece with Guard.Text, for a chunk
// repeating close together: Gemini CLI's content loop (loopDetectionService.ts
// checkContentLoop, analyzeContentChunksForLoop, isLoopDetectedForChunk).
// Every window of chunk characters (sliding by one) is tracked; when one
// has been seen threshold times, the latest threshold occurrences are at
// most spacing chunks apart on average, and the texts between them take at
// most max_periods distinct values, it is a detection. A piece holding a
// code fence, table, list item, heading or blockquote restarts the
// tracking; text inside a code block and divider lines are skipped; a tool
// call restarts it too. Characters are UTF-16 code units, as JavaScript
// counts them. Thresholds count detections in the scope.
//
// A transcript's call stream does not carry the model's text, so replay
// does not feed this detector; the live hook and embedders can.

// The element tests of checkContentLoop, written as Gemini CLI writes them
// (the list item class [*-+] is the range from * to +, and the divider
// class [+-_=*...] the range from + to _, as in JavaScript). Compiled at
// first use: most processes (a hook call under rules without this
// detector, every replay) never feed it text.
var contentPatterns = sync.OnceValue(func() (p struct{ table, listItem, numbered, heading, blockquote, divider *regexp.Regexp }) {
	p.table = regexp.MustCompile(`(^|\n)\s*(\|.*\||[|+-]{3,})`)
	p.listItem = regexp.MustCompile(`(^|\n)\s*[*-+]\s`)
	p.numbered = regexp.MustCompile(`(^|\n)\s*\d+\.\s`)
	p.heading = regexp.MustCompile(`(^|\n)#+\s`)
	p.blockquote = regexp.MustCompile(`(^|\n)>\s`)
	p.divider = regexp.MustCompile(`^[+-_=*\x{2500}-\x{257F}]+$`)
	return p
})

type contentLoopDet struct {
	base
	cfg *contentLoopSettings
	// history is the tracked text; stats the positions of each chunk in
	// it; next the next position to look at.
	history []uint16
	stats   map[string][]int
	next    int
	inCode  bool
	hits    int
}

var _ = register(rules.Detector[contentLoopSettings]{
	Name: "content_loop", Rank: 140, Place: 130,
	Overrides: overOff,
	ReadsText: true,
	Defaults: func(p *contentLoopSettings) {
		p.Chunk, p.Threshold, p.Spacing, p.MaxPeriods, p.History = 50, 10, 5, 5, 5000
		p.SteerMessage = "The response repeats the same text over and over. Stop, and take a different approach."
		p.HaltMessage = "Stopped: the response repeats the same text over and over."
	},
	Check: func(c rules.Check, at string, p *contentLoopSettings) error {
		if p.Chunk < 1 || p.Chunk > 10000 {
			return c.Fail(at+".chunk", "%s.chunk must be between 1 and 10000 characters, not %d", at, p.Chunk)
		}
		if p.Threshold < 2 {
			return c.Fail(at+".threshold", "%s.threshold must be 2 or more (one chunk is no repeat), not %d", at, p.Threshold)
		}
		if p.History < p.Chunk || p.History > 1000000 {
			return c.Fail(at+".history", "%s.history must be at least the chunk (%d) and at most 1000000 characters, not %d", at, p.Chunk, p.History)
		}
		return c.SteerBelowHalt(at, p.SteerAt, p.HaltAt)
	},
}, newContentLoop)

// contentLoopSettings are detectors.content_loop's keys (docs/rules.md).
// The detector watches the model's streamed text (Guard.Text) for a chunk
// repeating close together (Gemini CLI's content loop): a chunk of Chunk
// characters seen Threshold times, the latest Threshold occurrences at most
// Spacing chunks apart on average, with at most MaxPeriods distinct texts
// between them. Code blocks are skipped; tables, list items, headings,
// blockquotes and dividers restart the tracking, and so does a tool call.
// Thresholds count detections in the scope.
type contentLoopSettings struct {
	Enabled      bool     `yaml:"enabled"`
	Reset        string   `yaml:"reset"`
	Only         []string `yaml:"only,flow"`
	Except       []string `yaml:"except,flow"`
	Chunk        int      `yaml:"chunk"`
	Threshold    int      `yaml:"threshold"`
	Spacing      int      `yaml:"spacing"`
	MaxPeriods   int      `yaml:"max_periods"`
	History      int      `yaml:"history"`
	SteerAt      int      `yaml:"steer_at"`
	HaltAt       int      `yaml:"halt_at"`
	SteerMessage string   `yaml:"steer_message"`
	HaltMessage  string   `yaml:"halt_message"`
}

// newContentLoop builds the detector when the rules enable it (detectors).
func newContentLoop(b build) detector {
	cfg, _ := b.r.Detectors["content_loop"].(*contentLoopSettings)
	if cfg == nil || !cfg.Enabled {
		return nil
	}
	d := recycled[contentLoopDet](b.old)
	*d = contentLoopDet{base: d.renew(b.g, b.resetsOnTurn(cfg.Reset)), cfg: cfg, history: d.history[:0], stats: renewMap(d.stats)}
	return d
}

// restart forgets the tracked text (resetContentTracking); whether a code
// block is open is kept.
func (d *contentLoopDet) restart() {
	d.history = d.history[:0]
	clear(d.stats)
	d.next = 0
}

// before: a tool call ends the stream of text ("content chanting only
// happens in one single stream").
func (d *contentLoopDet) before(*callCtx) Verdict {
	return Verdict{}
}

func (d *contentLoopDet) commit(*callCtx, Verdict) { d.restart() }

// text takes a piece of the model's streamed text.
func (d *contentLoopDet) text(piece string) Verdict {
	fences := strings.Count(piece, "```")
	p := contentPatterns()
	divider := p.divider.MatchString(piece)
	if fences > 0 || p.table.MatchString(piece) || p.listItem.MatchString(piece) || p.numbered.MatchString(piece) ||
		p.heading.MatchString(piece) || p.blockquote.MatchString(piece) || divider {
		d.restart()
	}
	was := d.inCode
	if fences%2 == 1 {
		d.inCode = !d.inCode
	}
	if was || d.inCode || divider {
		return Verdict{}
	}
	d.history = append(d.history, utf16.Encode([]rune(piece))...)
	d.truncate()
	if !d.scan() {
		return Verdict{}
	}
	d.hits++
	c := &callCtx{ev: &CallEvent{}}
	// {excerpt}: the text around the repeating chunk, as Gemini CLI quotes
	// it in its feedback.
	from, to := max(0, d.next-20), min(len(d.history), d.next+d.cfg.Chunk)
	extra := map[string]string{"excerpt": strings.TrimSpace(string(utf16.Decode(d.history[from:to])))}
	switch {
	case d.cfg.HaltAt > 0 && d.hits >= d.cfg.HaltAt:
		return d.verdict(Halt, "content_loop", d.hits, d.cfg.HaltMessage, c, extra)
	case d.cfg.SteerAt > 0 && d.hits >= d.cfg.SteerAt:
		return d.verdict(Steer, "content_loop", d.hits, d.cfg.SteerMessage, c, extra)
	}
	return Verdict{}
}

// truncate keeps the latest history characters, moving the positions.
func (d *contentLoopDet) truncate() {
	cut := len(d.history) - d.cfg.History
	if cut <= 0 {
		return
	}
	d.history = append(d.history[:0], d.history[cut:]...)
	d.next = max(0, d.next-cut)
	for k, at := range d.stats {
		kept := at[:0]
		for _, i := range at {
			if i-cut >= 0 {
				kept = append(kept, i-cut)
			}
		}
		if len(kept) > 0 {
			d.stats[k] = kept
		} else {
			delete(d.stats, k)
		}
	}
}

// scan looks at every new chunk position; true at a detection.
func (d *contentLoopDet) scan() bool {
	n := d.cfg.Chunk
	for d.next+n <= len(d.history) {
		if d.loopAt(d.next) {
			return true
		}
		d.next++
	}
	return false
}

// loopAt records the chunk at position i and reports whether it makes a
// loop.
func (d *contentLoopDet) loopAt(i int) bool {
	n, t := d.cfg.Chunk, d.cfg.Threshold
	key := string(utf16.Decode(d.history[i : i+n]))
	at, seen := d.stats[key]
	if !seen {
		d.stats[key] = []int{i}
		return false
	}
	at = append(at, i)
	d.stats[key] = at
	if len(at) < t {
		return false
	}
	recent := at[len(at)-t:]
	if float64(recent[t-1]-recent[0])/float64(t-1) > float64(d.cfg.Spacing*n) {
		return false
	}
	if d.cfg.MaxPeriods > 0 {
		periods := map[string]bool{}
		for j := 0; j+1 < len(recent); j++ {
			periods[string(utf16.Decode(d.history[recent[j]:recent[j+1]]))] = true
		}
		if len(periods) > d.cfg.MaxPeriods {
			return false
		}
	}
	return true
}

func (d *contentLoopDet) reset() {
	d.restart()
	d.inCode = false
	d.hits = 0
}

func (d *contentLoopDet) save(w *snapbin.Writer) {
	w.String(string(utf16.Decode(d.history)))
	saveMap(w, d.stats, cmp.Compare[string], func(w *snapbin.Writer, k string, at []int) {
		w.String(k)
		w.Uint(uint64(len(at)))
		for _, i := range at {
			w.Int(int64(i))
		}
	})
	w.Int(int64(d.next))
	w.Bool(d.inCode)
	w.Int(int64(d.hits))
}

func (d *contentLoopDet) load(r *snapbin.Reader) {
	d.history = utf16.Encode([]rune(r.String()))
	clear(d.stats)
	for range r.Len() {
		k := r.String()
		at := make([]int, r.Len())
		for i := range at {
			at[i] = int(r.Int())
		}
		d.stats[k] = at
	}
	d.next = int(r.Int())
	d.inCode = r.Bool()
	d.hits = int(r.Int())
}
