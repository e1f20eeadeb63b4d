package web_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/url"
	"testing"
	"time"
)

// selfSigned returns a PEM certificate for names and its PEM key.
func selfSigned(t testing.TB, names ...string) (certPEM, keyPEM string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatalf("generate key: %v", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: names[0], Organization: []string{"Example Shop"}},
		DNSNames:     names,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(80 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatalf("create certificate: %v", err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatalf("marshal key: %v", err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8}))
}

// write sends one change as admin with its own reason, so the history reads like a real one.
func (r *restyplane) write(method, path, reason string, body any) {
	r.t.Helper()
	if code := r.call(adminSecret, method, path+"?message="+url.QueryEscape(reason), body, nil); code < 200 || code > 299 {
		r.t.Fatalf("%s %s = %d", method, path, code)
	}
}

type obj = map[string]any

func ep(addr string, port, weight int) obj {
	return obj{"address": addr, "port": port, "weight": weight}
}

// seedShop writes a small but realistic configuration in six revisions: three backends, a
// certificate, a TLS server, and a canary rollout that changes the API pool.
func seedShop(r *restyplane) {
	r.t.Helper()
	cert, key := selfSigned(r.t, "shop.example.com", "www.shop.example.com")
	r.write("POST", "/api/v1/backends", "add the shop API pool", obj{"name": "shop-api", "loadBalance": "round_robin",
		"endpoints": []obj{ep("10.0.1.11", 8080, 5), ep("10.0.1.12", 8080, 5), ep("10.0.1.13", 8080, 2)}})
	r.write("POST", "/api/v1/backends", "static assets behind the CDN origin", obj{"name": "static",
		"endpoints": []obj{ep("10.0.2.21", 8080, 1)}})
	r.write("POST", "/api/v1/backends", "v2 build of the API, no traffic yet", obj{"name": "shop-api-v2", "loadBalance": "ewma",
		"endpoints": []obj{ep("10.0.3.31", 8080, 1), ep("10.0.3.32", 8080, 1)}})
	r.write("POST", "/api/v1/certificates", "certificate for shop.example.com", obj{"name": "shop-tls", "cert": cert, "key": key})
	r.write("POST", "/api/v1/servers", "serve the shop over TLS", obj{"name": "shop",
		"hostnames": []string{"shop.example.com", "www.shop.example.com"},
		"tls":       obj{"certificate": "shop-tls", "redirect": true},
		"locations": []obj{
			{"path": "/", "match": "prefix", "backend": "static"},
			{"path": "/api", "match": "prefix", "backend": "shop-api", "rewrite": "/"},
		}})
	r.write("PUT", "/api/v1/backends/shop-api", "send 10% of API traffic to v2 and retry once", obj{"name": "shop-api", "loadBalance": "ewma",
		"endpoints": []obj{ep("10.0.1.11", 8080, 5), ep("10.0.1.12", 8080, 3), ep("10.0.1.13", 8080, 2)},
		"canary":    obj{"backend": "shop-api-v2", "weight": 10},
		"retries":   1,
		"timeouts":  obj{"read": "30s"}})
}
