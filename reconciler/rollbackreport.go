package reconciler

import (
	"slices"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restyplane/restyplane/api"
)

// heldReports returns reports with a RolledBack Warning on each Ingress whose server,
// backend or TLS certificate is held, copying those it changes: reports belong to the
// cached translation.
func heldReports(reports map[string]*Report, held map[api.Ref]api.Hold) map[string]*Report {
	if len(held) == 0 {
		return reports
	}
	out := make(map[string]*Report, len(reports))
	for key, rep := range reports {
		out[key] = rep
		if rep.Ingress == nil || !rep.Ours {
			continue
		}
		var names []string
		rev := int64(0)
		for _, ref := range ingressRefs(rep.Ingress) {
			if h, ok := held[ref]; ok {
				names = append(names, ref.Kind+" "+ref.Name)
				rev = max(rev, h.Revision)
			}
		}
		if len(names) == 0 {
			continue
		}
		c := *rep
		c.Problems = slices.Clone(rep.Problems)
		c.warn(ReasonRolledBack, "revision %d, a rollback, took %s back from what this Ingress asks for: they stay as the rollback left them until the Ingress asks for something else (or an editor releases them: DELETE /api/v1/holds/{kind}/{name})",
			rev, strings.Join(names, ", "))
		out[key] = &c
	}
	return out
}

// ingressRefs returns the servers of an Ingress's hosts, the backends it names and the
// certificates of its TLS Secrets.
func ingressRefs(ing *networkingv1.Ingress) []api.Ref {
	var refs []api.Ref
	for _, t := range ing.Spec.TLS {
		if t.SecretName != "" {
			refs = append(refs, api.Ref{Kind: api.KindCertificate, Name: certificateName(ing.Namespace, t.SecretName)})
		}
	}
	backend := func(b *networkingv1.IngressBackend) {
		if b != nil && b.Service != nil {
			refs = append(refs, api.Ref{Kind: api.KindBackend, Name: backendName(ing.Namespace, b.Service.Name, portKey(b.Service.Port))})
		}
	}
	backend(ing.Spec.DefaultBackend)
	if ing.Spec.DefaultBackend != nil {
		refs = append(refs, api.Ref{Kind: api.KindServer, Name: catchAllName})
	}
	for _, r := range ing.Spec.Rules {
		host := r.Host
		if host == "" {
			host = api.CatchAllHostname
		}
		refs = append(refs, api.Ref{Kind: api.KindServer, Name: serverName(host)})
		if r.HTTP != nil {
			for i := range r.HTTP.Paths {
				backend(&r.HTTP.Paths[i].Backend)
			}
		}
	}
	return refs
}
