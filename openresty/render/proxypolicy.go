package render

import (
	"fmt"
	"strconv"

	"github.com/restyplane/restyplane/api"
)

// proxyView is a location's body, buffering and retry policy as the template writes it
// (policies). Every string is of api's grammars and quoted by the template.
type proxyView struct {
	BodySize, ClientBodyBufferSize string
	Buffering, RequestBuffering    string
	BufferSize, MaxTempFileSize    string
	BuffersNumber                  int
	NextUpstream                   []string
	Tries                          string
	RetryTimeout                   string
	Errors                         *errorsView
}

// errorsView is a location's intercepted codes: error_page Code = Location for each, and
// the origin headers the error backend is told, kept in variables that the shared named
// locations read.
type errorsView struct {
	Pages                                    []errorPage
	Namespace, Ingress, Service, ServicePort string
}

// errorPage sends one code to the named location that proxies it to the error backend.
// On a block's ErrorLocations, Up is how that backend is spoken to (its module, *_pass
// and TLS), as for a location that routes to it, and LetsOut says that a location with a
// connection limit sends its code there: the requests it let in end in the error
// location, whose log phase must let them out.
type errorPage struct {
	Code     int
	Location string
	Backend  string
	Up       locationView
	LetsOut  bool
}

// newProxyView carries a location's proxy, retry and errors policies to the view; nil
// without any. resolveErrors names the error pages' locations.
func newProxyView(l api.Location) *proxyView {
	if l.Proxy == nil && l.Retry == nil && l.Errors == nil {
		return nil
	}
	v := &proxyView{}
	if p := l.Proxy; p != nil {
		v.BodySize, v.ClientBodyBufferSize = p.BodySize, p.ClientBodyBufferSize
		v.Buffering, v.RequestBuffering = p.Buffering, p.RequestBuffering
		v.BufferSize, v.MaxTempFileSize = p.BufferSize, p.MaxTempFileSize
		v.BuffersNumber = p.BuffersNumber
		if v.BufferSize != "" && v.BuffersNumber == 0 {
			v.BuffersNumber = 4 // ingress-nginx's default for proxy-buffers-number
		}
	}
	if r := l.Retry; r != nil {
		v.NextUpstream, v.RetryTimeout = r.NextUpstream, r.Timeout
		if r.Tries > 0 {
			v.Tries = strconv.Itoa(r.Tries)
		}
	}
	if e := l.Errors; e != nil {
		ev := &errorsView{}
		if o := e.Origin; o != nil {
			ev.Namespace, ev.Ingress, ev.Service, ev.ServicePort = o.Namespace, o.Ingress, o.Service, o.ServicePort
		}
		for _, c := range e.Codes {
			ev.Pages = append(ev.Pages, errorPage{Code: c, Backend: e.Backend})
		}
		v.Errors = ev
	}
	return v
}

// resolveErrors gives each (error backend, code) of a server block one named location,
// shared by the block's locations: they differ only in the origin headers, which come in
// variables the location sets. ups says how backends that are not plain HTTP are spoken to,
// defs are the headers every location sends.
func resolveErrors(sv *serverView, ups map[string]upstreamView, defs []defaultHeader) {
	index := map[string]int{}
	for i := range sv.Locations {
		p := sv.Locations[i].Proxy
		if p == nil || p.Errors == nil {
			continue
		}
		for j := range p.Errors.Pages {
			pg := &p.Errors.Pages[j]
			key := fmt.Sprintf("%s %d", pg.Backend, pg.Code)
			n, ok := index[key]
			if !ok {
				n = len(sv.ErrorLocations)
				index[key] = n
				up := locationView{DefaultHeaders: defs}
				withUpstream(&up, &api.Location{Backend: pg.Backend}, ups[pg.Backend])
				sv.ErrorLocations = append(sv.ErrorLocations, errorPage{Code: pg.Code, Backend: pg.Backend,
					Location: fmt.Sprintf("@restyplane_error_%d", n), Up: up})
			}
			pg.Location = sv.ErrorLocations[n].Location
			sv.ErrorLocations[n].LetsOut = sv.ErrorLocations[n].LetsOut || sv.Locations[i].Connections
		}
	}
}
