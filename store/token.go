package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/restyplane/restyplane/api"
)

// TokenPrefix starts every generated secret, so that a leaked one is easy to recognise
// in logs and by secret scanners.
const TokenPrefix = "rp_"

type tokenRow struct {
	ID         int64          `db:"id"`
	Name       string         `db:"name"`
	Role       string         `db:"role"`
	CreatedAt  int64          `db:"created_at"`
	LastUsedAt sql.NullInt64  `db:"last_used_at"`
	Instance   sql.NullString `db:"instance"`
}

// tokenColumns are what a tokenRow reads.
const tokenColumns = `id, name, role, created_at, last_used_at, instance`

func (r tokenRow) token() api.Token {
	t := api.Token{ID: r.ID, Name: r.Name, Role: r.Role, Created: time.Unix(0, r.CreatedAt).UTC(), Instance: r.Instance.String}
	if r.LastUsedAt.Valid {
		lu := time.Unix(0, r.LastUsedAt.Int64).UTC()
		t.LastUsed = &lu
	}
	return t
}

// hashToken returns the stored form of a secret. Secrets are 256 random bits, so a plain
// SHA-256 is as strong as a password hash here and costs nothing per request.
func hashToken(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// CreateToken stores a token with the given role. An empty secret is generated; the
// secret is returned once, in the Token, and never stored.
func (s *TokenStore) CreateToken(ctx context.Context, name, role, secret string) (*api.Token, error) {
	t := api.Token{Name: name, Role: role, Created: time.Now().UTC()}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	if secret == "" {
		var err error
		if secret, err = newSecret(); err != nil {
			return nil, err
		}
	} else if len(secret) < 16 || strings.ContainsAny(secret, " \t\r\n") {
		return nil, api.Invalid("secret", "a token must be at least 16 characters without whitespace")
	}
	const q = `INSERT INTO tokens (name, role, hash, created_at) VALUES (?, ?, ?, ?)`
	res, err := s.db.ExecContext(ctx, q, name, role, hashToken(secret), t.Created.UnixNano())
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE") {
			return nil, api.Errorf(api.EConflict, "a token named %q (or with that secret, perhaps revoked) exists", name)
		}
		return nil, fmt.Errorf("insert token %q: %w", name, err)
	}
	t.ID, _ = res.LastInsertId()
	t.Secret = secret
	return &t, nil
}

// newSecret generates a token's secret: 256 random bits.
func newSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	return TokenPrefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// Authenticate returns the valid token a secret belongs to. A token that authenticated before
// comes from the token cache (see tokenCache), which DeleteToken empties. It records the
// last use at most once a minute, so that reads do not turn into writes.
func (s *TokenStore) Authenticate(ctx context.Context, secret string) (*api.Token, error) {
	hash := sha256.Sum256([]byte(secret))
	r, gen, ok := s.tokens.get(hash)
	if !ok {
		const q = `SELECT ` + tokenColumns + ` FROM tokens WHERE hash = ? AND revoked_at IS NULL`
		err := s.db.GetContext(ctx, &r, q, hash[:])
		if errors.Is(err, sql.ErrNoRows) {
			return nil, api.Errorf(api.EUnauthorized, "unknown token")
		} else if err != nil {
			return nil, fmt.Errorf("look up token: %w", err)
		}
	}
	now := time.Now()
	if !r.LastUsedAt.Valid || now.Sub(time.Unix(0, r.LastUsedAt.Int64)) > time.Minute {
		if _, err := s.db.ExecContext(ctx, `UPDATE tokens SET last_used_at = ? WHERE id = ?`, now.UnixNano(), r.ID); err != nil {
			return nil, fmt.Errorf("touch token %q: %w", r.Name, err)
		}
		r.LastUsedAt = sql.NullInt64{Int64: now.UnixNano(), Valid: true}
		ok = false
	}
	if !ok {
		s.tokens.put(hash, r, gen)
	}
	t := r.token()
	return &t, nil
}

// Tokens lists the valid API tokens (join tokens included, instances' credentials not),
// without secrets, which are not stored.
func (s *TokenStore) Tokens(ctx context.Context) ([]api.Token, error) {
	var rows []tokenRow
	const q = `SELECT ` + tokenColumns + ` FROM tokens WHERE revoked_at IS NULL AND instance IS NULL ORDER BY id`
	if err := s.db.SelectContext(ctx, &rows, q); err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	out := make([]api.Token, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.token())
	}
	return out, nil
}

// DeleteToken revokes an API token. Its row stays, marked revoked, so that its secret is
// known as revoked (Revoked) and never valid again, whoever presents it at a start.
func (s *TokenStore) DeleteToken(ctx context.Context, id int64) error {
	const q = `UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL AND instance IS NULL`
	res, err := s.db.ExecContext(ctx, q, time.Now().UnixNano(), id)
	if err != nil {
		return fmt.Errorf("delete token %d: %w", id, err)
	}
	// Whatever the count says, nothing cached may outlive this call.
	s.tokens.revoke()
	if n, _ := res.RowsAffected(); n == 0 {
		return api.Errorf(api.ENotFound, "token %d not found", id)
	}
	return nil
}

// Revoked reports whether secret is the secret of a revoked token.
func (s *TokenStore) Revoked(ctx context.Context, secret string) (bool, error) {
	var n int
	if err := s.db.GetContext(ctx, &n, `SELECT COUNT(*) FROM tokens WHERE hash = ? AND revoked_at IS NOT NULL`, hashToken(secret)); err != nil {
		return false, fmt.Errorf("look up token: %w", err)
	}
	return n > 0, nil
}

// TokenCount returns the number of valid API tokens; zero means a first start.
func (s *TokenStore) TokenCount(ctx context.Context) (int, error) {
	var n int
	if err := s.db.GetContext(ctx, &n, `SELECT COUNT(*) FROM tokens WHERE revoked_at IS NULL AND instance IS NULL`); err != nil {
		return 0, fmt.Errorf("count tokens: %w", err)
	}
	return n, nil
}
