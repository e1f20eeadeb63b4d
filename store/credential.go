package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/restyplane/restyplane/api"
)

// JoinInstance makes the credential of instance name, for the agent that presented the
// join token of meta.Actor, and audits it. A name that holds a credential already is a
// conflict (another agent joined under it), and a revoked one is forbidden until an admin
// forgets the instance (ForgetCredential); a fleet of max credentials takes no more. The
// secret is in the answer alone; only its hash is stored.
func (s *TokenStore) JoinInstance(ctx context.Context, meta api.Meta, name string, max int) (*api.Credential, error) {
	if err := api.ValidName("name", name); err != nil {
		return nil, err
	}
	secret, err := newSecret()
	if err != nil {
		return nil, err
	}
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	var revoked sql.NullInt64
	err = tx.GetContext(ctx, &revoked, `SELECT revoked_at FROM tokens WHERE instance = ?`, name)
	switch {
	case err == nil && revoked.Valid:
		return nil, api.Errorf(api.EForbidden, "instance %q was revoked; an admin forgets it (DELETE /api/v1/instances/%s) before any agent may join under its name again", name, name)
	case err == nil:
		return nil, api.Errorf(api.EConflict, "an agent joined as %q already: give each agent its own --name, or have an admin forget the instance to free the name", name)
	case !errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("look up instance %q: %w", name, err)
	}
	var n int
	if err := tx.GetContext(ctx, &n, `SELECT COUNT(*) FROM tokens WHERE instance IS NOT NULL`); err != nil {
		return nil, fmt.Errorf("count instances: %w", err)
	}
	if n >= max {
		return nil, api.Errorf(api.EConflict, "the fleet holds %d instances, the most it takes: forget those out of service first", n)
	}
	now := time.Now().UTC()
	const q = `INSERT INTO tokens (name, role, hash, created_at, instance) VALUES (?, ?, ?, ?, ?)`
	if _, err := tx.ExecContext(ctx, q, name, api.RoleInstance, hashToken(secret), now.UnixNano(), name); err != nil {
		return nil, fmt.Errorf("insert the credential of instance %q: %w", name, err)
	}
	ev := api.AuditEvent{Time: now, Actor: meta.Actor, Action: api.AuditInstanceJoin, Target: "instance/" + name,
		Outcome: "success", Remote: meta.Remote, Detail: "joined with token " + meta.Actor}
	if _, err := insertAudit(ctx, tx, ev); err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("commit the join of instance %q: %w", name, err)
	}
	return &api.Credential{Instance: name, Secret: secret}, nil
}

// RevokeInstance revokes the credential of instance name, for good: it stays revoked across
// restarts, and no agent joins under the name until an admin forgets the instance. ENotFound
// when the instance holds no valid credential. It does not audit: the caller does, with the
// outcome.
func (s *TokenStore) RevokeInstance(ctx context.Context, name string) error {
	const q = `UPDATE tokens SET revoked_at = ? WHERE instance = ? AND revoked_at IS NULL`
	res, err := s.db.ExecContext(ctx, q, time.Now().UnixNano(), name)
	if err != nil {
		return fmt.Errorf("revoke instance %q: %w", name, err)
	}
	s.tokens.revoke()
	if n, _ := res.RowsAffected(); n == 0 {
		return api.Errorf(api.ENotFound, "instance %q holds no valid credential", name)
	}
	return nil
}

// ForgetCredential removes the credential of instance name, revoked or not, so that an agent
// may join under the name again; false when there was none.
func (s *TokenStore) ForgetCredential(ctx context.Context, name string) (bool, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM tokens WHERE instance = ?`, name)
	if err != nil {
		return false, fmt.Errorf("forget the credential of instance %q: %w", name, err)
	}
	s.tokens.revoke()
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// Revocations lists the instances whose credentials are revoked.
func (s *TokenStore) Revocations(ctx context.Context) (map[string]bool, error) {
	var names []string
	if err := s.db.SelectContext(ctx, &names, `SELECT instance FROM tokens WHERE instance IS NOT NULL AND revoked_at IS NOT NULL`); err != nil {
		return nil, fmt.Errorf("list revoked instances: %w", err)
	}
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[n] = true
	}
	return out, nil
}
