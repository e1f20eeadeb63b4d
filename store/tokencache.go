package store

import (
	"crypto/sha256"
	"sync"
)

// tokenCache holds the tokens that authenticated, keyed by the SHA-256 of their secret,
// so that an API request costs a map lookup instead of a SQLite query on the hot path of
// every write. It is valid because this Store is the only writer of the tokens table:
// every delete goes through DeleteToken, which revokes. Unknown secrets are never cached,
// so a flood of bad tokens cannot grow it, and a token created later is found in SQLite.
//
// A lookup that read a row from SQLite just before a concurrent delete must not put it
// back after the delete emptied the cache: each lookup notes the generation before it
// reads and puts only if no revocation came in between.
type tokenCache struct {
	mu     sync.Mutex
	gen    uint64
	byHash map[[sha256.Size]byte]tokenRow
}

func newTokenCache() *tokenCache {
	return &tokenCache{byHash: map[[sha256.Size]byte]tokenRow{}}
}

// get returns the cached row for hash, and the generation to hand to put.
func (c *tokenCache) get(hash [sha256.Size]byte) (row tokenRow, gen uint64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	row, ok = c.byHash[hash]
	return row, c.gen, ok
}

// put caches row under hash unless a revocation happened since gen was read.
func (c *tokenCache) put(hash [sha256.Size]byte, row tokenRow, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen {
		c.byHash[hash] = row
	}
}

// revoke forgets every cached token and moves the generation on, so that lookups in
// flight do not cache what they read before. DeleteToken calls it after the row is gone
// and before it returns: the very next request with that secret goes to SQLite.
func (c *tokenCache) revoke() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.byHash)
}
