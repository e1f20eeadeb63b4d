package reconciler

import (
	"fmt"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/restyplane/restyplane/api"
)

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

// corsFilter translates the CORS filter, with Gateway API's rules; a max age of 0 is the
// spec's 5 seconds.
func corsFilter(f *gatewayv1.HTTPCORSFilter) *api.CORS {
	if f == nil {
		return nil
	}
	c := &api.CORS{AllowCredentials: f.AllowCredentials, MaxAge: int(f.MaxAge), Rules: api.CORSRulesGatewayAPI}
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
