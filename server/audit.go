package server

import (
	"math"
	"net/http"
	"time"

	"github.com/restyplane/restyplane/api"
)

// AuditList is the answer to GET /api/v1/audit, newest first.
type AuditList struct {
	Items []api.AuditEvent `json:"items"`
}

// listAudit godoc
//
//	@Summary	List audit events, newest first
//	@Description	Every write, rollback, failed login, denied request and apply outcome. Needs the editor role. Page backwards with before = the last id seen.
//	@Tags		audit
//	@Produce	json
//	@Param		actor	query		string	false	"only events of this actor (token name, kubernetes, applier, anonymous)"
//	@Param		action	query		string	false	"only this action"	Enums(write, rollback, login_failed, denied, token_create, token_delete, apply, prune)
//	@Param		since	query		string	false	"only events at or after this RFC 3339 time"
//	@Param		until	query		string	false	"only events before this RFC 3339 time"
//	@Param		before	query		int		false	"only events with a smaller id"
//	@Param		limit	query		int		false	"at most this many (1-1000, default 100)"
//	@Success	200		{object}	AuditList
//	@Failure	400		{object}	ErrorResponse
//	@Failure	401		{object}	ErrorResponse
//	@Failure	403		{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/audit [get]
func (s *Server) listAudit(w http.ResponseWriter, r *http.Request) error {
	if err := s.denials.flush(r.Context()); err != nil {
		return err
	}
	q := r.URL.Query()
	f := api.AuditFilter{Actor: q.Get("actor"), Action: q.Get("action")}
	var err error
	if f.Since, err = queryTime(r, "since"); err != nil {
		return err
	}
	if f.Until, err = queryTime(r, "until"); err != nil {
		return err
	}
	if f.Before, err = queryInt(r, "before", 0, 0, math.MaxInt64); err != nil {
		return err
	}
	limit, err := queryInt(r, "limit", 100, 1, 1000)
	if err != nil {
		return err
	}
	f.Limit = int(limit)
	items, err := s.auditLog.AuditEvents(r.Context(), f)
	if err != nil {
		return err
	}
	if items == nil {
		items = []api.AuditEvent{}
	}
	writeJSON(w, http.StatusOK, AuditList{Items: items})
	return nil
}

// queryTime reads an optional RFC 3339 time query parameter.
func queryTime(r *http.Request, name string) (time.Time, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, api.Invalid(name, "must be an RFC 3339 time like 2024-05-01T12:00:00Z")
	}
	return t, nil
}
