package sparse

import (
	"hash/maphash"
	"math"
	"sync"
	"sync/atomic"

	"github.com/odtkit/odtkit/model"
)

// memoShards is the number of independently locked parts of a shared
// cache.
const memoShards = 64

// memo is the cache of solved branches. With one worker it is one map
// without locks; with several, memoShards maps each under its own lock,
// chosen by a hash of the key. An entry is the exact optimum of its
// branch (the search below a branch has no outside bound), so whichever
// worker stores it stores the same value.
type memo struct {
	locked bool
	seed   maphash.Seed
	shards []memoShard
}

type memoShard struct {
	mu sync.Mutex
	m  map[string]entry
	_  [40]byte // keep neighbouring locks off one cache line
}

func newMemo(locked bool) *memo {
	n := 1
	if locked {
		n = memoShards
	}
	c := &memo{locked: locked, seed: maphash.MakeSeed(), shards: make([]memoShard, n)}
	for i := range c.shards {
		c.shards[i].m = map[string]entry{}
	}
	return c
}

// get looks key up without copying it (a look-up by a converted []byte
// does not allocate, and a cache hit is the search's most frequent step).
func (c *memo) get(key []byte) (entry, bool) {
	if !c.locked {
		e, ok := c.shards[0].m[string(key)]
		return e, ok
	}
	sh := &c.shards[maphash.Bytes(c.seed, key)%memoShards]
	sh.mu.Lock()
	e, ok := sh.m[string(key)]
	sh.mu.Unlock()
	return e, ok
}

func (c *memo) put(key string, e entry) {
	sh := &c.shards[0]
	if c.locked { // maphash.String(s) = maphash.Bytes([]byte(s)): get's shard
		sh = &c.shards[maphash.String(c.seed, key)%memoShards]
	}
	if !c.locked {
		sh.m[key] = e
		return
	}
	sh.mu.Lock()
	sh.m[key] = e
	sh.mu.Unlock()
}

// len is the number of cached branches; call it when no worker runs.
func (c *memo) len() int {
	n := 0
	for i := range c.shards {
		n += len(c.shards[i].m)
	}
	return n
}

// rootItem is one candidate split of the root: a test and the budget of
// its low child, numbered in the sequential search's order.
type rootItem struct{ test, left int }

// solveRoot is solve for the root with s.cfg.Workers goroutines: the
// root's (test, budget) candidates are handed out in the sequential order
// from a shared counter; each worker solves its candidate's children with
// its own scratch and the shared cache, and offers the candidate to the
// shared best. Among candidates of equal cost the lowest position wins
// (the leaf before every split), which is the sequential search's choice,
// so the tree is the same for every worker count. A worker skips a
// candidate whose low child alone cannot beat the best, or tie it from a
// lower position.
func (s *solver) solveRoot(rows model.Bitset, depth, k int) entry {
	key := string(s.memoKey(rows, depth, k))
	class, cost := s.leaf(rows)
	best, bestPos := entry{cost: cost, test: -1, class: class}, -1
	if s.splittable(depth, k, cost) {
		var items []rootItem
		lo, hi := model.NewBitset(s.v.N), model.NewBitset(s.v.N)
		sub, n := full(depth-1), rows.Count()
		for t := range s.v.Tests {
			if s.children(rows, n, t, lo, hi) {
				for kl := max(0, k-1-sub); kl <= min(k-1, sub); kl++ {
					items = append(items, rootItem{t, kl})
				}
			}
		}
		var (
			next atomic.Int64
			mu   sync.Mutex
			wg   sync.WaitGroup
		)
		// beats reports whether a candidate at pos costing at least c may
		// still replace the best.
		beats := func(c float64, pos int) bool {
			mu.Lock()
			defer mu.Unlock()
			return c < best.cost || c == best.cost && pos < bestPos
		}
		work := func(w *solver) {
			defer wg.Done()
			lo, hi := model.NewBitset(w.v.N), model.NewBitset(w.v.N)
			for !w.stop() {
				pos := int(next.Add(1) - 1)
				if pos >= len(items) {
					return
				}
				it := items[pos]
				w.children(rows, n, it.test, lo, hi)
				l := w.solve(lo, depth-1, it.left)
				if math.IsInf(l.cost, 1) || !beats(l.cost+w.leafW, pos) {
					continue
				}
				r := w.solve(hi, depth-1, k-1-it.left)
				c := l.cost + r.cost
				mu.Lock()
				if c < best.cost || c == best.cost && pos < bestPos {
					best, bestPos = entry{cost: c, test: it.test, left: it.left, class: class}, pos
				}
				mu.Unlock()
			}
		}
		workers := make([]*solver, s.cfg.Workers-1)
		for i := range workers {
			workers[i] = s.newSolver()
			wg.Add(1)
			go work(workers[i])
		}
		wg.Add(1)
		work(s)
		wg.Wait()
		for _, w := range workers {
			s.reserved += w.reserved // released with s's when Solve returns
		}
	}
	s.account(len(key))
	s.memo.put(key, best)
	return best
}
