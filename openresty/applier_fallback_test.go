package openresty

import (
	"log/slog"
	"testing"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/openresty/render"
)

// inPlaceProxy is a fakeProxy that runs, as an nginx started on the conf in place does,
// the conf of an earlier revision.
type inPlaceProxy struct {
	*fakeProxy
	conf []byte
	gen  string
}

func (p *inPlaceProxy) ConfInPlace() ([]byte, string) { return p.conf, p.gen }

// TestRejectedHeadAtStartServesTheRevisionInPlace: restyplane starts beside an nginx that
// runs revision 2's conf with empty shared memory, and the head (3) is rejected for a
// reason no server explains. The applier applies revision 2 again from the history, so the
// proxy serves what it served before the restart, and the head stays rejected.
func TestRejectedHeadAtStartServesTheRevisionInPlace(t *testing.T) {
	s := openStore(t)
	mustWrite(t, s, web(8080))
	rev := mustWrite(t, s, shop("/"))
	bad := api.DefaultSettings()
	bad.WorkerConnections = 4242
	head := mustWrite(t, s, api.Mutation{Kind: api.KindSettings, Settings: &bad})

	fp := &fakeProxy{restarted: make(chan struct{}), rejectOn: "workers 4242"}
	st, err := s.State(t.Context(), rev, true)
	if err != nil {
		t.Fatal(err)
	}
	cfg := *st
	cfg.Backends = renderedBackends(st)
	conf, _ := fp.RenderSized(cfg.Config(true), render.SizeDicts(st.Backends, st.Certificates), "2")
	p := &inPlaceProxy{fakeProxy: fp, conf: conf, gen: "2"}

	a := NewApplier(s, p, nil, slog.New(slog.DiscardHandler), "test")
	a.stepMu.Lock()
	a.step(t.Context(), false)
	a.stepMu.Unlock()

	got := a.Status(t.Context())
	if got.Applied != rev || got.Rejected != head {
		t.Fatalf("applied %d, rejected %d; want %d applied again and %d rejected", got.Applied, got.Rejected, rev, head)
	}
	if _, pushes := fp.count(); pushes != 1 || !fp.pushes[0].Full || len(fp.pushes[0].Backends) != 1 {
		t.Fatalf("pushes %+v, want one full push of revision %d's backend", fp.pushes, rev)
	}
}
