package guard

import "github.com/loopgate/loopgate/rules"

// What guards of the same rules reuse: what they work out from the rules
// (ruleCache), and the memory of a guard that is done, for the next one.
// Replay builds one guard per session, often under one unchanging rules.

// ruleCache is what a guard works out from its rules alone, kept for the
// next guard of the same rules (one goroutine at a time), and the memory
// of the latest guard that is done (spare: Release). A replay that runs
// many sessions under one rules builds its guards with ruleCache.NewGuard
// and hands each back with Release; NewGuard alone is the simple way.
type ruleCache struct {
	r      *rules.Rules
	eff    map[effKey]*effective
	roleOf map[string]uint8
	spare  *Guard
}

// newRuleCache returns an empty cache for guards of the rules r, which
// must not change while the cache is in use.
func newRuleCache(r *rules.Rules) *ruleCache {
	return &ruleCache{r: r, eff: map[effKey]*effective{}, roleOf: map[string]uint8{}}
}

// maxRuleCache bounds the (detector, tool) entries a ruleCache keeps
// (tool names are the transcripts' own).
const maxRuleCache = 1 << 14

// Serves reports whether the cache may build guards of the rules r: it is
// r's (the very rules, not equal ones) and has not grown past its bounds.
// A nil cache serves nothing.
func (rc *ruleCache) Serves(r *rules.Rules) bool {
	return rc != nil && rc.r == r && len(rc.eff) <= maxRuleCache && len(rc.roleOf) <= maxRuleCache
}

// maxSpareKeys bounds the key tables a spare guard keeps (Release).
const maxSpareKeys = 1 << 16

// NewGuard returns a Guard running the cache's rules, numbering keys with
// ki, which must serve the rules (keyIndex.Serves), and sharing what the
// guards before it worked out; the keys ki already holds size the guard's
// tables. It takes the memory of the guard last released, if any.
func (rc *ruleCache) NewGuard(ki *keyIndex) *Guard {
	g := rc.spare
	rc.spare = nil
	if g == nil {
		g = &Guard{}
	}
	g.renew(rc.r, ki, rc)
	return g
}

// Release hands the guard's memory to the next guard of rc (NewGuard): a
// replay builds one guard per session, and each grew its tables from
// nothing. The guard is emptied now, so that it holds nothing of its
// session, and must not be used again.
func (rc *ruleCache) Release(g *Guard) {
	if rc.r != g.r || cap(g.epoch) > maxSpareKeys {
		return
	}
	g.renew(g.r, nil, rc)
	rc.spare = g
}

// renew puts g in the state of a new guard, keeping its tables' memory
// (zeroed). ki nil: no keys (Release).
func (g *Guard) renew(r *rules.Rules, ki *keyIndex, rc *ruleCache) {
	size := 0
	if ki != nil {
		size = len(ki.m)
	}
	// A literal: nothing of the old state survives but the tables' memory.
	*g = Guard{
		r:         r,
		ki:        ki,
		egen:      1,
		lastKid:   -1,
		epoch:     reuse(g.epoch, size),
		inflight:  reuse(g.inflight, 0),
		eff:       rc.eff,
		roleOf:    rc.roleOf,
		readers:   reuse(g.readers, 0),
		clearing:  reuse(g.clearing, 0),
		actReach:  reuse(g.actReach, 0),
		toolRole:  reuse(g.toolRole, 0),
		readerPos: reuse(g.readerPos, 0),
		touched:   reuse(g.touched, 0),
		inTouched: reuse(g.inTouched, 0),
		plainTool: reuse(g.plainTool, 0),
		plainBuf:  g.plainBuf[:0],
		dets:      g.dets,
	}
	g.plain = usesPlainKeys(r)
	w := &r.Scope.WriteClearsReads
	g.byPath = r.InvalidatesByPath()
	g.clearsReads = len(w.Readers) > 0 && (len(w.Writers) > 0 || len(w.ClearAll) > 0 || g.byPath)
	if g.clearsReads {
		g.readerPos = reuse(g.readerPos, size)
	}
	g.dets = buildDetectors(g, r, size, g.dets)
	g.turnClearsAll = true
	for _, d := range g.dets {
		if !d.resetsOnTurn() {
			g.turnClearsAll = false
		}
	}
}
