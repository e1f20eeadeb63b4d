package conformance

// KnownFailures are the core tests restyplane does not pass yet, each with why. `go test`
// (and so CI) skips them, so that every other core test guards against a regression;
// `make conformance` runs them all and its report lists them as failed.
var KnownFailures = map[string]string{
	"GRPCExactMethodMatching":           "gRPC over cleartext HTTP/2 (h2c) beside HTTP/1.1 on the plain port needs nginx 1.25.1's preface detection or a router in front; Debian bookworm's nginx is 1.22.1",
	"GRPCRouteHeaderMatching":           "as GRPCExactMethodMatching: no h2c beside HTTP/1.1 on the plain port",
	"GRPCRouteListenerHostnameMatching": "as GRPCExactMethodMatching: no h2c beside HTTP/1.1 on the plain port",
	"GRPCRouteWeight":                   "as GRPCExactMethodMatching: no h2c beside HTTP/1.1 on the plain port",
}
