package api

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKindsRoundTrip: every declared kind stores an object as body and secret and reads it
// back whole, and the state lists, looks up and deletes it through its declaration.
func TestKindsRoundTrip(t *testing.T) {
	src := Source{Kind: SourceAPI}
	objects := []Mutation{
		{Kind: KindSettings, Settings: func() *Settings { s := DefaultSettings(); s.WorkerConnections = 2048; return &s }()},
		{Kind: KindCertificate, Certificate: &Certificate{Name: "tls", Cert: "chain", Key: "secret key", Source: src}},
		{Kind: KindHtpasswd, Htpasswd: &Htpasswd{Name: "users", Content: "alice:hash", Source: src}},
		{Kind: KindCACertificate, CACertificate: &CACertificate{Name: "ca", Cert: "bundle", Source: src}},
		{Kind: KindBackend, Backend: &Backend{Name: "web", Source: src}},
		{Kind: KindServer, Server: &Server{Name: "shop", Source: src}},
	}
	if len(objects) != len(kinds) {
		t.Fatalf("%d kinds declared, %d tested", len(kinds), len(objects))
	}
	for _, m := range objects {
		k, ok := KindNamed(m.Kind)
		if !ok {
			t.Fatalf("kind %q not declared", m.Kind)
		}
		m.Name = m.ObjectName()
		body, secret := k.Encode(m)
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		st := NewState()
		if err := k.Decode(st, m.Name, b, secret, 7); err != nil {
			t.Fatalf("%s: decode: %v", m.Kind, err)
		}
		back, ok := k.Mutation(st, m.Name)
		if !ok {
			t.Fatalf("%s %q not in the state after decode", m.Kind, m.Name)
		}
		if v, _, ok := st.Lookup(m.Ref()); !ok || v != 7 {
			t.Fatalf("%s: lookup = %d, %v; want version 7", m.Kind, v, ok)
		}
		want := m
		st2 := NewState()
		st2.Apply(want)
		wantBack, _ := k.Mutation(st2, m.Name)
		if diff := cmp.Diff(wantBack, back, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Version" }, cmp.Ignore())); diff != "" {
			t.Fatalf("%s round trip (-want +got):\n%s", m.Kind, diff)
		}
		st.Delete(m.Ref())
		if _, _, ok := st.Lookup(m.Ref()); ok && m.Kind != KindSettings {
			t.Fatalf("%s still there after delete", m.Kind)
		}
	}
}
