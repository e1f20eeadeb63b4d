package e2e

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// peer is a real upstream that answers with its name, and fails on demand: while down
// its port refuses connections (and the connections nginx kept to it are closed), which
// nginx counts as an error and, where retries allow, tries the next peer for.
type peer struct {
	t    testing.TB
	name string
	ep   map[string]any
	mu   sync.Mutex
	srv  *http.Server
}

func newPeer(t testing.TB, name string) *peer {
	t.Helper()
	p := &peer{t: t, name: name}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.ep = map[string]any{"address": "127.0.0.1", "port": l.Addr().(*net.TCPAddr).Port, "weight": 1}
	p.serve(l)
	t.Cleanup(func() { p.setDown(true) })
	return p
}

func (p *peer) serve(l net.Listener) {
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%s %s\n", p.name, r.URL.Path)
	})}
	go p.srv.Serve(l)
}

// setDown stops the peer, or starts it again on its port.
func (p *peer) setDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if down {
		p.srv.Close()
		return
	}
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", fmt.Sprint(p.ep["port"])))
	if err != nil {
		p.t.Fatalf("peer %s: listen again: %v", p.name, err)
	}
	p.serve(l)
}

// peers makes one peer per name.
func peers(t testing.TB, names ...string) []*peer {
	out := make([]*peer, len(names))
	for i, n := range names {
		out[i] = newPeer(t, n)
	}
	return out
}

// endpoints are the peers' endpoints for a backend.
func endpoints(ps ...*peer) []map[string]any {
	out := make([]map[string]any, len(ps))
	for i, p := range ps {
		out[i] = p.ep
	}
	return out
}

// stickyBackend is a backend of the peers with the affinity aff.
func stickyBackend(name string, aff map[string]any, ps ...*peer) map[string]any {
	b := backend(name, endpoints(ps...)...)
	b["affinity"] = aff
	return b
}

// visit is one request through the proxy with a cookie ("" for none): the peer that
// answered ("" when none did) and the Set-Cookie the proxy sent ("" for none).
func (in *instance) visit(host, path, cookie string, hdr ...string) (served, setCookie string) {
	in.t.Helper()
	if cookie != "" {
		hdr = append(hdr, "Cookie", cookie)
	}
	resp, body := in.send("GET", host, path, hdr...)
	if resp.StatusCode == 200 {
		served = strings.Fields(body)[0]
	}
	return served, resp.Header.Get("Set-Cookie")
}

// pair is the name=value pair of a Set-Cookie, which a client sends back as its Cookie.
func pair(setCookie string) string { return strings.TrimSpace(strings.SplitN(setCookie, ";", 2)[0]) }

// attributes are a Set-Cookie's attributes, by lowercased name ("secure": "").
func attributes(setCookie string) map[string]string {
	out := map[string]string{}
	for _, a := range strings.Split(setCookie, ";")[1:] {
		k, v, _ := strings.Cut(strings.TrimSpace(a), "=")
		out[strings.ToLower(k)] = v
	}
	return out
}

// client is a browser of the sticky tests: the cookie it holds and the peer it was sent to.
type client struct{ cookie, peer string }

// newClients sends n clients without a cookie and keeps what each was given.
func (in *instance) newClients(n int, host, path string) []client {
	in.t.Helper()
	out := make([]client, n)
	for i := range out {
		served, set := in.visit(host, path, "")
		if served == "" || set == "" {
			in.t.Fatalf("client %d: served by %q with Set-Cookie %q, want a peer and a cookie", i, served, set)
		}
		out[i] = client{cookie: pair(set), peer: served}
	}
	return out
}
