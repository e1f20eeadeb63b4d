package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// maxSecret bounds what is worth hashing and looking up; restyplane's own tokens are 46
// characters.
const maxSecret = 256

// anonymous is the audit actor of a request that did not authenticate.
const anonymous = "anonymous"

// authenticate lets through only requests with a valid bearer token and puts the token in
// the context. Every refusal is an audit event, because failed logins are what an operator
// looks for after an incident; those from one address within a minute share one row that
// counts them (groupedAudit), so that an unauthenticated flood cannot fill the disk.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secret, why := bearer(r)
		var tok *api.Token
		if why == "" {
			var err error
			tok, err = s.tokens.Authenticate(r.Context(), secret)
			if err != nil && api.ErrorCode(err) != api.EUnauthorized {
				s.writeError(w, r, err)
				return
			}
			if err != nil {
				why = "unknown or revoked token"
			}
		}
		if why != "" {
			s.denials.audit(r, api.AuditEvent{Actor: anonymous, Action: api.AuditLoginFailed,
				Target: r.Method + " " + printable(r.URL.Path), Outcome: "failure", Detail: why})
			s.writeError(w, r, api.Errorf(api.EUnauthorized, "a valid bearer token is required: %s", why))
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), keyToken, tok)))
	})
}

// bearer extracts the token from "Authorization: Bearer <token>", or says what is wrong.
func bearer(r *http.Request) (secret, why string) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", "no Authorization header"
	}
	scheme, secret, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", "Authorization is not a Bearer token"
	}
	secret = strings.TrimSpace(secret)
	if secret == "" || len(secret) > maxSecret {
		return "", "malformed bearer token"
	}
	for i := 0; i < len(secret); i++ {
		if secret[i] <= ' ' || secret[i] > '~' {
			return "", "malformed bearer token"
		}
	}
	return secret, ""
}

// require refuses callers whose role ranks below role, and audits the attempt.
func (s *Server) require(role string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tok := tokenFrom(r.Context())
			if api.RoleRank(tok.Role) < api.RoleRank(role) {
				s.deny(w, r, role)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// requireExactly refuses callers whose role is not role: the dataplane role is outside
// the viewer-editor-admin ladder, and an admin must not read the feed's private keys.
func (s *Server) requireExactly(role string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if tokenFrom(r.Context()).Role != role {
				s.deny(w, r, role)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// deny answers 403 to a caller who lacks role and records the attempt: the attempts of
// one token from one address within a minute share one row (groupedAudit).
func (s *Server) deny(w http.ResponseWriter, r *http.Request, role string) {
	tok := tokenFrom(r.Context())
	s.denials.audit(r, api.AuditEvent{Actor: tok.Name, Action: api.AuditDenied,
		Target: r.Method + " " + routePattern(r), Outcome: "failure",
		Detail: "role " + tok.Role + " lacks " + role})
	s.writeError(w, r, api.Errorf(api.EForbidden, "this needs the %s role; token %q has %s", role, tok.Name, tok.Role))
}

// audit records an event, filling the remote address. A failure to audit does not fail the
// request it describes (the write is already stored), but it is logged.
func (s *Server) audit(r *http.Request, ev api.AuditEvent) {
	ev.Remote = remoteHost(r)
	// The request's own context may be cancelled by a client that hung up; the record of
	// what it did must still be written.
	if err := s.auditLog.AddAudit(context.WithoutCancel(r.Context()), ev); err != nil {
		s.log.Error("audit failed", "requestId", requestID(r.Context()), "action", ev.Action, "err", err)
	}
}
