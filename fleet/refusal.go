package fleet

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// answerError is a request the control plane answered with something other than what
// was asked for.
type answerError struct {
	status int
	url    string // the method and the URL
	body   string
	join   bool // the answer to a join, which presents the join token
}

func (e *answerError) Error() string {
	msg := fmt.Sprintf("%s answered %d: %s", e.url, e.status, strings.TrimSpace(e.body))
	switch {
	case e.status == http.StatusUnauthorized && e.join:
		return msg + " (the control plane does not know this join token, or it was deleted: check --token)"
	case e.status == http.StatusUnauthorized:
		return msg + " (the control plane no longer knows this instance's credential: it was revoked or the instance forgotten)"
	case e.status == http.StatusForbidden && e.join:
		return msg + " (--token must be a join token, of role dataplane)"
	}
	switch e.status {
	case http.StatusForbidden:
		return msg + " (the credential is not this instance's)"
	case http.StatusNotFound:
		return msg + " (no feed there: --control-plane is the server's address, without /api/v1)"
	case http.StatusConflict:
		return msg + " (another agent runs under this --name: give each its own)"
	}
	return msg
}

// refusal reports whether err is an answer that no retry alone will change: this agent's
// token or URL is wrong.
func refusal(err error) bool {
	var a *answerError
	if !errors.As(err, &a) {
		return false
	}
	switch a.status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusConflict:
		return true
	}
	return false
}
