package server

import (
	"math"
	"net/http"

	"github.com/restyplane/restyplane/api"
)

// stateOff is the instance state /status reports when restyplane runs without OpenResty.
const stateOff = "off"

// ApplyList is the answer to GET /api/v1/applies, newest first.
type ApplyList struct {
	Items []api.ApplyRecord `json:"items"`
}

// status godoc
//
//	@Summary	Is what runs what was asked for
//	@Description	The head revision, the revision the OpenResty instance serves, and the last apply attempt. Without an applier the instance is "off". The fleet part counts every instance (this one and the agents) and those that serve the head.
//	@Tags		status
//	@Produce	json
//	@Success	200	{object}	api.Status
//	@Failure	401	{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/status [get]
func (s *Server) status(w http.ResponseWriter, r *http.Request) error {
	fleet, err := s.fleetSummary(r.Context())
	if err != nil {
		return err
	}
	if s.applier != nil {
		st := s.applier.Status(r.Context())
		st.Fleet = fleet
		s.watchStatus(&st)
		writeJSON(w, http.StatusOK, st)
		return nil
	}
	st := api.Status{State: stateOff, Head: s.history.Head().Revision, Fleet: fleet}
	s.watchStatus(&st)
	last, err := s.fleetStore.LastApply(r.Context(), "")
	switch api.ErrorCode(err) {
	case "":
		st.LastApply = last
	case api.ENotFound:
	default:
		return err
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

// listApplies godoc
//
//	@Summary	List apply attempts, newest first
//	@Tags		status
//	@Produce	json
//	@Param		before	query		int	false	"only records with a smaller id"
//	@Param		limit	query		int	false	"at most this many (1-1000, default 50)"
//	@Success	200		{object}	ApplyList
//	@Failure	400		{object}	ErrorResponse
//	@Failure	401		{object}	ErrorResponse
//	@Security	BearerAuth
//	@Router		/api/v1/applies [get]
func (s *Server) listApplies(w http.ResponseWriter, r *http.Request) error {
	before, err := queryInt(r, "before", 0, 0, math.MaxInt64)
	if err != nil {
		return err
	}
	limit, err := queryInt(r, "limit", 50, 1, 1000)
	if err != nil {
		return err
	}
	items, err := s.fleetStore.Applies(r.Context(), before, int(limit))
	if err != nil {
		return err
	}
	if items == nil {
		items = []api.ApplyRecord{}
	}
	writeJSON(w, http.StatusOK, ApplyList{Items: items})
	return nil
}

// watchStatus shows the rollback watch of the control plane, which decides for every
// instance, instead of an applier's own.
func (s *Server) watchStatus(st *api.Status) {
	if s.counters != nil {
		st.Watching, st.LastGood = s.counters.Watching()
	}
}
