package reconciler

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"

	"github.com/restyplane/restyplane/api"
)

// config is what an attached route makes its Gateways serve beyond its generation,
// for their Config: a digest of its locations, its backends but for their endpoints, and
// its CA bundles, with its references' verdict. Another port of a Service, a
// ReferenceGrant given or taken, or another CA change these with no new generation of
// the route, and the revision that carries them must be served before its Gateways are
// Programmed again. Endpoints are left out: they change as Pods come and go, pushed to
// the proxy without a reload, and a Gateway does not wait for each of them.
func (rp *routePlan) config() string {
	type backend struct {
		B *api.Backend
		// Failing is whether a share of its requests answers 500 (ErrorWeight, whose
		// scale moves with the number of endpoints).
		Failing bool
	}
	backends := make(map[string]backend, len(rp.backends))
	for n, b := range rp.backends {
		c := *b
		c.Endpoints, c.ErrorWeight, c.Version = nil, 0, 0
		backends[n] = backend{B: &c, Failing: b.ErrorWeight > 0}
	}
	cas := make(map[string]string, len(rp.cas))
	for n, ca := range rp.cas {
		cas[n] = ca.Cert
	}
	return digest(rp.locs, backends, cas, rp.refsReason, rp.refsMsg)
}

// listenerConfig is what the Gateway's listeners serve, for its Config: which of them
// serve, and the certificate each HTTPS one presents. Another certificate in a listener's
// Secret, or a ReferenceGrant that lets a listener use another namespace's, changes it
// with no new generation of the Gateway.
func (g *gatewayState) listenerConfig() string {
	type listener struct {
		Name       string
		Serves     bool
		Cert       string
		Chain, Key string
	}
	out := make([]listener, 0, len(g.listeners))
	for _, l := range g.listeners {
		c := listener{Name: string(l.spec.Name), Serves: l.serves(), Cert: l.cert}
		if l.certObj != nil {
			c.Chain, c.Key = l.certObj.Cert, l.certObj.Key
		}
		out = append(out, c)
	}
	return digest(out)
}

// digest is a short digest of values that encoding/json spells alike for alike values
// (maps by sorted key).
func digest(vs ...any) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, v := range vs {
		if err := enc.Encode(v); err != nil {
			// Every value here is plain data; a failure still must not look unchanged.
			fmt.Fprintf(h, "unencodable %T: %v", v, err)
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:12])
}
