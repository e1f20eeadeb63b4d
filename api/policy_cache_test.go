package api

import "testing"

// TestCachePolicyValidate: keys, bypass variables and use-stale conditions come from fixed
// lists, durations and codes are bounded, and a location that answers itself caches
// nothing.
func TestCachePolicyValidate(t *testing.T) {
	ok := &CachePolicy{Key: []string{"$scheme", "$host", "$request_uri"}, Valid: []CacheValid{{Codes: []int{200, 301}, Duration: "10m"}, {Duration: "1m"}},
		UseStale: []string{"error", "updating"}, Lock: true, Bypass: []string{"$http_authorization", "$cookie_nocache", "$arg_fresh"}, StatusHeader: "X-Cache-Status"}
	l := Location{Path: "/", Backend: "b", Cache: ok, Expires: "30d"}
	if err := l.validate(); err != nil {
		t.Fatalf("valid policy refused: %v", err)
	}
	for field, loc := range map[string]Location{
		"cache.key[0]":            {Path: "/", Backend: "b", Cache: &CachePolicy{Key: []string{"$remote_addr"}}},
		"cache.valid[0].duration": {Path: "/", Backend: "b", Cache: &CachePolicy{Valid: []CacheValid{{Duration: "0m"}}}},
		"cache.valid[1].codes":    {Path: "/", Backend: "b", Cache: &CachePolicy{Valid: []CacheValid{{Codes: []int{200}, Duration: "1m"}, {Codes: []int{200}, Duration: "2m"}}}},
		"cache.valid[0].codes":    {Path: "/", Backend: "b", Cache: &CachePolicy{Valid: []CacheValid{{Codes: []int{100}, Duration: "1m"}}}},
		"cache.useStale[1]":       {Path: "/", Backend: "b", Cache: &CachePolicy{UseStale: []string{"error", "error"}}},
		"cache.bypass[0]":         {Path: "/", Backend: "b", Cache: &CachePolicy{Bypass: []string{"$http_x y"}}},
		"cache.statusHeader":      {Path: "/", Backend: "b", Cache: &CachePolicy{StatusHeader: "Content-Length"}},
		"cache":                   {Path: "/", Deny: true, Cache: &CachePolicy{}},
		"expires":                 {Path: "/", Backend: "b", Expires: "30x"},
	} {
		err := loc.validate()
		if e, ok := err.(*Error); !ok || e.Field != field {
			t.Errorf("%s: got %v, want an error naming %s", field, err, field)
		}
	}
	s := DefaultSettings()
	for _, v := range []string{"512k", "2g", "10m;"} {
		s.CacheZoneSize = v
		if s.Validate() == nil {
			t.Errorf("cacheZoneSize %q accepted", v)
		}
	}
}
