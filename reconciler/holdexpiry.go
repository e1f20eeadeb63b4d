package reconciler

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/restyplane/restyplane/api"
)

// A hold may keep a certificate served that the cluster has renewed or dropped since: the
// one a rollback restored (held itself), or one a held server names that the cluster no
// longer asks for (made again by the rollback, or kept for the server). Such a certificate
// is let go heldCertificateMargin before it expires, by the sync at that time. The
// reconciler syncs only when the cluster or the holds change (its informers never resync),
// so it asks for that sync itself (nextHoldExpiry, setHeld): in a quiet cluster the
// certificate would otherwise be served expired.

// releaseExpiring releases the held servers that name a certificate the cluster no longer
// asks for and that expires within heldCertificateMargin of now: each is written as the
// cluster asks, and the certificate, named no more, goes (dropOrphans, mutations). A held
// certificate the cluster still asks for is let go by sortHolds itself.
func releaseExpiring(t *Translation, head *api.State, held map[api.Ref]api.Hold, release []api.Ref, now time.Time) []api.Ref {
	for _, ref := range slices.SortedFunc(maps.Keys(held), compareRefs) {
		name := servedCertificate(head, ref)
		c := head.Certificates[name]
		if c == nil || c.Source.Kind != api.SourceKubernetes || !c.NotAfter.Before(now.Add(heldCertificateMargin)) {
			continue
		}
		if _, asked := desired(t, api.Ref{Kind: api.KindCertificate, Name: name}); !asked {
			delete(held, ref)
			release = append(release, ref)
		}
	}
	return release
}

// nextHoldExpiry returns the time, not before now, at which the first certificate that a
// hold keeps served (held itself, or named by a held server) comes within
// heldCertificateMargin of its expiry; false when there is none. A time already past is
// left out: the sync that reads holds at it has let go what expired (sortHolds,
// releaseExpiring), and what it kept stays, so it is not asked again.
func nextHoldExpiry(head *api.State, holds map[api.Ref]api.Hold, now time.Time) (next time.Time, ok bool) {
	for ref := range holds {
		name := servedCertificate(head, ref)
		if ref.Kind == api.KindCertificate {
			name = ref.Name
		}
		c := head.Certificates[name]
		if c == nil || c.Source.Kind != api.SourceKubernetes || c.NotAfter.IsZero() {
			continue
		}
		at := c.NotAfter.Add(-heldCertificateMargin)
		if !at.Before(now) && (!ok || at.Before(next)) {
			next, ok = at, true
		}
	}
	return next, ok
}

// servedCertificate is the certificate that server ref of head presents, "" for any other
// object or a server without one.
func servedCertificate(head *api.State, ref api.Ref) string {
	if s := head.Servers[ref.Name]; ref.Kind == api.KindServer && s != nil && s.TLS != nil && !s.TLS.DefaultCertificate {
		return s.TLS.Certificate
	}
	return ""
}

// alarm calls fire once at the time it was last set to, unless set again or stopped
// before.
type alarm struct {
	mu      sync.Mutex
	fire    func()
	timer   *time.Timer
	stopped bool
}

// set arms the alarm for at, or disarms it when ok is false.
func (a *alarm) set(at time.Time, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.timer != nil {
		a.timer.Stop()
		a.timer = nil
	}
	if !ok || a.stopped || a.fire == nil {
		return
	}
	a.timer = time.AfterFunc(time.Until(at), a.fire)
}

// stop disarms the alarm for good.
func (a *alarm) stop() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stopped = true
	if a.timer != nil {
		a.timer.Stop()
		a.timer = nil
	}
}
