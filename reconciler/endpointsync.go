package reconciler

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"sync"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/restyplane/restyplane/api"
)

// changes collects, between syncs, what the informers' handlers saw: the Services whose
// EndpointSlices changed, the routes whose spec alone changed, or that anything else did.
// A sync takes it before it reads the caches; a handler marks it before it enqueues, so a
// change is either taken by the sync its enqueue starts or by an earlier one that then
// read it from the caches.
type changes struct {
	mu       sync.Mutex
	all      bool
	services map[string]bool
	routes   map[string]bool
}

// everything marks a change that may alter any object of the translation.
func (c *changes) everything() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.all = true
}

// endpoints marks a change of the EndpointSlices of Service svc ("namespace/name").
func (c *changes) endpoints(svc string) { c.mark(&c.services, svc) }

// routeEdited marks a change of a route's spec alone (its generation), the route named
// as a GatewayReport does ("Kind namespace/name").
func (c *changes) routeEdited(key string) { c.mark(&c.routes, key) }

// mark adds key to one of the sets.
func (c *changes) mark(set *map[string]bool, key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if *set == nil {
		*set = map[string]bool{}
	}
	(*set)[key] = true
}

// take returns what was marked and clears it.
func (c *changes) take() (all bool, services, routes map[string]bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	all, services, routes = c.all, c.services, c.routes
	c.all, c.services, c.routes = false, nil, nil
	return all, services, routes
}

// lastSync is what one sync leaves for the next: its translation, and the head's revision
// once it had written it.
type lastSync struct {
	t   *Translation
	rev int64
}

// endpointsOnly is the translation of prev with the endpoints of the dirty Services'
// backends read again, and the names of the backends it gave new endpoints (or, a route
// rule's own backend, a new split or errorWeight); nil when that
// might differ from what Translate gives, and a full translation is needed. An EndpointSlice
// feeds nothing but its Service's endpoints, so on a large cluster this is most syncs,
// at the cost of the few Ingresses and Gateway API routes that route to those Services
// instead of all of them. It refuses whenever an Ingress routing to a dirty Service was not
// applied whole by the last translation or has changed since it was translated (a change
// whose handler has not run yet), and when a plan of them fails or warns now (more
// endpoints than a backend holds); routeBackends says the same of routes, and takes the
// edits of routes that change nothing but their backends' endpoints and weights.
func (c *cluster) endpointsOnly(controller string, allowExternalName bool, prev *Translation, dirty, edited map[string]bool, cache *translationCache) (*Translation, []string, error) {
	classes, err := c.classes.List(labels.Everything())
	if err != nil {
		return nil, nil, fmt.Errorf("list ingressclasses: %w", err)
	}
	owned := ownedClasses(classes, controller)
	var ings []*networkingv1.Ingress
	seen := map[string]bool{}
	for svc := range dirty {
		refs, err := c.ingIndex.ByIndex(byService, svc)
		if err != nil {
			return nil, nil, fmt.Errorf("ingresses of service %s: %w", svc, err)
		}
		for _, obj := range refs {
			ing, ok := obj.(*networkingv1.Ingress)
			if !ok || !owned.owns(ing) || seen[ingressKey(ing)] {
				continue
			}
			seen[ingressKey(ing)] = true
			rep := prev.Reports[ingressKey(ing)]
			// A status written since does not count (ingressChanged): the reporter writes one
			// after every sync.
			if rep == nil || !rep.Applied || len(rep.Problems) > 0 || ingressChanged(rep.Ingress, ing) {
				return nil, nil, nil
			}
			ings = append(ings, ing)
		}
	}
	snap, err := c.snapshotOf(ings, cache)
	if err != nil {
		return nil, nil, err
	}
	snap.AllowExternalName = allowExternalName
	fresh := map[string]*api.Backend{}
	for _, ing := range ings {
		p, err := planFor(ing, snap)
		if err != nil || len(p.warnings) > 0 {
			return nil, nil, nil
		}
		for name, b := range p.backends {
			if dirty[b.Source.Namespace+"/"+b.Source.Name] {
				fresh[name] = b
			}
		}
	}
	ports := maps.Clone(prev.refPorts)
	if ports == nil {
		ports = map[refPort][]api.Endpoint{}
	}
	report, ok, err := c.routeBackends(prev, dirty, edited, snap, fresh, ports)
	if !ok || err != nil {
		return nil, nil, err
	}
	next := *prev
	next.Gateway, next.refPorts = report, ports
	next.Backends = maps.Clone(prev.Backends)
	next.Claims, next.Releases = nil, nil
	var changed []string
	for name, b := range fresh {
		cur := next.Backends[name]
		if cur == nil || slices.Equal(cur.Endpoints, b.Endpoints) && reflect.DeepEqual(cur.Split, b.Split) && cur.ErrorWeight == b.ErrorWeight {
			continue
		}
		// The backend may be a cached plan's or a canary's split: change a copy. A route
		// rule's own backend takes its Split and errorWeight too, which an edit of the
		// weights changes (all of them to 0 or from it: every request answered 500 or none).
		nb := *cur
		nb.Endpoints, nb.Split, nb.ErrorWeight = b.Endpoints, b.Split, b.ErrorWeight
		next.Backends[name] = &nb
		changed = append(changed, name)
	}
	sort.Strings(changed)
	return &next, changed, nil
}
