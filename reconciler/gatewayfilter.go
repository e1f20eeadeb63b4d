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

// mirrorFilter copies l's requests to the mirror's backend, the share its percent or
// fraction says. A mirror whose backend does not resolve is reported and left out: the
// requests themselves are served.
func (gp *gatewayPlan) mirrorFilter(rp *routePlan, l *api.Location, f *gatewayv1.HTTPRequestMirrorFilter, protocol string) error {
	if f == nil {
		return fmt.Errorf("requestMirror is missing")
	}
	percent := 100
	switch {
	case f.Percent != nil:
		percent = int(*f.Percent)
	case f.Fraction != nil:
		d := int32(100)
		if f.Fraction.Denominator != nil && *f.Fraction.Denominator > 0 {
			d = *f.Fraction.Denominator
		}
		percent = int((int64(f.Fraction.Numerator)*100 + int64(d) - 1) / int64(d))
	}
	if percent <= 0 {
		return nil
	}
	name := gp.serviceBackend(rp, f.BackendRef, protocol)
	if name == "" {
		return nil
	}
	return addMirror(l, name, min(percent, 100))
}

// corsFilter translates the CORS filter; a max age of 0 is the spec's 5 seconds.
func corsFilter(f *gatewayv1.HTTPCORSFilter) *api.CORS {
	if f == nil {
		return nil
	}
	c := &api.CORS{AllowCredentials: f.AllowCredentials, MaxAge: int(f.MaxAge)}
	if c.MaxAge == 0 {
		c.MaxAge = 5
	}
	if c.AllowCredentials == nil {
		no := false
		c.AllowCredentials = &no
	}
	for _, o := range f.AllowOrigins {
		c.AllowOrigins = append(c.AllowOrigins, string(o))
	}
	for _, m := range f.AllowMethods {
		c.AllowMethods = append(c.AllowMethods, string(m))
	}
	for _, h := range f.AllowHeaders {
		c.AllowHeaders = append(c.AllowHeaders, string(h))
	}
	for _, h := range f.ExposeHeaders {
		c.ExposeHeaders = append(c.ExposeHeaders, string(h))
	}
	return c
}
