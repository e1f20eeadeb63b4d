package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/restyplane/restyplane/api"
)

// BenchmarkCredentialCheck measures what an instance's credential adds to a report and to
// the opening of a feed stream, against the check it replaced: the role (dataplane) and the
// agent identity's hold on the name. Both start from a token the store's cache returned,
// as every request after an agent's first does. A feed line costs nothing more: the check
// is made once per stream.
func BenchmarkCredentialCheck(b *testing.B) {
	f, err := newFleet(prometheus.NewRegistry(), func() int64 { return 1 })
	if err != nil {
		b.Fatal(err)
	}
	s := &Server{fleet: f}
	const name, id = "edge-1", "0123456789abcdef0123456789abcdef"
	old := &api.Token{ID: 1, Name: "dp", Role: api.RoleDataplane}
	cred := &api.Token{ID: 2, Name: name, Role: api.RoleInstance, Instance: name}
	req := func(tok *api.Token) *http.Request {
		r := httptest.NewRequest("POST", "/api/v1/instances/"+name+"/report", nil)
		return r.WithContext(context.WithValue(r.Context(), keyToken, tok))
	}
	oldReq, newReq := req(old), req(cred)
	b.Run("report/old", func(b *testing.B) {
		for b.Loop() {
			if tokenFrom(oldReq.Context()).Role != api.RoleDataplane || f.speaksFor(name, id) != nil {
				b.Fatal("refused")
			}
		}
	})
	b.Run("report/new", func(b *testing.B) {
		for b.Loop() {
			if tokenFrom(newReq.Context()).Role != api.RoleInstance || s.speaksFor(newReq, name) != nil || f.speaksFor(name, id) != nil {
				b.Fatal("refused")
			}
		}
	})
	b.Run("feed/old", func(b *testing.B) {
		for b.Loop() {
			if tokenFrom(oldReq.Context()).Role != api.RoleDataplane {
				b.Fatal("refused")
			}
			if _, err := f.connect(name, id); err != nil {
				b.Fatal(err)
			}
			f.disconnect(name)
		}
	})
	b.Run("feed/new", func(b *testing.B) {
		for b.Loop() {
			tok := tokenFrom(newReq.Context())
			if tok.Role != api.RoleInstance || s.speaksFor(newReq, name) != nil {
				b.Fatal("refused")
			}
			release, err := s.streams.acquire(tok.ID, maxFeedStreams, "feed")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := f.connect(name, id); err != nil {
				b.Fatal(err)
			}
			f.disconnect(name)
			release()
		}
	})
}
