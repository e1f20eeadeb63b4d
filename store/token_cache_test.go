package store

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// TestRevokedTokenRefusedAtOnce: a token that authenticated (and so sits in the token
// cache) is refused on the very next Authenticate after DeleteToken returned, and a
// token replaced under the same name (as ensureDataplane does) answers only to the new
// secret.
func TestRevokedTokenRefusedAtOnce(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	tok, err := s.CreateToken(ctx, "ci", api.RoleEditor, "")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		got, err := s.Authenticate(ctx, tok.Secret)
		if err != nil || got.ID != tok.ID || got.Role != api.RoleEditor {
			t.Fatalf("authenticate %d = %+v, %v; want token %d", i, got, err, tok.ID)
		}
	}
	if err := s.DeleteToken(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Authenticate(ctx, tok.Secret)
	wantCode(t, err, api.EUnauthorized)

	const oldSecret, newSecret = "dataplane-secret-one-0123456789", "dataplane-secret-two-0123456789"
	dp, err := s.CreateToken(ctx, "dataplane", api.RoleDataplane, oldSecret)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, oldSecret); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteToken(ctx, dp.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateToken(ctx, "dataplane", api.RoleDataplane, newSecret); err != nil {
		t.Fatal(err)
	}
	_, err = s.Authenticate(ctx, oldSecret)
	wantCode(t, err, api.EUnauthorized)
	if got, err := s.Authenticate(ctx, newSecret); err != nil || got.Role != api.RoleDataplane {
		t.Fatalf("new dataplane secret = %+v, %v", got, err)
	}
}

// TestRevocationRacesLookups deletes a token while other goroutines keep authenticating
// with it: a lookup that read the row just before the delete must not leave it in the
// cache, so once DeleteToken returned every later Authenticate refuses it.
func TestRevocationRacesLookups(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	for round := 0; round < 20; round++ {
		tok, err := s.CreateToken(ctx, "racer", api.RoleViewer, "")
		if err != nil {
			t.Fatal(err)
		}
		var stop atomic.Bool
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 10000 && !stop.Load(); i++ {
					s.Authenticate(ctx, tok.Secret)
				}
			}()
		}
		if err := s.DeleteToken(ctx, tok.ID); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 50; i++ {
			if got, err := s.Authenticate(ctx, tok.Secret); err == nil {
				t.Fatalf("round %d: token %d authenticated after its delete returned: %+v", round, tok.ID, got)
			}
		}
		stop.Store(true)
		wg.Wait()
		if _, err := s.Authenticate(ctx, tok.Secret); err == nil {
			t.Fatalf("round %d: token %d authenticated after the lookups ended", round, tok.ID)
		}
	}
}

// TestCachedTokenStillRecordsLastUse: serving a token from the cache keeps recording its
// last use, as the lookup in SQLite did.
func TestCachedTokenStillRecordsLastUse(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	tok, err := s.CreateToken(ctx, "user", api.RoleViewer, "")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := s.Authenticate(ctx, tok.Secret); err != nil {
			t.Fatal(err)
		}
	}
	toks, err := s.Tokens(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range toks {
		if x.ID == tok.ID && x.LastUsed == nil {
			t.Fatalf("token %d has no last use after two authentications", tok.ID)
		}
	}
}
