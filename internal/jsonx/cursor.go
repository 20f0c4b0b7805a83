package jsonx

// Cursor walks a JSON document one token at a time, checking its syntax as
// it goes, so that a reader can decode the parts it wants where they lie
// (DecodeObjectNested at Pos) and skip the rest, in one pass over the bytes,
// instead of splitting the document first (SplitObject, SplitArray: a
// pass each) and decoding the pieces after (another). Every method
// returns ok false on a syntax error; after that the Cursor's position is
// meaningless and the caller falls back to a reader that reports errors.
type Cursor struct {
	p parser
}

// NewCursor returns a Cursor at the start of data.
func NewCursor(data []byte) *Cursor {
	return &Cursor{p: parser{data: data}}
}

// Data is the document the Cursor walks.
func (c *Cursor) Data() []byte { return c.p.data }

// Pos is the index of the next byte to read.
func (c *Cursor) Pos() int { return c.p.pos }

// Seek moves to pos, the end of a value read by other means
// (DecodeObjectNested).
func (c *Cursor) Seek(pos int) { c.p.pos = pos }

// Peek returns the next byte after white space, 0 at the end.
func (c *Cursor) Peek() byte {
	c.p.ws()
	if c.p.pos >= len(c.p.data) {
		return 0
	}
	return c.p.data[c.p.pos]
}

// OpenObject moves past an object's opening brace, and past its closing
// one too when the object is empty.
func (c *Cursor) OpenObject() (empty, ok bool) { return c.p.openObject() }

// Key reads a member's key and the colon after it: the key's raw content
// (escapes and all), and whether it has escapes.
func (c *Cursor) Key() (key []byte, escaped, ok bool) { return c.p.memberKey() }

// Skip moves past one value, checking it, and returns it as a view. The
// value is taken to be one level deep (a member or element of the
// top-level value) for MaxDepth; deeper values are read with
// DecodeArrayEach, DecodeObjectNested and SkipValue, which take a depth.
func (c *Cursor) Skip() (raw []byte, ok bool) {
	c.p.ws()
	start := c.p.pos
	if c.p.skip(1) != nil {
		return nil, false
	}
	return c.p.data[start:c.p.pos:c.p.pos], true
}

// Next moves past what follows a member or element: a comma (more) or
// close, the closing byte of the object or array (not more).
func (c *Cursor) Next(close byte) (more, ok bool) { return c.p.listNext(close) }

// AtEnd reports whether only white space is left.
func (c *Cursor) AtEnd() bool { return c.p.atEnd() }
