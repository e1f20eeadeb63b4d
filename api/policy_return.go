package api

import "strings"

// Return makes a location answer every request itself with a fixed status and optional
// body, without a backend: a health answer, a 410 for a retired path, a 404 or 403 for
// internal paths. A redirect to a fixed URL is a location's redirect instead.
type Return struct {
	// Code is 200-599 but the redirect codes 301, 302, 303, 307 and 308.
	Code int `json:"code" example:"403"`
	// Body is sent as text/plain, as written: nothing in it is expanded.
	Body string `json:"body,omitempty" example:"forbidden"`
}

// MaxReturnBody bounds a fixed answer's body.
const MaxReturnBody = 4096

// answersItself reports whether the location answers every request without a backend.
func (l *Location) answersItself() bool { return l.Redirect != nil || l.Return != nil || l.Deny }

// validateAnswer checks the location's own answers, return and deny: at most one of
// them or redirect, and none with a rewrite, auth or CORS, which would never run.
func (l *Location) validateAnswer() error {
	n := 0
	for _, set := range []bool{l.Return != nil, l.Deny, l.Redirect != nil} {
		if set {
			n++
		}
	}
	if n > 1 {
		return Invalid("return", "a location answers by at most one of return, deny and redirect")
	}
	if l.Return == nil && !l.Deny {
		return nil
	}
	switch {
	case l.Rewrite != "":
		return Invalid("rewrite", "a location that answers itself proxies nothing; a rewrite does not apply")
	case l.Auth != nil:
		return Invalid("auth", "a location that answers itself answers before auth would run")
	case l.CORS != nil:
		return Invalid("cors", "a location that answers itself does not apply CORS")
	case l.RequestHeaders != nil || len(l.SetHeaders) > 0:
		return Invalid("requestHeaders", "a location that answers itself sends no request to change")
	}
	if r := l.Return; r != nil {
		switch {
		case r.Code < 200 || r.Code > 599:
			return Invalid("return.code", "code must be 200-599")
		case r.Code == 301 || r.Code == 302 || r.Code == 303 || r.Code == 307 || r.Code == 308:
			return Invalid("return.code", "a redirect is a location's redirect, with its URL")
		case len(r.Body) > MaxReturnBody:
			return Invalid("return.body", "body must be at most %d bytes", MaxReturnBody)
		}
		for i := 0; i < len(r.Body); i++ {
			if c := r.Body[i]; c < 0x20 || c > 0x7e || strings.IndexByte("\"\\$", c) >= 0 {
				return Invalid("return.body", "body must be printable ASCII without '\"', '\\' or '$'")
			}
		}
	}
	return nil
}
