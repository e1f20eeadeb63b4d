package nginx_test

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

// startTLSUpstream starts an HTTPS server on 127.0.0.1 with its own certificate for host,
// which answers with its name and the client address it sees.
func startTLSUpstream(t *testing.T, name, host string) *upstream {
	t.Helper()
	certPEM, keyPEM, _ := selfSigned(t, host)
	pair, err := tls.X509KeyPair([]byte(certPEM), []byte(keyPEM))
	if err != nil {
		t.Fatal(err)
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pair}})
	if err != nil {
		t.Fatal(err)
	}
	u := &upstream{name: name, port: l.Addr().(*net.TCPAddr).Port}
	u.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Upstream", name)
		io.WriteString(w, name)
	})}
	go u.srv.Serve(l)
	t.Cleanup(func() { u.srv.Close() })
	return u
}

// httpsGet sends one request over TLS to the instance's TLS listener with sni as the
// server name and Host, and returns the leaf certificate's common name, the upstream that
// answered, by its body.
func httpsGet(t *testing.T, addr, sni string) (cn, upstream string) {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true,
		TLSClientConfig: &tls.Config{ServerName: sni, InsecureSkipVerify: true}}}
	req, _ := http.NewRequest(http.MethodGet, "https://"+addr+"/", nil)
	req.Host = sni
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET https://%s/ as %s: %v", addr, sni, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.TLS.PeerCertificates[0].Subject.CommonName, strings.TrimSpace(string(body))
}

// TestPassthrough: TLS for a passthrough host reaches its backend untouched (the client
// sees the backend's own certificate) while a terminated host on the same port is served
// by nginx with its certificate, the client address intact; plain HTTP for the
// passthrough host is still served by its locations; an endpoint change reaches the
// stream proxy with the reload the applier makes of it.
func TestPassthrough(t *testing.T) {
	web := startUpstream(t, "web", 0)
	// The address the terminated host's upstream is told, in X-Real-IP.
	realIP := make(chan string, 1)
	seen := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case realIP <- r.Header.Get("X-Real-IP") + " " + r.Header.Get("X-Forwarded-Port"):
		default:
		}
		io.WriteString(w, "seen")
	})}
	sl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go seen.Serve(sl)
	t.Cleanup(func() { seen.Close() })
	cd1 := startTLSUpstream(t, "argocd-1", "argocd.test")
	cd2 := startTLSUpstream(t, "argocd-2", "argocd.test")
	certPEM, keyPEM, _ := selfSigned(t, "shop.test")

	shop := server("shop", "shop.test", "/", "web")
	shop.TLS = &api.ServerTLS{Certificate: "shop-tls"}
	shop.Locations = append(shop.Locations, api.Location{Path: "/ip", Match: api.MatchExact, Backend: "seen"})
	cd := server("argocd", "argocd.test", "/", "web")
	cd.Passthrough = &api.Passthrough{Backend: "argocd"}
	seenBackend := api.Backend{Name: "seen", LoadBalance: api.RoundRobin,
		Endpoints: []api.Endpoint{{Address: "127.0.0.1", Port: sl.Addr().(*net.TCPAddr).Port, Weight: 1}}}
	// A long name beside it: the router's map of names must be sized for it, as
	// server_name's hash is.
	long := server("long", "argocd.internal.admin.swh.network.corpus-101.test", "/", "web")
	long.Passthrough = &api.Passthrough{Backend: "argocd"}
	cfg := config([]api.Backend{backend("web", web), backend("argocd", cd1), seenBackend}, shop, cd, long)
	cfg.Certificates = []api.Certificate{{Name: "shop-tls", Cert: certPEM, Key: keyPEM}}
	in := startNginx(t, cfg)
	push(t, in, 1, cfg.Backends...)
	addr := in.Options().TLSListen

	for i := 0; i < 3; i++ {
		if cn, body := httpsGet(t, addr, "argocd.test"); cn != "argocd.test" || body != "argocd-1" {
			t.Fatalf("passthrough: certificate %q, answer %q; want the backend's own certificate and answer", cn, body)
		}
		if cn, body := httpsGet(t, addr, "shop.test"); cn != "shop.test" || body != "web" {
			t.Fatalf("terminated beside passthrough: certificate %q, answer %q; want shop.test's and web", cn, body)
		}
	}
	// An unknown name is the default server's, as without passthrough.
	if got := served(t, in, "nobody.test").Subject.CommonName; got != "restyplane default server" {
		t.Fatalf("unknown SNI got %q, want the default certificate", got)
	}
	if a := get(t, proxyAddr(in), "argocd.test", "/"); a.status != 200 || a.upstream != "web" {
		t.Fatalf("plain HTTP for the passthrough host: %d from %q, want 200 from web", a.status, a.upstream)
	}

	// The terminated host's upstream is told the client's own address, which the router
	// passes in the PROXY protocol header, not the unix socket's; and the TLS port.
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true,
		TLSClientConfig: &tls.Config{ServerName: "shop.test", InsecureSkipVerify: true}}}
	req, _ := http.NewRequest(http.MethodGet, "https://"+addr+"/ip", nil)
	req.Host = "shop.test"
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	_, port, _ := net.SplitHostPort(addr)
	if got := <-realIP; resp.StatusCode != http.StatusOK || got != "127.0.0.1 "+port {
		t.Fatalf("terminated host behind the router: %d, X-Real-IP and X-Forwarded-Port %q; want 200 and 127.0.0.1 %s", resp.StatusCode, got, port)
	}

	// A new endpoint of the passthrough backend takes the connections after a reload.
	cfg.Backends[1] = backend("argocd", cd2)
	conf, err := in.Render(cfg, "2")
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Reload(ctx(t), conf, cfg.Certificates, "2"); err != nil {
		t.Fatal(err)
	}
	if cn, body := httpsGet(t, addr, "argocd.test"); cn != "argocd.test" || body != "argocd-2" {
		t.Fatalf("after the endpoint change: certificate %q, answer %q; want argocd-2", cn, body)
	}
}
