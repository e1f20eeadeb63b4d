package rollback

import (
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// report is one instance's cumulative counters for the backend "web".
type report struct {
	instance string
	requests int64
	errors   int64
	clients  int64
}

func TestDecide(t *testing.T) {
	start := time.Unix(1000, 0)
	cases := []struct {
		name    string
		reports []report
		at      time.Time
		want    verdict
		req     int64
		errs    int64
		clients int64
	}{
		{name: "sums across instances",
			reports: []report{{"a", 100, 0, 0}, {"b", 50, 0, 0}, {"a", 106, 6, 2}, {"b", 56, 6, 1}},
			at:      start, want: rollBack, req: 12, errs: 12, clients: 3},
		{name: "one instance alone is below the minimum requests",
			reports: []report{{"a", 0, 0, 0}, {"b", 0, 0, 0}, {"a", 6, 6, 3}},
			at:      start, want: keepWatching, req: 6, errs: 6, clients: 3},
		{name: "too few distinct clients",
			reports: []report{{"a", 0, 0, 0}, {"b", 0, 0, 0}, {"a", 20, 20, 1}, {"b", 20, 20, 1}},
			at:      start, want: keepWatching, req: 40, errs: 40, clients: 2},
		{name: "below the ratio: no instance agrees",
			reports: []report{{"a", 0, 0, 0}, {"b", 0, 0, 0}, {"a", 20, 5, 3}, {"b", 20, 4, 3}},
			at:      start, want: keepWatching},
		{name: "the baseline's errors do not count",
			reports: []report{{"a", 100, 100, 3}, {"b", 100, 100, 3}, {"a", 110, 100, 3}, {"b", 110, 100, 3}},
			at:      start, want: keepWatching},
		{name: "window end promotes",
			reports: []report{{"a", 0, 0, 0}, {"a", 50, 1, 1}},
			at:      start.Add(31 * time.Second), want: promote},
		{name: "a restart carries what was counted before",
			// a counted 10 requests with 6 errors, then restarted and counted 4 and 4 anew:
			// 14 and 10, never a negative delta.
			reports: []report{{"a", 40, 0, 0}, {"a", 50, 6, 2}, {"a", 4, 4, 3}},
			at:      start, want: rollBack, req: 14, errs: 10, clients: 3},
		{name: "a restart alone is no error burst",
			reports: []report{{"a", 1000, 500, 0}, {"a", 1000, 500, 0}, {"a", 0, 0, 0}},
			at:      start, want: keepWatching, req: 0, errs: 0, clients: 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := &watch{revision: 5, previous: 4, until: start.Add(30 * time.Second),
				backends: map[string]bool{"web": true}, ratio: 0.5, min: 10, minClients: 3,
				instances: map[string]*tally{}}
			for _, r := range c.reports {
				w.observe(r.instance, map[string]api.BackendCounter{
					"web":   {Requests: r.requests, Errors: r.errors, Clients: r.clients},
					"other": {Requests: 1000, Errors: 1000, Clients: 50}, // not changed: never counts
				})
			}
			v, f := w.decide(c.at, nil)
			if v != c.want || f.requests != c.req || f.errors != c.errs || f.clients != c.clients {
				t.Fatalf("decide = %v %+v, want %v with %d requests, %d errors, %d clients", v, f, c.want, c.req, c.errs, c.clients)
			}
		})
	}
}

// TestDecideNamesEveryInstanceThatCounts: an instance whose first report after the apply
// already held failing clients (its baseline, so no requests since) adds those clients to
// the decision and is named in its reason.
func TestDecideNamesEveryInstanceThatCounts(t *testing.T) {
	start := time.Unix(1000, 0)
	w := &watch{revision: 5, previous: 4, until: start.Add(30 * time.Second),
		backends: map[string]bool{"web": true}, ratio: 0.5, min: 10, minClients: 3,
		instances: map[string]*tally{}}
	for _, r := range []report{{"a", 0, 0, 0}, {"b", 3, 3, 1}, {"a", 20, 20, 2}, {"c", 7, 0, 0}} {
		w.observe(r.instance, map[string]api.BackendCounter{"web": {Requests: r.requests, Errors: r.errors, Clients: r.clients}})
	}
	v, f := w.decide(start, nil)
	if v != rollBack || f.clients != 3 || len(f.instances) != 2 || f.instances[0] != "a" || f.instances[1] != "b" {
		t.Fatalf("decide = %v %+v, want a rollback from 3 clients naming a and b", v, f)
	}
}

// TestNoSingleInstanceDecides: among three or more instances running a revision, one
// instance's reports neither roll it back (however bad its counts) nor keep it (however
// many clean requests it counts): a majority decides. Among fewer than three, all must
// agree. An agent that holds a feed stream but has not reported the revision counts among
// those running it, and does not agree.
func TestNoSingleInstanceDecides(t *testing.T) {
	start := time.Unix(1000, 0)
	cases := []struct {
		name    string
		reports []report
		live    []string
		want    verdict
		agree   []string
		running int
	}{
		{name: "one bad instance of three",
			reports: []report{{"a", 0, 0, 0}, {"b", 0, 0, 0}, {"c", 0, 0, 0}, {"a", 100, 100, 50}, {"b", 10, 0, 0}, {"c", 10, 0, 0}},
			want:    keepWatching, agree: []string{"a"}, running: 3},
		{name: "two bad of three, however clean the third",
			reports: []report{{"a", 0, 0, 0}, {"b", 0, 0, 0}, {"c", 0, 0, 0}, {"a", 10, 10, 2}, {"b", 10, 10, 2}, {"c", 1000000, 0, 0}},
			want:    rollBack, agree: []string{"a", "b"}, running: 3},
		{name: "one bad of two",
			reports: []report{{"a", 0, 0, 0}, {"b", 0, 0, 0}, {"a", 100, 100, 50}, {"b", 10, 0, 0}},
			want:    keepWatching, agree: []string{"a"}, running: 2},
		{name: "the first to report, with two more connected",
			reports: []report{{"a", 0, 0, 0}, {"a", 100, 100, 50}},
			live:    []string{"a", "b", "c"},
			want:    keepWatching, agree: []string{"a"}, running: 3},
		{name: "three of five",
			reports: []report{{"a", 10, 10, 1}, {"b", 10, 10, 1}, {"c", 10, 10, 1}, {"a", 20, 20, 1}, {"b", 20, 20, 1}, {"c", 20, 20, 1}},
			live:    []string{"d", "e"},
			want:    rollBack, agree: []string{"a", "b", "c"}, running: 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := &watch{revision: 5, previous: 4, until: start.Add(30 * time.Second),
				backends: map[string]bool{"web": true}, ratio: 0.5, min: 10, minClients: 3,
				instances: map[string]*tally{}}
			for _, r := range c.reports {
				w.observe(r.instance, map[string]api.BackendCounter{"web": {Requests: r.requests, Errors: r.errors, Clients: r.clients}})
			}
			v, f := w.decide(start, c.live)
			if v != c.want || strings.Join(f.instances, ",") != strings.Join(c.agree, ",") || f.running != c.running {
				t.Fatalf("decide = %v %+v, want %v with %v agreeing of %d running", v, f, c.want, c.agree, c.running)
			}
			if v == rollBack && !strings.Contains(w.reason(f), "on instances "+strings.Join(c.agree, ", ")+": ") {
				t.Fatalf("reason %q does not name the instances that decided", w.reason(f))
			}
		})
	}
}
