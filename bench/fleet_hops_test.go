package bench

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/restyplane/restyplane/api"
)

// fleetHops collects, change by change, when each instance passed each hop of a change,
// counted from the change's start: restyplane's API write, or the bare mechanism's first
// push. The agents' hops come from their apply records (Started and DurationMS, on the
// same machine's clock as the benchmark's).
type fleetHops struct {
	write              []time.Duration           // restyplane: the API write answered
	t0                 map[int64]time.Time       // restyplane: each measured revision's write, until collect
	seen               map[int64][]time.Duration // restyplane: each proxy's first answer from the new upstream
	start, end, polled [][]time.Duration         // restyplane, per change: each agent's apply began / nginx answered / seen
	barePushed         [][]time.Duration         // bare, per change: each push answered
	bareSeen           [][]time.Duration         // bare, per change: each proxy's first answer from the new upstream
}

// newFleetHops returns an empty collection.
func newFleetHops() *fleetHops {
	return &fleetHops{t0: map[int64]time.Time{}, seen: map[int64][]time.Duration{}}
}

// addResty notes one of restyplane's measured changes.
func (h *fleetHops) addResty(rev int64, t0 time.Time, write time.Duration, seen []time.Duration) {
	h.write = append(h.write, write)
	h.t0[rev], h.seen[rev] = t0, seen
}

// addBare notes one of the bare mechanism's changes.
func (h *fleetHops) addBare(pushed, seen []time.Duration) {
	h.barePushed, h.bareSeen = append(h.barePushed, pushed), append(h.bareSeen, seen)
}

// collect matches the agents' apply records of the changes noted since the last call,
// from the control plane's newest 1,000 records (a round of changes makes 500).
func (h *fleetHops) collect(cp *instance) {
	starts, ends := map[int64][]time.Duration{}, map[int64][]time.Duration{}
	for _, a := range cp.applies(1000) {
		t0, ok := h.t0[a.Revision]
		if !ok || a.Instance == "" || a.Mode != api.ModeDynamic || a.Outcome != api.OutcomeSuccess {
			continue
		}
		s := a.Started.Sub(t0)
		starts[a.Revision] = append(starts[a.Revision], s)
		ends[a.Revision] = append(ends[a.Revision], s+time.Duration(a.DurationMS*float64(time.Millisecond)))
	}
	for rev := range h.t0 {
		h.start, h.end, h.polled = append(h.start, starts[rev]), append(h.end, ends[rev]), append(h.polled, h.seen[rev])
	}
	clear(h.t0)
	clear(h.seen)
}

// hopCells are the p50 over changes of the median instance, and the p50 and p99 of the
// last instance, for one hop.
func hopCells(perChange [][]time.Duration) string {
	var med, last []time.Duration
	for _, ds := range perChange {
		if len(ds) == 0 {
			continue
		}
		s := slices.Sorted(slices.Values(ds))
		med, last = append(med, s[len(s)/2]), append(last, s[len(s)-1])
	}
	if len(last) == 0 {
		return "– | – | –"
	}
	m, l := spreadOf(med), spreadOf(last)
	return fmt.Sprintf("%s | %s | %s", fmtDur(m.p50), fmtDur(l.p50), fmtDur(l.p99))
}

// table is the hop breakdown for the report.
func (h *fleetHops) table() string {
	var writes [][]time.Duration
	for _, w := range h.write {
		writes = append(writes, []time.Duration{w})
	}
	var s strings.Builder
	s.WriteString("| hop, from the change's start | restyplane: median instance, p50 | last instance, p50 | last instance, p99 | bare: median instance, p50 | last instance, p50 | last instance, p99 |\n|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(&s, "| the API write answered (the commit, then the answer) | %s | – | – | – |\n", hopCells(writes))
	fmt.Fprintf(&s, "| the agent's apply began (the feed line came, was decoded and planned) | %s | – | – | – |\n", hopCells(h.start))
	fmt.Fprintf(&s, "| nginx answered the push (the agent's apply ended; the benchmark's push returned) | %s | %s |\n", hopCells(h.end), hopCells(h.barePushed))
	fmt.Fprintf(&s, "| the proxy answered from the new upstream (polled every 5 ms) | %s | %s |\n", hopCells(h.polled), hopCells(h.bareSeen))
	return s.String()
}
