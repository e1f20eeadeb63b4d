package nginx_test

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// TestConditionsRouteInPrecedence: locations with method, header and query conditions
// are chosen by restyplane.match in Gateway API's precedence, falling through to a
// shorter prefix when their conditions do not hold, and 404 when no location is left.
func TestConditionsRouteInPrecedence(t *testing.T) {
	names := []string{"root", "query", "headers", "method", "api", "api-v1", "exact", "re", "tie1", "tie2"}
	var backends []api.Backend
	for _, n := range names {
		backends = append(backends, backend(n, startUpstream(t, n, 0)))
	}
	h := func(n, v string) api.ValueMatch { return api.ValueMatch{Name: n, Value: v} }
	re := func(n, v string) api.ValueMatch { return api.ValueMatch{Name: n, Type: api.ValueRegex, Value: v} }
	srv := api.Server{Name: "shop", Hostnames: []string{"shop.test"}, Locations: []api.Location{
		{Path: "/", Backend: "root", When: &api.RequestMatch{Headers: []api.ValueMatch{h("X-Root", "yes")}}},
		{Path: "/", Backend: "query", When: &api.RequestMatch{Query: []api.ValueMatch{h("animal", "whale")}}},
		{Path: "/", Backend: "headers", When: &api.RequestMatch{Headers: []api.ValueMatch{h("X-Version", "2"), re("X-Canary", "yes|always")}}},
		{Path: "/api", Backend: "api"},
		{Path: "/api/", Backend: "method", Rewrite: "/", When: &api.RequestMatch{Method: "POST"}},
		{Path: "/api/v1", Backend: "api-v1", When: &api.RequestMatch{Headers: []api.ValueMatch{h("X-Version", "1")}}},
		{Path: "/exact", Match: api.MatchExact, Backend: "exact", When: &api.RequestMatch{Query: []api.ValueMatch{re("id", "[0-9]{1,3}")}}},
		{Path: `^/items/[0-9]+$`, Match: api.MatchRegex, Backend: "re", When: &api.RequestMatch{Method: "GET"}},
		{Path: "/tie", Backend: "tie1", When: &api.RequestMatch{Headers: []api.ValueMatch{h("X-A", "1")}}},
		{Path: "/tie", Backend: "tie2", When: &api.RequestMatch{Headers: []api.ValueMatch{h("X-B", "1")}}},
	}}
	in := startNginx(t, config(backends, srv))
	push(t, in, 2, backends...)
	addr := proxyAddr(in)
	for _, c := range []struct {
		method, path string
		hdr          []string
		want         string // "" for a 404
		path2        string // the path the upstream saw, when it matters
	}{
		{"GET", "/", nil, "", ""},
		{"GET", "/x", []string{"X-Root", "yes"}, "root", ""},
		{"GET", "/x?animal=whale", nil, "query", "/x?animal=whale"},
		{"GET", "/x?animal=whaledolphin", nil, "", ""},
		{"GET", "/x?ANIMAL=whale", nil, "", ""},
		{"GET", "/x?animal=whale&animal=dolphin", nil, "query", ""},
		{"GET", "/x?animal=dolphin&animal=whale", nil, "", ""},
		// More headers first, then one header, then query conditions.
		{"GET", "/x?animal=whale", []string{"X-Version", "2", "X-Canary", "always", "X-Root", "yes"}, "headers", ""},
		{"GET", "/x?animal=whale", []string{"X-Version", "2", "X-Canary", "alwaysx", "X-Root", "yes"}, "root", ""},
		{"GET", "/x?animal=whale", []string{"X-Version", "2", "X-Canary", "alwaysx"}, "query", ""},
		{"GET", "/x", []string{"x-version", "2", "x-canary", "yes", "X-Root", "yes"}, "headers", ""},
		{"GET", "/x", []string{"X-Version", "2", "X-Canary", "Yes"}, "", ""},
		// A method before no method on one path.
		{"POST", "/api/users", nil, "method", "/users"},
		{"GET", "/api/users", nil, "api", "/api/users"},
		{"POST", "/apix", nil, "", ""},
		// The longest prefix, falling through to shorter ones.
		{"GET", "/api/v1/x", []string{"X-Version", "1"}, "api-v1", ""},
		{"POST", "/api/v1/x", []string{"X-Version", "1"}, "api-v1", ""},
		{"POST", "/api/v1/x", nil, "method", "/v1/x"},
		{"GET", "/api/v1/x", []string{"X-Root", "yes"}, "api", ""},
		{"GET", "/api/v1x", []string{"X-Version", "1"}, "api", ""},
		// Exact over any prefix, falling through to "/".
		{"GET", "/exact?id=12", []string{"X-Root", "yes"}, "exact", ""},
		{"GET", "/exact?id=1234", []string{"X-Root", "yes"}, "root", ""},
		{"GET", "/exact/?id=12", nil, "", ""},
		{"GET", "/items/7", nil, "re", ""},
		{"HEAD", "/items/7", nil, "", ""},
		// Ties go to the location listed first.
		{"GET", "/tie", []string{"X-A", "1", "X-B", "1"}, "tie1", ""},
		{"GET", "/tie/x", []string{"X-B", "1"}, "tie2", ""},
		{"GET", "/tiex", []string{"X-B", "1"}, "", ""},
	} {
		got := send(t, addr, c.method, "shop.test", c.path, c.hdr...)
		if want := map[bool]int{true: 200, false: 404}[c.want != ""]; got.status != want || got.upstream != c.want {
			t.Errorf("%s %s %v = %d from %q, want %d from %q", c.method, c.path, c.hdr, got.status, got.upstream, want, c.want)
		}
		if c.path2 != "" && got.header.Get("X-Path") != c.path2 {
			t.Errorf("%s %s reached the upstream as %q, want %q", c.method, c.path, got.header.Get("X-Path"), c.path2)
		}
	}
}

// send is get with a method.
func send(t *testing.T, addr, method, host, path string, header ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+addr+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s%s: %v", method, host, path, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return answer{status: resp.StatusCode, upstream: resp.Header.Get("X-Upstream"), header: resp.Header}
}
