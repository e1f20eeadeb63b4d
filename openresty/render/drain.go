package render

import "github.com/restyplane/restyplane/api"

// While a reload drains, every HTTP/1 answer asks its client to close the connection
// (restyplane.drain): restyplane.drain sets $rp_drain to "close", and an add_header at
// http level (repeated in each location that has add_headers of its own, which nginx does
// not merge with the http level's) writes it. Who sets the variable decides what a request
// costs: the balancer marks a proxied request in the phase it runs anyway, and a header
// filter, a Lua phase of its own, runs only where nginx may answer without the balancer.
// A backend with session affinity sets its cookie in the header filter: while any backend
// has affinity, the filter runs at http level for every answer, as the balancer needs.
// Affinity is pushed, not rendered, so the applier reloads when the first backend gains it.

// drainFilters settles where the header filter runs: at http level while a backend has
// affinity; else in the blocks that answer at server level (an HTTPS or app-root
// redirect, the catch-all's 404s), whose locations inherit it, and in the locations that
// may answer without a balancer: redirects, returns, denials, auth, the WAF and the cache.
// (The access and CORS policies' Lua marks the answers it makes itself.)
func (v *confView) drainFilters(backends []api.Backend) {
	for _, b := range backends {
		v.Affinity = v.Affinity || b.Affinity != nil
	}
	if v.Affinity {
		return
	}
	for i := range v.Servers {
		sv := &v.Servers[i]
		sv.Drain = sv.Redirect || sv.AppRoot != "" || sv.CatchAll ||
			((sv.Default || sv.OwnDefault) && len(v.PlainHosts) > 0)
		if sv.Drain {
			continue
		}
		sv.DrainLocations = true
		for j := range sv.Locations {
			l := &sv.Locations[j]
			l.Drain = l.Redirect != nil || l.Return != nil || l.Deny || l.Auth != nil || l.WAF != nil || l.Cache != nil
		}
	}
}

// AddsHeaders says a location has add_headers of its own: it repeats the drain's.
func (l *locationView) AddsHeaders() bool {
	return len(l.ResponseAdd) > 0 || l.CORS != "" || (l.Cache != nil && l.Cache.StatusHeader != "")
}
