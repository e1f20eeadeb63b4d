package server

import (
	"net/http"
	"slices"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/restyplane/restyplane/api"
)

// HoldList is the answer to GET /api/v1/holds.
type HoldList struct {
	Items []api.Hold `json:"items"`
}

// listHolds godoc
//
//	@Summary	Objects a rollback holds back from Kubernetes
//	@Description	Each object that a rollback took back from what Kubernetes wrote, by kind then name. The reconciler does not write the undone content again until the cluster asks for something else, or an editor releases the hold. Revision is the rollback that made the hold.
//	@Tags		revisions
//	@Produce	json
//	@Success	200	{object}	HoldList
//	@Failure	401	{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/holds [get]
func (s *Server) listHolds(w http.ResponseWriter, r *http.Request) error {
	holds := s.history.Holds()
	items := make([]api.Hold, 0, len(holds))
	for _, h := range holds {
		items = append(items, h)
	}
	slices.SortFunc(items, func(a, b api.Hold) int {
		if c := strings.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	writeJSON(w, http.StatusOK, HoldList{Items: items})
	return nil
}

// releaseHold godoc
//
//	@Summary	Release a hold
//	@Description	Needs the editor role. The reconciler writes what the cluster asks for at its next sync, the content the rollback undid included. Audited, with the reason if one is given.
//	@Tags		revisions
//	@Produce	json
//	@Param		kind			path	string	true	"object kind, as in a revision's changes"
//	@Param		name			path	string	true	"object name"
//	@Param		message			query	string	false	"reason for the release"
//	@Param		X-Change-Reason	header	string	false	"reason for the release"
//	@Param		If-Match		header	string	false	"the revision of the rollback that made the hold, as an entity tag (\"42\"): a hold a newer rollback made since is not released (412)"
//	@Success	204
//	@Failure	400	{object}	ErrorResponse
//	@Failure	401	{object}	ErrorResponse
//	@Failure	403	{object}	ErrorResponse
//	@Failure	404	{object}	ErrorResponse
//	@Failure	412	{object}	ErrorResponse	"If-Match names another rollback than the one that made the hold"
//	@Security	BearerAuth
//	@Router		/api/v1/holds/{kind}/{name} [delete]
func (s *Server) releaseHold(w http.ResponseWriter, r *http.Request) error {
	ref := api.Ref{Kind: chi.URLParam(r, "kind"), Name: chi.URLParam(r, "name")}
	if _, ok := api.KindNamed(ref.Kind); !ok {
		return api.Invalid("kind", "%q is not a kind of object", ref.Kind)
	}
	msg := r.URL.Query().Get("message")
	if msg == "" {
		msg = r.Header.Get("X-Change-Reason")
	}
	if err := api.ValidText("message", msg, maxMessage); err != nil {
		return err
	}
	if msg == "" {
		msg = "released through the API"
	}
	ifMatch, err := parseIfMatch(r)
	if err != nil {
		return err
	}
	meta := api.Meta{Actor: tokenFrom(r.Context()).Name, Source: api.SourceAPI, Message: msg, Remote: remoteHost(r), IfMatch: ifMatch}
	n, err := s.history.ReleaseHolds(r.Context(), meta, []api.Ref{ref})
	if err == nil && n == 0 {
		err = api.Errorf(api.ENotFound, "no hold on %s %q", ref.Kind, ref.Name)
	}
	if err != nil {
		// The store audits a release it makes; one refused is audited here, as a write's is.
		s.audit(r, api.AuditEvent{Actor: meta.Actor, Action: api.AuditHoldRelease, Target: ref.Kind + "/" + ref.Name,
			Outcome: "failure", Detail: api.ErrorCode(err) + ": " + api.ErrorMessage(err)})
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
