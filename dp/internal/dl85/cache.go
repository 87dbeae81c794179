package dl85

import "github.com/odtkit/odtkit/backend"

// entry is the cache's record of a branch, keyed by its sorted literal
// list: the best tree found, its bounds and the search state.
type entry[T comparable] struct {
	err   float64 // error of tree (+Inf when none)
	lb    float64 // proven lower bound on the branch's optimum
	ub    float64 // upper bound the branch was last searched under
	tree  *Tree
	state T
	iter  int32
	exact bool // err is the branch's optimum
}

// childKey writes into dst the sorted literal list key ∪ {lit}.
func childKey(dst, key []byte, lit uint32) []byte {
	dst = dst[:0]
	i := 0
	for ; i+4 <= len(key); i += 4 {
		l := uint32(key[i])<<24 | uint32(key[i+1])<<16 | uint32(key[i+2])<<8 | uint32(key[i+3])
		if l > lit {
			break
		}
	}
	dst = append(dst, key[:i]...)
	dst = append(dst, byte(lit>>24), byte(lit>>16), byte(lit>>8), byte(lit))
	return append(dst, key[i:]...)
}

func (s *search[T]) cachedLB(key []byte) float64 {
	if s.cfg.NoCachedBounds {
		return 0
	}
	if s.sh != nil {
		e, _ := s.sh.get(key)
		return e.lb
	}
	if e, ok := s.cache[string(key)]; ok {
		return e.lb
	}
	return 0
}

// merge combines a new entry n of a branch with its old one (ok: there
// was one): the better bound, the better tree (the new one on a tie), and
// exact when the tree meets the bound.
func merge[T comparable](old entry[T], ok bool, n entry[T]) entry[T] {
	if ok {
		n.lb = max(n.lb, old.lb)
		if old.err < n.err {
			n.err, n.tree = old.err, old.tree
		}
	}
	if n.tree != nil && n.err <= n.lb {
		n.exact, n.lb = true, n.err
	}
	return n
}

// cacheStep is how far beyond its size the cache reserves in the
// Budget at a time: 1 MiB, or a 64th of a small cap.
func cacheStep(b *backend.Budget) int64 {
	return min(1<<20, max(4<<10, b.Limit()/64))
}

// store merges what was learned about a branch into the cache.
func (s *search[T]) store(key []byte, n entry[T]) {
	if s.sh != nil {
		s.sh.store(s, key, n)
		return
	}
	old, ok := s.cache[string(key)]
	s.cache[string(key)] = merge(old, ok, n)
	if ok {
		return
	}
	b := int64(len(key)) + entryOverhead
	s.bytes += b
	s.lvBytes[len(key)/4] += b
	s.peak = max(s.peak, s.bytes)
	if s.cfg.CacheBytes > 0 && s.bytes > s.cfg.CacheBytes {
		s.evict()
	}
	if s.cfg.Budget != nil && s.bytes > s.cacheRes {
		// Reserve in steps; on refusal evict, and stop when the cache
		// cannot even hold its current (evicted) size.
		step := s.bytes - s.cacheRes + cacheStep(s.cfg.Budget)
		if err := s.reserve(step, "dl85 cache"); err != nil {
			s.evict()
			if s.bytes > s.cacheRes {
				s.memoryStop(err)
			}
			return
		}
		s.cacheRes += step
	}
}

// evict drops the deepest levels of the cache until at most half the cap
// is used. Trees are held by pointer, so results already returned stay
// valid; evicted branches are only searched again.
func (s *search[T]) evict() {
	s.cache, s.bytes = evictLevels(s.cache, s.lvBytes, s.bytes, s.cfg.CacheBytes/2)
	s.evicted++
}

// evictLevels drops the deepest levels of cache m (lvBytes: the bytes of
// each level, updated; total: their sum) until at most target bytes
// (half the total when target is 0) remain, and returns the new map and
// total.
func evictLevels[T comparable](m map[string]entry[T], lvBytes []int64, total, target int64) (map[string]entry[T], int64) {
	if target == 0 {
		target = total / 2
	}
	keep := len(lvBytes) - 1
	for keep >= 0 && total > target {
		total -= lvBytes[keep]
		keep--
	}
	// keep levels 0..keep
	nc := make(map[string]entry[T], len(m)/2)
	for k, e := range m {
		if len(k)/4 <= keep {
			nc[k] = e
		}
	}
	for lv := keep + 1; lv < len(lvBytes); lv++ {
		lvBytes[lv] = 0
	}
	return nc, total
}
