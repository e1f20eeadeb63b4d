package reconciler

import (
	"errors"

	"github.com/restyplane/restyplane/api"
)

// This file is the one place that writes the model's Gateway API fields (Location.When,
// RewriteFull, Mirror, Redirect's parts, Server.Port and ServerTLS.Port): the
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

// errNoModel says that this build's model cannot hold what a route asks.
var errNoModel = errors.New("this restyplane's model has no field for it yet")

func (m gwMatch) empty() bool { return m.method == "" && len(m.headers) == 0 && len(m.query) == 0 }

// setWhen restricts l to requests that also match m.
func setWhen(l *api.Location, m gwMatch) error {
	if m.empty() {
		return nil
	}
	return errNoModel
}

// whenKey is l's conditions in a form that tells two apart, "" without any.
func whenKey(l api.Location) string { return "" }

// setRewriteFull replaces the whole path before proxying.
func setRewriteFull(l *api.Location, path string) error { return errNoModel }

// addMirror sends a copy of l's requests, percent of them, to backend.
func addMirror(l *api.Location, backend string, percent int) error { return errNoModel }

// setRedirect makes l answer with a redirect built from the request and r.
func setRedirect(l *api.Location, r gwRedirect) error { return errNoModel }

// locationBackends lists the backends l sends requests to: its own and its mirrors'.
func locationBackends(l api.Location) []string {
	if l.Backend == "" {
		return nil
	}
	return []string{l.Backend}
}

// setServerPorts sets the ports a server listens on: port for plain HTTP, tlsPort for
// HTTPS; 0 is the proxy's own.
func setServerPorts(s *api.Server, port, tlsPort int) error {
	if port == 0 && tlsPort == 0 {
		return nil
	}
	return errNoModel
}
