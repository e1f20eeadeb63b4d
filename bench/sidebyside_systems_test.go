package bench

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
	"github.com/restyplane/restyplane/server"
)

// proxySystem is one of the systems the side-by-side benchmark compares: a proxy on
// loopback whose route to "/" moves between two upstreams by that system's own means.
type proxySystem interface {
	// label names the system in the report.
	label() string
	// addr is the proxy's host:port, and host the Host header that reaches the route.
	addr() string
	host() string
	// switchTo moves the route to upstream u and returns once the system answered the
	// write (or, for a reload, once the signal is sent).
	switchTo(u *upstream) error
}

// Hosts of the two routes restyplane's nginx serves: one that restyplane's REST API
// moves, one that the bare mechanism moves behind restyplane's back.
const (
	sideRestyHost = "resty.side.test"
	sideBareHost  = "bare.side.test"
)

// restySystem is `restyplane serve` driven through its REST API: a
// PUT /api/v1/backends/web/endpoints per switch.
type restySystem struct {
	in      *instance
	proxy   string
	written []time.Time // each switch's revision time, as the store stamped it
	revs    []int64
}

// bareSystem is the mechanism restyplane builds on, on the same nginx and Lua: a POST of
// the changed backend to the Lua admin endpoint on the unix socket, with a new version
// that the balancer's version check picks up on the next request. It moves its own
// backend ("bare"), which restyplane's applier never pushes again, so that the two never
// disagree about what nginx holds.
type bareSystem struct {
	admin   *nginx.AdminClient
	proxy   string
	version int64
}

// startResty starts restyplane serve with three servers, each routing "/" to its own
// backend at upstream a, and returns the REST system, and the bare one and the relay on
// its nginx.
func startResty(in *instance, a *upstream) (*restySystem, *bareSystem, *relaySystem) {
	in.tb.Helper()
	rev := in.mustWrite("PUT", "/api/v1/config", server.ConfigRequest{
		Backends: []api.Backend{{Name: "web", Endpoints: a.endpoints()}, {Name: "bare", Endpoints: a.endpoints()},
			{Name: "relay", Endpoints: a.endpoints()}},
		Servers: []api.Server{
			{Name: "resty", Hostnames: []string{sideRestyHost}, Locations: []api.Location{{Path: "/", Backend: "web"}}},
			{Name: "bare", Hostnames: []string{sideBareHost}, Locations: []api.Location{{Path: "/", Backend: "bare"}}},
			{Name: "relay", Hostnames: []string{sideRelayHost}, Locations: []api.Location{{Path: "/", Backend: "relay"}}},
		},
	})
	in.waitApplied(rev, time.Minute)
	u, err := url.Parse(in.Proxy)
	if err != nil {
		in.tb.Fatal(err)
	}
	socket := nginx.SocketPath(filepath.Join(in.DataDir, "openresty"))
	// Far above any revision the benchmark writes: the version only has to change.
	return &restySystem{in: in, proxy: u.Host}, &bareSystem{admin: nginx.NewAdminClient(socket), proxy: u.Host, version: 1 << 40},
		startRelay(in.tb, socket, u.Host)
}

func (r *restySystem) label() string { return "restyplane (REST API)" }
func (r *restySystem) addr() string  { return r.proxy }
func (r *restySystem) host() string  { return sideRestyHost }

func (r *restySystem) switchTo(u *upstream) error {
	var res api.WriteResult
	if _, err := r.in.call("PUT", "/api/v1/backends/web/endpoints", server.EndpointsRequest{Endpoints: u.endpoints()}, &res); err != nil {
		return err
	}
	if res.Revision == nil {
		return fmt.Errorf("the switch to %s made no revision", u.name)
	}
	r.written = append(r.written, res.Revision.Time)
	r.revs = append(r.revs, res.Revision.ID)
	return nil
}

func (b *bareSystem) label() string { return "bare Lua mechanism (admin socket POST)" }
func (b *bareSystem) addr() string  { return b.proxy }
func (b *bareSystem) host() string  { return sideBareHost }

func (b *bareSystem) switchTo(u *upstream) error {
	b.version++
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	skipped, err := b.admin.PushBackends(ctx, b.version, []api.Backend{{Name: "bare", Endpoints: u.endpoints()}}, nil, false)
	if err == nil && len(skipped) > 0 {
		err = fmt.Errorf("the bare push skipped %v", skipped)
	}
	return err
}
