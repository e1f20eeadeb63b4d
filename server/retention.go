package server

import (
	"net/http"
	"time"

	"github.com/restyplane/restyplane/api"
)

// The retention policy is its own admin resource, not a field of api.Settings: settings are
// part of the config, so they are versioned in the very history they would prune, a
// rollback would restore an old policy, and every change would reload nginx. Retention
// shapes the control plane's database only.

// getRetention godoc
//
//	@Summary		Get the history's retention policy
//	@Description	Needs the admin role. keepRevisions 0 means off: nothing is ever pruned. floor is the oldest revision still readable.
//	@Tags			retention
//	@Produce		json
//	@Success		200	{object}	api.Retention
//	@Failure		401	{object}	ErrorResponse
//	@Failure		403	{object}	ErrorResponse
//	@Security		BearerAuth
//	@Router			/api/v1/retention [get]
func (s *Server) getRetention(w http.ResponseWriter, r *http.Request) error {
	pol, err := s.retention.Retention(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, pol)
	return nil
}

// putRetention godoc
//
//	@Summary		Set the history's retention policy
//	@Description	Needs the admin role; audited. A revision is pruned only when it is not among the newest keepRevisions and older than keepDays days. Setting a policy prunes nothing by itself: the periodic pruner or POST /api/v1/retention/prune does.
//	@Tags			retention
//	@Accept			json
//	@Produce		json
//	@Param			retention	body		api.Retention	true	"the policy (floor is ignored)"
//	@Success		200			{object}	api.Retention
//	@Failure		400			{object}	ErrorResponse
//	@Failure		401			{object}	ErrorResponse
//	@Failure		403			{object}	ErrorResponse
//	@Failure		415			{object}	ErrorResponse
//	@Security		BearerAuth
//	@Router			/api/v1/retention [put]
func (s *Server) putRetention(w http.ResponseWriter, r *http.Request) error {
	var pol api.Retention
	if err := decode(w, r, &pol, maxObjectBody); err != nil {
		return err
	}
	got, err := s.retention.SetRetention(r.Context(), s.adminMeta(r), pol)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, got)
	return nil
}

// prune godoc
//
//	@Summary		Prune the history now
//	@Description	Needs the admin role. Applies the retention policy at once and says what went; a prune that removes something is audited. With no policy it removes nothing.
//	@Tags			retention
//	@Produce		json
//	@Success		200	{object}	api.PruneResult
//	@Failure		401	{object}	ErrorResponse
//	@Failure		403	{object}	ErrorResponse
//	@Security		BearerAuth
//	@Router			/api/v1/retention/prune [post]
func (s *Server) prune(w http.ResponseWriter, r *http.Request) error {
	res, err := s.retention.Prune(r.Context(), s.adminMeta(r), time.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

// adminMeta names who asked, for the audit trail.
func (s *Server) adminMeta(r *http.Request) api.Meta {
	return api.Meta{Actor: tokenFrom(r.Context()).Name, Source: api.SourceAPI, Remote: remoteHost(r)}
}
