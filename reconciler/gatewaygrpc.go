package reconciler

import (
	"fmt"
	"regexp"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

// planGRPCRoute translates a GRPCRoute as planHTTPRoute does an HTTPRoute: a gRPC call is
// a POST to /<service>/<method>, so a method match is a path, and its backends speak gRPC.
func (gp *gatewayPlan) planGRPCRoute(r *gatewayv1.GRPCRoute) *routePlan {
	rp := &routePlan{kind: api.ObjectGRPCRoute, meta: &r.ObjectMeta, obj: r, hostnames: r.Spec.Hostnames,
		parentRefs: r.Spec.ParentRefs, backends: map[string]*api.Backend{},
		cas: map[string]*api.CACertificate{}, services: map[string]bool{}, rules: len(r.Spec.Rules)}
	for i, rule := range r.Spec.Rules {
		rp.ruleRefs = append(rp.ruleRefs, ruleRef(i, rule.Name))
	}
	for i, rule := range r.Spec.Rules {
		locs, err := gp.grpcRule(rp, i, rule)
		if err != nil {
			rp.ruleInvalid(i, err)
			continue
		}
		rp.locs = append(rp.locs, locs...)
	}
	return rp
}

// grpcRule translates rule i of a GRPCRoute into one location per match.
func (gp *gatewayPlan) grpcRule(rp *routePlan, i int, rule gatewayv1.GRPCRouteRule) ([]api.Location, error) {
	var tmpl api.Location
	refs := make([]weightedRef, 0, len(rule.BackendRefs))
	for j, b := range rule.BackendRefs {
		if len(b.Filters) > 0 {
			return nil, fmt.Errorf("backendRefs[%d].filters: filters of one backendRef are not served; give them to the rule", j)
		}
		refs = append(refs, weightedRef{ref: b.BackendObjectReference, weight: weightOf(b.Weight)})
	}
	var err error
	if tmpl.Backend, err = gp.ruleBackend(rp, i, refs, api.ProtocolGRPC); err != nil {
		return nil, err
	}
	if tmpl.Backend == "" {
		tmpl.Return = &api.Return{Code: 500, Body: "500 Internal Server Error: the route's rule has no backend that resolves"}
	}
	for k, f := range rule.Filters {
		var err error
		switch f.Type {
		case gatewayv1.GRPCRouteFilterRequestHeaderModifier:
			tmpl.RequestHeaders = headerFilter(f.RequestHeaderModifier)
		case gatewayv1.GRPCRouteFilterResponseHeaderModifier:
			tmpl.ResponseHeaders = headerFilter(f.ResponseHeaderModifier)
		case gatewayv1.GRPCRouteFilterRequestMirror:
			err = gp.mirrorFilter(rp, &tmpl, f.RequestMirror, api.ProtocolGRPC)
		default:
			err = fmt.Errorf("filter type %s is not served", f.Type)
		}
		if err != nil {
			return nil, fmt.Errorf("filters[%d] (%s): %w", k, f.Type, err)
		}
	}
	matches := rule.Matches
	if len(matches) == 0 {
		matches = []gatewayv1.GRPCRouteMatch{{}}
	}
	var out []api.Location
	for j, m := range matches {
		l := tmpl
		if err := grpcMatch(&l, m); err != nil {
			return nil, fmt.Errorf("matches[%d]: %w", j, err)
		}
		if err := validLocation(l); err != nil {
			return nil, fmt.Errorf("matches[%d]: %w", j, err)
		}
		out = append(out, l)
	}
	return out, nil
}

// grpcMatch sets l's path from a method match: /service/method exactly; /service/ as a
// prefix for a service alone; a regex for a method alone or a RegularExpression match;
// every path without one. Header matches become conditions.
func grpcMatch(l *api.Location, m gatewayv1.GRPCRouteMatch) error {
	l.Path, l.Match = "/", api.MatchPrefix
	if mm := m.Method; mm != nil {
		svc, method := deref(mm.Service), deref(mm.Method)
		regex := mm.Type != nil && *mm.Type == gatewayv1.GRPCMethodMatchRegularExpression
		switch {
		case regex:
			l.Path, l.Match = "^/"+orAny(svc)+"/"+orAny(method)+`\z`, api.MatchRegex
		case svc != "" && method != "":
			l.Path, l.Match = "/"+svc+"/"+method, api.MatchExact
		case svc != "":
			l.Path = "/" + svc
		case method != "":
			l.Path, l.Match = "^/[^/]+/"+regexp.QuoteMeta(method)+`\z`, api.MatchRegex
		}
	}
	if l.Match == api.MatchRegex {
		if err := api.ValidRegex("method", l.Path); err != nil {
			return err
		}
	} else if err := api.ValidPath("method", l.Path); err != nil {
		return err
	}
	var w gwMatch
	for _, h := range m.Headers {
		w.headers = append(w.headers, gwValue{name: string(h.Name), typ: valueType(h.Type != nil && *h.Type == gatewayv1.GRPCHeaderMatchRegularExpression), value: h.Value})
	}
	if err := setWhen(l, w); err != nil {
		return fmt.Errorf("header matches: %w", err)
	}
	return nil
}

// orAny is a regex part, or one that matches any path segment when it is empty.
func orAny(re string) string {
	if re == "" {
		return "[^/]+"
	}
	return "(?:" + re + ")"
}
