package reconciler

import (
	"fmt"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

// httpFilters applies a rule's filters to one of its locations: header modifiers,
// redirect, rewrite, mirrors and CORS. An ExtensionRef or ExternalAuth filter is not
// served: the rule is left out rather than served without what it asks.
func (gp *gatewayPlan) httpFilters(rp *routePlan, l *api.Location, filters []gatewayv1.HTTPRouteFilter) error {
	for i, f := range filters {
		var err error
		switch f.Type {
		case gatewayv1.HTTPRouteFilterRequestHeaderModifier:
			l.RequestHeaders = headerFilter(f.RequestHeaderModifier)
		case gatewayv1.HTTPRouteFilterResponseHeaderModifier:
			l.ResponseHeaders = headerFilter(f.ResponseHeaderModifier)
		case gatewayv1.HTTPRouteFilterRequestRedirect:
			err = redirectFilter(l, f.RequestRedirect)
		case gatewayv1.HTTPRouteFilterURLRewrite:
			err = rewriteFilter(l, f.URLRewrite)
		case gatewayv1.HTTPRouteFilterRequestMirror:
			err = gp.mirrorFilter(rp, l, f.RequestMirror, api.ProtocolHTTP)
		case gatewayv1.HTTPRouteFilterCORS:
			l.CORS = corsFilter(f.CORS)
		default:
			err = fmt.Errorf("filter type %s is not served", f.Type)
		}
		if err != nil {
			return fmt.Errorf("filters[%d] (%s): %w", i, f.Type, err)
		}
	}
	return nil
}

// headerFilter translates a header modifier; nil for none.
func headerFilter(f *gatewayv1.HTTPHeaderFilter) *api.HeaderFilter {
	if f == nil {
		return nil
	}
	h := &api.HeaderFilter{Remove: f.Remove}
	for _, x := range f.Set {
		h.Set = append(h.Set, api.Header{Name: string(x.Name), Value: x.Value})
	}
	for _, x := range f.Add {
		h.Add = append(h.Add, api.Header{Name: string(x.Name), Value: x.Value})
	}
	return h
}

// redirectFilter makes l answer with RequestRedirect's redirect (302 unless it says).
func redirectFilter(l *api.Location, f *gatewayv1.HTTPRequestRedirectFilter) error {
	if f == nil {
		return fmt.Errorf("requestRedirect is missing")
	}
	r := gwRedirect{code: 302}
	if f.Scheme != nil {
		r.scheme = *f.Scheme
	}
	if f.Hostname != nil {
		r.hostname = string(*f.Hostname)
	}
	if f.Port != nil {
		r.port = int(*f.Port)
	}
	if f.StatusCode != nil {
		r.code = *f.StatusCode
	}
	if p := f.Path; p != nil {
		switch {
		case p.Type == gatewayv1.FullPathHTTPPathModifier && p.ReplaceFullPath != nil:
			r.path = *p.ReplaceFullPath
		case p.Type == gatewayv1.PrefixMatchHTTPPathModifier && p.ReplacePrefixMatch != nil:
			r.prefixPath = *p.ReplacePrefixMatch
		}
	}
	l.Backend = ""
	return setRedirect(l, r)
}

// rewriteFilter sets URLRewrite's Host header and path: ReplaceFullPath replaces the
// whole path, ReplacePrefixMatch the matched prefix of a PathPrefix match.
func rewriteFilter(l *api.Location, f *gatewayv1.HTTPURLRewriteFilter) error {
	if f == nil {
		return fmt.Errorf("urlRewrite is missing")
	}
	if f.Hostname != nil {
		l.UpstreamHost = string(*f.Hostname)
	}
	p := f.Path
	if p == nil {
		return nil
	}
	switch {
	case p.Type == gatewayv1.FullPathHTTPPathModifier && p.ReplaceFullPath != nil:
		return setRewriteFull(l, *p.ReplaceFullPath)
	case p.Type == gatewayv1.PrefixMatchHTTPPathModifier && p.ReplacePrefixMatch != nil:
		l.Rewrite = *p.ReplacePrefixMatch // on PathPrefix matches only: httpRule checks
	}
	return nil
}
