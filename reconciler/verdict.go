package reconciler

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"

	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/restyplane/restyplane/api"
)

// last is what the newest sync said about the Ingresses of restyplane's class.
type last struct {
	reports  map[string]*Report
	gateway  *GatewayReport
	revision int64
}

func (r *Reconciler) setLast(t *Translation, rev int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = &last{reports: t.Reports, gateway: t.Gateway, revision: rev}
}

func (r *Reconciler) setCluster(c *cluster) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cluster = c
}

// Verdicts says, for GET /api/v1/kubernetes/ingresses, what restyplane does with each
// Ingress of its class (from the newest sync) and, with anyClass, what it would do with
// the Ingresses of other classes if they moved over. The informers watch every Ingress of
// the cluster, whatever its class, for this answer and for Ingresses that change class:
// a deliberate scope, which costs the cache the other classes' Ingresses.
func (r *Reconciler) Verdicts(ctx context.Context, anyClass bool) (*api.IngressVerdicts, error) {
	r.mu.Lock()
	l, c := r.last, r.cluster
	r.mu.Unlock()
	if l == nil || c == nil {
		return nil, api.Errorf(api.EUnavailable, "the reconciler has not synced yet, or this replica does not hold the Lease")
	}
	out := &api.IngressVerdicts{Revision: l.revision, Ingresses: []api.IngressVerdict{}, Routes: routeVerdicts(l.gateway)}
	for _, rep := range l.reports {
		out.Ingresses = append(out.Ingresses, verdictOf(rep))
	}
	if anyClass {
		others, err := r.evaluateOthers(ctx, c, l)
		if err != nil {
			return nil, err
		}
		out.Ingresses = append(out.Ingresses, others...)
	}
	sort.Slice(out.Ingresses, func(i, j int) bool {
		a, b := out.Ingresses[i], out.Ingresses[j]
		return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
	})
	return out, nil
}

// evaluateOthers translates the Ingresses of other classes together with restyplane's own
// (which sync first in the claim rule, as their claims are stored), without writing or
// claiming anything, and returns the others' verdicts.
func (r *Reconciler) evaluateOthers(ctx context.Context, c *cluster, l *last) ([]api.IngressVerdict, error) {
	snap, err := c.snapshotAll()
	if err != nil {
		return nil, err
	}
	if err := r.readClaims(ctx, snap); err != nil {
		return nil, err
	}
	t := Translate(snap, r.store.Head())
	var out []api.IngressVerdict
	for key, rep := range t.Reports {
		if l.reports[key] != nil {
			continue
		}
		rep.Ours = false
		out = append(out, verdictOf(rep))
	}
	return out, nil
}

// routeVerdicts lists the routes of a sync's report, by kind, namespace and name.
func routeVerdicts(g *GatewayReport) []api.RouteVerdict {
	out := []api.RouteVerdict{}
	if g == nil {
		return out
	}
	for _, k := range slices.Sorted(maps.Keys(g.Routes)) {
		r := g.Routes[k]
		if len(r.Parents) == 0 {
			continue // a route that left restyplane's Gateways, read to clear its status
		}
		v := api.RouteVerdict{Kind: r.Kind, Namespace: r.Meta.Namespace, Name: r.Meta.Name, Verdict: api.VerdictRefused, Problems: []api.IngressProblem{}}
		if r.Applied {
			v.Verdict = api.VerdictServed
		}
		for _, p := range append(append([]Problem(nil), r.Problems...), r.Notes...) {
			v.Problems = append(v.Problems, api.IngressProblem{Reason: p.Reason, Message: p.Message})
		}
		for _, ps := range r.Parents {
			for _, c := range ps.Conditions {
				if c.Status == "False" && c.Type == "Accepted" && !r.Applied {
					v.Problems = append(v.Problems, api.IngressProblem{Reason: c.Reason, Message: fmt.Sprintf("parent %s: %s", ps.ParentRef.Name, c.Message)})
				}
			}
		}
		out = append(out, v)
	}
	return out
}

func verdictOf(rep *Report) api.IngressVerdict {
	ing := rep.Ingress
	v := api.IngressVerdict{Namespace: ing.Namespace, Name: ing.Name, Class: ingressClassOf(ing), Ours: rep.Ours,
		Verdict: api.VerdictRefused, Problems: []api.IngressProblem{}, Annotations: annotationVerdicts(ing.Annotations)}
	if rep.Applied {
		v.Verdict = api.VerdictServed
		for _, a := range v.Annotations {
			if a.Verdict == api.VerdictTranslated {
				v.Verdict = api.VerdictTranslated
			}
		}
	}
	for _, p := range append(append([]Problem(nil), rep.Problems...), rep.Notes...) {
		v.Problems = append(v.Problems, api.IngressProblem{Reason: p.Reason, Message: p.Message})
	}
	if v.Annotations == nil {
		v.Annotations = []api.AnnotationVerdict{}
	}
	return v
}

func ingressClassOf(ing *networkingv1.Ingress) string {
	if ing.Spec.IngressClassName != nil {
		return *ing.Spec.IngressClassName
	}
	return ing.Annotations[legacyClassAnnotation]
}

// snapshotAll is snapshot over every Ingress of the cluster, whatever its class.
func (c *cluster) snapshotAll() (*Snapshot, error) {
	ings, err := c.ingresses.List(labels.Everything())
	if err != nil {
		return nil, fmt.Errorf("list ingresses: %w", err)
	}
	snap, err := c.snapshotOf(ings, nil)
	if err != nil {
		return nil, err
	}
	// The routes claim hostnames too.
	if g := c.gateway.Load(); g != nil {
		if err := c.gatewaySnapshot(g, c.gatewayController, snap); err != nil {
			return nil, err
		}
	}
	return snap, nil
}
