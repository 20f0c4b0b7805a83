package guard

import (
	"strconv"

	"github.com/loopgate/loopgate/internal/snapbin"
	"github.com/loopgate/loopgate/rules"
)

// The dedup detector (rules: detectors.dedup) does not run an identical
// call from dedup_at on: the earlier result is returned instead ({result}
// in its message). A write that clears reads (scope.write_clears_reads)
// also drops their kept results. ignore_failures keeps no failed result
// to answer from, except (answer_missing) a failure saying that the path
// the call names does not exist; unless_args leaves alone the calls that
// give any of those arguments (Qwen Code answers whole-file reads only).
//
// pointer_within: when the earlier result is still in the model's context
// (it entered it fewer than that many tokens ago, and no compaction came
// between), the answer is pointer_message, which points at it instead of
// repeating it. The tokens since are estimated from what the guard sees
// pass: the results of the calls since, and the answers it gave instead
// of results, at bytesPerToken bytes a token (the arguments are left out:
// an agent's hook and its transcript may write them differently, and the
// hook must decide as a replay of the transcript does). A session's
// whole context is at least that long, so a session shorter than the
// threshold always gets the pointer, and a long one gets the result again
// once the earlier one lies far back, where an agent may have dropped it
// (docs/rules.md, "dedup"). max_result_bytes bounds what is kept of a
// result: a longer one can be pointed at but not repeated.

// bytesPerToken is the guard's estimate of a token's size: the guard knows
// no tokenizer, and 4 bytes a token is the usual figure for English text
// and code.
const bytesPerToken = 4

// dedupDet answers an identical call from the earlier result.
type dedupDet struct {
	base
	cfg *dedupSettings
	gen uint32
	ent []dedupEnt
	// pos is the bytes that entered the model's context through calls
	// since the session started, and compactions the compactions seen: an
	// entry's at and cgen are their values when its result last entered
	// the context.
	pos         int64
	compactions uint32
}

var _ = register(rules.Detector[dedupSettings]{
	Name: "dedup", Rank: 10, Place: 70,
	Overrides:       []string{"off", "block_message"},
	ReadsResultText: true,
	Defaults: func(p *dedupSettings) {
		p.DedupAt = 2
		p.Message = "{result}"
		p.PointerMessage = "{tool}: not run: this exact call already ran and nothing has changed since; its result is above in your context. Use it."
	},
	Check: func(c rules.Check, at string, p *dedupSettings) error {
		if p.DedupAt < 2 {
			return c.Fail(at+".dedup_at", "%s.dedup_at must be 2 or more (the first call has no earlier result), not %d", at, p.DedupAt)
		}
		if p.PointerWithin < 0 {
			return c.Fail(at+".pointer_within", "%s.pointer_within must be 0 (never a pointer) or a number of tokens, not %d", at, p.PointerWithin)
		}
		if p.MaxResultBytes < 0 {
			return c.Fail(at+".max_result_bytes", "%s.max_result_bytes must be 0 (no bound) or a number of bytes, not %d", at, p.MaxResultBytes)
		}
		return c.Selectors(at+".answer_missing", p.AnswerMissing)
	},
}, newDedup)

// dedupSettings are detectors.dedup's keys (docs/rules.md). The detector
// answers an identical call from the earlier result instead of running it.
type dedupSettings struct {
	Enabled bool     `yaml:"enabled"`
	Reset   string   `yaml:"reset"`
	Only    []string `yaml:"only,flow"`
	Except  []string `yaml:"except,flow"`
	// DedupAt is the call ordinal from which identical calls are deduped
	// (2 = every repeat).
	DedupAt int `yaml:"dedup_at"`
	// Message is returned instead of running the call ({result} is the
	// earlier result).
	Message string `yaml:"message"`
	// PointerWithin: an earlier result that entered the model's context
	// fewer than this many tokens ago, with no compaction since, is
	// pointed at (PointerMessage) instead of repeated (Message). 0: never.
	PointerWithin int `yaml:"pointer_within"`
	// PointerMessage is returned instead of running the call when the
	// earlier result is still in the model's context ({tokens_since}: the
	// estimate of the tokens since it entered it).
	PointerMessage string `yaml:"pointer_message"`
	// MaxResultBytes: a longer result is not kept (only that there was
	// one): it can be pointed at, never repeated. 0: no bound.
	MaxResultBytes int `yaml:"max_result_bytes"`
	// IgnoreFailures: a failed call leaves nothing to answer from (Claude
	// Code and Qwen Code record a read only when it succeeded).
	IgnoreFailures bool `yaml:"ignore_failures"`
	// AnswerMissing: a failed call of these tools whose failure stays
	// until something changes (saysStable: the path it names does not
	// exist, the call cannot run as written, a reading command found
	// nothing) is kept even under IgnoreFailures: a missing file stays
	// missing until something creates it, and what may create it clears
	// the call like any write.
	AnswerMissing []string `yaml:"answer_missing,flow"`
	// UnlessArgs: calls that give any of these arguments are left alone,
	// neither answered nor remembered (Qwen Code answers only whole-file
	// reads: no offset, limit or pages).
	UnlessArgs []string `yaml:"unless_args,flow"`
}

// newDedup builds the detector when the rules enable it (detectors).
func newDedup(b build) detector {
	cfg, _ := b.r.Detectors["dedup"].(*dedupSettings)
	if cfg == nil || !cfg.Enabled {
		return nil
	}
	d := recycled[dedupDet](b.old)
	*d = dedupDet{base: d.renew(b.g, b.resetsOnTurn(cfg.Reset)), cfg: cfg, gen: 1, ent: reuse(d.ent, b.size)}
	return d
}

// dedupEnt is how often a key was seen (valid while sgen is the gen) and
// its first result (while rgen is): its text (unless it was longer than
// max_result_bytes: big), its hash, and where it last entered the model's
// context (at, cgen: the detector's pos and compactions then).
type dedupEnt struct {
	sgen, rgen uint32
	n          int
	res        string
	big        bool
	// from, when not nil, is the call whose result res stands for: its
	// Result held only the head, and the whole is read when needed
	// (Guard.SetResultSource).
	from *CallEvent
	hash uint64
	at   int64
	cgen uint32
}

func (d *dedupDet) eff(c *callCtx) *effective {
	if e := d.cachedEff(c); e != nil {
		return e
	}
	return d.effOf(c, "dedup", effective{blockAt: d.cfg.DedupAt, blockMsg: d.cfg.Message}, d.cfg.Only, d.cfg.Except)
}

// skips reports whether the call gives one of the unless_args.
func (d *dedupDet) skips(c *callCtx) bool {
	if len(d.cfg.UnlessArgs) == 0 {
		return false
	}
	args := c.ev.arguments()
	for _, a := range d.cfg.UnlessArgs {
		if _, ok := args.Get(a); ok {
			return true
		}
	}
	return false
}

// missing reports whether a failed call is kept all the same: a tool of
// answer_missing whose failure stays until something changes (saysStable:
// the path does not exist, the call cannot run as written, or a reading
// command found nothing).
func (d *dedupDet) missing(c *callCtx) bool {
	return len(d.cfg.AnswerMissing) > 0 && d.g.r.MatchesAny(d.cfg.AnswerMissing, c.ev.ClassName()) && saysStable(c.ev, d.g.r.MatchesAny(shellClass, c.ev.ClassName()))
}

// inContext reports whether the entry's result is still in the model's
// context by the rules' pointer_within, and the tokens since it entered.
func (d *dedupDet) inContext(p *dedupEnt) (bool, int64) {
	since := (d.pos - p.at) / bytesPerToken
	return d.cfg.PointerWithin > 0 && p.cgen == d.compactions && since < int64(d.cfg.PointerWithin), since
}

func (d *dedupDet) before(c *callCtx) Verdict {
	if !c.hasKey || c.acts || c.volatile {
		return Verdict{}
	}
	e := d.eff(c)
	if !e.on || d.skips(c) {
		return Verdict{}
	}
	d.ent = grow(d.ent, c.kid)
	p := &d.ent[c.kid]
	n := 1
	if p.sgen == d.gen {
		n += p.n
	}
	if p.rgen != d.gen || n < e.blockAt {
		return Verdict{}
	}
	if in, since := d.inContext(p); in {
		return d.verdict(Dedup, "dedup", n, d.cfg.PointerMessage, c, map[string]string{"tokens_since": strconv.FormatInt(since, 10)})
	}
	if p.big {
		// Too long to have been kept, and too far back to point at.
		return Verdict{}
	}
	return d.verdict(Dedup, "dedup", n, e.blockMsg, c, map[string]string{"result": d.text(p)})
}

func (d *dedupDet) commit(c *callCtx, final Verdict) {
	if final.Action.Stops() {
		// What the model gets instead of the result.
		d.pos += int64(len(final.Message))
	}
	if c.hasKey && !c.acts && !c.volatile && d.eff(c).on && !d.skips(c) {
		d.ent = grow(d.ent, c.kid)
		p := &d.ent[c.kid]
		if p.sgen != d.gen {
			p.sgen, p.n = d.gen, 0
		}
		p.n++
		if final.Action == Dedup && final.Detector == "dedup" && p.rgen == d.gen {
			if in, _ := d.inContext(p); !in {
				// The answer repeated the result: it is in the context
				// again from here.
				p.at, p.cgen = d.pos, d.compactions
			}
		}
	}
}

func (d *dedupDet) after(c *callCtx, before Verdict) Verdict {
	if before.Action.Stops() || c.ev.NoResult {
		// A call that returned nothing (interrupted) is no source to
		// answer from: the model re-issuing it needs it to run. The other
		// detectors still count it as the agent's own guard would (Cline's
		// ask_followup_question, answered by the user's next message, has
		// no result in its transcript and is a call that succeeded).
		return Verdict{}
	}
	size := max(len(c.ev.Result), c.ev.ResultBytes)
	d.pos += int64(size)
	if c.hasKey && !c.acts && !c.volatile && d.eff(c).on && !(c.failed && d.cfg.IgnoreFailures && !d.missing(c)) && !d.skips(c) {
		d.ent = grow(d.ent, c.kid)
		p := &d.ent[c.kid]
		switch {
		case p.rgen != d.gen:
			p.rgen, p.hash, p.at, p.cgen = d.gen, c.hash, d.pos, d.compactions
			p.res, p.big, p.from = c.ev.Result, false, nil
			switch m := d.cfg.MaxResultBytes; {
			case m > 0 && size > m:
				p.res, p.big = "", true
			case size > len(c.ev.Result) && d.g.wholeResult != nil:
				// Only the head is held: the whole is read if it is
				// answered with (most results never are).
				p.res, p.from = "", c.ev
			}
		case p.hash == c.hash:
			// The same result entered the context again.
			p.at, p.cgen = d.pos, d.compactions
		}
	}
	return Verdict{}
}

// text is the result an entry answers with.
func (d *dedupDet) text(p *dedupEnt) string {
	if p.from != nil {
		return d.g.wholeResult(p.from)
	}
	return p.res
}

// ResultTextBound is the longest result whose text the rules' detectors
// read: a caller that keeps results between calls (the live hook's log)
// need keep no longer one, only its length (CallEvent.ResultBytes). 0: no
// bound (a detector may read any result's text). Only dedup reads result
// texts (rules: ReadsResultText), and with max_result_bytes it keeps none
// longer.
func ResultTextBound(r *Rules) int {
	cfg, _ := r.Detectors["dedup"].(*dedupSettings)
	if cfg == nil || !cfg.Enabled {
		return 0
	}
	return cfg.MaxResultBytes
}

// compacted: the results before a compaction are no longer in the model's
// context as they were, so none is pointed at.
func (d *dedupDet) compacted() { d.compactions++ }

func (d *dedupDet) reset() { d.gen++ }

func (d *dedupDet) clearKeys(keys []int32) {
	for _, k := range keys {
		if int(k) < len(d.ent) {
			d.ent[k].sgen, d.ent[k].rgen = 0, 0
		}
	}
}

func (d *dedupDet) save(w *snapbin.Writer) {
	w.Uint(uint64(d.gen))
	w.Int(d.pos)
	w.Uint(uint64(d.compactions))
	saveSlice(w, d.ent, func(w *snapbin.Writer, e *dedupEnt) {
		w.Uint(uint64(e.sgen))
		w.Uint(uint64(e.rgen))
		w.Int(int64(e.n))
		w.String(d.text(e))
		w.Bool(e.big)
		w.Word(e.hash)
		w.Int(e.at)
		w.Uint(uint64(e.cgen))
	})
}

func (d *dedupDet) load(r *snapbin.Reader) {
	d.gen = r.Uint32()
	d.pos = r.Int()
	d.compactions = r.Uint32()
	d.ent = loadSlice(r, func(r *snapbin.Reader, e *dedupEnt) {
		*e = dedupEnt{sgen: r.Uint32(), rgen: r.Uint32(), n: int(r.Int()), res: r.String(), big: r.Bool(),
			hash: r.Word(), at: r.Int(), cgen: r.Uint32()}
	})
}
