package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// certAuthority is a real certificate authority for client certificate tests.
type certAuthority struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	// PEM is the CA's certificate, what a caCertificate or a Secret's ca.crt holds.
	PEM string
}

var serials atomic.Int64

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// newCertAuthority makes a self-signed CA named cn.
func newCertAuthority(t testing.TB, cn string) *certAuthority {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serials.Add(1)), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	return &certAuthority{cert: c, key: key, PEM: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))}
}

// intermediate makes a CA signed by ca, for chains deeper than one.
func (ca *certAuthority) intermediate(t testing.TB, cn string) *certAuthority {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serials.Add(1)), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := x509.ParseCertificate(der)
	return &certAuthority{cert: c, key: key, PEM: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))}
}

// sign signs a certificate for cn: a client certificate, or a server certificate for
// hosts when hosts are given. It returns it as a tls.Certificate and as PEM.
func (ca *certAuthority) sign(t testing.TB, cn string, hosts ...string) (tls.Certificate, string, string) {
	t.Helper()
	key := newKey(t)
	usage := x509.ExtKeyUsageClientAuth
	if len(hosts) > 0 {
		usage = x509.ExtKeyUsageServerAuth
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(serials.Add(1)), Subject: pkix.Name{CommonName: cn, Organization: []string{"restyplane tests"}},
		DNSNames: hosts, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	kd, _ := x509.MarshalPKCS8PrivateKey(key)
	certPEM := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	keyPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd}))
	pair, err := tls.X509KeyPair([]byte(certPEM), []byte(keyPEM))
	if err != nil {
		t.Fatal(err)
	}
	return pair, certPEM, keyPEM
}

// certEcho is a real upstream that answers with the ssl-client-* headers it received,
// the certificate header decoded to its subject's CN ("-" if absent, "unparsable" if
// it is not a URL-escaped PEM certificate).
func certEcho(t testing.TB, name string) map[string]any {
	t.Helper()
	return serveLoopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, certEchoBody(name, r))
	}))
}

// certEchoBody is certEcho's answer to r.
func certEchoBody(name string, r *http.Request) string {
	cn := "-"
	if v := r.Header.Get("ssl-client-cert"); v != "" {
		cn = "unparsable"
		if p, err := url.QueryUnescape(v); err == nil {
			if b, _ := pem.Decode([]byte(p)); b != nil {
				if c, err := x509.ParseCertificate(b.Bytes); err == nil {
					cn = c.Subject.CommonName
				}
			}
		}
	}
	return fmt.Sprintf("%s verify=%q subject=%q issuer=%q cert=%s\n", name, r.Header.Get("ssl-client-verify"),
		r.Header.Get("ssl-client-subject-dn"), r.Header.Get("ssl-client-issuer-dn"), cn)
}

// tlsClient is how a test speaks HTTPS to the proxy: SNI, the client certificate (nil
// for none) and an optional session cache, each request on a new connection.
type tlsClient struct {
	addr  string
	sni   string
	cert  *tls.Certificate
	cache tls.ClientSessionCache
}

// get sends GET https://host/path with SNI c.sni, never following a redirect. The client
// certificate is sent whatever CAs the server names: Go's default would keep back a
// certificate of another CA, and the test wants the proxy to see and refuse it.
func (c tlsClient) get(t testing.TB, host, path string, hdr ...string) (*http.Response, string) {
	t.Helper()
	resp, body, err := c.try(host, path, hdr...)
	if err != nil {
		t.Fatalf("GET https://%s%s (SNI %q, certificate %t): %v", host, path, c.sni, c.cert != nil, err)
	}
	return resp, body
}

// try is get that returns the error, for a test that accepts a refused handshake.
func (c tlsClient) try(host, path string, hdr ...string) (*http.Response, string, error) {
	cfg := &tls.Config{ServerName: c.sni, InsecureSkipVerify: true, ClientSessionCache: c.cache,
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			if c.cert == nil {
				return &tls.Certificate{}, nil
			}
			return c.cert, nil
		}}
	// The TLS dial is the test's own, so that an empty sni sends no server name at all
	// (http.Transport would fill in the URL's host).
	tr := &http.Transport{DisableKeepAlives: true,
		DialTLSContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			raw, err := (&net.Dialer{}).DialContext(ctx, network, c.addr)
			if err != nil {
				return nil, err
			}
			conn := tls.Client(raw, cfg)
			if err := conn.HandshakeContext(ctx); err != nil {
				raw.Close()
				return nil, err
			}
			return conn, nil
		}}
	defer tr.CloseIdleConnections()
	cl := &http.Client{Transport: tr, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest("GET", "https://"+host+path, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := cl.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, strings.TrimSpace(string(b)), nil
}

// stickySessions is a session cache that offers the last session it got to every server
// name: a client that tries to resume a session of one server on another.
type stickySessions struct {
	last atomic.Pointer[tls.ClientSessionState]
}

func (s *stickySessions) Get(string) (*tls.ClientSessionState, bool) {
	l := s.last.Load()
	return l, l != nil
}

func (s *stickySessions) Put(_ string, cs *tls.ClientSessionState) {
	if cs != nil {
		s.last.Store(cs)
	}
}
