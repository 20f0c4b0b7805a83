package guard

import (
	"strings"
	"sync"
)

// The guard's own messages in a result. Where an agent's only way to put
// a steer before the model is the call's result, loopgate's channel
// appends it there: the pi extension adds a text block, the OpenCode
// plugin appends to the output, each as a blank line and the message
// (live/plugins). The agent then records the result as the model saw it,
// message included, and replay of that transcript would see the result
// change at the very call the hook steered, and decide otherwise than the
// hook did (which read the result before the message was added). So the
// result is compared without them: cutInjected cuts a result at the first
// of the presets' own steer and halt messages that begins a paragraph in
// its tail ("\n\n" and the message's opening words, up to its first
// placeholder). Block messages replace a result, they are never appended,
// and are not looked for. Messages of a rules file of one's own are not
// known here: a steer of such rules appended to a result stays in it.

// injectedMin is the shortest opening looked for: shorter openings
// ("Note: ") begin ordinary paragraphs too.
const injectedMin = 10

// injectedOpenings are "\n\n" and the opening of each preset's steer and
// halt messages (presetOpenings, injected_openings.go).
func injectedOpenings() []string { return presetOpenings }

// cutInjected cuts result at the first of the guard's own messages that
// begins a paragraph in its tail (the window cutGuardSuffix reads).
func cutInjected(result string) string {
	t, offset := resultTail(result)
	openings, third := injectedOpenings(), injectedThird()
	for i := 0; ; {
		j := strings.Index(t[i:], "\n\n")
		if j < 0 {
			return result
		}
		i += j
		if i+2 < len(t) && third[t[i+2]] {
			for _, o := range openings {
				if strings.HasPrefix(t[i:], o) {
					return result[:offset+i]
				}
			}
		}
		i++
	}
}

// cutNotes is cutInjected(cutGuardSuffix(result)), the agent's guard notes
// and the guard's own messages cut from a result's tail, in one walk over
// the tail's blank lines where the two read it one after the other
// (docs/performance.md, "A result's tail read once"). When the tail holds
// no guard note (nearly always) cutGuardSuffix leaves the result as it
// is, and cutInjected's answer is the first injected message of the same
// tail; when it holds one, the two run as written, for cutInjected then
// reads the tail of the shortened result, another window.
func cutNotes(result string) string {
	t, offset := resultTail(result)
	openings, third := injectedOpenings(), injectedThird()
	injected := -1
	for i := 0; ; i++ {
		j := strings.Index(t[i:], "\n\n")
		if j < 0 {
			break
		}
		i += j
		if i+2 >= len(t) {
			break
		}
		if t[i+2] == '[' && hasGuardSuffix(t[i:]) {
			return cutInjected(result[:offset+i])
		}
		if injected < 0 && third[t[i+2]] {
			for _, o := range openings {
				if strings.HasPrefix(t[i:], o) {
					injected = i
					break
				}
			}
		}
	}
	if injected >= 0 {
		return result[:offset+injected]
	}
	return result
}

// injectedThird marks the bytes that follow the blank line in
// injectedOpenings: a blank line followed by any other byte opens none
// of them.
var injectedThird = sync.OnceValue(func() *[256]bool {
	var t [256]bool
	for _, o := range injectedOpenings() {
		t[o[2]] = true
	}
	return &t
})
