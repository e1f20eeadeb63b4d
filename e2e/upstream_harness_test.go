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
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// testCA is a real certificate authority for upstream TLS tests (policies).
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	PEM  string
	pool *x509.CertPool
}

func newTestCA(t testing.TB, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	ca := &testCA{cert: cert, key: key, PEM: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})), pool: x509.NewCertPool()}
	ca.pool.AddCert(cert)
	return ca
}

// issue signs a certificate for dnsName, for a server (or with client set, a client), and
// returns it as a tls.Certificate and as PEM.
func (ca *testCA) issue(t testing.TB, dnsName string, client bool) (tls.Certificate, string, string) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	eku := x509.ExtKeyUsageServerAuth
	if client {
		eku = x509.ExtKeyUsageClientAuth
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: dnsName},
		DNSNames: []string{dnsName}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{eku}}
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

// headerEcho answers with its name and what the proxy sent: the path, the Host header,
// X-Forwarded-Prefix, and the client certificate's subject if one was presented.
func headerEcho(name string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client := ""
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			client = r.TLS.PeerCertificates[0].Subject.CommonName
		}
		fmt.Fprintf(w, "%s %s host=%s prefix=%s client=%s\n", name, r.URL.Path, r.Host, r.Header.Get("X-Forwarded-Prefix"), client)
	})
}

// tlsUpstream serves headerEcho over TLS with a certificate for dnsName from ca; with
// clientCA set it demands a client certificate from that CA.
func tlsUpstream(t testing.TB, name string, ca *testCA, dnsName string, clientCA *testCA) map[string]any {
	t.Helper()
	return tlsUpstreamOn(t, "127.0.0.1", name, ca, dnsName, clientCA)
}

// tlsUpstreamOn is tlsUpstream listening on ip: the Kubernetes tests use the host's end
// of their network namespace's veth, which an EndpointSlice may name.
func tlsUpstreamOn(t testing.TB, ip, name string, ca *testCA, dnsName string, clientCA *testCA) map[string]any {
	t.Helper()
	pair, _, _ := ca.issue(t, dnsName, false)
	srv := httptest.NewUnstartedServer(headerEcho(name))
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener.Close()
	srv.Listener = l
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
	if clientCA != nil {
		srv.TLS.ClientAuth, srv.TLS.ClientCAs = tls.RequireAndVerifyClientCert, clientCA.pool
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return map[string]any{"address": ip, "port": srv.Listener.Addr().(*net.TCPAddr).Port}
}

// grpcUpstream is a real gRPC server with the health service, where service is SERVING:
// over h2c, or with TLS from ca for dnsName when ca is set.
func grpcUpstream(t testing.TB, service string, ca *testCA, dnsName string) map[string]any {
	t.Helper()
	return grpcUpstreamOn(t, "127.0.0.1", service, ca, dnsName)
}

// grpcUpstreamOn is grpcUpstream listening on ip.
func grpcUpstreamOn(t testing.TB, ip, service string, ca *testCA, dnsName string) map[string]any {
	t.Helper()
	var opts []grpc.ServerOption
	if ca != nil {
		pair, _, _ := ca.issue(t, dnsName, false)
		opts = append(opts, grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{pair}})))
	}
	s := grpc.NewServer(opts...)
	h := health.NewServer()
	h.SetServingStatus(service, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(s, h)
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(l)
	t.Cleanup(s.Stop)
	return map[string]any{"address": ip, "port": l.Addr().(*net.TCPAddr).Port}
}

// grpcHealth makes a real gRPC call through the proxy's TLS listener (HTTP/2 by ALPN) with
// host as the authority and SNI, and returns the status of service.
func grpcHealth(t testing.TB, proxyTLS, host, service string) (healthpb.HealthCheckResponse_ServingStatus, error) {
	t.Helper()
	return grpcHealthWith(t, proxyTLS, host, service, credentials.NewTLS(&tls.Config{ServerName: host, InsecureSkipVerify: true}))
}

// grpcHealthPlain is grpcHealth on the proxy's plain port, in cleartext HTTP/2 with prior
// knowledge (h2c).
func grpcHealthPlain(t testing.TB, proxy, host, service string) (healthpb.HealthCheckResponse_ServingStatus, error) {
	t.Helper()
	return grpcHealthWith(t, proxy, host, service, insecure.NewCredentials())
}

// grpcHealthWith makes the health call to addr with the transport credentials creds.
func grpcHealthWith(t testing.TB, addr, host, service string, creds credentials.TransportCredentials) (healthpb.HealthCheckResponse_ServingStatus, error) {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds), grpc.WithAuthority(host))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		return 0, err
	}
	return res.Status, nil
}
