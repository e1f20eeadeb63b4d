package render

import (
	"fmt"

	"github.com/restyplane/restyplane/api"
)

// mirrorView is the internal location that sends a mirror's copies: nginx's mirror
// directive makes a subrequest to Location for every request of the locations that name
// it, and the subrequest proxies the request's own URI ($request_uri, as the client sent
// it) to the mirror's backend, whose answer nginx discards.
//
// A subrequest shares the request's nginx variables, so the location sets none (it would
// change $rp_backend under the request it copies): restyplane.mirror keeps the backend in
// the subrequest's own ngx.ctx, where the balancer looks first, and drops the share of
// copies above Percent by a random draw per request.
type mirrorView struct {
	Location string
	Backend  string
	Percent  int
	// Up is how the backend is spoken to (its Up, Pass and DefaultHeaders).
	Up locationView
}

// withMirrors gives each of l's mirrors an internal location of the block and names them
// in v. ups says how backends that are not plain HTTP are spoken to, defs what headers
// the proxy sends upstream.
func (sv *serverView) withMirrors(v *locationView, l *api.Location, ups map[string]upstreamView, defs []defaultHeader) error {
	for _, m := range l.Mirror {
		up := locationView{DefaultHeaders: mirrorHeaders(defs)}
		withUpstream(&up, &api.Location{Backend: m.Backend}, ups[m.Backend])
		if up.Mod != "proxy" {
			return fmt.Errorf("location %q mirrors to backend %q, which speaks gRPC: nginx mirrors HTTP requests only", l.Path, m.Backend)
		}
		pct := m.Percent
		if pct == 0 {
			pct = 100
		}
		mv := mirrorView{Location: fmt.Sprintf("/restyplane mirror/%d", len(sv.MirrorLocations)), Backend: m.Backend, Percent: pct, Up: up}
		sv.MirrorLocations = append(sv.MirrorLocations, mv)
		v.Mirrors = append(v.Mirrors, mv.Location)
	}
	return nil
}

// mirrorHeaders are the headers defs sends upstream but the upgrade of a WebSocket: a copy
// is never upgraded, and its connection goes back to the keepalive pool.
func mirrorHeaders(defs []defaultHeader) []defaultHeader {
	var out []defaultHeader
	for _, h := range defs {
		switch h.Name {
		case "Upgrade":
		case "Connection":
			out = append(out, defaultHeader{Name: "Connection", Value: `""`})
		default:
			out = append(out, h)
		}
	}
	return out
}

// requestURIQuote quotes a mirror's proxy_pass: the backend's URL, in which nothing may
// expand, followed by the request's URI as the client sent it.
func requestURIQuote(pass string) (string, error) {
	if _, err := quote(pass); err != nil {
		return "", err
	}
	return quoteRaw(pass + "$request_uri")
}
