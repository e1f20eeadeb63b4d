package reconciler

import (
	"sort"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// memo keeps one sync's translations of cluster objects for the next, each under the
// version of what it was computed from. A sync runs on every EndpointSlice change, and
// most objects have not changed since the last one; parsing a certificate and checking its
// key, above all, would otherwise be most of a sync's work. Entries that a sync did not
// use are dropped at the next rotate. One sync runs at a time, so there is no lock.
type memo[T any] struct {
	prev, next map[string]memoEntry[T]
}

type memoEntry[T any] struct {
	version string
	val     T
	err     error
}

func newMemo[T any]() *memo[T] {
	return &memo[T]{prev: map[string]memoEntry[T]{}, next: map[string]memoEntry[T]{}}
}

// get returns the value for key at version, computing it on a miss. A nil memo computes
// every time.
func (m *memo[T]) get(key, version string, compute func() (T, error)) (T, error) {
	if m == nil {
		return compute()
	}
	e, ok := m.next[key]
	if !ok {
		e, ok = m.prev[key]
	}
	if !ok || e.version != version {
		e = memoEntry[T]{version: version}
		e.val, e.err = compute()
	}
	m.next[key] = e
	return e.val, e.err
}

func (m *memo[T]) rotate() {
	m.prev, m.next = m.next, map[string]memoEntry[T]{}
}

// translationCache is what the reconciler remembers between syncs. Values taken from it
// are shared with later syncs and never modified.
type translationCache struct {
	certs *memo[*api.Certificate]
	plans *memo[*plan]
	// last is the sync before, for endpointsOnly.
	last lastSync
}

func newTranslationCache() *translationCache {
	return &translationCache{certs: newMemo[*api.Certificate](), plans: newMemo[*plan]()}
}

// rotate ends a sync.
func (c *translationCache) rotate() {
	if c != nil {
		c.certs.rotate()
		c.plans.rotate()
	}
}

// planVersion names the versions of everything an Ingress's plan is computed from: the
// Ingress, and the Services, EndpointSlices and Secrets it references.
func planVersion(ing interface{ GetResourceVersion() string }, services []string, tlsSecrets []string, snap *Snapshot) string {
	var b strings.Builder
	b.WriteString(ing.GetResourceVersion())
	for _, key := range services {
		b.WriteString("|s")
		if svc := snap.Services[key]; svc != nil {
			b.WriteString(string(svc.UID) + "/" + svc.ResourceVersion)
		}
		slices := snap.Slices[key]
		vs := make([]string, 0, len(slices))
		for _, s := range slices {
			vs = append(vs, s.Name+"/"+s.ResourceVersion)
		}
		sort.Strings(vs)
		for _, v := range vs {
			b.WriteString("," + v)
		}
	}
	for _, key := range tlsSecrets {
		b.WriteString("|t")
		if s := snap.Secrets[key]; s != nil {
			b.WriteString(string(s.UID) + "/" + s.ResourceVersion)
		}
	}
	return b.String()
}

// certsMemo and plansMemo return nil memos, which compute every time, for a nil cache.
func (c *translationCache) certsMemo() *memo[*api.Certificate] {
	if c == nil {
		return nil
	}
	return c.certs
}

func (c *translationCache) plansMemo() *memo[*plan] {
	if c == nil {
		return nil
	}
	return c.plans
}
