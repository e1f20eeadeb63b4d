package api

import (
	"testing"
	"time"
)

func TestCheckOwner(t *testing.T) {
	k8s := Source{Kind: SourceKubernetes, Namespace: "shop", Name: "web"}
	rest := Meta{Source: SourceAPI}
	cluster := Meta{Source: SourceKubernetes}
	for _, c := range []struct {
		name   string
		meta   Meta
		m      Mutation
		owner  Source
		exists bool
		code   string
	}{
		{"rest writes its own", rest, Mutation{Kind: KindBackend, Name: "b", Backend: &Backend{Name: "b"}}, Source{Kind: SourceAPI}, true, ""},
		{"rest writes settings", rest, Mutation{Kind: KindSettings, Settings: &Settings{}}, Source{}, true, ""},
		{"kubernetes never writes settings", cluster, Mutation{Kind: KindSettings, Settings: &Settings{}}, Source{}, true, EForbidden},
		{"rest edits a kubernetes object", rest, Mutation{Kind: KindBackend, Name: "b", Backend: &Backend{Name: "b"}}, k8s, true, EConflict},
		{"kubernetes edits a rest object", cluster, Mutation{Kind: KindBackend, Name: "b", Backend: &Backend{Name: "b", Source: k8s}}, Source{Kind: SourceAPI}, true, EConflict},
		{"rest claims a kubernetes source", rest, Mutation{Kind: KindBackend, Name: "b", Backend: &Backend{Name: "b", Source: k8s}}, Source{}, false, EInvalid},
		{"kubernetes without its source", cluster, Mutation{Kind: KindBackend, Name: "b", Backend: &Backend{Name: "b"}}, Source{}, false, EInvalid},
		{"kubernetes deletes its own", cluster, Mutation{Kind: KindBackend, Name: "b", Delete: true}, k8s, true, ""},
	} {
		err := CheckOwner(c.meta, &c.m, c.owner, c.exists)
		if got := ErrorCode(err); (err == nil) != (c.code == "") || (err != nil && got != c.code) {
			t.Errorf("%s: err = %v, want code %q", c.name, err, c.code)
		}
	}
}

func TestCheckHostnameClaims(t *testing.T) {
	claims := map[string]HostnameClaim{"shop.example.com": {Hostname: "shop.example.com", Namespace: "shop", Since: time.Unix(0, 0), How: HostnameGranted}}
	rest := Mutation{Kind: KindServer, Server: &Server{Name: "web", Hostnames: []string{"shop.example.com"}}}
	if err := CheckHostnameClaims([]Mutation{rest}, claims); ErrorCode(err) != EConflict {
		t.Fatalf("REST server on a claimed hostname: %v, want a conflict", err)
	}
	k8s := rest
	k8s.Server = &Server{Name: "web", Hostnames: []string{"shop.example.com"}, Source: Source{Kind: SourceKubernetes}}
	if err := CheckHostnameClaims([]Mutation{k8s}, claims); err != nil {
		t.Fatalf("Kubernetes server on a claimed hostname: %v, want nil (the reconciler decides)", err)
	}
	if err := CheckHostnameClaims([]Mutation{rest}, nil); err != nil {
		t.Fatalf("no claims: %v", err)
	}
}

// TestCheckHostnameClaimsWildcards: a REST server may not take a name a namespace's
// wildcard covers, nor a wildcard that covers a namespace's name.
func TestCheckHostnameClaimsWildcards(t *testing.T) {
	claims := map[string]HostnameClaim{
		"*.example.com":    {Hostname: "*.example.com", Namespace: "a", How: HostnameClaimed},
		"shop.example.org": {Hostname: "shop.example.org", Namespace: "b", How: HostnameClaimed},
	}
	for _, h := range []string{"api.example.com", "a.b.example.com", "*.eu.example.com", "*.example.org"} {
		m := Mutation{Kind: KindServer, Server: &Server{Name: "web", Hostnames: []string{h}}}
		if err := CheckHostnameClaims([]Mutation{m}, claims); ErrorCode(err) != EConflict {
			t.Errorf("REST server on %s: %v, want a conflict", h, err)
		}
	}
	for _, h := range []string{"example.com", "other.org", "*.other.example.org"} {
		m := Mutation{Kind: KindServer, Server: &Server{Name: "web", Hostnames: []string{h}}}
		if err := CheckHostnameClaims([]Mutation{m}, claims); err != nil {
			t.Errorf("REST server on %s: %v, want nil", h, err)
		}
	}
}
