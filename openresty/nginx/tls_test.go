package nginx_test

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/nginx"
)

func itoa(n int) string { return strconv.Itoa(n) }

// served returns the leaf certificate the instance presents for sni.
func served(t *testing.T, in *nginx.Instance, sni string) *x509.Certificate {
	t.Helper()
	conn, err := tls.Dial("tcp", in.Options().TLSListen, &tls.Config{ServerName: sni, InsecureSkipVerify: true})
	if err != nil {
		t.Fatalf("TLS handshake for %s: %v", sni, err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0]
}

func TestRotatedCertificateIsServedWithoutReload(t *testing.T) {
	up := startUpstream(t, "a", 0)
	cert1, key1, serial1 := selfSigned(t, "shop.test")
	cert2, key2, serial2 := selfSigned(t, "shop.test")
	srv := server("shop", "shop.test", "/", "web")
	srv.TLS = &api.ServerTLS{Certificate: "shop-tls"}
	cfg := config([]api.Backend{backend("web", up)}, srv)
	cfg.Certificates = []api.Certificate{{Name: "shop-tls", Cert: cert1, Key: key1}}
	in := startNginx(t, cfg)
	master, workers := in.PID(), workerPIDs(t, in.PID())

	if got := served(t, in, "shop.test").SerialNumber; got.Cmp(serial1) != 0 {
		t.Fatalf("serial = %v, want the file's %v", got, serial1)
	}
	rotated := []api.Certificate{{Name: "shop-tls", Cert: cert2, Key: key2}}
	if _, err := in.Admin().PushCertificates(ctx(t), 2, rotated, nil, false); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		if got := served(t, in, "shop.test").SerialNumber; got.Cmp(serial2) != 0 {
			t.Fatalf("handshake %d after the push: serial %v, want the rotated %v", i, got, serial2)
		}
	}
	if in.PID() != master || len(workerPIDs(t, master)) != len(workers) || workerPIDs(t, master)[0] != workers[0] {
		t.Fatal("the rotation restarted or reloaded nginx")
	}
	info, err := in.Admin().Certificates(ctx(t))
	if err != nil || len(info) != 1 || info[0].Name != "shop-tls" || info[0].Version != 2 {
		t.Fatalf("certificates = %+v, %v", info, err)
	}

	// HTTPS reaches the upstream; an unknown name gets the default server's 404.
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, ServerName: "shop.test"}}}
	push(t, in, 3, cfg.Backends...)
	for _, x := range []struct {
		host string
		want int
	}{{"shop.test", 200}, {"nobody.test", 404}} {
		req, _ := http.NewRequest(http.MethodGet, "https://"+in.Options().TLSListen+"/", nil)
		req.Host = x.host
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != x.want {
			t.Fatalf("https %s = %d, want %d", x.host, resp.StatusCode, x.want)
		}
	}
	if got := served(t, in, "nobody.test").Subject.CommonName; got != "restyplane default server" {
		t.Fatalf("unknown SNI got %q, want the default certificate", got)
	}
}

func TestTLSRedirectAnswers308(t *testing.T) {
	up := startUpstream(t, "a", 0)
	cert, key, _ := selfSigned(t, "shop.test")
	srv := server("shop", "shop.test", "/", "web")
	srv.TLS = &api.ServerTLS{Certificate: "shop-tls", Redirect: true}
	cfg := config([]api.Backend{backend("web", up)}, srv)
	cfg.Certificates = []api.Certificate{{Name: "shop-tls", Cert: cert, Key: key}}
	in := startNginx(t, cfg)
	got := get(t, proxyAddr(in), "shop.test", "/x?y=1")
	_, port, _ := splitHostPort(in.Options().TLSListen)
	if want := "https://shop.test:" + port + "/x?y=1"; got.status != 308 || got.header.Get("Location") != want {
		t.Fatalf("plain HTTP = %d to %q, want 308 to %q", got.status, got.header.Get("Location"), want)
	}
}
