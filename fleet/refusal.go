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
}

func (e *answerError) Error() string {
	msg := fmt.Sprintf("%s answered %d: %s", e.url, e.status, strings.TrimSpace(e.body))
	switch e.status {
	case http.StatusUnauthorized:
		return msg + " (the control plane does not know this token: check --token)"
	case http.StatusForbidden:
		return msg + " (the token is not of role dataplane, the only one that may read the feed)"
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
