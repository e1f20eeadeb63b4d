package reconciler

import (
	"context"
	"errors"
	"log/slog"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
)

// leaseJitter spreads the attempts at a Lease held by another replica, as client-go's
// elector does.
const leaseJitter = 1.2

// leaseLock is one replica's attempt at the Lease: client-go's leader elector
// (tools/leaderelection) over its LeaseLock, ported for the Lease alone. That package also
// holds Kubernetes 1.31's coordinated election, which imports client-go's informers of
// every API group and the full clientset, together more than a quarter of the compile
// time of restyplane's first build.
type leaseLock struct {
	leases        coordinationv1client.LeaseInterface
	name          string
	identity      string
	duration      time.Duration
	renewDeadline time.Duration
	retry         time.Duration
	log           *slog.Logger

	// lease is the Lease as last read or written, whose resourceVersion the next update
	// must match.
	lease *coordinationv1.Lease
	// seen is the resourceVersion of the Lease as last read: when a read returns another,
	// the holder wrote since, and the record is observed anew.
	seen string
	// record is the holder's record as last observed, and observed when, by this
	// replica's clock: a Lease is held until observed plus its duration, so that no clock
	// skew between replicas matters.
	record   leaseRecord
	observed time.Time
}

// leaseRecord is what a Lease says about its holder.
type leaseRecord struct {
	holder      string
	duration    time.Duration
	acquired    time.Time
	renewed     time.Time
	transitions int32
}

// validate checks the timings as client-go's NewLeaderElector does.
func (l *leaseLock) validate() error {
	switch {
	case l.duration <= l.renewDeadline:
		return errors.New("lease duration must be greater than the renew deadline")
	case l.renewDeadline <= time.Duration(leaseJitter*float64(l.retry)):
		return errors.New("renew deadline must be greater than 1.2 times the retry period")
	case l.duration < 1 || l.renewDeadline < 1 || l.retry < 1:
		return errors.New("lease duration, renew deadline and retry period must be greater than zero")
	case l.identity == "":
		return errors.New("identity is empty")
	}
	return nil
}

// run stands for the Lease until ctx ends or, having held it, loses it. While it holds
// the Lease it runs lead, whose context ends when the Lease is lost; it waits for lead to
// return before it gives the Lease up, so that the next holder never overlaps with it.
func (l *leaseLock) run(ctx context.Context, lead func(context.Context)) {
	if !l.acquire(ctx) {
		return
	}
	lctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		lead(lctx)
	}()
	l.renew(lctx)
	cancel()
	<-done
	l.release()
}

// acquire tries for the Lease every retry period, jittered, until it holds it (true) or
// ctx ends (false).
func (l *leaseLock) acquire(ctx context.Context) bool {
	for ctx.Err() == nil {
		if l.tryAcquireOrRenew(ctx) {
			return true
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait.Jitter(l.retry, leaseJitter)):
		}
	}
	return false
}

// renew renews the Lease every retry period until a renewal fails for the renew deadline
// or ctx ends.
func (l *leaseLock) renew(ctx context.Context) {
	for l.renewWithin(ctx) {
		select {
		case <-ctx.Done():
			return
		case <-time.After(l.retry):
		}
	}
	if ctx.Err() == nil {
		l.log.Warn("lost the lease: could not renew it within the deadline", "lease", l.name, "deadline", l.renewDeadline)
	}
}

// renewWithin tries to renew every retry period until it does or the renew deadline passes.
func (l *leaseLock) renewWithin(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, l.renewDeadline)
	defer cancel()
	for {
		if l.tryAcquireOrRenew(ctx) {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(l.retry):
		}
	}
}

// tryAcquireOrRenew takes the Lease if it is free or expired, or renews it if this replica
// holds it; it reports whether this replica holds it now.
func (l *leaseLock) tryAcquireOrRenew(ctx context.Context) bool {
	now := time.Now()
	rec := leaseRecord{holder: l.identity, duration: l.duration.Truncate(time.Second), acquired: now, renewed: now}
	// The fast path: a holder renews on the Lease it last wrote, without reading it first.
	if l.leading() && l.valid(now) {
		rec.acquired, rec.transitions = l.record.acquired, l.record.transitions
		err := l.update(ctx, rec)
		if err == nil {
			l.observe(rec)
			return true
		}
		l.log.Debug("renew the lease without reading it", "lease", l.name, "err", err)
	}
	lease, err := l.leases.Get(ctx, l.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		lease = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: l.name}, Spec: rec.spec()}
		if lease, err = l.leases.Create(ctx, lease, metav1.CreateOptions{}); err != nil {
			// Another replica that started at the same time created it first.
			level := slog.LevelWarn
			if apierrors.IsAlreadyExists(err) {
				level = slog.LevelDebug
			}
			l.log.Log(ctx, level, "create the lease", "lease", l.name, "err", err)
			return false
		}
		l.lease = lease
		l.observe(rec)
		return true
	}
	if err != nil {
		l.log.Warn("read the lease", "lease", l.name, "err", err)
		return false
	}
	l.lease = lease
	if lease.ResourceVersion != l.seen {
		l.seen = lease.ResourceVersion
		l.observe(recordOf(lease.Spec))
	}
	if l.record.holder != "" && l.valid(now) && !l.leading() {
		return false // held by another replica
	}
	if l.leading() {
		rec.acquired, rec.transitions = l.record.acquired, l.record.transitions
	} else {
		rec.transitions = l.record.transitions + 1
	}
	if err := l.update(ctx, rec); err != nil {
		l.log.Debug("take or renew the lease", "lease", l.name, "err", err)
		return false
	}
	l.observe(rec)
	return true
}

// release gives the Lease up, if this replica holds it, so that another takes over at
// once rather than after the Lease expires.
func (l *leaseLock) release() {
	if !l.leading() {
		return
	}
	now := time.Now()
	rec := leaseRecord{duration: time.Second, acquired: now, renewed: now, transitions: l.record.transitions}
	ctx, cancel := context.WithTimeout(context.Background(), l.renewDeadline)
	defer cancel()
	if err := l.update(ctx, rec); err != nil {
		l.log.Warn("release the lease", "lease", l.name, "err", err)
		return
	}
	l.observe(rec)
}

// update writes rec into the Lease last read or written.
func (l *leaseLock) update(ctx context.Context, rec leaseRecord) error {
	if l.lease == nil {
		return errors.New("the lease was neither read nor created")
	}
	lease := l.lease.DeepCopy()
	lease.Spec = rec.spec()
	lease, err := l.leases.Update(ctx, lease, metav1.UpdateOptions{})
	if err != nil {
		return err
	}
	l.lease = lease
	return nil
}

func (l *leaseLock) observe(rec leaseRecord) {
	l.record, l.observed = rec, time.Now()
}

// leading reports whether this replica holds the Lease as last observed.
func (l *leaseLock) leading() bool {
	return l.record.holder == l.identity
}

// valid reports whether the Lease as last observed has not expired at now.
func (l *leaseLock) valid(now time.Time) bool {
	return l.observed.Add(l.record.duration).After(now)
}

// spec is the Lease's spec that says rec; its duration is in whole seconds.
func (rec leaseRecord) spec() coordinationv1.LeaseSpec {
	holder, seconds, transitions := rec.holder, int32(rec.duration/time.Second), rec.transitions
	return coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &seconds,
		AcquireTime: &metav1.MicroTime{Time: rec.acquired}, RenewTime: &metav1.MicroTime{Time: rec.renewed},
		LeaseTransitions: &transitions}
}

// recordOf reads a Lease's spec; missing fields are zero.
func recordOf(spec coordinationv1.LeaseSpec) leaseRecord {
	var rec leaseRecord
	if spec.HolderIdentity != nil {
		rec.holder = *spec.HolderIdentity
	}
	if spec.LeaseDurationSeconds != nil {
		rec.duration = time.Duration(*spec.LeaseDurationSeconds) * time.Second
	}
	if spec.AcquireTime != nil {
		rec.acquired = spec.AcquireTime.Time
	}
	if spec.RenewTime != nil {
		rec.renewed = spec.RenewTime.Time
	}
	if spec.LeaseTransitions != nil {
		rec.transitions = *spec.LeaseTransitions
	}
	return rec
}
