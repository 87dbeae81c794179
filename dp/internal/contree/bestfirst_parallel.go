package contree

import (
	"container/heap"
	"sync"
)

// The root's best-first search with several workers (depth 3 and more,
// MaxGap 0, no gap, Config.DepthFirstRoot false). The root's open
// threshold intervals wait in one queue ordered by lower bound, as in the
// one-worker search (bestfirst.go); each worker takes the interval of
// least bound whose feature no other worker is stepping (a feature's
// computed thresholds and zero-error extremes are changed by its steps),
// steps it with its own scratch and the shared cache, and puts the halves
// back. Candidates are offered to the shared incumbent with the keys of
// the parallel search (parallel.go), so the tree found does not depend on
// the workers' timing: the incumbent is the candidate of least key among
// the best, every threshold whose key is below the incumbent's is searched
// for one error more, and the search runs until the queue is empty.
//
// The root's lower bound is the least of the incumbent's errors, of the
// queue's least bound, of the bounds of the intervals being stepped
// (taken out of the queue, not settled yet) and of floor (what was
// settled, as in bestfirst.go). A settled threshold or pruned interval of
// a key below the incumbent's may have a bound one above the incumbent's
// errors; the least with the incumbent's errors is unaffected. Every root
// alternative is at every moment in one of these sets, so the least is a
// lower bound on the optimum, reported each time it rises.

// parRoot is the state of a parallel best-first root search, guarded by mu.
type parRoot struct {
	mu       sync.Mutex
	wake     *sync.Cond
	q        rootQueue
	seq      int64
	feats    []*featSearch
	fq       []int  // per feature, its position in the search order (its key)
	busy     []bool // per feature: a worker is stepping one of its intervals
	inflight []int  // per worker, the bound of the interval it steps (noBound: none)
	floor    int
	last     int // the highest bound reported
	over     bool
}

func (r *parRoot) add(fi int32, iv interval, lb int) {
	r.seq++
	heap.Push(&r.q, rootItem{lb: lb, seq: r.seq, fi: fi, iv: iv})
}

// bound is the root's lower bound (see above); inc is the incumbent's errors.
func (r *parRoot) bound(inc int) int {
	lb := min(inc, r.floor)
	if r.q.Len() > 0 {
		lb = min(lb, r.q[0].lb)
	}
	for _, x := range r.inflight {
		lb = min(lb, x)
	}
	return lb
}

// report reports the root's bound when it rose.
func (r *parRoot) report(s *solver, inc int) {
	if lb := r.bound(inc); lb > r.last {
		r.last = lb
		if s.cfg.OnBound != nil {
			s.cfg.OnBound(lb)
		}
	}
}

// take returns worker wi's next interval, marking its feature busy and
// its bound in flight; false when the search is over (the queue is empty
// and no interval is being stepped) or halted. It waits while every
// queued interval belongs to a busy feature.
func (r *parRoot) take(p *shared, wi int) (rootItem, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var skipped []rootItem
	for {
		if r.over || p.halted.Load() {
			return rootItem{}, false
		}
		it, found := r.pop(&skipped)
		for _, x := range skipped {
			heap.Push(&r.q, x)
		}
		skipped = skipped[:0]
		if found {
			r.busy[it.fi] = true
			r.inflight[wi] = it.lb
			return it, true
		}
		stepping := false
		for _, x := range r.inflight {
			stepping = stepping || x != noBound
		}
		if !stepping && r.q.Len() == 0 {
			r.over = true
			r.wake.Broadcast()
			return rootItem{}, false
		}
		r.wake.Wait()
	}
}

// pop takes the queued interval of least bound whose feature is not
// busy, appending those of busy features to skipped; false when there is
// none.
func (r *parRoot) pop(skipped *[]rootItem) (rootItem, bool) {
	for r.q.Len() > 0 {
		it := heap.Pop(&r.q).(rootItem)
		if r.busy[it.fi] {
			*skipped = append(*skipped, it)
			continue
		}
		if lb := r.feats[it.fi].ivLB(it.iv); lb == noBound {
			continue
		} else if lb > it.lb {
			r.add(it.fi, it.iv, lb) // the zero-error extremes or newer neighbours raised it
			continue
		}
		return it, true
	}
	return rootItem{}, false
}

// parallelBestFirst runs the root's best-first search with cfg.Workers
// workers and returns Solve's result; start is the leaf or the seed tree.
func (s *solver) parallelBestFirst(in Input, root *view, leaf, start *Node) Result {
	workers, d := s.cfg.Workers, s.cfg.MaxDepth
	p := &shared{onImpr: s.onImpr, workers: workers}
	if s.cache != nil {
		p.cache = newSharedCache(s.cache)
	}
	p.wake = sync.NewCond(&p.qmu)
	p.inc.Store(&incumbent{errors: start.Errors, key: 0, tree: start})
	r := &parRoot{floor: noBound, last: -1, inflight: make([]int, workers)}
	r.wake = sync.NewCond(&r.mu)
	for i := range r.inflight {
		r.inflight[i] = noBound
	}
	ls := s.level(0)
	s.featureOrder(root, ls, s.natural(true))
	for q, f := range ls.order {
		col := root.cols[f]
		cum, m := thresholds(col, nil)
		if m == 0 {
			continue
		}
		r.feats = append(r.feats, &featSearch{f: f, col: col, cum: cum, m: m, mr: int32(m - 1), firstCut: ls.first[f]})
		r.fq = append(r.fq, q)
		r.busy = append(r.busy, false)
		r.add(int32(len(r.feats)-1), interval{i: 0, j: int32(m - 1), u: -1, v: -1}, 0)
	}
	r.mu.Lock()
	r.report(s, start.Errors)
	r.mu.Unlock()
	ws := make([]*solver, workers)
	var wg sync.WaitGroup
	for wi := range ws {
		w := s.worker(p)
		ws[wi] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { s.cfg.Budget.Release(w.held); w.held = 0 }()
			wls := w.level(0)
			var halves []interval
			for !w.stop {
				it, ok := r.take(p, wi)
				if !ok {
					break
				}
				fs := r.feats[it.fi]
				if w.check() {
					r.mu.Lock()
					heap.Push(&r.q, it) // still open
					r.busy[it.fi], r.inflight[wi] = false, noBound
					r.mu.Unlock()
					break
				}
				st := &branchState{ub: leaf.Errors + 1, best: leaf, par: p, q: r.fq[it.fi], isRoot: true, tight: true}
				halves = halves[:0]
				o := w.step(root, d, fs, it.iv, st, wls, func(iv interval) { halves = append(halves, iv) })
				r.mu.Lock()
				if w.stop {
					heap.Push(&r.q, it) // not settled
				} else {
					// Whatever lies in the interval keeps its bound it.lb,
					// so the root's bound never falls.
					for _, iv := range halves {
						if lb := fs.ivLB(iv); lb != noBound {
							r.add(it.fi, iv, max(lb, it.lb))
						}
					}
					if o.pruned {
						r.floor = min(r.floor, max(o.prune, it.lb))
					}
					if o.computed {
						r.floor = min(r.floor, max(o.lb, it.lb))
					}
				}
				r.busy[it.fi], r.inflight[wi] = false, noBound
				r.report(s, p.inc.Load().errors)
				r.wake.Broadcast()
				r.mu.Unlock()
			}
			if w.stop {
				p.halt(w.cause)
				r.mu.Lock()
				r.wake.Broadcast()
				r.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	stopped := false
	for _, w := range ws {
		s.stats.add(w.stats)
		stopped = stopped || w.stop
	}
	inc := p.inc.Load()
	if !stopped {
		r.floor, r.q = min(r.floor, inc.errors), r.q[:0] // every alternative is settled
	}
	r.report(s, inc.errors)
	return s.rootResult(ws, p, root, d, stopped, max(r.bound(inc.errors), s.irreducible(in, root)))
}
