package fleet

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// answerError is a feed request the control plane answered with something other than a
// stream.
type answerError struct {
	status int
	url    string
	body   string
}

func (e *answerError) Error() string {
	msg := fmt.Sprintf("GET %s answered %d: %s", e.url, e.status, strings.TrimSpace(e.body))
	switch e.status {
	case http.StatusUnauthorized:
		return msg + " (the control plane does not know this token: check --token)"
	case http.StatusForbidden:
		return msg + " (the token is not of role dataplane, the only one that may read the feed)"
	case http.StatusNotFound:
		return msg + " (no feed there: --control-plane is the server's address, without /api/v1)"
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
	return a.status == http.StatusUnauthorized || a.status == http.StatusForbidden || a.status == http.StatusNotFound
}
