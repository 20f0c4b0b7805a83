package ingest

import "time"

// Span returns the earliest and latest times the session records (user
// messages, model responses, calls), else the session's own time (both
// ends), or zero times when it records none.
func (s *Session) Span() (start, end time.Time) {
	note := func(t time.Time) {
		if t.IsZero() {
			return
		}
		if start.IsZero() || t.Before(start) {
			start = t
		}
		if end.IsZero() || t.After(end) {
			end = t
		}
	}
	for i := range s.Turns {
		t := &s.Turns[i]
		note(t.Time)
		for j := range t.Requests {
			r := &t.Requests[j]
			note(r.Time)
			for k := range r.Calls {
				note(r.Calls[k].Time)
			}
		}
	}
	if start.IsZero() {
		return s.Time, s.Time
	}
	return start, end
}
