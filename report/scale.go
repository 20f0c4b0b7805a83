package report

import (
	"sort"
	"unicode/utf8"

	"github.com/loopgate/loopgate/analyze"
)

// Reports for people (table, markdown) show the sessions where the guard
// did most, not every session: a real history holds thousands, and the
// table ran to 20,000 lines.

// stops counts the calls the guard stopped in a session.
func stops(s *analyze.SessionResult) int { return s.Blocked + s.Deduped + s.Halted }

// topSessions orders ss by what the guard did (tokens saved, then stops,
// then steers; ties keep the report's order) and keeps the first top (0:
// all). It returns the sessions kept and how many were left out.
func topSessions(ss []analyze.SessionResult, top int) ([]analyze.SessionResult, int) {
	sort.SliceStable(ss, func(a, b int) bool {
		x, y := &ss[a], &ss[b]
		if x.TokensSaved != y.TokensSaved {
			return x.TokensSaved > y.TokensSaved
		}
		if stops(x) != stops(y) {
			return stops(x) > stops(y)
		}
		return x.Steered > y.Steered
	})
	if top <= 0 || len(ss) <= top {
		return ss, 0
	}
	return ss[:top], len(ss) - top
}

// cutMiddle keeps the start and the end of s within max runes, "…" in the
// middle: ids and tool names differ at either end (a uuid's head, a
// file's name and line), and a cut at one end made rows look alike. The
// end gets two thirds of what is kept.
func cutMiddle(s string, max int) string {
	n := utf8.RuneCountInString(s)
	if max < 2 || n <= max {
		return s
	}
	r := []rune(s)
	tail := (max - 1) * 2 / 3
	head := max - 1 - tail
	return string(r[:head]) + "…" + string(r[n-tail:])
}

// DayRow is one day of the --by day view.
type DayRow struct {
	// Day is the sessions' start date (UTC, as YYYY-MM-DD), or "unknown" for
	// sessions whose transcript records no time.
	Day         string
	Sessions    int
	Calls       int
	Steered     int
	Stops       int
	Harmful     int
	TokensSaved int64
}

// byDay totals the sessions per day they started on, oldest first, the
// sessions without a time last.
func byDay(ss []analyze.SessionResult) []DayRow {
	at := map[string]int{}
	var rows []DayRow
	for i := range ss {
		s := &ss[i]
		day := "unknown"
		if len(s.StartedAt) >= 10 {
			day = s.StartedAt[:10]
		}
		k, ok := at[day]
		if !ok {
			k = len(rows)
			at[day] = k
			rows = append(rows, DayRow{Day: day})
		}
		r := &rows[k]
		r.Sessions++
		r.Calls += s.Calls
		r.Steered += s.Steered
		r.Stops += stops(s)
		r.Harmful += s.Harmful
		r.TokensSaved += s.TokensSaved
	}
	sort.Slice(rows, func(a, b int) bool {
		if (rows[a].Day == "unknown") != (rows[b].Day == "unknown") {
			return rows[b].Day == "unknown"
		}
		return rows[a].Day < rows[b].Day
	})
	return rows
}

// compactWidth is the width below which the tools and decisions tables
// take their compact layout (shorter headers, narrower names), which fits
// 80 columns without a wrapped row; the sessions table goes compact
// whenever its wide layout does not fit.
const compactWidth = DefaultWidth
