package rules

import (
	"reflect"
	"strings"
	"sync"
)

// SessionRules is what ForSession decided for one session.
type SessionRules struct {
	// Rules are the rules to run the session under.
	Rules *Rules
	// Native is true when the session is a transcript of the design's own
	// agent (Native.Formats): tools are named as the design names them.
	Native bool
	// Unattended is true when the unattended rules (Unattended.Rules)
	// apply instead of these.
	Unattended bool
}

// variants caches the rules ForSession derives from one Rules.
type variants struct {
	sync.Mutex
	m map[variantKey]*Rules
}

type variantKey struct{ native, unattended bool }

// ForSession returns the rules for a session of this transcript format
// (ingest's format id, such as "hermes-gateway" or "nanobot") and
// platform (as the transcript names it, "" when it names none): the
// unattended rules when the platform is not attended, and on the design's
// own agent the design's own class table. The derived rules are built once
// and shared: callers must not change them.
func (r *Rules) ForSession(format, platform string) SessionRules {
	r.compileOnce()
	base := r
	unattended := r.isUnattended(platform)
	if unattended {
		if u := r.variant(variantKey{unattended: true}, func() *Rules {
			u, err := Preset(r.Unattended.Rules)
			if err != nil {
				return nil // validate refuses an unknown preset
			}
			return u
		}); u != nil {
			base = u
		} else {
			unattended = false
		}
	}
	if !base.nativeFor(format) {
		return SessionRules{Rules: base, Unattended: unattended}
	}
	n := r.variant(variantKey{native: true, unattended: unattended}, func() *Rules {
		// Clone without its compile: the class table changes below and
		// is compiled once then (a hook call builds this variant anew).
		c := deepCopy(reflect.ValueOf(base)).Interface().(*Rules)
		c.Classes = ClassTable{"other": {}}
		for class, tools := range base.Native.Classes {
			c.Classes[class] = append([]string(nil), tools...)
		}
		c.compile()
		c.nativeTools = true
		return c
	})
	return SessionRules{Rules: n, Native: true, Unattended: unattended}
}

func (r *Rules) variant(k variantKey, build func() *Rules) *Rules {
	v := &r.idx.variants
	v.Lock()
	defer v.Unlock()
	if got, ok := v.m[k]; ok {
		return got
	}
	if v.m == nil {
		v.m = map[variantKey]*Rules{}
	}
	got := build()
	v.m[k] = got
	return got
}

// nativeFor reports whether the format belongs to one of the design's own
// format families.
func (r *Rules) nativeFor(format string) bool {
	for _, f := range r.Native.Formats {
		if format == f || strings.HasPrefix(format, f+"-") {
			return true
		}
	}
	return false
}

// isUnattended reports whether the unattended rules apply on this platform.
// hermes (tool_guardrails._is_non_interactive_platform): a platform that
// is empty after strip is attended; otherwise it is compared lower-cased.
func (r *Rules) isUnattended(platform string) bool {
	p := strings.ToLower(strings.TrimSpace(platform))
	if r.Unattended.Rules == "" || p == "" {
		return false
	}
	for _, a := range r.Unattended.Attended {
		if p == a {
			return false
		}
	}
	return true
}

// NativeTools reports whether these rules are the variant ForSession made
// for a transcript of the design's own agent.
func (r *Rules) NativeTools() bool { return r.nativeTools }
