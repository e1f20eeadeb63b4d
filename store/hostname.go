package store

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/restyplane/restyplane/api"
)

// A hostname held by a Kubernetes namespace is kept in hostname_claims and, for the checks
// every server write makes, in memory. Both change only under the writer lock, so a REST
// write that names a hostname and a claim of the same hostname are ordered: one of them
// sees the other and is refused.

type claimRow struct {
	Hostname  string `db:"hostname"`
	Namespace string `db:"namespace"`
	Since     int64  `db:"since"`
	How       string `db:"how"`
}

func (r claimRow) claim() api.HostnameClaim {
	return api.HostnameClaim{Hostname: r.Hostname, Namespace: r.Namespace, Since: time.Unix(0, r.Since).UTC(), How: r.How}
}

func loadClaims(ctx context.Context, db *sqlx.DB) (map[string]api.HostnameClaim, error) {
	var rows []claimRow
	if err := db.SelectContext(ctx, &rows, `SELECT hostname, namespace, since, how FROM hostname_claims`); err != nil {
		return nil, fmt.Errorf("load hostname claims: %w", err)
	}
	m := make(map[string]api.HostnameClaim, len(rows))
	for _, r := range rows {
		m[r.Hostname] = r.claim()
	}
	return m, nil
}

// HostnameClaims lists the hostnames Kubernetes namespaces hold, sorted by hostname.
func (s *ClaimStore) HostnameClaims(ctx context.Context) ([]api.HostnameClaim, error) {
	claims := s.claims.Get()
	out := make([]api.HostnameClaim, 0, len(claims))
	for _, c := range claims {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Hostname < out[j].Hostname })
	return out, nil
}

// HostnameClaimsChanged returns a channel closed at the next change of the claims that
// the reconciler did not make itself: an admin's grant or release.
func (s *ClaimStore) HostnameClaimsChanged() <-chan struct{} { return s.claims.Changed() }

// ClaimHostnames records the reconciler's new first claims and releases, in one
// transaction with one audit event. A claim of a hostname that is held already (by an
// admin's grant since the reconciler read the claims) or that a REST server names is a
// conflict, and nothing is written: the reconciler reads the claims again and retries. A
// release removes only the claim it names, as it names it: a grant or a newer claim made
// since the reconciler read the claims is left alone, so a release cannot take a hostname
// from whoever holds it now.
func (s *ClaimStore) ClaimHostnames(ctx context.Context, claims, releases []api.HostnameClaim) error {
	if len(claims) == 0 && len(releases) == 0 {
		return nil
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	head := s.head.Get()
	now := time.Now().UTC()
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	next := s.cloneClaims()
	var said []string
	// Releases first: a hostname released in a sync may be claimed by another namespace in
	// the same sync.
	for _, r := range releases {
		cur, ok := next[r.Hostname]
		if !ok || cur.How != api.HostnameClaimed || cur.Namespace != r.Namespace || !cur.Since.Equal(r.Since) {
			continue
		}
		const q = `DELETE FROM hostname_claims WHERE hostname = ? AND namespace = ? AND how = 'claim' AND since = ?`
		if _, err := tx.ExecContext(ctx, q, r.Hostname, r.Namespace, r.Since.UnixNano()); err != nil {
			return fmt.Errorf("release hostname %q: %w", r.Hostname, err)
		}
		delete(next, r.Hostname)
		said = append(said, fmt.Sprintf("%s released by %s", r.Hostname, r.Namespace))
	}
	for _, c := range claims {
		if cur, ok := next[c.Hostname]; ok {
			return api.Errorf(api.EConflict, "hostname %q is held by namespace %q already", c.Hostname, cur.Namespace)
		}
		if srv := restServerNaming(head, c.Hostname); srv != "" {
			return api.Errorf(api.EConflict, "hostname %q is named by REST server %q", c.Hostname, srv)
		}
	}
	for _, c := range claims {
		c.Since, c.How = now, api.HostnameClaimed
		const q = `INSERT INTO hostname_claims (hostname, namespace, since, how) VALUES (?, ?, ?, ?)`
		if _, err := tx.ExecContext(ctx, q, c.Hostname, c.Namespace, c.Since.UnixNano(), c.How); err != nil {
			return fmt.Errorf("claim hostname %q: %w", c.Hostname, err)
		}
		next[c.Hostname] = c
		said = append(said, fmt.Sprintf("%s claimed by %s", c.Hostname, c.Namespace))
	}
	if len(said) == 0 {
		return nil
	}
	ev := api.AuditEvent{Time: now, Actor: api.ActorKubernetes, Action: api.AuditHostnameClaims,
		Target: fmt.Sprintf("%d hostnames", len(said)), Outcome: "success", Detail: strings.Join(said, "; ")}
	if _, err := insertAudit(ctx, tx, ev); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit hostname claims: %w", err)
	}
	s.setClaims(next, false)
	return nil
}

// GrantHostname gives a hostname to a namespace, whoever held it, as an admin asks. A
// hostname that a REST server names cannot be granted: REST servers and Ingresses never
// share a hostname.
func (s *ClaimStore) GrantHostname(ctx context.Context, hostname, namespace string, ev api.AuditEvent) (*api.HostnameClaim, error) {
	if err := api.ValidHostname("hostname", hostname); err != nil {
		return nil, err
	}
	if err := api.ValidNamespace("namespace", namespace); err != nil {
		return nil, err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if srv := restServerNaming(s.head.Get(), hostname); srv != "" {
		return nil, api.Errorf(api.EConflict, "hostname %q is named by REST server %q; a hostname is held by the REST API or by one namespace, never both", hostname, srv)
	}
	c := api.HostnameClaim{Hostname: hostname, Namespace: namespace, Since: time.Now().UTC(), How: api.HostnameGranted}
	prev, had := s.claims.Get()[hostname]
	ev.Time, ev.Action, ev.Target, ev.Outcome = c.Since, api.AuditHostnameGrant, "hostname/"+hostname, "success"
	ev.Detail = "granted to namespace " + namespace
	if had {
		ev.Detail += fmt.Sprintf(" (held by %s by %s before)", prev.Namespace, prev.How)
	}
	err := s.claimTx(ctx, ev, func(tx *sqlx.Tx) error {
		const q = `INSERT INTO hostname_claims (hostname, namespace, since, how) VALUES (?, ?, ?, ?)
			ON CONFLICT (hostname) DO UPDATE SET namespace = excluded.namespace, since = excluded.since, how = excluded.how`
		_, err := tx.ExecContext(ctx, q, c.Hostname, c.Namespace, c.Since.UnixNano(), c.How)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("grant hostname %q: %w", hostname, err)
	}
	next := s.cloneClaims()
	next[hostname] = c
	s.setClaims(next, true)
	return &c, nil
}

// ReleaseHostname ends whatever claim or grant holds the hostname. If Ingresses still name
// it, the reconciler's next sync gives it to the first of them, as for any unclaimed
// hostname.
func (s *ClaimStore) ReleaseHostname(ctx context.Context, hostname string, ev api.AuditEvent) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	prev, ok := s.claims.Get()[hostname]
	if !ok {
		return api.Errorf(api.ENotFound, "hostname %q is held by no namespace", hostname)
	}
	ev.Time, ev.Action, ev.Target, ev.Outcome = time.Now().UTC(), api.AuditHostnameRelease, "hostname/"+hostname, "success"
	ev.Detail = fmt.Sprintf("released from namespace %s (held by %s)", prev.Namespace, prev.How)
	err := s.claimTx(ctx, ev, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM hostname_claims WHERE hostname = ?`, hostname)
		return err
	})
	if err != nil {
		return fmt.Errorf("release hostname %q: %w", hostname, err)
	}
	next := s.cloneClaims()
	delete(next, hostname)
	s.setClaims(next, true)
	return nil
}

// claimTx runs one change of hostname_claims and its audit event in a transaction.
func (s *core) claimTx(ctx context.Context, ev api.AuditEvent, change func(*sqlx.Tx) error) error {
	tx, err := s.db.BeginTxx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	if err := change(tx); err != nil {
		return err
	}
	if _, err := insertAudit(ctx, tx, ev); err != nil {
		return err
	}
	return tx.Commit()
}

func (s *core) cloneClaims() map[string]api.HostnameClaim {
	claims := s.claims.Get()
	next := make(map[string]api.HostnameClaim, len(claims)+1)
	for k, v := range claims {
		next[k] = v
	}
	return next
}

// setClaims installs the claims; notify wakes the reconciler for changes it did not make.
func (s *core) setClaims(next map[string]api.HostnameClaim, notify bool) {
	if notify {
		s.claims.Publish(next)
	} else {
		s.claims.Set(next)
	}
}

// restServerNaming returns the name of a REST-owned server of head that names hostname.
func restServerNaming(head *api.State, hostname string) string {
	names := make([]string, 0, 1)
	for n, srv := range head.Servers {
		if srv.Source.Kind == api.SourceKubernetes {
			continue
		}
		for _, h := range srv.Hostnames {
			if h == hostname {
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}
