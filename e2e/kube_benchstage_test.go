package e2e

import (
	"fmt"
	"sort"
	"testing"
	"time"
)

// stages split the updates' time to live traffic by where it went, read from restyplane's
// own records: the time of the revision each update made, and the apply record of the
// revision that brought it to nginx.
type stages struct {
	// toRevision: the EndpointSlice update sent to the reconciler's revision written (API
	// server, watch, informer, the sync's full rebuild and the store's write).
	toRevision percentiles
	// toApply: the revision written to the applier starting on it.
	toApply percentiles
	// apply: the applier's work (plan, render to compare, dynamic push, record).
	apply percentiles
	// toAnswer: the apply finished to the first request answered by the new endpoint.
	toAnswer percentiles
	// unmatched counts updates without a revision or apply of their own to measure.
	unmatched int
}

func (s stages) String() string {
	return fmt.Sprintf("to revision %s; to apply start %s; apply %s; to answer %s; unmatched %d",
		s.toRevision, s.toApply, s.apply, s.toAnswer, s.unmatched)
}

// updateStages matches each update, sent at sent[i] and answered took[i] later, with the
// first revision written after it and the first successful apply of that revision or a
// later one.
func updateStages(b *testing.B, in *instance, sent []time.Time, took []time.Duration) stages {
	b.Helper()
	var revs struct {
		Items []struct {
			ID   int64
			Time time.Time
		}
	}
	if code := in.call("GET", "/api/v1/revisions?limit=1000", nil, &revs); code != 200 {
		b.Fatalf("GET /api/v1/revisions = %d", code)
	}
	var applies struct {
		Items []struct {
			Revision   int64
			Started    time.Time
			DurationMS float64
			Outcome    string
		}
	}
	if code := in.call("GET", "/api/v1/applies?limit=1000", nil, &applies); code != 200 {
		b.Fatalf("GET /api/v1/applies = %d", code)
	}
	sort.Slice(revs.Items, func(i, j int) bool { return revs.Items[i].ID < revs.Items[j].ID })
	sort.Slice(applies.Items, func(i, j int) bool { return applies.Items[i].Revision < applies.Items[j].Revision })

	var toRev, toApply, apply, toAnswer []time.Duration
	var s stages
	for i, t0 := range sent {
		answered := t0.Add(took[i])
		r := sort.Search(len(revs.Items), func(k int) bool { return !revs.Items[k].Time.Before(t0) })
		if r == len(revs.Items) || revs.Items[r].Time.After(answered) {
			s.unmatched++
			continue
		}
		rev := revs.Items[r]
		a := sort.Search(len(applies.Items), func(k int) bool { return applies.Items[k].Revision >= rev.ID })
		for a < len(applies.Items) && applies.Items[a].Outcome != "success" {
			a++
		}
		if a == len(applies.Items) {
			s.unmatched++
			continue
		}
		ap := applies.Items[a]
		done := ap.Started.Add(time.Duration(ap.DurationMS * float64(time.Millisecond)))
		toRev = append(toRev, rev.Time.Sub(t0))
		toApply = append(toApply, ap.Started.Sub(rev.Time))
		apply = append(apply, done.Sub(ap.Started))
		toAnswer = append(toAnswer, answered.Sub(done))
	}
	s.toRevision, s.toApply, s.apply, s.toAnswer = percentilesOf(toRev), percentilesOf(toApply), percentilesOf(apply), percentilesOf(toAnswer)
	return s
}
