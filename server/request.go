package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/restyplane/restyplane/api"
)

type ctxKey int

const (
	keyRequestID ctxKey = iota
	keyToken
)

// maxMessage bounds a change reason; it is stored with every revision.
const maxMessage = 1024

// requestIDRe admits a caller's X-Request-Id only if it is safe to log and echo.
var requestIDRe = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// withRequestID gives every request an id, the caller's X-Request-Id when it is sane, and
// echoes it, so that a client's report and the server log meet.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !requestIDRe.MatchString(id) {
			var b [8]byte
			_, _ = rand.Read(b[:])
			id = hex.EncodeToString(b[:])
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), keyRequestID, id)))
	})
}

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(keyRequestID).(string)
	return id
}

// tokenFrom returns the authenticated caller's token; auth guarantees one on /api/v1.
func tokenFrom(ctx context.Context) *api.Token {
	t, _ := ctx.Value(keyToken).(*api.Token)
	if t == nil {
		return &api.Token{}
	}
	return t
}

// routePattern is the chi route that matched, for metrics and logs: never the raw path,
// whose cardinality a client controls.
func routePattern(r *http.Request) string {
	if rc := chi.RouteContext(r.Context()); rc != nil {
		if p := rc.RoutePattern(); p != "" {
			return p
		}
	}
	return "unmatched"
}

// remoteHost is the peer's address without the port, for audit events.
func remoteHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// writeMeta collects what a write says about itself: the caller, the reason (a message in
// the body, else the message query parameter, else X-Change-Reason), If-Match and dryRun.
func writeMeta(r *http.Request, bodyMessage string) (api.Meta, error) {
	msg := bodyMessage
	if msg == "" {
		msg = r.URL.Query().Get("message")
	}
	if msg == "" {
		msg = r.Header.Get("X-Change-Reason")
	}
	if err := api.ValidText("message", msg, maxMessage); err != nil {
		return api.Meta{}, err
	}
	ifMatch, err := parseIfMatch(r)
	if err != nil {
		return api.Meta{}, err
	}
	dry, err := queryBool(r, "dryRun")
	if err != nil {
		return api.Meta{}, err
	}
	auto, err := autoRollback(r)
	if err != nil {
		return api.Meta{}, err
	}
	return api.Meta{
		Actor:          tokenFrom(r.Context()).Name,
		Source:         api.SourceAPI,
		Message:        msg,
		IfMatch:        ifMatch,
		DryRun:         dry,
		NoAutoRollback: !auto,
	}, nil
}

// autoRollback reads whether the write's revision may be rolled back automatically:
// ?autoRollback=false or X-Auto-Rollback: off says it may not; the default is that it may.
func autoRollback(r *http.Request) (bool, error) {
	if r.URL.Query().Get("autoRollback") != "" {
		return queryBool(r, "autoRollback")
	}
	switch strings.ToLower(strings.TrimSpace(r.Header.Get("X-Auto-Rollback"))) {
	case "", "on", "true":
		return true, nil
	case "off", "false":
		return false, nil
	}
	return false, &api.Error{Code: api.EInvalid, Field: "X-Auto-Rollback", Message: "X-Auto-Rollback must be on or off"}
}

// etag renders a version as a strong entity tag.
func etag(version int64) string { return `"` + strconv.FormatInt(version, 10) + `"` }

// queryBool reads an optional boolean query parameter.
func queryBool(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, api.Invalid(name, "must be true or false")
	}
	return b, nil
}

// queryInt reads an optional integer query parameter within [lo, hi].
func queryInt(r *http.Request, name string, def, lo, hi int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, api.Invalid(name, "must be an integer from %d to %d", lo, hi)
	}
	return n, nil
}

// pathInt reads an integer URL parameter such as a revision id.
func pathInt(r *http.Request, name string) (int64, error) {
	n, err := strconv.ParseInt(chi.URLParam(r, name), 10, 64)
	if err != nil || n < 1 {
		return 0, api.Invalid(name, "must be a positive integer")
	}
	return n, nil
}
