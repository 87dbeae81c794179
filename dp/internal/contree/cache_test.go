package contree

import (
	"sync"
	"testing"
)

// A store merges with the entry already there: a good entry stays, a
// bound-only one keeps the larger lower bound; new keys are counted.
func TestCachePutMerges(t *testing.T) {
	for _, shared := range []bool{false, true} {
		s := &solver{}
		if shared {
			s.shc = newSharedCache(nil)
		} else {
			s.cache = map[cacheKey]*cacheVal{}
		}
		k := cacheKey{h1: 7, h2: 9, n: 10, depth: 2}
		if s.cacheGet(k) != nil {
			t.Fatalf("shared %v: an entry in an empty cache", shared)
		}
		s.cachePut(k, &cacheVal{lb: 5})
		s.cachePut(k, &cacheVal{lb: 3}) // a weaker bound found later
		if e := s.cacheGet(k); e.lb != 5 || e.good {
			t.Fatalf("shared %v: lb %d good %v after bounds 5 and 3", shared, e.lb, e.good)
		}
		sol := &Node{Leaf: true, Errors: 6}
		s.cachePut(k, &cacheVal{lb: 6, sol: sol, good: true})
		s.cachePut(k, &cacheVal{lb: 4}) // a bound-only result stored after the solution
		if e := s.cacheGet(k); e.lb != 6 || !e.good || e.sol != sol {
			t.Fatalf("shared %v: lb %d good %v sol %v after the solution", shared, e.lb, e.good, e.sol)
		}
		if s.stats.CacheStored != 1 {
			t.Fatalf("shared %v: %d entries counted, want 1", shared, s.stats.CacheStored)
		}
	}
}

// The shared cache starts with the sequential cache's entries and takes
// concurrent stores and loads (run with -race).
func TestSharedCacheConcurrent(t *testing.T) {
	seed := map[cacheKey]*cacheVal{{h1: 1, depth: 2}: {lb: 1}}
	c := newSharedCache(seed)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &solver{shc: c}
			for i := range 1000 {
				k := cacheKey{h1: uint64(i % 50), depth: 2}
				s.cachePut(k, &cacheVal{lb: w + i%7})
				if e := s.cacheGet(k); e == nil || e.lb < w+i%7 {
					t.Errorf("worker %d: entry %v after storing bound %d", w, e, w+i%7)
					return
				}
			}
		}()
	}
	wg.Wait()
	s := &solver{shc: c}
	if e := s.cacheGet(cacheKey{h1: 1, depth: 2}); e == nil || e.lb < 1 {
		t.Fatalf("seeded entry lost: %v", e)
	}
}
