package reconciler

import (
	"encoding/json"

	"github.com/restyplane/restyplane/api"
)

// This file is the one place that writes the model's Gateway API fields (Location.When,
// RewriteFull, Mirror, Redirect's parts, Server.Address, Server.Port and ServerTLS.Port): the
// translation hands it what a route asks in the types below.

// gwMatch is what a route match asks beyond its path: a method, header and query
// parameter conditions.
type gwMatch struct {
	method         string
	headers, query []gwValue
}

// gwValue is one header or query parameter condition; typ is "exact" or "regex".
type gwValue struct{ name, typ, value string }

// gwRedirect is a RequestRedirect filter: what is not given comes from the request.
type gwRedirect struct {
	scheme, hostname string
	port             int
	path, prefixPath string
	code             int
}

func (m gwMatch) empty() bool { return m.method == "" && len(m.headers) == 0 && len(m.query) == 0 }

// setWhen restricts l to requests that also match m.
func setWhen(l *api.Location, m gwMatch) error {
	if m.empty() {
		l.When = nil
		return nil
	}
	w := &api.RequestMatch{Method: m.method}
	for _, h := range m.headers {
		w.Headers = append(w.Headers, api.ValueMatch{Name: h.name, Type: h.typ, Value: h.value})
	}
	for _, q := range m.query {
		w.Query = append(w.Query, api.ValueMatch{Name: q.name, Type: q.typ, Value: q.value})
	}
	l.When = w
	return nil
}

// whenKey is l's conditions in a form that tells two apart, "" without any. Names of
// headers are compared as written: two conditions on one header spelled differently are
// told apart here and refused by the server's validation.
func whenKey(l api.Location) string {
	if l.When == nil {
		return ""
	}
	b, _ := json.Marshal(l.When) // strings only: it cannot fail
	return string(b)
}

// setRewriteFull replaces the whole path before proxying.
func setRewriteFull(l *api.Location, path string) error {
	l.RewriteFull = path
	return nil
}

// addMirror sends a copy of l's requests, percent of them, to backend.
func addMirror(l *api.Location, backend string, percent int) error {
	l.Mirror = append(l.Mirror, api.Mirror{Backend: backend, Percent: percent})
	return nil
}

// setRedirect makes l answer with a redirect built from the request and r.
func setRedirect(l *api.Location, r gwRedirect) error {
	l.Redirect = &api.Redirect{Scheme: r.scheme, Hostname: r.hostname, Port: r.port, Path: r.path, PrefixPath: r.prefixPath, Code: r.code}
	return nil
}

// locationBackends lists the backends l sends requests to: its own and its mirrors'.
func locationBackends(l api.Location) []string {
	var out []string
	if l.Backend != "" {
		out = append(out, l.Backend)
	}
	for _, m := range l.Mirror {
		out = append(out, m.Backend)
	}
	return out
}

// setServerAddress sets the address a server listens on, a Gateway's own; "" is the
// proxy's.
func setServerAddress(s *api.Server, address string) error {
	s.Address = address
	return nil
}

// setServerPorts sets the ports a server listens on: port for plain HTTP, tlsPort for
// HTTPS; 0 is the proxy's own.
func setServerPorts(s *api.Server, port, tlsPort int) error {
	s.Port = port
	if s.TLS != nil {
		s.TLS.Port = tlsPort
	}
	return nil
}
