package render

// Direct says that every answer of the location below 400 is its upstream's, unchanged in
// its class: it proxies, and nothing in it answers in the upstream's place with a status
// below 400 (a CORS preflight's 204, a cached answer, an auth redirect) or replaces the
// upstream's answer (error pages). Its log phase then counts such an answer from the
// status it sends, without reading $upstream_status (restyplane.count); any other still
// reads it. The template passes it to the log phase as a literal.
func (l *locationView) Direct() bool {
	return l.Backend != "" && l.Routes == "" && l.Redirect == nil && l.Return == nil && !l.Deny &&
		l.CORS == "" && l.Cache == nil && l.Auth == nil && l.WAF == nil &&
		(l.Proxy == nil || l.Proxy.Errors == nil)
}

// CORSInAccess says that the location's CORS runs at the start of its access phase, in the
// access lists' Lua, instead of in a rewrite phase of its own: one Lua phase less per
// request. Nothing runs between the two there but auth and the WAF, which a preflight must
// not meet first: a location with either keeps CORS in the rewrite phase.
func (l *locationView) CORSInAccess() bool {
	return l.CORS != "" && l.Policy != "" && l.Auth == nil && l.WAF == nil
}
