package api

// HeaderVariables are the nginx variables a header value may name, with what each holds:
// values the proxy computes for every request, which headers written in ingress-nginx
// snippets and ConfigMaps commonly carry. Nothing else after a '$' is accepted, so a
// header can only ever read these values, never run text, and none of them holds a line
// break. It is the one list every typed header that takes variables shares: settings'
// proxySetHeaders (ProxyHeaderVariables), a location's request and response headers and
// the headers of an external auth's subrequest.
var HeaderVariables = map[string]string{
	"request_id":                "a unique id of the request, 32 hex digits",
	"req_id":                    "the client's X-Request-ID, or $request_id when it sent none (ingress-nginx's $req_id)",
	"remote_addr":               "the client's address (after realIPFrom)",
	"realip_remote_addr":        "the address of the connection, before realIPFrom",
	"remote_port":               "the client's port",
	"proxy_add_x_forwarded_for": "the client's X-Forwarded-For with its address appended",
	"scheme":                    "http or https, as the client reached the proxy",
	"host":                      "the request's host name, lowercased, without the port",
	"http_host":                 "the request's Host header as the client sent it",
	"server_port":               "the port the request came in on",
	"request_method":            "the request's method",
	"request_uri":               "the original request's path and query, as sent",
	"ssl_protocol":              "the TLS protocol of the client's connection, empty over plain HTTP",
	"ssl_cipher":                "the TLS cipher of the client's connection, empty over plain HTTP",
	"ssl_client_verify":         "SUCCESS, NONE or FAILED:<reason>: the result of the client certificate's verification",
	"ssl_client_s_dn":           "the client certificate's subject DN",
	"ssl_client_i_dn":           "the client certificate's issuer DN",
	"ssl_client_serial":         "the client certificate's serial number",
	"ssl_client_fingerprint":    "the client certificate's SHA1 fingerprint",
	"ssl_client_escaped_cert":   "the client certificate, PEM, URL-escaped",
}

// ValidHeaderTemplate checks a header value that may name HeaderVariables: the grammar of
// ValidProxyHeaderValue, one for every header.
func ValidHeaderTemplate(field, s string) error {
	return ValidProxyHeaderValue(field, s)
}
