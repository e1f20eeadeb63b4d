package nginx_test

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// TestForwardedHeadersBehindThePassthroughRouter: with useForwardedHeaders, a request to a
// terminated host that came through the passthrough router (a unix socket, the client's
// address in the PROXY protocol header) has the client's address appended to the
// X-Forwarded-For it sent, not the socket's, and the TLS port as X-Forwarded-Port.
func TestForwardedHeadersBehindThePassthroughRouter(t *testing.T) {
	seen := make(chan string, 1)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Get("X-Forwarded-For") + " " + r.Header.Get("X-Forwarded-Port")
		io.WriteString(w, "seen")
	})}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	certPEM, keyPEM, _ := selfSigned(t, "shop.test")
	shop := server("shop", "shop.test", "/", "seen")
	shop.TLS = &api.ServerTLS{Certificate: "shop-tls"}
	cd := server("argocd", "argocd.test", "/", "seen")
	cd.Passthrough = &api.Passthrough{Backend: "argocd"}
	seenBackend := api.Backend{Name: "seen", LoadBalance: api.RoundRobin,
		Endpoints: []api.Endpoint{{Address: "127.0.0.1", Port: l.Addr().(*net.TCPAddr).Port, Weight: 1}}}
	cfg := config([]api.Backend{seenBackend, backend("argocd", startTLSUpstream(t, "argocd", "argocd.test"))}, shop, cd)
	cfg.Settings.UseForwardedHeaders = true
	cfg.Certificates = []api.Certificate{{Name: "shop-tls", Cert: certPEM, Key: keyPEM}}
	in := startNginx(t, cfg)
	push(t, in, 1, cfg.Backends...)
	addr := in.Options().TLSListen
	_, port, _ := net.SplitHostPort(addr)

	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true,
		TLSClientConfig: &tls.Config{ServerName: "shop.test", InsecureSkipVerify: true}}}
	for xff, want := range map[string]string{"": "127.0.0.1 " + port, "203.0.113.7": "203.0.113.7, 127.0.0.1 " + port} {
		req, _ := http.NewRequest(http.MethodGet, "https://"+addr+"/", nil)
		req.Host = "shop.test"
		if xff != "" {
			req.Header.Set("X-Forwarded-For", xff)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := <-seen; resp.StatusCode != http.StatusOK || got != want {
			t.Fatalf("X-Forwarded-For %q through the router: %d, the upstream saw %q; want 200 and %q", xff, resp.StatusCode, got, want)
		}
	}
}
