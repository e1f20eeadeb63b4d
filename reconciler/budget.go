package reconciler

import (
	"fmt"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// Budgets bound what the Ingresses (and Gateway API routes, each counted as one) of one
// namespace may put on the proxy, so that one
// team cannot grow nginx.conf or the certificate memory without bound, nor fill the
// proxy-wide certificate budget that the store enforces on the whole history (a state
// over it is refused whole: every namespace's changes would stop). A zero field takes its
// default (DefaultBudgets).
type Budgets struct {
	// Ingresses served per namespace.
	Ingresses int
	// Locations per namespace: paths and default backends, on all its hosts.
	Locations int
	// CertificateBytes per namespace: the TLS, client and CA certificates (and keys) of
	// its Secrets, each counted once.
	CertificateBytes int64
	// TotalCertificateBytes for every namespace together.
	TotalCertificateBytes int64
}

// DefaultBudgets fit a namespace of a large team and leave room for four such namespaces
// at their full certificate budget.
func DefaultBudgets() Budgets {
	return Budgets{Ingresses: 1000, Locations: 5000, CertificateBytes: api.MaxCertificateBytes / 4,
		TotalCertificateBytes: api.MaxCertificateBytes}
}

func (b Budgets) withDefaults() Budgets {
	d := DefaultBudgets()
	if b.Ingresses == 0 {
		b.Ingresses = d.Ingresses
	}
	if b.Locations == 0 {
		b.Locations = d.Locations
	}
	if b.CertificateBytes == 0 {
		b.CertificateBytes = d.CertificateBytes
	}
	if b.TotalCertificateBytes == 0 {
		b.TotalCertificateBytes = d.TotalCertificateBytes
	}
	return b
}

// spending is what the Ingresses taken so far in one sync use, oldest first.
type spending struct {
	limit   Budgets
	used    map[string]*usage
	total   int64
	counted map[string]bool // certificates counted proxy-wide
}

// usage is one namespace's share.
type usage struct {
	ingresses, locations int
	certBytes            int64
	counted              map[string]bool
}

// newSpending starts a sync's spending; the REST API's certificates in head take their
// share of the proxy-wide budget first.
func newSpending(b Budgets, head *api.State) *spending {
	s := &spending{limit: b.withDefaults(), used: map[string]*usage{}, counted: map[string]bool{}}
	for _, c := range head.Certificates {
		if c.Source.Kind != api.SourceKubernetes {
			s.total += int64(len(c.Cert) + len(c.Key))
		}
	}
	return s
}

// charge takes p's share from its namespace's budget and the proxy's, or says why it
// would go over one, taking nothing. Ingresses come oldest first, so that the newest loses.
func (s *spending) charge(p *plan) string {
	return s.take(p.ing.Namespace, len(p.routes)+len(p.fallbacks), p.certificates())
}

// take charges one object of namespace ns, with its locations and certificates (sizes by
// kind/name), or says why it would go over a budget, taking nothing.
func (s *spending) take(ns string, locations int, certs map[string]int64) string {
	u := s.used[ns]
	if u == nil {
		u = &usage{counted: map[string]bool{}}
		s.used[ns] = u
	}
	var nsBytes, totalBytes int64
	for name, n := range certs {
		if !u.counted[name] {
			nsBytes += n
		}
		if !s.counted[name] && strings.HasPrefix(name, "certificate/") {
			totalBytes += n // the store's bound counts the certificates' shared dict
		}
	}
	switch {
	case u.ingresses+1 > s.limit.Ingresses:
		return fmt.Sprintf("namespace %s is at its budget of %d Ingresses, which older ones use", ns, s.limit.Ingresses)
	case u.locations+locations > s.limit.Locations:
		return fmt.Sprintf("namespace %s is at its budget of %d locations: older Ingresses use %d and this one needs %d", ns, s.limit.Locations, u.locations, locations)
	case u.certBytes+nsBytes > s.limit.CertificateBytes:
		return fmt.Sprintf("namespace %s is at its budget of %d certificate bytes: older Ingresses use %d and this one's Secrets need %d more", ns, s.limit.CertificateBytes, u.certBytes, nsBytes)
	case s.total+totalBytes > s.limit.TotalCertificateBytes:
		return fmt.Sprintf("the proxy's certificates are at their budget of %d bytes: older Ingresses use %d and this one's Secrets need %d more", s.limit.TotalCertificateBytes, s.total, totalBytes)
	}
	u.ingresses++
	u.locations += locations
	u.certBytes += nsBytes
	s.total += totalBytes
	for name := range certs {
		u.counted[name], s.counted[name] = true, true
	}
	return ""
}

// certificates returns the size of each certificate object the plan brings, by kind and
// name: TLS certificates, upstream client certificates and CA bundles.
func (p *plan) certificates() map[string]int64 {
	out := map[string]int64{}
	for n, c := range p.certs {
		out["certificate/"+n] = int64(len(c.Cert) + len(c.Key))
	}
	for n, c := range p.clientCerts {
		out["certificate/"+n] = int64(len(c.Cert) + len(c.Key))
	}
	for n, c := range p.caCertificates {
		out["caCertificate/"+n] = int64(len(c.Cert))
	}
	return out
}
