package reconciler

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// Body, buffering, retry and matching annotations (policies), read by
// parseProxyAnnotations into what the Ingress's locations get.

// proxyAnnotations is what the body, retry, errors and matching annotations ask for.
type proxyAnnotations struct {
	proxy *api.ProxyPolicy
	retry *api.RetryPolicy
	// errorCodes are custom-http-errors' codes; errorService is default-backend's Service
	// (of the Ingress's namespace), which answers them.
	errorCodes   []int
	errorService string
	// useRegex makes the Ingress's Prefix and ImplementationSpecific paths regexes.
	useRegex bool
	// aliases are server-alias's hostnames, each still to pass the host claim.
	aliases []string
}

// defaultBackendCodes are what default-backend alone intercepts: ingress-nginx sends a
// request there when the Service has no endpoint that answers, which nginx reports as one
// of these.
var defaultBackendCodes = []int{502, 503, 504}

// proxyGroup: bodies, buffering, retries, error pages and how the Ingress's paths match.
var proxyGroup = annotationGroup{name: "proxy", scope: scopeLocation, rules: map[string]annotationRule{
	"proxy-body-size": honoured("nginx size (10m; 0 is no limit); a larger body is answered 413"), "client-body-buffer-size": honoured(""),
	"proxy-buffering": honoured("on or off"), "proxy-buffers-number": honoured("3-1024 buffers of proxy-buffer-size (4k if unset)"),
	"proxy-buffer-size":        honoured("also the size of each of the proxy-buffers-number buffers"),
	"proxy-max-temp-file-size": honoured("0, or at least twice proxy-buffer-size"), "proxy-request-buffering": honoured("on or off"),
	"proxy-next-upstream":         honoured("nginx's conditions, space-separated; a retry always moves to an endpoint not tried yet"),
	"proxy-next-upstream-timeout": honoured("seconds, or a duration"), "proxy-next-upstream-tries": honoured("0-11, the first try included"),
	"use-regex":                      honoured("this Ingress's paths, Exact too, become regexes anchored at their start; on a host with a regex path every path is a regex, tried longest first, as in ingress-nginx; case-sensitive (ingress-nginx's are ~*), and other Ingresses' Prefix paths keep the Kubernetes prefix rule").at(scopeHost),
	"server-alias":                   honoured("more hostnames for the Ingress's first host; each is claimed for the namespace like a host, and one held by another namespace is left out and reported").at(scopeHost),
	"custom-http-errors":             honoured("needs default-backend, or restyplane's --default-backend, which answers the codes with X-Code, X-Format, X-Original-URI, X-Namespace, X-Ingress-Name, X-Service-Name, X-Service-Port and X-Request-ID"),
	"default-backend":                honoured("a Service of the Ingress's namespace (its first port); alone it answers 502, 503 and 504, the answers of a Service with no endpoint that answers"),
	"proxy-busy-buffers-size":        ignored("restyplane sets it to proxy-buffer-size, which keeps nginx's sizes consistent"),
	"disable-proxy-intercept-errors": ignored(whyNotImpl),
	"proxy-cookie-domain":            ignored(whyNotImpl), "proxy-cookie-path": ignored(whyNotImpl),
	"proxy-redirect-from": ignored(whyNotImpl), "proxy-redirect-to": ignored(whyNotImpl),
}, parse: func(get func(string) (string, bool), a *annotations) (err error) {
	a.pol, err = parseProxyAnnotations(get)
	return err
}}

// parseProxyAnnotations reads the annotations through get; a value outside api's grammars
// refuses the Ingress with the annotation's name.
func parseProxyAnnotations(get func(string) (string, bool)) (proxyAnnotations, error) {
	var a proxyAnnotations
	var p api.ProxyPolicy
	sizes := []struct {
		name string
		dst  *string
	}{{"proxy-body-size", &p.BodySize}, {"client-body-buffer-size", &p.ClientBodyBufferSize},
		{"proxy-buffer-size", &p.BufferSize}, {"proxy-max-temp-file-size", &p.MaxTempFileSize}}
	for _, f := range sizes {
		if v, ok := get(f.name); ok {
			if err := api.ValidBodySize(f.name, v); err != nil {
				return a, fmt.Errorf("annotation %s: %q: %w", f.name, v, err)
			}
			*f.dst = v
		}
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"proxy-buffering", &p.Buffering}, {"proxy-request-buffering", &p.RequestBuffering}} {
		if v, ok := get(f.name); ok {
			if v != "on" && v != "off" {
				return a, fmt.Errorf("annotation %s: %q is not on or off", f.name, v)
			}
			*f.dst = v
		}
	}
	if v, ok := get("proxy-buffers-number"); ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			return a, fmt.Errorf("annotation proxy-buffers-number: %q is not a number", v)
		}
		p.BuffersNumber = n
		if p.BufferSize == "" {
			p.BufferSize = "4k" // ingress-nginx's default proxy-buffer-size
		}
	}
	if p != (api.ProxyPolicy{}) {
		a.proxy = &p
	}
	var err error
	if a.retry, err = parseRetry(get); err != nil {
		return a, err
	}
	if a.errorCodes, a.errorService, err = parseErrors(get); err != nil {
		return a, err
	}
	if v, ok := get("use-regex"); ok {
		if a.useRegex, err = strconv.ParseBool(v); err != nil {
			return a, fmt.Errorf("annotation use-regex: %q is not true or false", v)
		}
	}
	if v, ok := get("server-alias"); ok {
		if a.aliases, err = parseAliases(v); err != nil {
			return a, err
		}
	}
	l := api.Location{Path: "/", Backend: "x", Proxy: a.proxy, Retry: a.retry}
	if err := (&api.Server{Name: "x", Hostnames: []string{"x"}, Locations: []api.Location{l}}).Validate(); err != nil {
		return a, fmt.Errorf("annotation %s: %w", annotationOfField(err), err)
	}
	return a, nil
}

// fieldAnnotations names the annotation that sets each field of api's policies.
var fieldAnnotations = map[string]string{
	"proxy.bodySize": "proxy-body-size", "proxy.clientBodyBufferSize": "client-body-buffer-size",
	"proxy.buffering": "proxy-buffering", "proxy.bufferSize": "proxy-buffer-size",
	"proxy.buffersNumber": "proxy-buffers-number", "proxy.requestBuffering": "proxy-request-buffering",
	"proxy.maxTempFileSize": "proxy-max-temp-file-size", "retry.nextUpstream": "proxy-next-upstream",
	"retry.tries": "proxy-next-upstream-tries", "retry.timeout": "proxy-next-upstream-timeout",
}

// annotationOfField names the annotation behind the field an api error names, so that the
// Ingress's event says which annotation to fix.
func annotationOfField(err error) string {
	var e *api.Error
	if errors.As(err, &e) {
		for f, name := range fieldAnnotations {
			if strings.Contains(e.Field, f) {
				return name
			}
		}
	}
	return "proxy-*"
}

// parseRetry reads proxy-next-upstream (conditions separated by spaces, as nginx writes
// them), proxy-next-upstream-tries and proxy-next-upstream-timeout (seconds, or a
// duration); 0 tries or timeout mean no bound, as in nginx.
func parseRetry(get func(string) (string, bool)) (*api.RetryPolicy, error) {
	var r api.RetryPolicy
	if v, ok := get("proxy-next-upstream"); ok {
		r.NextUpstream = strings.Fields(strings.ReplaceAll(v, ",", " "))
		if len(r.NextUpstream) == 0 {
			return nil, fmt.Errorf("annotation proxy-next-upstream is empty")
		}
	}
	if v, ok := get("proxy-next-upstream-tries"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > api.MaxRetryTries {
			return nil, fmt.Errorf("annotation proxy-next-upstream-tries: %q is not a number 0-%d", v, api.MaxRetryTries)
		}
		r.Tries = n
	}
	if v, ok := get("proxy-next-upstream-timeout"); ok {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			v += "s"
		}
		if err := api.ValidDuration("proxy-next-upstream-timeout", v); err != nil {
			return nil, fmt.Errorf("annotation proxy-next-upstream-timeout: %q is not a number of seconds or a duration like 500ms", v)
		}
		r.Timeout = v
	}
	if r.NextUpstream == nil && r.Tries == 0 && r.Timeout == "" {
		return nil, nil
	}
	return &r, nil
}

// parseErrors reads custom-http-errors ("404,503") and default-backend (a Service of the
// Ingress's namespace). Codes without default-backend go to the controller-wide default
// backend, or are refused where there is none (planErrors).
func parseErrors(get func(string) (string, bool)) ([]int, string, error) {
	codesV, hasCodes := get("custom-http-errors")
	svc, hasSvc := get("default-backend")
	if hasSvc {
		if strings.Contains(svc, "/") {
			return nil, "", fmt.Errorf("annotation default-backend: %q names another namespace; an Ingress may use only Services of its own namespace", svc)
		}
		if err := api.ValidName("default-backend", svc); err != nil {
			return nil, "", fmt.Errorf("annotation default-backend: %q is not a Service name", svc)
		}
	}
	if !hasCodes {
		if hasSvc {
			return defaultBackendCodes, svc, nil
		}
		return nil, "", nil
	}
	var codes []int
	for _, c := range strings.Split(codesV, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil {
			return nil, "", fmt.Errorf("annotation custom-http-errors: %q is not a list of HTTP codes like 404,503", codesV)
		}
		codes = append(codes, n)
	}
	check := api.ErrorsPolicy{Codes: codes, Backend: "x"}
	l := api.Location{Path: "/", Backend: "x", Errors: &check}
	if err := (&api.Server{Name: "x", Hostnames: []string{"x"}, Locations: []api.Location{l}}).Validate(); err != nil {
		return nil, "", fmt.Errorf("annotation custom-http-errors: %w", err)
	}
	return codes, svc, nil
}

// parseAliases reads server-alias: hostnames separated by commas (or spaces).
func parseAliases(v string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, h := range strings.Fields(strings.ReplaceAll(v, ",", " ")) {
		h = strings.ToLower(h)
		if h == api.CatchAllHostname {
			return nil, fmt.Errorf("annotation server-alias: %q is not a hostname", h)
		}
		if err := api.ValidHostname("server-alias", h); err != nil {
			return nil, fmt.Errorf("annotation server-alias: %w", err)
		}
		if strings.Contains(strings.TrimPrefix(h, "*."), "*") {
			return nil, fmt.Errorf("annotation server-alias: %q: a wildcard only as the first label (*.example.com); a name under every top-level domain is no hostname a namespace can hold", h)
		}
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	if len(out) == 0 || len(out) > maxAliases {
		return nil, fmt.Errorf("annotation server-alias: 1-%d hostnames, separated by commas", maxAliases)
	}
	return out, nil
}

// maxAliases bounds server-alias, so that the aliases leave room in a server's hostnames.
const maxAliases = 20
