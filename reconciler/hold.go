package reconciler

import (
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/api"
)

// holdBody is what a held path answers: the reason is the Ingress's owner's to read, in
// its Events and verdict, not every client's.
const holdBody = "503 Service Unavailable: the Ingress that routes this path is refused; its Events say why"

// holdPlan is what an Ingress that cannot be translated keeps of its routes: each path on
// each of its hosts (the catch-all for a default backend without rules), answering 503.
// A refused Ingress that asked for auth, an allow list or client certificates would
// otherwise hand its paths to another Ingress's broader path, without them: it fails
// closed instead, and its paths stay its own until it is fixed or deleted. Only the
// Ingress's own hosts are held (ownHosts said they are its namespace's), and a path that
// is no valid path or regex is left out.
func holdPlan(ing *networkingv1.Ingress) *plan {
	p := &plan{ing: ing, hold: true, backends: map[string]*api.Backend{}}
	add := func(host, path string, exact bool) {
		l := api.Location{Path: path, Match: api.MatchPrefix, Return: &api.Return{Code: 503, Body: holdBody}}
		if l.Path == "" {
			l.Path = "/"
		}
		if exact {
			l.Match = api.MatchExact
		}
		if api.ValidPath("path", l.Path) != nil && regexPath(&l) != nil {
			return
		}
		p.routes = append(p.routes, route{host: host, loc: l})
	}
	for _, r := range ing.Spec.Rules {
		host := r.Host
		if host == "" {
			host = api.CatchAllHostname
		}
		if r.HTTP == nil {
			continue
		}
		for _, path := range r.HTTP.Paths {
			add(host, path.Path, path.PathType != nil && *path.PathType == networkingv1.PathTypeExact)
		}
	}
	if len(ing.Spec.Rules) == 0 && ing.Spec.DefaultBackend != nil {
		add(api.CatchAllHostname, "/", false)
	}
	return p
}
