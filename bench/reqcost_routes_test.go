package bench

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/server"
)

// costRoute is one route the request-cost benchmark loads on both proxies.
type costRoute struct {
	name, host string
	// tls sends the load to the HTTPS listener.
	tls bool
	// header is one more request header wrk sends, or empty.
	header string
}

// The three routes, each a server of its own on both proxies, all to the same origin.
var costRoutes = []costRoute{
	{name: "one backend, one location", host: "route.cost.test"},
	{name: "allow list, rate limit and CORS", host: "policy.cost.test", header: "Origin: " + costOrigin},
	{name: "TLS listener, one backend, one location", host: "tls.cost.test", tls: true},
}

// The policy route's terms: a short allow list that holds the client (127.0.0.1) last, a
// rate far above what the machine sends (it counts every request and never refuses),
// and CORS for one origin, which wrk's requests carry.
var costAllow = []string{"10.0.0.0/8", "192.168.0.0/16", "127.0.0.0/8"}

const (
	costRate   = 1000000
	costOrigin = "https://app.cost.test"
)

// costCert is a self-signed certificate for the TLS route, in PEM.
type costCert struct{ cert, key string }

func newCostCert(tb testing.TB) costCert {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	host := costRoutes[2].host
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: host},
		DNSNames: []string{host}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	kd, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		tb.Fatal(err)
	}
	return costCert{cert: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		key: string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd}))}
}

// costConfig is the three routes as a user writes them to restyplane's API: settings with
// two workers (the rest as a fresh install has them), one backend, three servers.
func costConfig(origin string, cert costCert) server.ConfigRequest {
	host, p, _ := net.SplitHostPort(origin)
	port, _ := strconv.Atoi(p)
	set := api.DefaultSettings()
	set.WorkerProcesses = 2
	loc := api.Location{Path: "/", Backend: "origin"}
	policy := loc
	policy.Access = &api.AccessPolicy{Allow: costAllow}
	policy.Limits = &api.LocationLimits{RPS: costRate}
	policy.CORS = &api.CORS{AllowOrigins: []string{costOrigin}}
	return server.ConfigRequest{
		Settings:     &set,
		Backends:     []api.Backend{{Name: "origin", Endpoints: []api.Endpoint{{Address: host, Port: port, Weight: 1}}}},
		Certificates: []api.Certificate{{Name: "cost-tls", Cert: cert.cert, Key: cert.key}},
		Servers: []api.Server{
			{Name: "route", Hostnames: []string{costRoutes[0].host}, Locations: []api.Location{loc}},
			{Name: "policy", Hostnames: []string{costRoutes[1].host}, Locations: []api.Location{policy}},
			{Name: "tls", Hostnames: []string{costRoutes[2].host}, TLS: &api.ServerTLS{Certificate: "cost-tls"},
				Locations: []api.Location{loc}},
		},
	}
}
