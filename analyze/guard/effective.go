package guard

import "github.com/loopgate/loopgate/rules"

// A detector's thresholds and messages for one tool, after the rules'
// tool entries (class, alias, exact name) and overrides are applied.

type effKey struct{ det, tool string }

// effective is a detector's thresholds and messages for one tool, after
// the tool entries (class, alias, exact name) are applied.
type effective struct {
	on                          bool
	steerAt, blockAt, haltAt    int
	steerMsg, blockMsg, haltMsg string
}

// resolve returns the effective settings of detector det for a tool.
func (g *Guard) resolve(det string, base effective, only, except []string, tool string) *effective {
	k := effKey{det, tool}
	if e, ok := g.eff[k]; ok {
		return e
	}
	e := base
	e.on = g.r.Selects(only, except, tool)
	entries := g.r.ToolEntry(tool)
	shorthand := rules.SetsByShorthand(det)
	// Most specific last, so that it wins.
	for i := len(entries) - 1; i >= 0; i-- {
		t := entries[i]
		if t.Off {
			e.on = false
		}
		if shorthand {
			if t.SteerAt != nil {
				e.steerAt = *t.SteerAt
			}
			if t.BlockAt != nil {
				e.blockAt = *t.BlockAt
			}
		}
		o := t.Override(det)
		if o == nil {
			continue
		}
		if o.Off != nil {
			e.on = !*o.Off
		}
		setInt(&e.steerAt, o.SteerAt)
		setInt(&e.blockAt, o.BlockAt)
		setInt(&e.haltAt, o.HaltAt)
		setStr(&e.steerMsg, o.SteerMessage)
		setStr(&e.blockMsg, o.BlockMessage)
		setStr(&e.haltMsg, o.HaltMessage)
	}
	g.eff[k] = &e
	return &e
}

// cachedEff is effOf's answer when the call's tool is resolved already,
// else nil: the detectors ask it first, since building effOf's default
// settings for every call (a struct of six fields) costs more than the
// lookup itself. It is small enough to be inlined.
func (b *base) cachedEff(c *callCtx) *effective {
	if int(c.tid) < len(b.effs) {
		return b.effs[c.tid]
	}
	return nil
}

// effOf returns the detector's effective settings for the call's tool,
// resolved once per tool index (the guard's resolve keeps one per tool
// name for every detector).
func (b *base) effOf(c *callCtx, det string, base effective, only, except []string) *effective {
	if int(c.tid) < len(b.effs) {
		if e := b.effs[c.tid]; e != nil {
			return e
		}
	}
	e := b.g.resolve(det, base, only, except, c.ev.ClassName())
	b.effs = grow(b.effs, c.tid)
	b.effs[c.tid] = e
	return e
}

func setInt(dst *int, src *int) {
	if src != nil {
		*dst = *src
	}
}

func setStr(dst *string, src *string) {
	if src != nil {
		*dst = *src
	}
}
