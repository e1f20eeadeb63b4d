package store

import (
	"context"
	"log/slog"
	"time"

	"github.com/restyplane/restyplane/api"
)

// Pruning is what the Pruner asks of the history.
type Pruning interface {
	Prune(ctx context.Context, meta api.Meta, now time.Time) (api.PruneResult, error)
}

// Pruner applies the retention policy periodically. With no policy set each run removes
// nothing, so it costs one small query per interval.
type Pruner struct {
	store Pruning
	every time.Duration
	log   *slog.Logger
}

// NewPruner returns a Pruner that prunes st every interval once Run is called.
func NewPruner(st Pruning, every time.Duration, log *slog.Logger) *Pruner {
	return &Pruner{store: st, every: every, log: log}
}

// Run prunes at once and then every interval until ctx ends. A failed prune is logged and
// tried again at the next tick: retention is housekeeping, never a reason to stop serving.
func (p *Pruner) Run(ctx context.Context) {
	t := time.NewTicker(p.every)
	defer t.Stop()
	for {
		res, err := p.store.Prune(ctx, api.Meta{Actor: "retention", Source: api.SourceAPI}, time.Now())
		switch {
		case err != nil && ctx.Err() == nil:
			p.log.Error("prune the history", "err", err)
		case res.Revisions > 0:
			p.log.Info("pruned the history", "revisions", res.Revisions, "objectRows", res.ObjectRows, "oldestKept", res.Floor)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
