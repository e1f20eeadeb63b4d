package reconciler

import (
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// TestNextHoldExpiry: the reconciler schedules a sync for the first time a certificate a
// hold keeps served (held itself, or presented by a held server) comes within
// heldCertificateMargin of its expiry; a time already past, and certificates no hold
// keeps, schedule nothing.
func TestNextHoldExpiry(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	head := api.NewState()
	head.Backends["x"] = k8sBackend("x")
	for name, expires := range map[string]time.Duration{"restored": 10 * day, "served": 5 * day, "free": 2 * day, "past": day / 2, "rest": 3 * day} {
		head.Certificates[name] = k8sCertificate(name, name, now.Add(expires))
	}
	head.Certificates["rest"].Source = api.Source{Kind: api.SourceAPI}
	head.Servers["s"] = tlsServer("s", "s.example.com", "x", "served")
	head.Servers["p"] = tlsServer("p", "p.example.com", "x", "past")
	head.Servers["d"] = k8sServer("d", "d.example.com", "x")
	head.Servers["d"].TLS = &api.ServerTLS{DefaultCertificate: true}
	held := func(refs ...api.Ref) map[api.Ref]api.Hold {
		m := map[api.Ref]api.Hold{}
		for _, r := range refs {
			m[r] = api.Hold{Kind: r.Kind, Name: r.Name, Revision: 3}
		}
		return m
	}
	cert := func(n string) api.Ref { return api.Ref{Kind: api.KindCertificate, Name: n} }
	server := func(n string) api.Ref { return api.Ref{Kind: api.KindServer, Name: n} }
	for _, c := range []struct {
		name  string
		holds map[api.Ref]api.Hold
		want  time.Duration // after now; 0 for none
	}{
		{"no holds", nil, 0},
		{"a held certificate", held(cert("restored")), 9 * day},
		{"a held server's certificate", held(server("s")), 4 * day},
		{"the first of both", held(cert("restored"), server("s")), 4 * day},
		{"a held backend names no certificate", held(api.Ref{Kind: api.KindBackend, Name: "x"}), 0},
		{"a server with the proxy's own certificate", held(server("d")), 0},
		{"a held certificate that is gone", held(cert("gone")), 0},
		{"a REST certificate", held(cert("rest")), 0},
		{"a time already past", held(server("p")), 0},
		{"a time already past, and one to come", held(server("p"), cert("restored")), 9 * day},
	} {
		at, ok := nextHoldExpiry(head, c.holds, now)
		if c.want == 0 {
			if ok {
				t.Errorf("%s: a sync at now+%v, want none", c.name, at.Sub(now))
			}
			continue
		}
		if !ok || !at.Equal(now.Add(c.want)) {
			t.Errorf("%s: sync at now+%v (%v), want now+%v", c.name, at.Sub(now), ok, c.want)
		}
	}
}

// TestHoldExpiryAlarm: the alarm fires once, at the time it was last set to; disarmed or stopped,
// not at all.
func TestHoldExpiryAlarm(t *testing.T) {
	fired := make(chan time.Time, 4)
	a := &alarm{fire: func() { fired <- time.Now() }}
	start := time.Now()
	a.set(start.Add(time.Hour), true)
	a.set(start.Add(50*time.Millisecond), true)
	select {
	case at := <-fired:
		if at.Sub(start) < 50*time.Millisecond {
			t.Fatalf("fired after %v, want 50ms", at.Sub(start))
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("did not fire")
	}
	a.set(time.Now().Add(20*time.Millisecond), true)
	a.set(time.Time{}, false)
	b := &alarm{fire: func() { fired <- time.Now() }}
	b.set(time.Now().Add(20*time.Millisecond), true)
	b.stop()
	b.set(time.Now().Add(20*time.Millisecond), true)
	select {
	case <-fired:
		t.Fatalf("a disarmed or stopped alarm fired")
	case <-time.After(200 * time.Millisecond):
	}
}
