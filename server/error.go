package server

import (
	"errors"
	"net/http"

	"github.com/restyplane/restyplane/api"
)

// codeMethodNotAllowed is the one error code that exists only at the HTTP layer: the store
// never refuses a method.
const codeMethodNotAllowed = "method_not_allowed"

// statusOf is the one table from error code to HTTP status.
var statusOf = map[string]int{
	api.EInvalid:            http.StatusBadRequest,
	api.EUnauthorized:       http.StatusUnauthorized,
	api.EForbidden:          http.StatusForbidden,
	api.ENotFound:           http.StatusNotFound,
	api.EGone:               http.StatusGone,
	codeMethodNotAllowed:    http.StatusMethodNotAllowed,
	api.EConflict:           http.StatusConflict,
	api.EPreconditionFailed: http.StatusPreconditionFailed,
	api.ETooLarge:           http.StatusRequestEntityTooLarge,
	api.EUnsupportedMedia:   http.StatusUnsupportedMediaType,
	api.EInternal:           http.StatusInternalServerError,
	api.EUnavailable:        http.StatusServiceUnavailable,
	api.ETooManyRequests:    http.StatusTooManyRequests,
}

// ErrorResponse is the body of every error answer.
type ErrorResponse struct {
	Error api.Error `json:"error"`
}

// handlerFunc is an HTTP handler that returns its error instead of writing it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle adapts a handlerFunc to net/http, sending any error to writeError.
func (s *Server) handle(h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	}
}

// writeError is the one place that turns an error into an answer. An *api.Error is shown as
// it is; anything else is internal: logged once with the request id, and shown to the
// client as a generic message that carries the id so that an operator can find the log.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var e *api.Error
	status := 0
	if errors.As(err, &e) {
		status = statusOf[e.Code]
	}
	if status == 0 || status == http.StatusInternalServerError {
		id := requestID(r.Context())
		s.log.Error("request failed", "requestId", id, "method", r.Method, "route", routePattern(r), "err", err)
		e = &api.Error{Code: api.EInternal, Message: "internal error; the server log has the details under request id " + id}
		status = http.StatusInternalServerError
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="restyplane"`)
	}
	writeJSON(w, status, ErrorResponse{Error: *e})
}
