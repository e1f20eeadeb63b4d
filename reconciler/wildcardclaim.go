package reconciler

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// covers reports whether the wildcard w ("*.example.com") routes host h in nginx: every
// name, of any depth, that ends in w's suffix, another wildcard's included.
func covers(w, h string) bool {
	suffix, ok := strings.CutPrefix(w, "*")
	return ok && w != h && strings.HasSuffix(h, suffix)
}

// overlapping returns the claim, held by another namespace than ns, of a name that h
// covers or that covers h, and whether there is one. Of claims that overlap, the admin's
// grant and then the older claim hold; a claim of this sync is the newest. Wildcards are
// few: the exact names are checked against each parent suffix of h, the wildcards one by
// one.
func (o *hostOwners) overlapping(h, ns string) (api.HostnameClaim, bool) {
	mine := o.held[h]
	for s := h; ; {
		_, rest, ok := strings.Cut(s, ".")
		if !ok {
			break
		}
		if c, ok := o.held["*."+rest]; ok && "*."+rest != h && c.Namespace != ns && beats(c, mine) {
			return c, true
		}
		s = rest
	}
	if !strings.HasPrefix(h, "*.") {
		return api.HostnameClaim{}, false
	}
	for _, c := range o.sortedHeld() {
		// A grant is an admin's exception to a wildcard, which keeps the rest.
		if c.Namespace != ns && c.How != api.HostnameGranted && covers(h, c.Hostname) && beats(c, mine) {
			return c, true
		}
	}
	return api.HostnameClaim{}, false
}

// beats reports whether the claim c holds over mine, when they overlap.
func beats(c, mine api.HostnameClaim) bool {
	switch {
	case mine.Namespace == "":
		return true // mine is no claim yet
	case (c.How == api.HostnameGranted) != (mine.How == api.HostnameGranted):
		return c.How == api.HostnameGranted
	case mine.Since.IsZero() || c.Since.IsZero():
		return mine.Since.IsZero() && !c.Since.IsZero()
	}
	return c.Since.Before(mine.Since) || c.Since.Equal(mine.Since) && c.Hostname < mine.Hostname
}

// overlapRefusal says why an Ingress of namespace ns may not route h for a claim of a
// name that overlaps it.
func overlapRefusal(h string, c api.HostnameClaim) string {
	verb := "covers"
	if covers(c.Hostname, h) {
		verb = "is covered by"
	}
	return fmt.Sprintf("host %s %s %s, held by namespace %s (by %s): nginx would route that traffic to one namespace behind the other's back (an admin may grant it: PUT /api/v1/kubernetes/hostnames/%s)",
		h, verb, c.Hostname, c.Namespace, c.How, h)
}

// sortedHeld returns the held claims in hostname order, for a wildcard to be checked
// against each; the list is made once per sync.
func (o *hostOwners) sortedHeld() []api.HostnameClaim {
	if o.sorted == nil || len(o.sorted) != len(o.held) {
		o.sorted = o.sorted[:0]
		for _, h := range slices.Sorted(maps.Keys(o.held)) {
			o.sorted = append(o.sorted, o.held[h])
		}
	}
	return o.sorted
}

// restOverlap returns a REST server's hostname that h covers or that covers h, with the
// server, or "" for none.
func (o *hostOwners) restOverlap(h string) (host, server string) {
	for s := h; ; {
		_, rest, ok := strings.Cut(s, ".")
		if !ok {
			break
		}
		if srv := o.rest["*."+rest]; srv != "" && "*."+rest != h {
			return "*." + rest, srv
		}
		s = rest
	}
	if strings.HasPrefix(h, "*.") {
		for _, r := range slices.Sorted(maps.Keys(o.rest)) {
			if covers(h, r) {
				return r, o.rest[r]
			}
		}
	}
	return "", ""
}
