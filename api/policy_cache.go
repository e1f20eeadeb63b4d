package api

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// CachePolicy keeps the upstream's answers of a location in the response cache, whose
// size the settings hold (cacheZoneSize, cacheMaxSize), and answers later requests of the
// same key from it. nginx caches only answers without Set-Cookie, to GET and HEAD
// requests; a location that serves one user's pages should bypass the cache for
// requests that carry a login ($http_authorization, a session cookie).
type CachePolicy struct {
	// Key are the request variables an answer is cached under, in order, from
	// CacheKeyVariables; ["$scheme", "$host", "$request_uri"] if empty. Whatever the key,
	// each server's answers are kept apart from every other server's.
	Key []string `json:"key,omitempty" example:"$scheme,$host,$request_uri"`
	// Valid says how long answers are kept, by status. Without it, for as long as the
	// upstream's Cache-Control or Expires allow.
	Valid []CacheValid `json:"valid,omitempty"`
	// UseStale are the conditions on which a stale answer is served rather than none:
	// error, timeout, invalid_header, updating, http_500, http_502, http_503, http_504,
	// http_403, http_404, http_429.
	UseStale []string `json:"useStale,omitempty" example:"error,timeout,updating"`
	// Lock lets one request at a time fill an entry; the others wait for it.
	Lock bool `json:"lock,omitempty"`
	// Bypass are request variables, $http_<name>, $cookie_<name> or $arg_<name>: when one
	// of them is neither empty nor "0", the answer is taken from the upstream and not
	// cached.
	Bypass []string `json:"bypass,omitempty" example:"$http_authorization,$cookie_nocache"`
	// StatusHeader names a response header that tells the cache's answer: HIT, MISS,
	// BYPASS, EXPIRED, STALE, UPDATING or REVALIDATED.
	StatusHeader string `json:"statusHeader,omitempty" example:"X-Cache-Status"`
}

// CacheValid is how long answers of some statuses are kept.
type CacheValid struct {
	// Codes are statuses 200-599; empty means every status.
	Codes []int `json:"codes,omitempty" example:"200,301"`
	// Duration is a number followed by s, m, h or d.
	Duration string `json:"duration" example:"10m"`
}

// CacheKeyVariables are the variables a cache key may be made of.
var CacheKeyVariables = []string{"$scheme", "$host", "$http_host", "$request_uri", "$uri", "$args", "$is_args",
	"$request_method", "$http_accept", "$http_accept_encoding", "$http_accept_language", "$http_origin"}

// CacheUseStale are the conditions CachePolicy.UseStale takes.
var CacheUseStale = []string{"error", "timeout", "invalid_header", "updating", "http_500", "http_502",
	"http_503", "http_504", "http_403", "http_404", "http_429"}

// Limits of a cache policy.
const (
	MaxCacheKey    = 8
	MaxCacheValid  = 10
	MaxCacheBypass = 8
)

var (
	// cacheDurationRe is nginx's time in whole seconds, minutes, hours or days.
	cacheDurationRe = regexp.MustCompile(`^[1-9][0-9]{0,5}[smhd]$`)
	// bypassVarRe is a request header, cookie or argument variable.
	bypassVarRe = regexp.MustCompile(`^\$(http|cookie|arg)_[a-z0-9_]{1,64}$`)
)

// ValidCacheDuration checks a cache duration: 1-999999 followed by s, m, h or d.
func ValidCacheDuration(field, s string) error {
	if !cacheDurationRe.MatchString(s) {
		return Invalid(field, "duration must be a positive number followed by s, m, h or d, like 10m or 30d")
	}
	return nil
}

// ValidBypassVariable checks a cache bypass variable: $http_, $cookie_ or $arg_ followed
// by 1-64 lowercase letters, digits or '_'.
func ValidBypassVariable(field, s string) error {
	if !bypassVarRe.MatchString(s) {
		return Invalid(field, "must be $http_<name>, $cookie_<name> or $arg_<name>, the name of lowercase letters, digits and '_'")
	}
	return nil
}

// validate checks the policy's lists against their fixed sets and bounds.
func (c *CachePolicy) validate() error {
	if c == nil {
		return nil
	}
	if len(c.Key) > MaxCacheKey {
		return Invalid("cache.key", "at most %d variables", MaxCacheKey)
	}
	for i, k := range c.Key {
		if !slices.Contains(CacheKeyVariables, k) {
			return Invalid(fmt.Sprintf("cache.key[%d]", i), "must be one of %s", strings.Join(CacheKeyVariables, ", "))
		}
	}
	if len(c.Valid) > MaxCacheValid {
		return Invalid("cache.valid", "at most %d entries", MaxCacheValid)
	}
	codes := map[int]bool{}
	anyCode := false
	for i, v := range c.Valid {
		f := fmt.Sprintf("cache.valid[%d]", i)
		if err := ValidCacheDuration(f+".duration", v.Duration); err != nil {
			return err
		}
		if len(v.Codes) == 0 {
			if anyCode {
				return Invalid(f+".codes", "every status is given a duration twice")
			}
			anyCode = true
		}
		if len(v.Codes) > MaxErrorCodes {
			return Invalid(f+".codes", "at most %d codes", MaxErrorCodes)
		}
		for _, code := range v.Codes {
			if code < 200 || code > 599 {
				return Invalid(f+".codes", "code must be 200-599")
			}
			if codes[code] {
				return Invalid(f+".codes", "code %d is given a duration twice", code)
			}
			codes[code] = true
		}
	}
	seen := map[string]bool{}
	for i, s := range c.UseStale {
		if !slices.Contains(CacheUseStale, s) || seen[s] {
			return Invalid(fmt.Sprintf("cache.useStale[%d]", i), "must be one of %s, each once", strings.Join(CacheUseStale, ", "))
		}
		seen[s] = true
	}
	if len(c.Bypass) > MaxCacheBypass {
		return Invalid("cache.bypass", "at most %d variables", MaxCacheBypass)
	}
	for i, b := range c.Bypass {
		if err := ValidBypassVariable(fmt.Sprintf("cache.bypass[%d]", i), b); err != nil {
			return err
		}
	}
	if c.StatusHeader != "" {
		if err := ValidFieldName("cache.statusHeader", c.StatusHeader); err != nil {
			return err
		}
	}
	return nil
}

// validateCache checks the location's cache policy, and that the location proxies: a
// location that answers itself has no upstream answer to keep.
func (l *Location) validateCache() error {
	if l.Cache == nil {
		return nil
	}
	if l.answersItself() {
		return Invalid("cache", "a location that answers itself has no upstream answer to cache")
	}
	if err := l.Cache.validate(); err != nil {
		return err
	}
	if h := l.Cache.StatusHeader; h != "" && l.ResponseHeaders != nil {
		for _, n := range l.ResponseHeaders.names() {
			if strings.EqualFold(n, h) {
				return Invalid("cache.statusHeader", "header %s is in responseHeaders too", h)
			}
		}
	}
	return nil
}

// CacheKey is the key's variables, the default if none are named.
func (c *CachePolicy) CacheKey() []string {
	if len(c.Key) == 0 {
		return []string{"$scheme", "$host", "$request_uri"}
	}
	return c.Key
}

// expiresRe is what a location's expires takes: a duration, epoch (already expired) or
// max (ten years).
var expiresRe = regexp.MustCompile(`^(?:[1-9][0-9]{0,5}[smhd]|epoch|max)$`)

// validateExpires checks the location's expires.
func (l *Location) validateExpires() error {
	if l.Expires == "" {
		return nil
	}
	if !expiresRe.MatchString(l.Expires) {
		return Invalid("expires", "must be a positive number followed by s, m, h or d (like 30d), epoch or max")
	}
	if l.answersItself() {
		return Invalid("expires", "a location that answers itself has no upstream answer to mark")
	}
	return nil
}

// Default sizes of the response cache.
const (
	DefaultCacheZoneSize = "10m"
	DefaultCacheMaxSize  = "256m"
)

// validateCacheSettings checks the cache's sizes: the keys zone in shared memory (1m
// holds about 8,000 keys) and the most the cache's files may take on disk.
func (s *Settings) validateCacheSettings() error {
	if s.CacheZoneSize != "" {
		if err := ValidSize("cacheZoneSize", s.CacheZoneSize); err != nil {
			return err
		}
		if sizeBytes(s.CacheZoneSize) < 1<<20 || sizeBytes(s.CacheZoneSize) > 1<<30 {
			return Invalid("cacheZoneSize", "must be 1m-1024m")
		}
	}
	if s.CacheMaxSize != "" {
		if err := ValidBodySize("cacheMaxSize", s.CacheMaxSize); err != nil {
			return err
		}
		if sizeBytes(s.CacheMaxSize) < 1<<20 {
			return Invalid("cacheMaxSize", "must be at least 1m")
		}
	}
	return nil
}
