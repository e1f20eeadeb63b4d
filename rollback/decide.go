package rollback

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/restyplane/restyplane/api"
)

// watch follows one live revision over its window with the counters of every instance
// that reported serving it.
type watch struct {
	revision   int64
	previous   int64 // the revision to go back to
	until      time.Time
	backends   map[string]bool
	ratio      float64
	min        int64
	minClients int64
	instances  map[string]*tally
}

// tally is one instance's counts over the watched backends since it first reported
// serving the revision.
type tally struct {
	base, last totals
	carried    totals // counts of earlier nginx lifetimes: counters restart with nginx
	clients    int64
}

// totals sums requests and 5xx over the watched backends; clients is the largest
// distinct-client count among them, since a client failing on two backends is one client.
type totals struct{ requests, errors, clients int64 }

// verdict is what a look at the counters decides.
type verdict int

const (
	keepWatching verdict = iota
	rollBack
	promote
)

// figures are the sums a verdict was taken on, for the reason recorded in the history.
// requests, errors and clients sum the instances that agree (voters); the decision needs
// needed of the running instances to agree.
type figures struct {
	requests, errors, clients int64
	// instances are those that agree: their own counts pass the threshold.
	instances []string
	// running counts the instances that run the revision, or hold a feed stream and
	// should; needed is how many of them must agree.
	running, needed int
}

// needed is how many of n running instances must agree to roll back: a majority, and all
// of them when there are fewer than three, so that no single instance decides or blocks
// alone where there are three or more.
func needed(n int) int {
	if n < 3 {
		return n
	}
	return n/2 + 1
}

// observe takes one instance's cumulative counters in. The first report is the baseline;
// a count lower than the last one means its nginx restarted, so what was counted until
// then is carried and counting starts again from zero.
func (w *watch) observe(instance string, counters map[string]api.BackendCounter) {
	var cur totals
	for b := range w.backends {
		c := counters[b]
		cur.requests += c.Requests
		cur.errors += c.Errors
		cur.clients = max(cur.clients, c.Clients)
	}
	t := w.instances[instance]
	if t == nil {
		w.instances[instance] = &tally{base: cur, last: cur, clients: cur.clients}
		return
	}
	if cur.requests < t.last.requests || cur.errors < t.last.errors {
		t.carried.requests += t.last.requests - t.base.requests
		t.carried.errors += t.last.errors - t.base.errors
		t.base = totals{}
	}
	t.last = cur
	t.clients = max(t.clients, cur.clients)
}

// decide takes each instance's counts since its baseline and rolls back when enough of the
// instances that run the revision agree: an instance agrees when its own 5xx ratio passes
// the threshold, or when it counted failing clients of the revision and no request since
// its baseline (its first report after the apply already held them). live names the
// instances that hold a feed stream now: one that has not reported the revision yet
// counts as running it, and does not agree. The minimums (requests, distinct clients) are
// over the instances that agree. The distinct clients are the sum of each instance's own
// distinct count: a client that failed through two instances counts twice, an
// approximation that errs towards rolling back only when several addresses failed
// somewhere, which is what the minimum guards against.
func (w *watch) decide(now time.Time, live []string) (verdict, figures) {
	var f figures
	running := map[string]bool{}
	for _, n := range live {
		running[n] = true
	}
	for name, t := range w.instances {
		running[name] = true
		req := t.carried.requests + t.last.requests - t.base.requests
		errs := t.carried.errors + t.last.errors - t.base.errors
		agrees := (req > 0 && float64(errs)/float64(req) >= w.ratio) || (req == 0 && t.clients > 0)
		if !agrees {
			continue
		}
		f.instances = append(f.instances, name)
		f.requests += req
		f.errors += errs
		f.clients += t.clients
	}
	sort.Strings(f.instances)
	f.running = len(running)
	f.needed = needed(f.running)
	if len(f.instances) >= f.needed && f.needed > 0 && f.requests >= w.min && f.requests > 0 &&
		float64(f.errors)/float64(f.requests) >= w.ratio && f.clients >= w.minClients && w.previous > 0 {
		return rollBack, f
	}
	if now.After(w.until) {
		return promote, f
	}
	return keepWatching, f
}

// reason says in the history why the revision was rolled back.
func (w *watch) reason(f figures) string {
	backends := make([]string, 0, len(w.backends))
	for b := range w.backends {
		backends = append(backends, b)
	}
	sort.Strings(backends)
	return fmt.Sprintf("automatic rollback of revision %d: %d of %d requests (%.0f%%) to backends %s got a 5xx from the upstream, from %d distinct clients, on instances %s: %d of the %d instances running it agree, %d needed; threshold %.0f%%",
		w.revision, f.errors, f.requests, 100*float64(f.errors)/float64(f.requests), strings.Join(backends, ", "),
		f.clients, strings.Join(f.instances, ", "), len(f.instances), f.running, f.needed, 100*w.ratio)
}
