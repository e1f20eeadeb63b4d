package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/restyplane/restyplane/api"
	"github.com/restyplane/restyplane/store"
)

// adminTokenName is the name of the token created at first start.
const adminTokenName = "admin"

// minSecret is the shortest RESTYPLANE_ADMIN_TOKEN accepted: guessable admin tokens are
// worse than none.
const minSecret = 24

// bootstrapAdmin creates the first admin token when there is no token at all, so that a
// fresh install can be used. The secret is RESTYPLANE_ADMIN_TOKEN when set (and then never
// printed), else generated and printed once: only its hash is stored.
func bootstrapAdmin(ctx context.Context, st *store.Store, secret string, out io.Writer, log *slog.Logger) error {
	n, err := st.TokenCount(ctx)
	if err != nil {
		return fmt.Errorf("count tokens: %w", err)
	}
	if n > 0 {
		if secret != "" {
			log.Info("RESTYPLANE_ADMIN_TOKEN is ignored: tokens exist already")
		}
		return nil
	}
	if secret != "" && len(secret) < minSecret {
		return fmt.Errorf("RESTYPLANE_ADMIN_TOKEN must be at least %d characters", minSecret)
	}
	tok, err := st.CreateToken(ctx, adminTokenName, api.RoleAdmin, secret)
	if err != nil {
		return fmt.Errorf("create the first admin token: %w", err)
	}
	ev := api.AuditEvent{Actor: api.ActorSystem, Action: api.AuditTokenCreate, Target: "token/" + tok.Name,
		Outcome: "success", Detail: "first admin token, at first start"}
	if err := st.AddAudit(ctx, ev); err != nil {
		return fmt.Errorf("audit the first admin token: %w", err)
	}
	if secret != "" {
		log.Info("created admin token from RESTYPLANE_ADMIN_TOKEN", "name", tok.Name)
		return nil
	}
	fmt.Fprintf(out, "\n  restyplane: created the first admin token %q. It is shown this once; store it now:\n\n    %s\n\n", tok.Name, tok.Secret)
	return nil
}
