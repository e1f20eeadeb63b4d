package reconciler

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// authSnippet is what a translated auth-snippet asks of the external auth's subrequest:
// the headers it sets, and, directive by directive, what each became.
type authSnippet struct {
	headers []api.Header
	became  []string
}

// translateAuthSnippet reads an auth-snippet, which ingress-nginx writes into the location
// of the auth subrequest, with the strict tokenizer of snippets. proxy_set_header, the
// directive real auth-snippets hold (Authelia's X-Forwarded-Method, X-Forwarded-Uri…), is
// the one with a typed equivalent: a request header of the subrequest, its value text and
// variables of api.HeaderVariables. Any other directive refuses the snippet, named.
func translateAuthSnippet(value string) (*authSnippet, error) {
	ds, err := parseSnippet(value)
	if err != nil {
		return nil, err
	}
	s := &authSnippet{}
	if len(ds) == 0 {
		s.became = append(s.became, "nothing: the auth-snippet holds no directive")
	}
	for _, d := range ds {
		if err := s.directive(d); err != nil {
			return nil, fmt.Errorf("%s (line %d): %w", d, d.line, err)
		}
	}
	check := api.Location{Path: "/", Backend: "x", Auth: &api.LocationAuth{External: &api.ExternalAuth{URL: "http://auth.test/", RequestHeaders: s.headers}}}
	if err := (&api.Server{Name: "x", Hostnames: []string{"x.test"}, Locations: []api.Location{check}}).Validate(); err != nil {
		return nil, fmt.Errorf("what the snippet translates to is not valid: %w", err)
	}
	return s, nil
}

// directive translates one directive of an auth-snippet.
func (s *authSnippet) directive(d directive) error {
	if d.name != "proxy_set_header" {
		if d.block != nil || d.name == "location" || d.name == "if" {
			return errors.New("only proxy_set_header is translated in an auth-snippet (a request header of the auth subrequest)")
		}
		return fmt.Errorf("has no typed equivalent on the auth subrequest: only proxy_set_header is translated there")
	}
	if len(d.args) != 2 {
		return errors.New("takes 2 arguments")
	}
	name, value := d.args[0], d.args[1]
	if i := slices.IndexFunc(api.AuthRequestHeaders, func(h api.Header) bool { return strings.EqualFold(h.Name, name) }); i >= 0 && api.AuthRequestHeaders[i].Value == value {
		s.became = append(s.became, d.String()+" → nothing: restyplane sends "+name+" on the auth subrequest this way already")
		return nil
	}
	if value == "" {
		return errors.New("an empty value (dropping the header) has no typed equivalent on the auth subrequest")
	}
	if err := headerTemplate(value); err != nil {
		return err
	}
	if slices.ContainsFunc(s.headers, func(h api.Header) bool { return strings.EqualFold(h.Name, name) }) {
		return fmt.Errorf("header %s is set twice", name)
	}
	s.headers = append(s.headers, api.Header{Name: name, Value: value})
	s.became = append(s.became, d.String()+" → auth.external.requestHeaders "+name+": "+value)
	return nil
}
