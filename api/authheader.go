package api

import (
	"fmt"
	"strings"
)

// AuthRequestHeaders are the headers the proxy sets on every subrequest to an external
// auth service, with their nginx values, in the order it sets them. An ExternalAuth's
// RequestHeaders replace those of the same name.
var AuthRequestHeaders = []Header{
	{Name: "X-Original-URL", Value: "$scheme://$http_host$request_uri"},
	{Name: "X-Original-Method", Value: "$request_method"},
	{Name: "X-Real-IP", Value: "$remote_addr"},
	{Name: "X-Forwarded-For", Value: "$proxy_add_x_forwarded_for"},
	{Name: "X-Forwarded-Proto", Value: "$scheme"},
	{Name: "X-Forwarded-Host", Value: "$host"},
}

// authOwnHeaders are the subrequest's headers an ExternalAuth may not set: Host names the
// auth service, Content-Length is empty since no body is sent, X-Sent-From marks the
// proxy, and X-Auth-Request-Redirect is RequestRedirect's.
var authOwnHeaders = []string{"Host", "Content-Length", "X-Sent-From", "X-Auth-Request-Redirect"}

// validAuthRequestHeaders checks an external auth's request headers: at most
// MaxSetHeaders, each name an RFC 9110 token named once and none of the proxy's own, each
// value of ValidHeaderTemplate's grammar.
func validAuthRequestHeaders(hs []Header) error {
	if len(hs) > MaxSetHeaders {
		return Invalid("auth.external.requestHeaders", "at most %d headers", MaxSetHeaders)
	}
	seen := map[string]bool{}
	for i, h := range hs {
		f := fmt.Sprintf("auth.external.requestHeaders[%d]", i)
		if err := ValidFieldName(f+".name", h.Name); err != nil {
			return err
		}
		for _, own := range authOwnHeaders {
			if strings.EqualFold(h.Name, own) {
				return Invalid(f+".name", "%s is set by the proxy on the auth subrequest itself", own)
			}
		}
		if seen[strings.ToLower(h.Name)] {
			return Invalid(f+".name", "header %s is named twice", h.Name)
		}
		seen[strings.ToLower(h.Name)] = true
		if err := ValidHeaderTemplate(f+".value", h.Value); err != nil {
			return err
		}
	}
	return nil
}
