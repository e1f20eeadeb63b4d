package reconciler

import (
	"fmt"
	"strings"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

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
