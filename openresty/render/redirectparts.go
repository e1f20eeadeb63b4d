package render

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// A redirect's parts form (Gateway API's RequestRedirect) becomes one return whose URL is
// the parts the location gives, each validated by api, and for the others the request's
// own: $scheme, $host (the server name the request matched, lowercased, never the Host
// header as sent), and $request_uri (as the client sent it, so nothing decoded reaches the
// Location header). A port that depends on the request's scheme comes from a map of
// "$scheme:$rp_redirect_port" that leaves 80 for http and 443 for https out. A prefix path
// is computed by restyplane.redirect from the request's path, the rest of which it
// escapes.

// redirectPortVar is ":<port>" for a port that depends on the request's scheme, or "" for
// that scheme's own; the template declares its map when a redirect uses it.
const redirectPortVar = "${rp_redirect_port_suffix}"

// restView is a prefix path: the length of the location's prefix, which the request's
// path starts with, and what replaces it.
type restView struct {
	Len int
	To  string
}

// withParts fills r, a redirect view, from the parts form of location l's redirect rd.
func (r *redirectView) withParts(rd *api.Redirect, l *api.Location) {
	scheme, host := "${scheme}", "${host}"
	if rd.Scheme != "" {
		scheme = rd.Scheme
	}
	if rd.Hostname != "" {
		host = rd.Hostname
	}
	port := ""
	switch {
	case rd.Scheme != "" && rd.Port != 0 && !defaultPort(rd.Scheme, rd.Port):
		port = ":" + strconv.Itoa(rd.Port)
	case rd.Scheme != "": // the scheme's own port
	case rd.Port != 0:
		r.PortFrom, port = strconv.Itoa(rd.Port), redirectPortVar
	default: // the port the request came in on, with its scheme
		r.PortFrom, port = "${server_port}", redirectPortVar
	}
	path := "${request_uri}"
	switch {
	case rd.Path != "":
		path = rd.Path + "${is_args}${args}"
	case rd.PrefixPath != "":
		r.Rest = &restView{Len: len(strings.TrimRight(l.Path, "/")), To: rd.PrefixPath}
		path = "${rp_redirect_path}${is_args}${args}"
	}
	r.Target = scheme + "://" + host + port + path
}

func defaultPort(scheme string, port int) bool {
	return scheme == "http" && port == 80 || scheme == "https" && port == 443
}

// targetVarRe finds the variables of a parts redirect's URL and of its port.
var targetVarRe = regexp.MustCompile(`\$\{?[a-z_]*\}?`)

// targetVars are the variables a parts redirect may expand: those withParts writes.
var targetVars = map[string]bool{"${scheme}": true, "${host}": true, "${server_port}": true, "${rp_server_port}": true,
	redirectPortVar: true, "${request_uri}": true, "${rp_redirect_path}": true, "${is_args}": true, "${args}": true}

// targetQuote quotes a parts redirect's URL or port, in which nginx expands '$': every '$'
// must start one of targetVars, written in braces, never another variable.
func targetQuote(s string) (string, error) {
	rest := targetVarRe.ReplaceAllStringFunc(s, func(v string) string {
		if targetVars[v] {
			return ""
		}
		return v
	})
	if strings.ContainsRune(rest, '$') {
		return "", fmt.Errorf("redirect %q expands a variable that is not the request's own scheme, host, port or URI", s)
	}
	return quoteRaw(s)
}

// redirectPorts declares the map of $rp_redirect_port_suffix when a redirect needs it,
// and, behind a stream router (passthrough's, h2c's), where $server_port is empty, takes
// the port from $rp_server_port.
func (v *confView) redirectPorts() {
	for i := range v.Servers {
		for _, l := range v.Servers[i].Locations {
			if r := l.Redirect; r != nil && r.PortFrom != "" {
				v.RedirectPorts = true
				if (v.Passthrough != nil || v.H2C != nil) && r.PortFrom == "${server_port}" {
					r.PortFrom = "${rp_server_port}"
				}
			}
		}
	}
}
