package reconciler

import (
	"fmt"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

// planHTTPRoute translates an HTTPRoute's rules into locations, one per match, in the
// order of its rules and matches: the order in which the spec breaks the last ties of
// precedence within a route. A rule that cannot be translated is left out and reported;
// the others apply.
func (gp *gatewayPlan) planHTTPRoute(r *gatewayv1.HTTPRoute) *routePlan {
	rp := &routePlan{kind: api.ObjectHTTPRoute, meta: &r.ObjectMeta, obj: r, hostnames: r.Spec.Hostnames,
		parentRefs: r.Spec.ParentRefs, backends: map[string]*api.Backend{},
		cas: map[string]*api.CACertificate{}, services: map[string]bool{}, rules: len(r.Spec.Rules)}
	for i, rule := range r.Spec.Rules {
		rp.ruleRefs = append(rp.ruleRefs, ruleRef(i, rule.Name))
	}
	for i, rule := range r.Spec.Rules {
		locs, err := gp.httpRule(rp, i, rule)
		if err != nil {
			rp.ruleInvalid(i, err)
			continue
		}
		rp.locs = append(rp.locs, locs...)
	}
	return rp
}

// httpRule translates rule i: what every request it matches gets (backend, filters,
// timeouts), then one location per match.
func (gp *gatewayPlan) httpRule(rp *routePlan, i int, rule gatewayv1.HTTPRouteRule) ([]api.Location, error) {
	var tmpl api.Location
	refs := make([]weightedRef, 0, len(rule.BackendRefs))
	filters := rule.Filters
	for j, b := range rule.BackendRefs {
		refs = append(refs, weightedRef{ref: b.BackendObjectReference, weight: weightOf(b.Weight)})
		if len(b.Filters) > 0 {
			if len(rule.BackendRefs) > 1 || len(rule.Filters) > 0 {
				return nil, fmt.Errorf("backendRefs[%d].filters: filters of one backendRef among several (or beside the rule's own) are not served; give them to the rule", j)
			}
			filters = b.Filters
		}
	}
	redirects := false
	for _, f := range filters {
		redirects = redirects || f.Type == gatewayv1.HTTPRouteFilterRequestRedirect
	}
	if !redirects {
		var err error
		if tmpl.Backend, err = gp.ruleBackend(rp, i, refs, api.ProtocolHTTP); err != nil {
			return nil, err
		}
		if tmpl.Backend == "" {
			tmpl.Return = &api.Return{Code: 500, Body: "500 Internal Server Error: the route's rule has no backend that resolves"}
		}
	}
	t, err := ruleTimeouts(rule.Timeouts)
	if err != nil {
		return nil, err
	}
	tmpl.Timeouts = t
	if tmpl.Retry, err = ruleRetry(rule.Retry, rule.Timeouts); err != nil {
		return nil, err
	}
	if rule.SessionPersistence != nil {
		rp.notes = append(rp.notes, Problem{Reason: ReasonIgnoredAnnotation, Message: rp.rule(i) + ".sessionPersistence is not served"})
	}
	if err := gp.httpFilters(rp, &tmpl, filters); err != nil {
		return nil, err
	}
	matches := rule.Matches
	if len(matches) == 0 {
		matches = []gatewayv1.HTTPRouteMatch{{}}
	}
	var out []api.Location
	for j, m := range matches {
		l := tmpl
		if err := httpMatch(&l, m); err != nil {
			return nil, fmt.Errorf("matches[%d]: %w", j, err)
		}
		if l.Rewrite != "" && l.Match != api.MatchPrefix {
			return nil, fmt.Errorf("matches[%d]: a URLRewrite's replacePrefixMatch needs a PathPrefix match, and this one is %s", j, l.Match)
		}
		if err := validLocation(l); err != nil {
			return nil, fmt.Errorf("matches[%d]: %w", j, err)
		}
		out = append(out, l)
	}
	return out, nil
}
