package api

import "fmt"

// Settings are the global knobs a platform team tunes. Each is typed and validated; there
// are no raw nginx snippets, because free-form directives were the source of most
// ingress-nginx CVEs. A zero field means the default from DefaultSettings.
type Settings struct {
	// WorkerProcesses is the number of nginx workers; 0 means one per core ("auto").
	WorkerProcesses   int    `json:"workerProcesses" minimum:"0" maximum:"64"`
	WorkerConnections int    `json:"workerConnections" minimum:"64" maximum:"65536" example:"4096"`
	KeepaliveTimeout  string `json:"keepaliveTimeout" example:"75s"`
	KeepaliveRequests int    `json:"keepaliveRequests" minimum:"1" maximum:"100000" example:"1000"`
	// UpstreamKeepalive is the number of idle connections each worker keeps to upstreams.
	UpstreamKeepalive int `json:"upstreamKeepalive" minimum:"0" maximum:"10000" example:"64"`
	// UpstreamKeepaliveTimeout is how long an idle upstream connection stays open, 60s if
	// empty; UpstreamKeepaliveRequests is how many requests one carries before it is
	// closed, 1000 if 0 (nginx's defaults).
	UpstreamKeepaliveTimeout  string `json:"upstreamKeepaliveTimeout,omitempty" example:"60s"`
	UpstreamKeepaliveRequests int    `json:"upstreamKeepaliveRequests,omitempty" minimum:"0" maximum:"1000000" example:"10000"`
	ClientMaxBodySize         string `json:"clientMaxBodySize" example:"1m"`
	ProxyConnectTimeout       string `json:"proxyConnectTimeout" example:"5s"`
	ProxyReadTimeout          string `json:"proxyReadTimeout" example:"60s"`
	ProxySendTimeout          string `json:"proxySendTimeout" example:"60s"`
	LogFormat                 string `json:"logFormat" enums:"combined,json" example:"json"`
	// AccessLog writes an access log, buffered: a line reaches the file within a second.
	AccessLog bool     `json:"accessLog"`
	Gzip      bool     `json:"gzip"`
	GzipTypes []string `json:"gzipTypes,omitempty" example:"application/json,text/css"`
	// HTTP2 enables HTTP/2 on TLS listeners.
	HTTP2 bool `json:"http2"`
	// RollbackErrorRatio is the 5xx share of the affected servers' requests within
	// RollbackWindow after an apply that makes the applier roll back; 0 disables it.
	RollbackErrorRatio float64 `json:"rollbackErrorRatio" minimum:"0" maximum:"1" example:"0.5"`
	// RollbackMinRequests is how many requests the window needs before the ratio counts.
	RollbackMinRequests int `json:"rollbackMinRequests" minimum:"1" maximum:"1000000" example:"20"`
	// RollbackMinClients is how many distinct client addresses must be among the failing
	// requests, so that one client cannot have a revision rolled back by provoking errors;
	// 0 means the default, 3. Behind a proxy that hides client addresses, lower it.
	RollbackMinClients int    `json:"rollbackMinClients" minimum:"0" maximum:"1000" example:"3"`
	RollbackWindow     string `json:"rollbackWindow" example:"30s"`
	// MinReloadInterval spaces reloads; changes that arrive meanwhile are merged.
	MinReloadInterval string `json:"minReloadInterval" example:"1s"`
	// RealIPFrom names the trusted proxies (CIDRs or addresses): only a request whose
	// connection comes from one of them has its client address taken from RealIPHeader,
	// which access lists and limits then see. Empty: the connection's address, always.
	// A change reloads (nginx's set_real_ip_from).
	RealIPFrom []string `json:"realIPFrom,omitempty" example:"10.0.0.0/8"`
	// RealIPHeader is the header a trusted proxy puts the client address in (ingress-nginx's
	// forwarded-for-header), X-Forwarded-For if empty; its last address not itself trusted
	// is taken.
	RealIPHeader string `json:"realIPHeader,omitempty" example:"X-Forwarded-For"`
	// UseForwardedHeaders passes on the X-Forwarded-For, -Proto, -Host and -Port headers
	// clients send, for a proxy behind another proxy or load balancer that sets them: the
	// connection's address is appended to X-Forwarded-For, and the others go as sent (or
	// as the proxy sees the request when absent). Off, the proxy replaces them with what it
	// sees: X-Forwarded-For is the client address (after realIPFrom), X-Forwarded-Proto
	// the scheme the client used.
	UseForwardedHeaders bool `json:"useForwardedHeaders"`
	// ProxySetHeaders are request headers set on every proxied request. One named as a
	// header the proxy sets itself (X-Real-IP, X-Forwarded-*) replaces it; a location's
	// own headers win over them.
	ProxySetHeaders []ProxyHeader `json:"proxySetHeaders,omitempty"`
	// CacheZoneSize is the shared memory of the response cache's keys (1m holds about
	// 8,000), 10m if empty; CacheMaxSize the most its files take on disk, 256m if empty.
	// The cache exists only while a location has a cache policy.
	CacheZoneSize string `json:"cacheZoneSize,omitempty" example:"10m"`
	CacheMaxSize  string `json:"cacheMaxSize,omitempty" example:"256m"`
	Version       int64  `json:"version,omitempty" readonly:"true"`
}

// DefaultRollbackMinClients is the number of distinct failing clients an automatic rollback
// needs when the settings leave it at 0 (settings written before it existed).
const DefaultRollbackMinClients = 3

// DefaultSettings returns the settings of a fresh install.
func DefaultSettings() Settings {
	return Settings{
		WorkerConnections:   4096,
		KeepaliveTimeout:    "75s",
		KeepaliveRequests:   1000,
		UpstreamKeepalive:   64,
		ClientMaxBodySize:   "1m",
		ProxyConnectTimeout: "5s",
		ProxyReadTimeout:    "60s",
		ProxySendTimeout:    "60s",
		LogFormat:           "json",
		AccessLog:           true,
		Gzip:                true,
		GzipTypes:           []string{"application/json", "text/css", "text/plain", "application/javascript"},
		HTTP2:               true,
		RollbackErrorRatio:  0.5,
		RollbackMinRequests: 20,
		RollbackMinClients:  DefaultRollbackMinClients,
		RollbackWindow:      "30s",
		MinReloadInterval:   "1s",
	}
}

// Validate checks every field.
func (s *Settings) Validate() error {
	ints := []struct {
		name      string
		v, lo, hi int
	}{
		{"workerProcesses", s.WorkerProcesses, 0, 64},
		{"workerConnections", s.WorkerConnections, 64, 65536},
		{"keepaliveRequests", s.KeepaliveRequests, 1, 100000},
		{"upstreamKeepalive", s.UpstreamKeepalive, 0, 10000},
		{"upstreamKeepaliveRequests", s.UpstreamKeepaliveRequests, 0, 1000000},
		{"rollbackMinRequests", s.RollbackMinRequests, 1, 1000000},
		{"rollbackMinClients", s.RollbackMinClients, 0, 1000},
	}
	for _, f := range ints {
		if f.v < f.lo || f.v > f.hi {
			return Invalid(f.name, "must be %d-%d", f.lo, f.hi)
		}
	}
	durations := []struct{ name, v string }{
		{"keepaliveTimeout", s.KeepaliveTimeout}, {"proxyConnectTimeout", s.ProxyConnectTimeout},
		{"proxyReadTimeout", s.ProxyReadTimeout}, {"proxySendTimeout", s.ProxySendTimeout},
		{"rollbackWindow", s.RollbackWindow}, {"minReloadInterval", s.MinReloadInterval},
	}
	for _, f := range durations {
		if err := ValidDuration(f.name, f.v); err != nil {
			return err
		}
	}
	if err := ValidSize("clientMaxBodySize", s.ClientMaxBodySize); err != nil {
		return err
	}
	if s.LogFormat != "combined" && s.LogFormat != "json" {
		return Invalid("logFormat", "must be combined or json")
	}
	if len(s.GzipTypes) > 50 {
		return Invalid("gzipTypes", "at most 50 types")
	}
	for i, t := range s.GzipTypes {
		if err := ValidMIME(fmt.Sprintf("gzipTypes[%d]", i), t); err != nil {
			return err
		}
	}
	if len(s.RealIPFrom) > 256 {
		return Invalid("realIPFrom", "at most 256 trusted proxies")
	}
	if err := ValidCIDRs("realIPFrom", s.RealIPFrom); err != nil {
		return err
	}
	if s.RealIPHeader != "" {
		if err := ValidHeaderName("realIPHeader", s.RealIPHeader); err != nil {
			return err
		}
		if len(s.RealIPFrom) == 0 {
			return Invalid("realIPHeader", "a real-IP header needs trusted proxies in realIPFrom")
		}
	}
	if s.UpstreamKeepaliveTimeout != "" {
		if err := ValidDuration("upstreamKeepaliveTimeout", s.UpstreamKeepaliveTimeout); err != nil {
			return err
		}
	}
	if err := validateProxyHeaders("proxySetHeaders", s.ProxySetHeaders); err != nil {
		return err
	}
	if err := s.validateCacheSettings(); err != nil {
		return err
	}
	if !(s.RollbackErrorRatio >= 0 && s.RollbackErrorRatio <= 1) {
		return Invalid("rollbackErrorRatio", "must be between 0 and 1")
	}
	return nil
}
