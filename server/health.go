package server

import (
	"context"
	"net/http"
	"time"

	"github.com/restyplane/restyplane/api"
)

// Health is the answer of /healthz and /readyz.
type Health struct {
	Status string `json:"status" example:"ok"`
}

// healthz godoc
//
//	@Summary	Liveness: the process serves HTTP
//	@Tags		health
//	@Produce	json
//	@Success	200	{object}	Health
//	@Router		/healthz [get]
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, Health{Status: "ok"})
	return nil
}

// readyz godoc
//
//	@Summary	Readiness: the history can be read
//	@Tags		health
//	@Produce	json
//	@Success	200	{object}	Health
//	@Failure	503	{object}	ErrorResponse
//	@Router		/readyz [get]
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if _, err := s.history.RevisionCount(ctx); err != nil {
		s.log.Warn("not ready", "requestId", requestID(r.Context()), "err", err)
		return api.Errorf(api.EUnavailable, "the history database does not answer")
	}
	writeJSON(w, http.StatusOK, Health{Status: "ok"})
	return nil
}
