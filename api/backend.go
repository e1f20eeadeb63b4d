package api

import (
	"fmt"
)

// Load-balancing algorithms a backend may use.
const (
	RoundRobin = "round_robin"
	EWMA       = "ewma"
	CHash      = "chash"
)

// Limits that keep one object within what the data plane handles well.
const (
	MaxEndpoints = 1000
	MaxWeight    = 1000
	MaxRetries   = 10
)

// Backend is a named pool of endpoints that locations proxy to. Everything in a backend is
// dynamic: a change reaches traffic through the Lua balancer without an nginx reload.
type Backend struct {
	Name        string     `json:"name" example:"shop-api"`
	Endpoints   []Endpoint `json:"endpoints"`
	LoadBalance string     `json:"loadBalance,omitempty" enums:"round_robin,ewma,chash" example:"round_robin"`
	// HashBy is the nginx variable whose value picks the peer when LoadBalance is chash.
	HashBy   string    `json:"hashBy,omitempty" example:"$remote_addr"`
	Affinity *Affinity `json:"affinity,omitempty"`
	Canary   *Canary   `json:"canary,omitempty"`
	Timeouts *Timeouts `json:"timeouts,omitempty"`
	// Retries is how many other peers a failed request may try (0: none).
	Retries int `json:"retries,omitempty" minimum:"0" maximum:"10"`
	// Protocol is what the endpoints speak (policies): http if empty. Unlike the
	// rest of a backend, a change of protocol or upstreamTLS reloads nginx.
	Protocol string `json:"protocol,omitempty" enums:"http,https,grpc,grpcs" example:"https"`
	// UpstreamTLS is how the proxy speaks TLS to https and grpcs endpoints.
	UpstreamTLS *UpstreamTLS `json:"upstreamTLS,omitempty"`
	// ErrorWeight is a share of the requests, weighed against the endpoints' weights,
	// that the proxy answers 500 itself without trying an endpoint: what Gateway API
	// asks of a backendRef that does not resolve beside others that do. 0: none.
	ErrorWeight int `json:"errorWeight,omitempty" minimum:"0" maximum:"1000"`
	// Split is what the backend of a Gateway API rule of several backendRefs divides its
	// requests among (the reconciler's; none for the REST API's backends).
	Split  *Split `json:"split,omitempty"`
	Source Source `json:"source"`
	// Version is the revision that last changed this backend; it is its ETag.
	Version int64 `json:"version,omitempty" readonly:"true"`
}

// Endpoint is one upstream peer.
type Endpoint struct {
	Address string `json:"address" example:"10.0.0.12"`
	Port    int    `json:"port" example:"8080"`
	// Weight is the peer's share relative to the others; 0 means 1.
	Weight int `json:"weight,omitempty" minimum:"0" maximum:"1000"`
}

// Canary sends part of the traffic to an alternative backend: by weight (percent), or every
// request whose header or cookie says so.
type Canary struct {
	Backend     string `json:"backend" example:"shop-api-v2"`
	Weight      int    `json:"weight,omitempty" minimum:"0" maximum:"100"`
	Header      string `json:"header,omitempty" example:"X-Canary"`
	HeaderValue string `json:"headerValue,omitempty" example:"always"`
	Cookie      string `json:"cookie,omitempty" example:"canary"`
}

// Timeouts are upstream timeouts in nginx notation.
type Timeouts struct {
	Connect string `json:"connect,omitempty" example:"5s"`
	Send    string `json:"send,omitempty" example:"60s"`
	Read    string `json:"read,omitempty" example:"60s"`
}

// Validate checks the backend on its own; references to other objects are checked by
// Config.Check.
func (b *Backend) Validate() error {
	if err := ValidName("name", b.Name); err != nil {
		return err
	}
	if len(b.Endpoints) > MaxEndpoints {
		return Invalid("endpoints", "at most %d endpoints", MaxEndpoints)
	}
	seen := make(map[string]bool, len(b.Endpoints))
	for i, e := range b.Endpoints {
		if err := e.validate(); err != nil {
			return prefixed(fmt.Sprintf("endpoints[%d]", i), err)
		}
		key := fmt.Sprintf("%s|%d", e.Address, e.Port)
		if seen[key] {
			return Invalid(fmt.Sprintf("endpoints[%d]", i), "endpoint %s port %d is listed twice", e.Address, e.Port)
		}
		seen[key] = true
	}
	switch b.LoadBalance {
	case "", RoundRobin, EWMA:
		if b.HashBy != "" {
			return Invalid("hashBy", "hashBy needs loadBalance chash")
		}
	case CHash:
		if err := ValidVariable("hashBy", b.HashBy); err != nil {
			return err
		}
	default:
		return Invalid("loadBalance", "must be round_robin, ewma or chash")
	}
	if err := b.Affinity.validate(); err != nil {
		return prefixed("affinity", err)
	}
	if b.Canary != nil {
		if err := b.Canary.validate(b.Name); err != nil {
			return prefixed("canary", err)
		}
	}
	if err := b.Timeouts.validate(); err != nil {
		return prefixed("timeouts", err)
	}
	if b.Retries < 0 || b.Retries > MaxRetries {
		return Invalid("retries", "must be 0-%d", MaxRetries)
	}
	if b.ErrorWeight < 0 || b.ErrorWeight > MaxWeight {
		return Invalid("errorWeight", "must be 0-%d", MaxWeight)
	}
	if err := b.validateUpstream(); err != nil {
		return err
	}
	if err := b.Split.validate(b.Source); err != nil {
		return prefixed("split", err)
	}
	return b.Source.validate()
}

// Normalize fills defaults so that equal intent gives equal bytes in the history.
func (b *Backend) Normalize() {
	if b.LoadBalance == "" {
		b.LoadBalance = RoundRobin
	}
	for i := range b.Endpoints {
		if b.Endpoints[i].Weight == 0 {
			b.Endpoints[i].Weight = 1
		}
	}
	if b.Source.Kind == "" {
		b.Source.Kind = SourceAPI
	}
	b.Affinity.normalize()
	b.normalizeUpstream()
}

func (e Endpoint) validate() error {
	if err := ValidAddress("address", e.Address); err != nil {
		return err
	}
	if err := ValidPort("port", e.Port); err != nil {
		return err
	}
	if e.Weight < 0 || e.Weight > MaxWeight {
		return Invalid("weight", "must be 0-%d", MaxWeight)
	}
	return nil
}

func (c *Canary) validate(owner string) error {
	if err := ValidName("backend", c.Backend); err != nil {
		return err
	}
	if c.Backend == owner {
		return Invalid("backend", "a backend cannot be its own canary")
	}
	if c.Weight < 0 || c.Weight > 100 {
		return Invalid("weight", "must be 0-100 (percent)")
	}
	if c.Header != "" {
		if err := ValidHeaderName("header", c.Header); err != nil {
			return err
		}
		if c.HeaderValue != "" {
			if err := ValidHeaderValue("headerValue", c.HeaderValue); err != nil {
				return err
			}
		}
	} else if c.HeaderValue != "" {
		return Invalid("headerValue", "headerValue needs header")
	}
	if c.Cookie != "" {
		if err := ValidCookieName("cookie", c.Cookie); err != nil {
			return err
		}
	}
	if c.Weight == 0 && c.Header == "" && c.Cookie == "" {
		return Invalid("", "a canary needs a weight, a header or a cookie")
	}
	return nil
}

func (t *Timeouts) validate() error {
	if t == nil {
		return nil
	}
	for _, f := range []struct{ name, v string }{{"connect", t.Connect}, {"send", t.Send}, {"read", t.Read}} {
		if f.v == "" {
			continue
		}
		if err := ValidDuration(f.name, f.v); err != nil {
			return err
		}
	}
	return nil
}
