package reconciler

import (
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/restyplane/restyplane/api"
)

// claimKey is what a location claims on a host, reduced as api reduces it: a prefix path
// with or without its trailing slash claims the same requests.
func claimKey(host string, l api.Location) string {
	p := l.Path
	if l.Match == api.MatchPrefix && len(p) > 1 {
		p = strings.TrimRight(p, "/")
	}
	return host + " " + l.Match + " " + p
}

// reserved is what REST-owned objects hold in the head: their names, and the host+path
// claims of their servers. The REST object always wins over an Ingress.
type reserved struct {
	names  map[api.Ref]bool
	claims map[string]string // claim key -> REST server name
}

func reservedBy(head *api.State) reserved {
	r := reserved{names: map[api.Ref]bool{}, claims: map[string]string{}}
	if head == nil {
		return r
	}
	for n, b := range head.Backends {
		if b.Source.Kind != api.SourceKubernetes {
			r.names[api.Ref{Kind: api.KindBackend, Name: n}] = true
		}
	}
	for n, c := range head.Certificates {
		if c.Source.Kind != api.SourceKubernetes {
			r.names[api.Ref{Kind: api.KindCertificate, Name: n}] = true
		}
	}
	for n, h := range head.Htpasswds { // policies
		if h.Source.Kind != api.SourceKubernetes {
			r.names[api.Ref{Kind: api.KindHtpasswd, Name: n}] = true
		}
	}
	for n, c := range head.CACertificates { // policies
		if c.Source.Kind != api.SourceKubernetes {
			r.names[api.Ref{Kind: api.KindCACertificate, Name: n}] = true
		}
	}
	for n, s := range head.Servers {
		if s.Source.Kind == api.SourceKubernetes {
			continue
		}
		r.names[api.Ref{Kind: api.KindServer, Name: n}] = true
		for _, h := range s.Hostnames {
			for _, l := range s.Locations {
				if l.Match == "" {
					l.Match = api.MatchPrefix
				}
				r.claims[claimKey(h, l)] = n
			}
		}
	}
	return r
}

// older orders Ingresses by the conflict rule: the oldest creationTimestamp wins; within
// one second (the timestamp's resolution), the Ingress the head already serves a server
// of, in served; then the lower namespace/name. So the winner never changes when a newer
// Ingress appears, even one created in the same second whose name sorts first.
func older(a, b *networkingv1.Ingress, served map[types.UID]bool) bool {
	ta, tb := a.CreationTimestamp.Time, b.CreationTimestamp.Time
	if !ta.Equal(tb) {
		return ta.Before(tb)
	}
	if sa, sb := served[a.UID], served[b.UID]; sa != sb {
		return sa
	}
	return ingressKey(a) < ingressKey(b)
}

// servedIngresses are the Ingresses whose servers head serves, by UID.
func servedIngresses(head *api.State) map[types.UID]bool {
	served := map[types.UID]bool{}
	for _, s := range head.Servers {
		if s.Source.Kind == api.SourceKubernetes && s.Source.UID != "" {
			served[types.UID(s.Source.UID)] = true
		}
	}
	return served
}

func ingressKey(ing *networkingv1.Ingress) string { return ing.Namespace + "/" + ing.Name }
