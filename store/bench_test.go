package store

import (
	"context"
	"fmt"
	"testing"

	"github.com/restyplane/restyplane/api"
)

// BenchmarkRollback measures a rollback over 10,000 revisions of single-endpoint edits on
// 5,000 backends of 4 endpoints, and the way forward again.
func BenchmarkRollback(b *testing.B) {
	s := mustOpen(b)
	ctx := context.Background()
	cfg := api.Config{}
	for i := 0; i < 5000; i++ {
		be := api.Backend{Name: fmt.Sprintf("backend-%05d", i)}
		for p := 0; p < 4; p++ {
			be.Endpoints = append(be.Endpoints, api.Endpoint{Address: fmt.Sprintf("10.%d.%d.%d", i/256%256, i%256, p), Port: 8080})
		}
		cfg.Backends = append(cfg.Backends, be)
	}
	if _, err := s.ReplaceConfig(ctx, meta("load"), cfg); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 10000; i++ {
		be := *s.Head().Backends[fmt.Sprintf("backend-%05d", i%5000)]
		be.Endpoints = append([]api.Endpoint(nil), be.Endpoints...)
		be.Endpoints[0].Port = 10000 + i
		if _, err := s.Write(ctx, meta("edit"), []api.Mutation{{Kind: api.KindBackend, Backend: &be}}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		target := int64(1)
		if i%2 == 1 {
			target = 10001
		}
		if _, err := s.Rollback(ctx, meta("bench"), target); err != nil {
			b.Fatal(err)
		}
	}
}
