package reconciler

import (
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

func k8sCertificate(name, fingerprint string, notAfter time.Time) *api.Certificate {
	return &api.Certificate{Name: name, Cert: fingerprint, Fingerprint: fingerprint, NotAfter: notAfter, KeyMatches: true,
		Source: api.Source{Kind: api.SourceKubernetes, Namespace: "ns", Name: name}}
}

func tlsServer(name, host, backend, cert string) *api.Server {
	s := k8sServer(name, host, backend)
	s.TLS = &api.ServerTLS{Certificate: cert}
	return s
}

// TestHoldBackLetsAServerOfAnExpiringCertificateGo: a held server that names a certificate
// the rollback made again (the cluster had deleted it: its Ingress moved to another Secret)
// is released a day before that certificate expires, and written as the cluster asks; the
// certificate, named no more, goes. Before, only a certificate the cluster still asks for
// was let go, and the server served the made-again one until it expired.
func TestHoldBackLetsAServerOfAnExpiringCertificateGo(t *testing.T) {
	sRef := api.Ref{Kind: api.KindServer, Name: "s"}
	oldRef := api.Ref{Kind: api.KindCertificate, Name: "old"}
	for _, c := range []struct {
		name    string
		expires time.Duration
		held    bool
	}{{"valid for a month", 30 * 24 * time.Hour, true}, {"expiring in an hour", time.Hour, false}} {
		head := api.NewState()
		head.Backends["x"] = k8sBackend("x")
		head.Certificates["old"] = k8sCertificate("old", "old", time.Now().Add(c.expires))
		head.Servers["s"] = tlsServer("s", "s.example.com", "x", "old")
		tr := &Translation{Backends: map[string]*api.Backend{"x": k8sBackend("x")},
			Certificates: map[string]*api.Certificate{"new": k8sCertificate("new", "new", time.Now().Add(90*24*time.Hour))},
			Servers:      map[string]*api.Server{"s": tlsServer("s", "s.example.com", "x", "new")}}
		holds := map[api.Ref]api.Hold{
			sRef: {Kind: api.KindServer, Name: "s", Revision: 3,
				Rejected: api.HoldDigest(api.Mutation{Kind: api.KindServer, Name: "s", Server: tr.Servers["s"]})},
			oldRef: {Kind: api.KindCertificate, Name: "old", Revision: 3, Rejected: ""},
		}
		out, release, held := holdBack(tr, head, mutations(tr, head), holds, noFollow)
		written, deleted := map[api.Ref]bool{}, map[api.Ref]bool{}
		for _, m := range out {
			if m.Delete {
				deleted[m.Ref()] = true
			} else {
				written[m.Ref()] = true
			}
		}
		_, sHeld := held[sRef]
		_, oldHeld := held[oldRef]
		if c.held {
			if !sHeld || !oldHeld || len(release) != 0 || written[sRef] || deleted[oldRef] {
				t.Errorf("%s: out %+v, release %v, held %v; want s and its certificate held as they are", c.name, out, release, held)
			}
			continue
		}
		if sHeld || oldHeld || !written[sRef] || !deleted[oldRef] {
			t.Errorf("%s: out %+v, release %v, held %v; want s released and written as the cluster asks, and certificate old deleted",
				c.name, out, release, held)
		}
		if err := candidate(head, out).CheckAll(); err != nil {
			t.Errorf("%s: the write does not check: %v", c.name, err)
		}
	}
}
