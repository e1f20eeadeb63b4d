package server

import (
	"sync"
	"time"

	"github.com/restyplane/restyplane/api"
)

// Each instance's reports are limited: an agent reports after each apply (held 50 ms, so
// that a burst shares one report) and every 5 s, far below these rates, which bound what
// one instance, however it behaves, may make the control plane store.
const (
	// reportRate and reportBurst bound an instance's reports a second.
	reportRate, reportBurst = 10, 40
	// recordRate and recordBurst bound the apply records (each a row and an audit row)
	// an instance stores a second; the burst takes an agent's whole backlog after an
	// outage (it holds at most 1000 records).
	recordRate, recordBurst = 10, 1000
)

// bucket is a token bucket: it holds up to burst tokens and gains rate a second.
type bucket struct {
	tokens float64
	last   time.Time
}

// take takes n tokens at now, if the bucket holds them.
func (b *bucket) take(n, rate, burst float64, now time.Time) bool {
	if b.last.IsZero() {
		b.tokens = burst
	} else {
		b.tokens = min(burst, b.tokens+now.Sub(b.last).Seconds()*rate)
	}
	b.last = now
	if b.tokens < n {
		return false
	}
	b.tokens -= n
	return true
}

// admit takes one report carrying records apply records of name in, or refuses it
// (ETooManyRequests) when the instance reports faster than its limits.
func (f *fleet) admit(name string, records int, now time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := f.member(name)
	if !m.reports.take(1, reportRate, reportBurst, now) {
		return api.Errorf(api.ETooManyRequests, "instance %q reports more than %d times a second; try again later", name, reportRate)
	}
	if records > 0 && !m.records.take(float64(records), recordRate, recordBurst, now) {
		return api.Errorf(api.ETooManyRequests, "instance %q sends more than %d apply records a second; try again later", name, recordRate)
	}
	return nil
}

// streamLimits counts the long-lived streams each token holds, so that one token cannot
// hold the control plane's memory and goroutines with thousands.
type streamLimits struct {
	mu   sync.Mutex
	open map[int64]int
}

// Stream caps per token: a browser has a few tabs open; an agent has one feed stream, two
// while a reconnect overlaps the stream the control plane has not yet seen end.
const (
	maxEventStreams = 16
	maxFeedStreams  = 4
)

// acquire counts a stream of token id, or refuses it when the token holds max; release
// ends it.
func (l *streamLimits) acquire(id int64, max int, what string) (release func(), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open == nil {
		l.open = map[int64]int{}
	}
	if l.open[id] >= max {
		return nil, api.Errorf(api.ETooManyRequests, "this token holds %d %s streams, the most it may; close one first", max, what)
	}
	l.open[id]++
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.open[id]--; l.open[id] <= 0 {
			delete(l.open, id)
		}
	}, nil
}
