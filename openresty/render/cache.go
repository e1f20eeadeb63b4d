package render

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/restyplane/restyplane/api"
)

// cacheZone is the shared memory zone of the response cache.
const cacheZone = "restyplane_cache"

// cacheView is a location's cache policy as directives. Key is the quoted key: the api
// server's name, which keeps each server's answers apart from every other's, then the
// policy's variables; Bypass are variables too. Both are checked here again against
// api's fixed lists, a second wall, since they are written unquoted.
type cacheView struct {
	Key          string
	Valid        []cacheValidView
	UseStale     []string
	Lock         bool
	Bypass       []string
	StatusHeader string
}

// cacheValidView is one proxy_cache_valid: its codes ("any" for every status) and
// duration.
type cacheValidView struct {
	Codes    []string
	Duration string
}

// bypassRe is api's bypass grammar, checked again before the variable is written.
var bypassRe = regexp.MustCompile(`^\$(http|cookie|arg)_[a-z0-9_]{1,64}$`)

// newCacheView renders a location's cache policy, nil without one.
func newCacheView(server string, l *api.Location) (*cacheView, error) {
	c := l.Cache
	if c == nil {
		return nil, nil
	}
	key := server + "|"
	for _, k := range c.CacheKey() {
		if !slices.Contains(api.CacheKeyVariables, k) {
			return nil, fmt.Errorf("cache key variable %q is not in the fixed list", k)
		}
		key += k
	}
	if strings.ContainsRune(server, '$') {
		return nil, fmt.Errorf("server name %q holds '$'", server)
	}
	quoted, err := quoteRaw(key)
	if err != nil {
		return nil, err
	}
	v := &cacheView{Key: quoted, UseStale: c.UseStale, Lock: c.Lock, StatusHeader: c.StatusHeader}
	for _, b := range c.Bypass {
		if !bypassRe.MatchString(b) {
			return nil, fmt.Errorf("cache bypass %q is not a header, cookie or argument variable", b)
		}
		v.Bypass = append(v.Bypass, b)
	}
	for _, x := range c.Valid {
		cv := cacheValidView{Duration: x.Duration}
		for _, code := range x.Codes {
			cv.Codes = append(cv.Codes, strconv.Itoa(code))
		}
		if len(cv.Codes) == 0 {
			cv.Codes = []string{"any"}
		}
		v.Valid = append(v.Valid, cv)
	}
	return v, nil
}
