package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// TestHostnameClaims: a claim survives a reopen; a REST server naming a held hostname is a
// 409 that names the namespace; a release removes only the claim it read, never a grant
// made since; a grant cannot take a REST server's hostname.
func TestHostnameClaims(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "restyplane.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	claim := api.HostnameClaim{Hostname: "shop.example.com", Namespace: "shop"}
	if err := s.ClaimHostnames(ctx, []api.HostnameClaim{claim}, nil); err != nil {
		t.Fatalf("claim: %v", err)
	}
	wantCode(t, s.ClaimHostnames(ctx, []api.HostnameClaim{{Hostname: "shop.example.com", Namespace: "evil"}}, nil), api.EConflict)
	s.Close()
	if s, err = Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	claims, _ := s.HostnameClaims(ctx)
	if len(claims) != 1 || claims[0].Namespace != "shop" || claims[0].How != api.HostnameClaimed || claims[0].Since.IsZero() {
		t.Fatalf("claims after reopen = %+v", claims)
	}

	putBackend(t, s, backend("pool", 80))
	_, err = write(s, meta("rest"), api.Mutation{Kind: api.KindServer, Server: server("rest", "shop.example.com", "/login", "pool")})
	wantCode(t, err, api.EConflict)
	if !strings.Contains(err.Error(), `namespace "shop"`) {
		t.Fatalf("409 %q does not name the namespace", err)
	}

	// An admin grants the hostname to another namespace; the reconciler's release of the
	// claim it read before must not remove the grant.
	if _, err := s.GrantHostname(ctx, "shop.example.com", "checkout", api.AuditEvent{Actor: "admin"}); err != nil {
		t.Fatalf("grant: %v", err)
	}
	if err := s.ClaimHostnames(ctx, nil, []api.HostnameClaim{claims[0]}); err != nil {
		t.Fatalf("stale release: %v", err)
	}
	claims, _ = s.HostnameClaims(ctx)
	if len(claims) != 1 || claims[0].Namespace != "checkout" || claims[0].How != api.HostnameGranted {
		t.Fatalf("claims after a stale release = %+v, want the grant", claims)
	}
	evs, _ := s.AuditEvents(ctx, api.AuditFilter{Action: api.AuditHostnameGrant})
	if len(evs) != 1 || evs[0].Actor != "admin" {
		t.Fatalf("grant audit = %+v", evs)
	}
	if err := s.ReleaseHostname(ctx, "shop.example.com", api.AuditEvent{Actor: "admin"}); err != nil {
		t.Fatalf("release: %v", err)
	}
	wantCode(t, s.ReleaseHostname(ctx, "shop.example.com", api.AuditEvent{Actor: "admin"}), api.ENotFound)

	if _, err := write(s, meta("rest"), api.Mutation{Kind: api.KindServer, Server: server("rest", "rest.example.com", "/", "pool")}); err != nil {
		t.Fatalf("REST server: %v", err)
	}
	_, err = s.GrantHostname(ctx, "rest.example.com", "shop", api.AuditEvent{Actor: "admin"})
	wantCode(t, err, api.EConflict)
	wantCode(t, s.ClaimHostnames(ctx, []api.HostnameClaim{{Hostname: "rest.example.com", Namespace: "shop"}}, nil), api.EConflict)

	// A kubernetes-owned server's hostname is refused to REST even without a stored claim,
	// and the other way round: nginx would merge the two into one server block.
	k8s := api.Meta{Actor: api.ActorKubernetes, Source: api.SourceKubernetes, Message: "cluster"}
	src := api.Source{Kind: api.SourceKubernetes, Namespace: "shop", Name: "web", UID: "u"}
	kb := backend("k8s.shop.web.80", 80)
	kb.Source = src
	ks := server("k8s.k8s.example.com", "k8s.example.com", "/", "k8s.shop.web.80")
	ks.Source = src
	if _, err := write(s, k8s, api.Mutation{Kind: api.KindBackend, Backend: kb}, api.Mutation{Kind: api.KindServer, Server: ks}); err != nil {
		t.Fatalf("kubernetes write: %v", err)
	}
	_, err = write(s, meta("rest"), api.Mutation{Kind: api.KindServer, Server: server("rest2", "k8s.example.com", "/other", "pool")})
	wantCode(t, err, api.EConflict)
	ks2 := server("k8s.rest.example.com", "rest.example.com", "/k8s", "k8s.shop.web.80")
	ks2.Source = src
	_, err = write(s, k8s, api.Mutation{Kind: api.KindServer, Server: ks2})
	wantCode(t, err, api.EConflict)
}
