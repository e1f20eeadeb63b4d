package api

import (
	"fmt"
	"slices"
)

// Web application firewall modes.
const (
	// WAFOff inspects nothing; a location says so to opt out of its server's policy.
	WAFOff = "off"
	// WAFDetect inspects every request and logs what the rules find, blocking nothing.
	WAFDetect = "detect"
	// WAFBlock answers 403 to a request the rules find an attack in.
	WAFBlock = "block"
)

// Transaction ids a WAF may give each request, so that its log lines can be matched with
// the access log and the upstream's.
const (
	// WAFIDRequest is nginx's own request id ($request_id).
	WAFIDRequest = "request_id"
	// WAFIDClientRequest is the client's X-Request-ID, else nginx's request id.
	WAFIDClientRequest = "client_request_id"
)

// Bounds of a WAF policy.
const (
	MaxParanoiaLevel = 4
	MaxWAFExclusions = 100
	// MaxWAFRuleID is the largest rule id ModSecurity's ranges use (the CRS's are 6 digits).
	MaxWAFRuleID = 99999999
)

// WAF is a web application firewall policy (policies): ModSecurity with Debian's
// recommended configuration and, with CoreRules, the OWASP Core Rule Set, both from their
// Debian packages' own paths. It is typed: no rule text comes from a user. A server's
// policy applies to each of its locations that has none of its own.
type WAF struct {
	// Mode is off, detect (log only) or block (403 on an attack).
	Mode string `json:"mode" enums:"off,detect,block" example:"block"`
	// CoreRules loads the OWASP Core Rule Set.
	CoreRules bool `json:"coreRules,omitempty"`
	// ParanoiaLevel is the Core Rule Set's paranoia level, 1 (the default) to 4: higher
	// levels catch more attacks and more false positives.
	ParanoiaLevel int `json:"paranoiaLevel,omitempty" minimum:"1" maximum:"4" example:"1"`
	// ExcludeRules are rule ids that are not run (ModSecurity's SecRuleRemoveById), such
	// as a Core Rule Set rule that refuses what an application legitimately sends.
	ExcludeRules []int `json:"excludeRules,omitempty" example:"920350,942100"`
	// TransactionID is what ModSecurity calls each request in its log: request_id (nginx's
	// $request_id), client_request_id (the client's X-Request-ID, else nginx's), or empty
	// for ModSecurity's own.
	TransactionID string `json:"transactionID,omitempty" enums:"request_id,client_request_id"`
}

// normalize sorts the exclusions, so that equal intent gives equal bytes in the history.
func (w *WAF) normalize() {
	if w == nil {
		return
	}
	slices.Sort(w.ExcludeRules)
	if w.CoreRules && w.ParanoiaLevel == 0 {
		w.ParanoiaLevel = 1
	}
}

// validate checks a WAF policy; field names the policy (waf).
func (w *WAF) validate(field string) error {
	if w == nil {
		return nil
	}
	switch w.Mode {
	case WAFOff, WAFDetect, WAFBlock:
	default:
		return Invalid(field+".mode", "mode must be off, detect or block")
	}
	if w.ParanoiaLevel != 0 && !w.CoreRules {
		return Invalid(field+".paranoiaLevel", "the paranoia level is the Core Rule Set's: set coreRules")
	}
	if w.ParanoiaLevel < 0 || w.ParanoiaLevel > MaxParanoiaLevel {
		return Invalid(field+".paranoiaLevel", "paranoia level must be 1-%d", MaxParanoiaLevel)
	}
	if len(w.ExcludeRules) > MaxWAFExclusions {
		return Invalid(field+".excludeRules", "at most %d rule ids", MaxWAFExclusions)
	}
	seen := map[int]bool{}
	for i, id := range w.ExcludeRules {
		f := fmt.Sprintf("%s.excludeRules[%d]", field, i)
		if id < 1 || id > MaxWAFRuleID {
			return Invalid(f, "a rule id is 1-%d", MaxWAFRuleID)
		}
		if seen[id] {
			return Invalid(f, "rule %d is listed twice", id)
		}
		seen[id] = true
	}
	switch w.TransactionID {
	case "", WAFIDRequest, WAFIDClientRequest:
	default:
		return Invalid(field+".transactionID", "transactionID must be request_id or client_request_id")
	}
	return nil
}

// EffectiveWAF is the policy that applies to a location of the server: its own, else the
// server's; nil when neither has one or it is off.
func (s *Server) EffectiveWAF(l *Location) *WAF {
	w := l.WAF
	if w == nil {
		w = s.WAF
	}
	if w == nil || w.Mode == WAFOff {
		return nil
	}
	return w
}
