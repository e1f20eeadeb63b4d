package api

import "strconv"

// Limit bounds.
const (
	MaxLimitRate        = 1000000
	MaxLimitConnections = 1000000
	MaxBurstMultiplier  = 1000
	// DefaultBurstMultiplier is ingress-nginx's limit-burst-multiplier default.
	DefaultBurstMultiplier = 5
	// DefaultLimitStatus answers a request past a limit of a REST-made location.
	DefaultLimitStatus = 429
)

// LocationLimits bounds what one client address may ask of a location. A request past a
// limit is answered Status. Rates are leaky buckets, as nginx's limit_req: RPS requests a
// second (or RPM a minute), with RPS×BurstMultiplier (RPM×BurstMultiplier) more taken at
// once and none delayed. Changing rates, connections, the exempt list or the status needs
// no reload; Rate and RateAfter are nginx directives, and changing them reloads.
type LocationLimits struct {
	// RPS is requests per second per client address; 0 for no such limit.
	RPS int `json:"rps,omitempty" minimum:"0" maximum:"1000000" example:"10"`
	// RPM is requests per minute per client address; 0 for no such limit.
	RPM int `json:"rpm,omitempty" minimum:"0" maximum:"1000000" example:"300"`
	// BurstMultiplier sets each rate's burst to rate×multiplier; 0 means 5.
	BurstMultiplier int `json:"burstMultiplier,omitempty" minimum:"0" maximum:"1000" example:"5"`
	// Connections is the concurrent requests per client address; 0 for no limit.
	Connections int `json:"connections,omitempty" minimum:"0" maximum:"1000000" example:"20"`
	// Exempt lists CIDRs (or addresses) no rate or connection limit applies to.
	Exempt []string `json:"exempt,omitempty" example:"10.0.0.0/8"`
	// Status answers a request past a limit: 429 if 0 (a REST default; Ingresses get 503
	// as in ingress-nginx). Any 4xx or 5xx.
	Status int `json:"status,omitempty" minimum:"0" maximum:"599" example:"429"`
	// Rate bounds the answer's bandwidth to each request, bytes a second in nginx size
	// notation ("100k"); Rate and RateAfter reload when they change.
	Rate string `json:"rate,omitempty" example:"100k"`
	// RateAfter is how much of the answer goes at full speed before Rate applies.
	RateAfter string `json:"rateAfter,omitempty" example:"1m"`
}

// LimitStatus returns the status a request past a limit gets.
func (l *LocationLimits) LimitStatus() int {
	if l.Status == 0 {
		return DefaultLimitStatus
	}
	return l.Status
}

// Multiplier returns the burst multiplier, its default filled in.
func (l *LocationLimits) Multiplier() int {
	if l.BurstMultiplier == 0 {
		return DefaultBurstMultiplier
	}
	return l.BurstMultiplier
}

// Counted reports whether a rate or a connection limit is set: what the Lua access phase
// enforces, as against the bandwidth directives.
func (l *LocationLimits) Counted() bool {
	return l != nil && (l.RPS > 0 || l.RPM > 0 || l.Connections > 0)
}

func (l *LocationLimits) validate() error {
	if l == nil {
		return nil
	}
	ints := []struct {
		field  string
		v, max int
	}{
		{"limits.rps", l.RPS, MaxLimitRate}, {"limits.rpm", l.RPM, MaxLimitRate},
		{"limits.connections", l.Connections, MaxLimitConnections},
		{"limits.burstMultiplier", l.BurstMultiplier, MaxBurstMultiplier},
	}
	for _, f := range ints {
		if f.v < 0 || f.v > f.max {
			return Invalid(f.field, "must be 0-%d", f.max)
		}
	}
	if !l.Counted() && l.Rate == "" {
		return Invalid("limits", "limits need rps, rpm, connections or rate")
	}
	if l.Status != 0 && (l.Status < 400 || l.Status > 599) {
		return Invalid("limits.status", "must be a 4xx or 5xx status, got %s", strconv.Itoa(l.Status))
	}
	if err := ValidCIDRs("limits.exempt", l.Exempt); err != nil {
		return err
	}
	if l.Rate != "" {
		if err := ValidSize("limits.rate", l.Rate); err != nil {
			return err
		}
	}
	if l.RateAfter != "" {
		if l.Rate == "" {
			return Invalid("limits.rateAfter", "rateAfter goes with rate")
		}
		if err := ValidSize("limits.rateAfter", l.RateAfter); err != nil {
			return err
		}
	}
	return nil
}
