package store

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/restyplane/restyplane/api"
)

func server(name, host, path, backend string) *api.Server {
	return &api.Server{Name: name, Hostnames: []string{host},
		Locations: []api.Location{{Path: path, Backend: backend}}}
}

func write(s *Store, m api.Meta, muts ...api.Mutation) (*api.WriteResult, error) {
	return s.Write(context.Background(), m, muts)
}

func TestRollbackRestoresStateAsNewRevision(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	putBackend(t, s, backend("web", 8001))                                                                                                       // 1
	putBackend(t, s, backend("web", 8002))                                                                                                       // 2
	putBackend(t, s, backend("api", 9000))                                                                                                       // 3
	if _, err := write(s, meta("srv"), api.Mutation{Kind: api.KindServer, Server: server("shop", "shop.example.com", "/", "api")}); err != nil { // 4
		t.Fatal(err)
	}
	res, err := s.Rollback(ctx, meta("bad deploy"), 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Revision.ID, int64(5); got != want {
		t.Fatalf("rollback revision = %d, want %d", got, want)
	}
	if got, want := res.Revision.RollbackOf, int64(1); got != want {
		t.Fatalf("rollbackOf = %d, want %d", got, want)
	}
	head := s.Head()
	if len(head.Servers) != 0 || len(head.Backends) != 1 || head.Backends["web"].Endpoints[0].Port != 8001 {
		t.Fatalf("head after rollback = %+v, want only web on 8001", head.Config(false))
	}
	at1, _ := s.State(ctx, 1, false)
	at5, _ := s.State(ctx, 5, false)
	if got, want := at5.Backends["web"].Endpoints[0].Port, at1.Backends["web"].Endpoints[0].Port; got != want {
		t.Fatalf("state at 5 port = %d, want %d", got, want)
	}
	d, err := s.Diff(ctx, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Entries) != 0 {
		t.Fatalf("diff between revision 1 and its rollback = %+v, want none", d.Entries)
	}
	// History is never rewritten: revision 4 still holds the server.
	at4, _ := s.State(ctx, 4, false)
	if at4.Servers["shop"] == nil {
		t.Fatal("revision 4 lost its server")
	}
	ev, _ := s.AuditEvents(ctx, api.AuditFilter{Action: api.AuditRollback})
	if len(ev) != 1 || ev[0].Revision != 5 {
		t.Fatalf("rollback audit = %+v, want one event for revision 5", ev)
	}
	again, err := s.Rollback(ctx, meta("again"), 1)
	if err != nil || !again.Noop {
		t.Fatalf("rollback to the state the head has: noop = %v, err = %v; want a noop", again != nil && again.Noop, err)
	}
}

func TestDiffBetweenRevisions(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	putBackend(t, s, backend("a", 1))                                                                              // 1
	putBackend(t, s, backend("b", 2))                                                                              // 2
	putBackend(t, s, backend("a", 3))                                                                              // 3
	if _, err := write(s, meta("del"), api.Mutation{Kind: api.KindBackend, Name: "b", Delete: true}); err != nil { // 4
		t.Fatal(err)
	}
	d, err := s.Diff(ctx, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(d.Entries), 1; got != want {
		t.Fatalf("entries = %+v, want %d (b created and deleted in between is no difference)", d.Entries, want)
	}
	if e := d.Entries[0]; e.Name != "a" || e.Op != api.OpUpdate || !strings.Contains(string(e.Before), `"port":1`) || !strings.Contains(string(e.After), `"port":3`) {
		t.Fatalf("entry = %s %s %s -> %s", e.Name, e.Op, e.Before, e.After)
	}
	back, _ := s.Diff(ctx, 4, 2)
	ops := map[string]string{}
	for _, e := range back.Entries {
		ops[e.Name] = e.Op
	}
	if ops["a"] != api.OpUpdate || ops["b"] != api.OpCreate {
		t.Fatalf("diff 4->2 ops = %v, want a update, b create", ops)
	}
	_, err = s.Diff(ctx, 0, 9)
	wantCode(t, err, api.ENotFound)
}

func TestIfMatchAndMustNotExist(t *testing.T) {
	s := mustOpen(t)
	putBackend(t, s, backend("web", 1))
	putBackend(t, s, backend("web", 2))
	m := meta("stale")
	m.IfMatch = api.IfVersion(1)
	_, err := write(s, m, api.Mutation{Kind: api.KindBackend, Backend: backend("web", 3)})
	wantCode(t, err, api.EPreconditionFailed)
	m.IfMatch = api.IfVersion(2)
	if _, err := write(s, m, api.Mutation{Kind: api.KindBackend, Backend: backend("web", 3)}); err != nil {
		t.Fatalf("write with current If-Match: %v", err)
	}
	c := meta("create")
	c.MustNotExist = true
	_, err = write(s, c, api.Mutation{Kind: api.KindBackend, Backend: backend("web", 4)})
	wantCode(t, err, api.EConflict)
	_, err = s.ReplaceConfig(context.Background(), api.Meta{Actor: "t", Source: api.SourceAPI, IfMatch: api.IfVersion(1)}, api.Config{})
	wantCode(t, err, api.EPreconditionFailed)
	if n, _ := s.RevisionCount(context.Background()); n != 3 {
		t.Fatalf("revisions = %d, want 3", n)
	}
}

func TestDryRunStoresNothing(t *testing.T) {
	s := mustOpen(t)
	putBackend(t, s, backend("web", 1))
	m := meta("try")
	m.DryRun = true
	res, err := write(s, m, api.Mutation{Kind: api.KindBackend, Backend: backend("web", 2)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.DryRun || res.Revision != nil || len(res.Diff.Entries) != 1 || res.Candidate.Backends["web"].Endpoints[0].Port != 2 {
		t.Fatalf("dry run result = %+v", res)
	}
	if got := s.Head().Backends["web"].Endpoints[0].Port; got != 1 {
		t.Fatalf("head port after dry run = %d, want 1", got)
	}
	if n, _ := s.RevisionCount(context.Background()); n != 1 {
		t.Fatalf("revisions = %d, want 1", n)
	}
}

func TestReferencesAndClaims(t *testing.T) {
	s := mustOpen(t)
	_, err := write(s, meta("dangling"), api.Mutation{Kind: api.KindServer, Server: server("shop", "shop.example.com", "/", "nope")})
	wantCode(t, err, api.EInvalid)
	putBackend(t, s, backend("web", 1))
	if _, err := write(s, meta("a"), api.Mutation{Kind: api.KindServer, Server: server("a", "shop.example.com", "/api", "web")}); err != nil {
		t.Fatal(err)
	}
	_, err = write(s, meta("b"), api.Mutation{Kind: api.KindServer, Server: server("b", "shop.example.com", "/api/", "web")})
	wantCode(t, err, api.EConflict)
	_, err = write(s, meta("del"), api.Mutation{Kind: api.KindBackend, Name: "web", Delete: true})
	wantCode(t, err, api.EConflict)
	_, err = write(s, meta("del"), api.Mutation{Kind: api.KindBackend, Name: "ghost", Delete: true})
	wantCode(t, err, api.ENotFound)
	if n, _ := s.RevisionCount(context.Background()); n != 2 {
		t.Fatalf("revisions = %d, want 2", n)
	}
}

func TestOwnership(t *testing.T) {
	s := mustOpen(t)
	k8s := api.Meta{Actor: api.ActorKubernetes, Source: api.SourceKubernetes, Message: "sync"}
	kb := backend("default-web-80", 8080)
	kb.Source = api.Source{Kind: api.SourceKubernetes, Namespace: "default", Name: "web", UID: "u1"}
	if _, err := write(s, k8s, api.Mutation{Kind: api.KindBackend, Backend: kb}); err != nil {
		t.Fatal(err)
	}
	_, err := write(s, meta("edit"), api.Mutation{Kind: api.KindBackend, Backend: backend("default-web-80", 9090)})
	wantCode(t, err, api.EConflict)
	if !strings.Contains(err.Error(), "edit the Kubernetes object") {
		t.Fatalf("conflict message %q does not say where to edit", err)
	}
	// The hot path copies the stored backend, source included: still a conflict.
	copied := backend("default-web-80", 9090)
	copied.Source = kb.Source
	_, err = write(s, meta("edit endpoints"), api.Mutation{Kind: api.KindBackend, Backend: copied})
	wantCode(t, err, api.EConflict)
	putBackend(t, s, backend("rest", 1))
	kr := backend("rest", 2)
	kr.Source = kb.Source
	_, err = write(s, k8s, api.Mutation{Kind: api.KindBackend, Backend: kr})
	wantCode(t, err, api.EConflict)
	// A declarative replace keeps kubernetes-owned objects.
	if _, err := s.ReplaceConfig(context.Background(), meta("replace"), api.Config{}); err != nil {
		t.Fatal(err)
	}
	head := s.Head()
	if head.Backends["default-web-80"] == nil || head.Backends["rest"] != nil {
		t.Fatalf("after replace: backends %v, want only the kubernetes one", head.Config(false).Backends)
	}
}

func TestCertificateKeyStaysInTheStore(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	certPEM, keyPEM := selfSigned(t, "shop.example.com")
	c := &api.Certificate{Name: "shop", Cert: certPEM, Key: keyPEM}
	res, err := write(s, meta("cert"), api.Mutation{Kind: api.KindCertificate, Certificate: c})
	if err != nil {
		t.Fatal(err)
	}
	secret := keyPEM[40:80]
	if strings.Contains(string(res.Diff.Entries[0].After), secret) {
		t.Fatal("the write's diff holds the key")
	}
	// Update without a key keeps the stored one.
	c2 := &api.Certificate{Name: "shop", Cert: certPEM}
	if _, err := write(s, meta("same cert, no key"), api.Mutation{Kind: api.KindCertificate, Certificate: c2}); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.RevisionCount(ctx); n != 1 {
		t.Fatalf("a write without key of the same cert made a revision (count %d)", n)
	}
	rev, _ := s.Revision(ctx, 1)
	d, _ := s.Diff(ctx, 0, 1)
	noKey, _ := s.State(ctx, 1, false)
	withKey, _ := s.State(ctx, 1, true)
	ev, _ := s.AuditEvents(ctx, api.AuditFilter{})
	for what, text := range map[string]string{"revision": string(rev.Changes[0].Body), "diff": string(d.Entries[0].After),
		"state": noKey.Certificates["shop"].Key, "audit": ev[0].Detail + ev[0].Target} {
		if strings.Contains(text, secret) {
			t.Fatalf("the %s holds the key", what)
		}
	}
	if got := withKey.Certificates["shop"]; got.Key != keyPEM || !got.KeyMatches {
		t.Fatalf("state with keys: key kept = %v, keyMatches = %v", got.Key == keyPEM, got.KeyMatches)
	}
	if got := s.Head().Certificates["shop"].DNSNames; len(got) != 1 || got[0] != "shop.example.com" {
		t.Fatalf("dnsNames = %v", got)
	}
}

func selfSigned(tb testing.TB, host string) (certPEM, keyPEM string) {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	kd, _ := x509.MarshalPKCS8PrivateKey(key)
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kd}))
}

func TestTokensAndAudit(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	tok, err := s.CreateToken(ctx, "ci", api.RoleEditor, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tok.Secret, TokenPrefix) {
		t.Fatalf("secret %q lacks prefix", tok.Secret)
	}
	got, err := s.Authenticate(ctx, tok.Secret)
	if err != nil || got.Name != "ci" || got.Role != api.RoleEditor || got.LastUsed == nil {
		t.Fatalf("authenticate = %+v, %v", got, err)
	}
	_, err = s.Authenticate(ctx, tok.Secret+"x")
	wantCode(t, err, api.EUnauthorized)
	_, err = s.CreateToken(ctx, "ci", api.RoleViewer, "")
	wantCode(t, err, api.EConflict)
	var stored []byte
	if err := s.db.GetContext(ctx, &stored, `SELECT hash FROM tokens WHERE name = 'ci'`); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(stored), tok.Secret) {
		t.Fatal("token stored in the clear")
	}
	if err := s.DeleteToken(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Authenticate(ctx, tok.Secret)
	wantCode(t, err, api.EUnauthorized)

	s.AddAudit(ctx, api.AuditEvent{Actor: "anonymous", Action: api.AuditLoginFailed, Outcome: "failure"})
	putBackend(t, s, backend("web", 1))
	all, _ := s.AuditEvents(ctx, api.AuditFilter{})
	failed, _ := s.AuditEvents(ctx, api.AuditFilter{Action: api.AuditLoginFailed})
	byActor, _ := s.AuditEvents(ctx, api.AuditFilter{Actor: "tester"})
	if len(all) != 2 || len(failed) != 1 || len(byActor) != 1 || byActor[0].Target != "backend/web" {
		t.Fatalf("audit: all %d, failed %d, by actor %+v", len(all), len(failed), byActor)
	}
	future, _ := s.AuditEvents(ctx, api.AuditFilter{Since: time.Now().Add(time.Hour)})
	if len(future) != 0 {
		t.Fatalf("events since an hour ahead = %d, want 0", len(future))
	}
}

func TestApplyRecords(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	rec := &api.ApplyRecord{Revision: 3, Instance: "default", Mode: api.ModeReload, Started: time.Now(),
		DurationMS: 120, Outcome: api.OutcomeRejected, Error: "nginx: [emerg] SSL_CTX_use_PrivateKey failed"}
	if err := s.RecordApply(ctx, rec); err != nil || rec.ID == 0 {
		t.Fatalf("record apply: id %d, %v", rec.ID, err)
	}
	s.RecordApply(ctx, &api.ApplyRecord{Revision: 4, Instance: "default", Mode: api.ModeDynamic, Started: time.Now(), Outcome: api.OutcomeSuccess})
	last, err := s.LastApply(ctx, api.OutcomeSuccess)
	if err != nil || last.Revision != 4 {
		t.Fatalf("last success = %+v, %v", last, err)
	}
	list, _ := s.Applies(ctx, 0, 10)
	if len(list) != 2 || list[1].Error == "" {
		t.Fatalf("applies = %+v", list)
	}
	ev, _ := s.AuditEvents(ctx, api.AuditFilter{Action: api.AuditApply})
	if len(ev) != 2 || ev[1].Outcome != "failure" {
		t.Fatalf("apply audit = %+v", ev)
	}
}

// TestRollbackPointsAtStoredBodies checks that a rollback's rows point at the rows holding
// the restored bodies instead of copying them, one hop even when the restored version was
// itself restored, and that state, diff, revision changes and keys read through them.
func TestRollbackPointsAtStoredBodies(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	cert1, key1 := selfSigned(t, "shop.example.com")
	cert2, key2 := selfSigned(t, "shop.example.com")
	put := func(port int, cert, key string) {
		t.Helper()
		if _, err := write(s, meta("deploy"), api.Mutation{Kind: api.KindBackend, Backend: backend("web", port)},
			api.Mutation{Kind: api.KindCertificate, Certificate: &api.Certificate{Name: "shop", Cert: cert, Key: key}}); err != nil {
			t.Fatal(err)
		}
	}
	put(8001, cert1, key1) // 1
	put(8002, cert2, key2) // 2
	rollback := func(to int64) *api.WriteResult {
		t.Helper()
		res, err := s.Rollback(ctx, meta("back"), to)
		if err != nil || res.Revision == nil {
			t.Fatalf("rollback to %d: %v", to, err)
		}
		return res
	}
	rollback(1) // 3: points at 1
	rollback(2) // 4: points at 2
	rollback(3) // 5: the state of 3, whose rows point at 1, so 5 points at 1 too
	var rows []struct {
		Revision int64  `db:"revision"`
		Body     []byte `db:"body"`
		Secret   []byte `db:"secret"`
		BodyOf   *int64 `db:"body_of"`
	}
	if err := s.db.Select(&rows, `SELECT revision, body, secret, body_of FROM object_versions WHERE revision >= 3 ORDER BY revision, kind`); err != nil {
		t.Fatal(err)
	}
	wantOf := map[int64]int64{3: 1, 4: 2, 5: 1}
	for _, r := range rows {
		if r.Body != nil || r.Secret != nil || r.BodyOf == nil || *r.BodyOf != wantOf[r.Revision] {
			t.Fatalf("row of revision %d: body %d bytes, secret %d bytes, body_of %v; want only body_of %d",
				r.Revision, len(r.Body), len(r.Secret), r.BodyOf, wantOf[r.Revision])
		}
	}
	if len(rows) != 6 {
		t.Fatalf("%d rows in revisions 3-5, want 6", len(rows))
	}
	for rev, want := range map[int64]struct {
		port int
		key  string
	}{3: {8001, key1}, 4: {8002, key2}, 5: {8001, key1}} {
		st, err := s.State(ctx, rev, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Backends["web"].Endpoints[0].Port; got != want.port || st.Certificates["shop"].Key != want.key {
			t.Fatalf("state at %d: port %d, key restored %v; want %d and the key of that time", rev, got, st.Certificates["shop"].Key == want.key, want.port)
		}
		if st.Backends["web"].Version != rev {
			t.Fatalf("state at %d: backend version %d, want %d", rev, st.Backends["web"].Version, rev)
		}
		noKey, _ := s.State(ctx, rev, false)
		if noKey.Certificates["shop"].Key != "" {
			t.Fatalf("state at %d without keys holds a key", rev)
		}
	}
	if got := s.Head().Backends["web"].Endpoints[0].Port; got != 8001 {
		t.Fatalf("head port %d, want 8001", got)
	}
	rev5, err := s.Revision(ctx, 5)
	if err != nil || len(rev5.Changes) != 2 {
		t.Fatalf("revision 5 changes: %+v, %v", rev5, err)
	}
	for _, c := range rev5.Changes {
		if len(c.Body) == 0 || strings.Contains(string(c.Body), key1[40:80]) {
			t.Fatalf("revision 5 change %s: body %q, want the restored body without key", c.Kind, c.Body)
		}
	}
	d, err := s.Diff(ctx, 4, 5)
	if err != nil || len(d.Entries) != 2 {
		t.Fatalf("diff 4..5: %+v, %v", d, err)
	}
	for _, e := range d.Entries {
		if e.Op != api.OpUpdate || len(e.Before) == 0 || len(e.After) == 0 || string(e.Before) == string(e.After) {
			t.Fatalf("diff entry %s: op %s, before %s, after %s", e.Kind, e.Op, e.Before, e.After)
		}
	}
	// Reopening loads the head through the same rows.
	s2, err := Open(ctx, s.path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got := s2.Head().Certificates["shop"]; got.Key != key1 || s2.Head().Backends["web"].Endpoints[0].Port != 8001 {
		t.Fatal("reopened head lost the restored key or endpoint")
	}
}
