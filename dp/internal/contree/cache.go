package contree

import (
	"sync"

	"github.com/odtkit/odtkit/dp/internal/cacheline"
)

// The subproblem cache: a map of the sequential search, or in a
// parallel root search one cache shared by every worker (sharedCache).
// Stored values are never changed: an update stores a new value, so a
// worker may keep reading a value another worker has replaced.

// cacheShards is the number of independently locked parts of a
// sharedCache.
const cacheShards = 16

// sharedCache is the subproblem cache of a parallel root search: maps
// sharded by key hash, each guarded by its mutex.
type sharedCache struct {
	shards [cacheShards]struct {
		mu sync.Mutex
		m  map[cacheKey]*cacheVal
		_  cacheline.Pad // each part's lock on a line of its own
	}
}

// newSharedCache returns a shared cache holding the entries of m (the
// sequential search's cache before the workers start: the probe's
// subtrees).
func newSharedCache(m map[cacheKey]*cacheVal) *sharedCache {
	c := &sharedCache{}
	for i := range c.shards {
		c.shards[i].m = map[cacheKey]*cacheVal{}
	}
	for k, v := range m {
		c.shards[k.h1%cacheShards].m[k] = v
	}
	return c
}

// cacheOn tells whether the solver caches subproblems.
func (s *solver) cacheOn() bool { return s.cache != nil || s.shc != nil }

// cacheGet returns the cached entry of k, or nil.
func (s *solver) cacheGet(k cacheKey) *cacheVal {
	if s.shc == nil {
		return s.cache[k]
	}
	sh := &s.shc.shards[k.h1%cacheShards]
	sh.mu.Lock()
	v := sh.m[k]
	sh.mu.Unlock()
	return v
}

// cachePut stores v, what a search of k's subproblem found, merged with
// the entry stored meanwhile (by another worker): a good entry stays,
// otherwise the larger lower bound is kept.
func (s *solver) cachePut(k cacheKey, v *cacheVal) {
	m := s.cache
	if s.shc != nil {
		sh := &s.shc.shards[k.h1%cacheShards]
		sh.mu.Lock()
		defer sh.mu.Unlock()
		m = sh.m
	}
	old := m[k]
	if old == nil {
		s.stats.CacheStored++
	} else if old.good {
		return
	} else {
		v.lb = max(v.lb, old.lb)
		if !v.good {
			v.sol = old.sol
		}
	}
	m[k] = v
}
