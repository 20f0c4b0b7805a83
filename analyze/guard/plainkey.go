package guard

// The plain key of a call: its key without the per-tool key.tools entries
// (every argument as written, after key.style, numbers, ignore and fold).
// A detector with key: plain counts calls by it. hermes keys read_file on
// (path, offset, limit) with its defaults filled in for its read/search
// guard (tools/file_tools.py), while tool_guardrails hashes the arguments
// as the model wrote them (agent/tool_guardrails.py): read_file {path} and
// {path, offset: 1} are one read to the first and two calls to the second.

// maxPlainBuf is the largest plain-key buffer a guard keeps between calls.
const maxPlainBuf = 64 << 10

// plainKey sets c.pkid and c.hasPlain when a detector of the guard keys
// calls plainly. For a tool without a key.tools entry the plain key is the
// call's key, so its index is reused; otherwise the plain key is built and
// numbered in the guard's keyIndex beside the keys (the texts never meet:
// a detector counts by one kind of key only).
func (g *Guard) plainKey(c *callCtx) {
	if !g.plain {
		return
	}
	ev := c.ev
	g.plainTool = grow(g.plainTool, c.tid)
	m := &g.plainTool[c.tid]
	if *m == 0 {
		*m = 1
		if toolKeyFor(g.r, ev.Tool) != nil {
			*m = 2
		}
	}
	if *m == 1 {
		c.pkid, c.hasPlain = c.kid, c.hasKey
		return
	}
	args := ev.arguments() // first: it sets ArgsOK false when ArgsRaw is not JSON
	full, ok := appendCallKeyWith(g.r, g.plainBuf[:0], nil, ev.Tool, args, ev.ArgsOK, ev.ArgsRaw)
	g.plainBuf = full[:0]
	if cap(full) > maxPlainBuf {
		g.plainBuf = nil
	}
	c.pkid, c.hasPlain = -1, ok
	if ok {
		c.pkid = g.ki.intern(compactKeyBytes(full, g.ki.portable))
	}
}

// keyOf returns the call's key index and whether it has one, plain or
// under the rules' key section as the detector's key setting says.
func (c *callCtx) keyOf(plain bool) (int32, bool) {
	if plain {
		return c.pkid, c.hasPlain
	}
	return c.kid, c.hasKey
}
