package reconciler

import (
	"fmt"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

// planHTTPRoute translates an HTTPRoute's rules into locations, one per match, in the
// order of its rules and matches: the order in which the spec breaks the last ties of
// precedence within a route. A rule that cannot be translated is left out and reported;
// the others apply.
func (gp *gatewayPlan) planHTTPRoute(r *gatewayv1.HTTPRoute) *routePlan {
	rp := &routePlan{kind: api.ObjectHTTPRoute, meta: &r.ObjectMeta, obj: r, hostnames: r.Spec.Hostnames,
		parentRefs: r.Spec.ParentRefs, backends: map[string]*api.Backend{}, rules: len(r.Spec.Rules)}
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
		tmpl.Backend = gp.ruleBackend(rp, i, refs, api.ProtocolHTTP)
		if tmpl.Backend == "" {
			tmpl.Return = &api.Return{Code: 500, Body: "500 Internal Server Error: the route's rule has no backend that resolves"}
		}
	}
	t, err := ruleTimeouts(rule.Timeouts)
	if err != nil {
		return nil, err
	}
	tmpl.Timeouts = t
	if rule.Retry != nil {
		rp.notes = append(rp.notes, Problem{Reason: ReasonIgnoredAnnotation, Message: fmt.Sprintf("rules[%d].retry is not served: requests are tried once", i)})
	}
	if rule.SessionPersistence != nil {
		rp.notes = append(rp.notes, Problem{Reason: ReasonIgnoredAnnotation, Message: fmt.Sprintf("rules[%d].sessionPersistence is not served", i)})
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

// httpMatch sets l's path and conditions from a match: a PathPrefix (the default, "/"),
// Exact or RegularExpression path (a regex the whole path must match), and the method,
// header and query parameter conditions.
func httpMatch(l *api.Location, m gatewayv1.HTTPRouteMatch) error {
	l.Path, l.Match = "/", api.MatchPrefix
	if p := m.Path; p != nil {
		if p.Value != nil {
			l.Path = *p.Value
		}
		if p.Type != nil {
			switch *p.Type {
			case gatewayv1.PathMatchExact:
				l.Match = api.MatchExact
			case gatewayv1.PathMatchRegularExpression:
				l.Match = api.MatchRegex
			}
		}
	}
	if l.Match == api.MatchRegex {
		l.Path = anchored(l.Path)
		if err := api.ValidRegex("path", l.Path); err != nil {
			return err
		}
	} else if err := api.ValidPath("path", l.Path); err != nil {
		return err
	}
	var w gwMatch
	if m.Method != nil {
		w.method = string(*m.Method)
	}
	for _, h := range m.Headers {
		w.headers = append(w.headers, gwValue{name: string(h.Name), typ: valueType(h.Type != nil && *h.Type == gatewayv1.HeaderMatchRegularExpression), value: h.Value})
	}
	for _, q := range m.QueryParams {
		w.query = append(w.query, gwValue{name: string(q.Name), typ: valueType(q.Type != nil && *q.Type == gatewayv1.QueryParamMatchRegularExpression), value: q.Value})
	}
	if err := setWhen(l, w); err != nil {
		return fmt.Errorf("method, header and query parameter matches: %w", err)
	}
	return nil
}

// anchored makes a path regex match the whole path, as a RegularExpression match does:
// \z, not $, which PCRE also matches before a final newline (which a decoded path may
// end in).
func anchored(re string) string {
	if !strings.HasPrefix(re, "^") {
		re = "^" + re
	}
	re = strings.TrimSuffix(re, "$")
	if !strings.HasSuffix(re, `\z`) {
		re += `\z`
	}
	return re
}

func valueType(regex bool) string {
	if regex {
		return "regex"
	}
	return "exact"
}

// weightOf is a backendRef's weight, 1 when it names none.
func weightOf(w *int32) int32 {
	if w == nil {
		return 1
	}
	return *w
}

// validLocation checks one location on its own, as a server of its own, so that a route's
// bad value is refused with its rule rather than with the server of every route and
// Ingress of its host.
func validLocation(l api.Location) error {
	if l.Backend == "" && l.Return == nil && l.Redirect == nil {
		return fmt.Errorf("no backend")
	}
	probe := l
	if probe.Backend != "" {
		probe.Backend = "x"
	}
	return (&api.Server{Name: "x", Hostnames: []string{"x.test"}, Locations: []api.Location{probe}}).Validate()
}
