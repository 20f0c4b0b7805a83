package guard

import "github.com/loopgate/loopgate/internal/jsonx"

// topArgs reads members of a call's arguments for what the call does
// (callEffect): a shell call's command and working directory, a file
// tool's path. Arguments a replay left unparsed (CallEvent.argsPending:
// valid compact JSON) are read at their top level and only the members
// asked for are parsed; parsing every file and shell call's arguments
// whole, their contents and edits included, was a large part of the
// guard's time (docs/performance.md, "Goal 1 this round"). Any other
// arguments are read through CallEvent.arguments, as before, with its
// effects (ArgsOK set false when ArgsRaw is not JSON).
type topArgs struct {
	ev *CallEvent
	// top holds the n members read at the top level (a count, not a
	// slice of top: a topArgs that points into itself escapes to the
	// heap).
	top    [topArgsMembers]jsonx.RawMember
	n      int
	parsed bool // read through ev.arguments
}

// topArgsMembers is how many members arguments may have to be read at
// their top level: a tool's arguments have a few; more are parsed whole.
const topArgsMembers = 12

// use sets t to read ev's arguments, unless it reads them already.
func (t *topArgs) use(ev *CallEvent) {
	if t.ev != ev {
		t.read(ev)
	}
}

// read sets t to read ev's arguments.
func (t *topArgs) read(ev *CallEvent) {
	t.ev, t.n, t.parsed = ev, 0, true
	if ev.args == nil && ev.argsPending {
		if top, ok := jsonx.TopMembers(ev.ArgsRaw, t.top[:]); ok {
			t.n, t.parsed = len(top), false
			return
		}
	}
	ev.arguments()
}

// isObject reports whether the arguments are a JSON object.
func (t *topArgs) isObject() bool {
	if t.parsed {
		return t.ev.arguments().Kind == jsonx.Object
	}
	return true // TopMembers reads objects only
}

// get returns the member name as ev.arguments().Get(name) would.
func (t *topArgs) get(name string) (jsonx.Value, bool) {
	if !t.parsed {
		for i := range t.n {
			if t.top[i].Key == name {
				if v, err := jsonx.ParseMemberShared(t.top[i].Val); err == nil {
					return v, true
				}
				// Not seen with valid arguments: the whole parse decides.
				t.parsed = true
				break
			}
		}
		if !t.parsed {
			return jsonx.Value{}, false
		}
	}
	return t.ev.arguments().Get(name)
}

// getString returns the member name when it is a string, as
// ev.arguments().GetString(name) would.
func (t *topArgs) getString(name string) (string, bool) {
	if v, ok := t.get(name); ok && v.Kind == jsonx.String {
		return v.Str, true
	}
	return "", false
}
