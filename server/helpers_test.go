package server_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/server"
	"github.com/restyplane/restyplane/store"
)

// env is a real server on a real SQLite file, reached over loopback HTTP, with one token
// of each role.
type env struct {
	tb     testing.TB
	st     *store.Store
	srv    *server.Server
	ts     *httptest.Server
	reg    *prometheus.Registry
	admin  string
	editor string
	viewer string
}

// options tweak newEnv.
type options struct {
	server.Options
}

func newEnv(tb testing.TB) *env { return newEnvWith(tb, options{}) }

func newEnvWith(tb testing.TB, o options) *env {
	tb.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(tb.TempDir(), "restyplane.db"))
	if err != nil {
		tb.Fatalf("open store: %v", err)
	}
	tb.Cleanup(func() { st.Close() })
	e := &env{tb: tb, st: st, reg: prometheus.NewRegistry()}
	for _, t := range []struct {
		role   string
		secret *string
	}{{api.RoleAdmin, &e.admin}, {api.RoleEditor, &e.editor}, {api.RoleViewer, &e.viewer}} {
		tok, err := st.CreateToken(ctx, t.role+"-token", t.role, "")
		if err != nil {
			tb.Fatalf("create %s token: %v", t.role, err)
		}
		*t.secret = tok.Secret
	}
	opts := o.Options
	opts.Registry = e.reg
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	opts.History, opts.Tokens, opts.Audit, opts.Fleet, opts.Retention = st.HistoryStore, st.TokenStore, st.AuditStore, st.FleetStore, st.RetentionStore
	if opts.Hostnames == nil {
		opts.Hostnames = st.ClaimStore
	}
	e.srv, err = server.New(opts)
	if err != nil {
		tb.Fatalf("new server: %v", err)
	}
	e.ts = httptest.NewServer(e.srv)
	tb.Cleanup(func() {
		e.srv.Close()
		e.ts.Close()
	})
	return e
}

// resp is an answer, read whole.
type resp struct {
	status int
	header http.Header
	body   []byte
}

// req is one request to send; body is marshalled unless it is a string or []byte.
type req struct {
	method, path, token string
	body                any
	header              map[string]string
}

func (e *env) send(r req) *resp {
	e.tb.Helper()
	var body io.Reader
	switch b := r.body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.tb.Fatalf("marshal body: %v", err)
		}
		body = bytes.NewReader(j)
	}
	hr, err := http.NewRequest(r.method, e.ts.URL+r.path, body)
	if err != nil {
		e.tb.Fatalf("new request: %v", err)
	}
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if r.token != "" {
		hr.Header.Set("Authorization", "Bearer "+r.token)
	}
	for k, v := range r.header {
		if v == "" {
			hr.Header.Del(k)
		} else {
			hr.Header.Set(k, v)
		}
	}
	res, err := e.ts.Client().Do(hr)
	if err != nil {
		e.tb.Fatalf("%s %s: %v", r.method, r.path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.tb.Fatalf("read %s %s: %v", r.method, r.path, err)
	}
	return &resp{status: res.StatusCode, header: res.Header, body: b}
}

// must sends r and fails the test unless the answer has status want.
func (e *env) must(want int, r req) *resp {
	e.tb.Helper()
	res := e.send(r)
	if res.status != want {
		e.tb.Fatalf("%s %s = %d, want %d: %s", r.method, r.path, res.status, want, res.body)
	}
	return res
}

// into decodes the answer's JSON into v.
func (r *resp) into(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		tb.Fatalf("decode %s: %v", r.body, err)
	}
}

// revisions is the number of revisions in the history.
func (e *env) revisions() int64 {
	e.tb.Helper()
	n, err := e.st.RevisionCount(context.Background())
	if err != nil {
		e.tb.Fatalf("revision count: %v", err)
	}
	return n
}

// auditEvents returns the newest audit events, up to 1000.
func (e *env) auditEvents() []api.AuditEvent {
	e.tb.Helper()
	evs, err := e.st.AuditEvents(context.Background(), api.AuditFilter{Limit: 1000})
	if err != nil {
		e.tb.Fatalf("audit events: %v", err)
	}
	return evs
}

func backend(name string, ports ...int) api.Backend {
	b := api.Backend{Name: name, Endpoints: []api.Endpoint{}}
	for i, p := range ports {
		b.Endpoints = append(b.Endpoints, api.Endpoint{Address: "10.0.0." + itoa(i+1), Port: p})
	}
	return b
}

func vhost(name, host, path, backend string) api.Server {
	return api.Server{Name: name, Hostnames: []string{host},
		Locations: []api.Location{{Path: path, Backend: backend}}}
}

func itoa(i int) string { return strconv.Itoa(i) }

// selfSigned returns a fresh certificate and its private key, both PEM.
func selfSigned(tb testing.TB, host string) (certPEM, keyPEM string) {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatalf("generate key: %v", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: host},
		DNSNames:     []string{host},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatalf("create certificate: %v", err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		tb.Fatalf("marshal key: %v", err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}))
}

// jsonInto decodes a raw JSON body.
func jsonInto(b json.RawMessage, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %s: %w", b, err)
	}
	return nil
}
