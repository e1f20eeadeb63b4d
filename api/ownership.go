package api

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// The rules of who may write what, which every write of the history obeys. They are
// policy, not persistence: the store calls them under its writer lock with what it holds.

// CheckOwner enforces that each source changes only what it owns: the REST API its own
// objects and the settings, the reconciler the objects it translated from the cluster.
func CheckOwner(meta Meta, m *Mutation, owner Source, exists bool) error {
	k8s := meta.Source == SourceKubernetes
	if m.Kind == KindSettings {
		if k8s {
			return Errorf(EForbidden, "kubernetes does not write settings")
		}
		return nil
	}
	// Who owns the object decides first: a REST write of a kubernetes-owned object is a
	// conflict that says where to edit it, whatever source the body claims.
	if exists && (owner.Kind == SourceKubernetes) != k8s {
		if k8s {
			return Errorf(EConflict, "%s %q is owned by the REST API; the REST object wins", m.Kind, m.Name)
		}
		return Errorf(EConflict, "%s %q is owned by %s: edit the Kubernetes object instead", m.Kind, m.Name, owner)
	}
	if !m.Delete {
		if got := m.Source(); (got.Kind == SourceKubernetes) != k8s {
			if k8s {
				return Invalid("source.kind", "objects written by the reconciler must have a kubernetes source")
			}
			return Invalid("source.kind", "only the Kubernetes reconciler writes kubernetes-owned objects")
		}
	}
	return nil
}

// CheckHostnameClaims refuses a write of a REST-owned server that names a hostname a
// Kubernetes namespace holds in claims: REST servers and Ingresses never share a hostname.
func CheckHostnameClaims(muts []Mutation, claims map[string]HostnameClaim) error {
	if len(claims) == 0 {
		return nil
	}
	for _, m := range muts {
		if m.Delete || m.Server == nil || m.Server.Source.Kind == SourceKubernetes {
			continue
		}
		for _, h := range m.Server.Hostnames {
			if c, ok := claimOverlapping(h, claims); ok {
				return &Error{Code: EConflict, Field: "hostnames", Message: fmt.Sprintf(
					"hostname %q overlaps %q, held by Kubernetes namespace %q (by %s since %s): REST servers and Ingresses never share a hostname, a wildcard and the names it covers included; an admin may release it with DELETE /api/v1/kubernetes/hostnames/%s",
					h, c.Hostname, c.Namespace, c.How, c.Since.Format(time.RFC3339), c.Hostname)}
			}
		}
	}
	return nil
}

// claimOverlapping returns the claim of h itself, of a wildcard that covers h, or, when h
// is a wildcard, of a name it covers: nginx routes all of them by one server_name rule.
func claimOverlapping(h string, claims map[string]HostnameClaim) (HostnameClaim, bool) {
	if c, ok := claims[h]; ok {
		return c, true
	}
	for s := h; ; {
		_, rest, ok := strings.Cut(s, ".")
		if !ok {
			break
		}
		if c, ok := claims["*."+rest]; ok {
			return c, true
		}
		s = rest
	}
	if suffix, ok := strings.CutPrefix(h, "*"); ok {
		for _, name := range slices.Sorted(maps.Keys(claims)) {
			if strings.HasSuffix(name, suffix) {
				return claims[name], true
			}
		}
	}
	return HostnameClaim{}, false
}
