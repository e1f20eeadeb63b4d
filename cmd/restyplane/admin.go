package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"golang.org/x/term"

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
// shown), else generated and shown once (see showToken): only its hash is stored.
func bootstrapAdmin(ctx context.Context, st *store.Store, secret string, show func(name, secret string) error, log *slog.Logger) error {
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
	return show(tok.Name, tok.Secret)
}

// adminTokenFile is where, under the data directory, a generated first admin token goes
// when serve does not run in a terminal.
const adminTokenFile = "admin-token"

// showToken returns how the generated first admin token is shown: on out when out is a
// terminal, where the person who started serve reads it; otherwise (a container's log, a
// service manager's journal, a file: logs that others read) it goes to a file of mode 0600
// in the data directory, and the log says where.
func showToken(out io.Writer, dataDir string, log *slog.Logger) func(name, secret string) error {
	return func(name, secret string) error {
		if f, ok := out.(*os.File); ok && isTerminal(f) {
			fmt.Fprintf(out, "\n  restyplane: created the first admin token %q. It is shown this once; store it now:\n\n    %s\n\n", name, secret)
			return nil
		}
		path := filepath.Join(dataDir, adminTokenFile)
		if err := os.WriteFile(path, []byte(secret+"\n"), 0o600); err != nil {
			return fmt.Errorf("write the first admin token: %w", err)
		}
		log.Warn("created the first admin token; it is in a file only root and this user can read: store it, then delete the file", "name", name, "file", path)
		return nil
	}
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// dataplaneTokenName is the token RESTYPLANE_DATAPLANE_TOKEN ensures.
const dataplaneTokenName = "dataplane"

// ensureDataplane makes secret the join token named "dataplane" at every start, so that a
// deployment gives its control plane and its agents one shared secret to join with (the
// image, compose and Kubernetes manifests rely on it); each agent exchanges it for a
// credential of its own. A changed secret replaces the token. A secret whose token was
// deleted is not made again: a revocation holds across restarts, and the log says so.
func ensureDataplane(ctx context.Context, st *store.Store, secret string, log *slog.Logger) error {
	if secret == "" {
		return nil
	}
	if len(secret) < minSecret {
		return fmt.Errorf("RESTYPLANE_DATAPLANE_TOKEN must be at least %d characters", minSecret)
	}
	tok, err := st.Authenticate(ctx, secret)
	switch {
	case err == nil && tok.Name == dataplaneTokenName && tok.Role == api.RoleDataplane:
		return nil
	case err == nil:
		return fmt.Errorf("RESTYPLANE_DATAPLANE_TOKEN is the secret of token %q (role %s); choose another", tok.Name, tok.Role)
	case api.ErrorCode(err) != api.EUnauthorized:
		return fmt.Errorf("check the dataplane token: %w", err)
	}
	revoked, err := st.Revoked(ctx, secret)
	if err != nil {
		return err
	}
	if revoked {
		log.Warn("RESTYPLANE_DATAPLANE_TOKEN is the secret of a deleted token: it is not recreated, and no agent joins with it; set a new secret to make a new join token")
		return nil
	}
	toks, err := st.Tokens(ctx)
	if err != nil {
		return fmt.Errorf("list tokens: %w", err)
	}
	for _, t := range toks {
		if t.Name == dataplaneTokenName {
			if err := st.DeleteToken(ctx, t.ID); err != nil {
				return fmt.Errorf("replace the dataplane token: %w", err)
			}
		}
	}
	if _, err := st.CreateToken(ctx, dataplaneTokenName, api.RoleDataplane, secret); err != nil {
		return fmt.Errorf("create the dataplane token: %w", err)
	}
	ev := api.AuditEvent{Actor: api.ActorSystem, Action: api.AuditTokenCreate, Target: "token/" + dataplaneTokenName,
		Outcome: "success", Detail: "dataplane token from RESTYPLANE_DATAPLANE_TOKEN"}
	if err := st.AddAudit(ctx, ev); err != nil {
		return fmt.Errorf("audit the dataplane token: %w", err)
	}
	log.Info("created the dataplane token from RESTYPLANE_DATAPLANE_TOKEN", "name", dataplaneTokenName)
	return nil
}
