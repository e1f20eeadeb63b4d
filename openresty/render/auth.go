package render

import (
	"fmt"
	"slices"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// authView is a location's auth policy as the template writes it (policies).
type authView struct {
	// Realm and File are basic auth's realm and htpasswd file; File is empty without it.
	Realm, File string
	External    *extAuthView
}

// extAuthView is an external auth: the protected location's auth_request to Location,
// an internal exact location that proxies the subrequest to URL, and, with Signin, the
// named location SigninLocation that a 401 is redirected through.
//
// URL names the service's address once its host name resolved (see addressAuth), with
// HostHeader and SNI keeping the name; Refused says why it has no address.
type extAuthView struct {
	Location, SigninLocation string
	URL, Method, Signin      string
	RequestRedirect          string
	Headers                  []authHeader
	// Defaults are the headers of api.AuthRequestHeaders that the auth's RequestHeaders,
	// Set, do not replace: fixed text of the renderer's, written as it is.
	Defaults, Set            []api.Header
	HostHeader, SNI, Refused string
	// Define are the variables of api.AuthVariables that URL names and nginx does not
	// define itself, which the subrequest's location defines (see authVarDefinitions).
	Define []authVarDefinition
}

// authVarDefinition defines one of ingress-nginx's auth variables in the subrequest's
// location: Name is a name of api.AuthVariables, Set an nginx variable it copies, or,
// with Lua set, the value is the original request URI, URI-escaped.
type authVarDefinition struct {
	Name, Set string
	Lua       bool
}

// authVarDefinitions are the variables of api.AuthVariables that nginx lacks: ingress-nginx
// defines them in its own configuration, and restyplane in each subrequest that names them.
var authVarDefinitions = map[string]authVarDefinition{
	"best_http_host":      {Name: "best_http_host", Set: "$http_host"},
	"pass_access_scheme":  {Name: "pass_access_scheme", Set: "$scheme"},
	"escaped_request_uri": {Name: "escaped_request_uri", Lua: true},
}

// authHeader passes one header of the auth service's answer upstream. Var and Upstream
// are nginx variables the renderer makes from a header name of api's grammar (letters,
// digits, '-'), never user text as it is: the template writes them unquoted.
type authHeader struct{ Name, Var, Upstream string }

// newAuthView carries a location's policy to the view; resolveAuth fills in what depends
// on the rest of the config.
func newAuthView(a *api.LocationAuth) *authView {
	if a == nil {
		return nil
	}
	v := &authView{}
	if b := a.Basic; b != nil {
		v.Realm, v.File = b.Realm, b.Htpasswd
		if v.Realm == "" {
			v.Realm = "Authentication Required"
		}
	}
	if e := a.External; e != nil {
		x := &extAuthView{URL: rootedURL(e.URL), Method: e.Method, Signin: e.Signin, RequestRedirect: e.RequestRedirect}
		names, _ := api.AuthURLVariables("url", e.URL) // validated; authURLQuote checks again
		seen := map[string]bool{}
		for _, n := range names {
			if d, ok := authVarDefinitions[n]; ok && !seen[n] {
				seen[n] = true
				x.Define = append(x.Define, d)
			}
		}
		if x.Method == "" {
			x.Method = "GET"
		}
		x.Defaults, x.Set = authDefaultHeaders(e.RequestHeaders), e.RequestHeaders
		for _, h := range e.ResponseHeaders {
			x.Headers = append(x.Headers, authHeader{Name: h,
				Upstream: "$upstream_http_" + strings.ReplaceAll(strings.ToLower(h), "-", "_")})
		}
		v.External = x
	}
	return v
}

// rootedURL gives a URL with a query but no path the path "/": proxy_pass would send the
// query alone as the request's target (GET ?code=200), which no server takes.
func rootedURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	if i := strings.IndexAny(rest, "/?"); i >= 0 && rest[i] == '?' {
		return scheme + "://" + rest[:i] + "/" + rest[i:]
	}
	return u
}

// authDefaultHeaders are the headers of api.AuthRequestHeaders that an external auth's own
// do not replace: nginx would send both of two proxy_set_header of one name.
func authDefaultHeaders(own []api.Header) []api.Header {
	var out []api.Header
	for _, d := range api.AuthRequestHeaders {
		if !slices.ContainsFunc(own, func(h api.Header) bool { return strings.EqualFold(h.Name, d.Name) }) {
			out = append(out, d)
		}
	}
	return out
}

// resolveAuth names the htpasswd files of a server block's locations and numbers its
// external auths: each gets its own internal location, since the URL differs, and the
// variables that carry the answer headers. The internal path holds a space, which no
// location of api's path grammar does, so it never collides with a user's location.
func resolveAuth(sv *serverView, files map[string]string, block int) error {
	n := 0
	for i := range sv.Locations {
		a := sv.Locations[i].Auth
		if a == nil {
			continue
		}
		if a.File != "" {
			f, ok := files[a.File]
			if !ok {
				return fmt.Errorf("htpasswd %q is not in the config", a.File)
			}
			a.File = f
		}
		if x := a.External; x != nil {
			x.Location = fmt.Sprintf("/restyplane auth/%d", n)
			if x.Signin != "" {
				x.SigninLocation = fmt.Sprintf("@restyplane_signin_%d", n)
			}
			for j := range x.Headers {
				x.Headers[j].Var = fmt.Sprintf("$rp_auth_%d_%d_%d", block, n, j)
			}
			sv.AuthLocations = append(sv.AuthLocations, x)
			n++
		}
	}
	return nil
}

// HtpasswdFiles maps each htpasswd object to the file nginx reads it from. The name holds
// the content's fingerprint, so new lines are a new file and a new nginx.conf: the
// running workers keep reading the file they were configured with until the reload.
func HtpasswdFiles(l Layout, hs []api.Htpasswd) (map[string]string, error) {
	files := make(map[string]string, len(hs))
	for _, h := range hs {
		if err := api.ValidName("name", h.Name); err != nil {
			return nil, fmt.Errorf("htpasswd %q: %w", h.Name, err)
		}
		if len(h.Fingerprint) < 16 || strings.Trim(h.Fingerprint, "0123456789abcdef") != "" {
			return nil, fmt.Errorf("htpasswd %q: no fingerprint", h.Name)
		}
		files[h.Name] = l.htpasswd(h.Name, h.Fingerprint)
	}
	return files, nil
}

// htpasswd is where the file of one htpasswd version lives.
func (l Layout) htpasswd(name, fingerprint string) string {
	return l.Path("htpasswd", name+"-"+fingerprint[:16])
}
