package cpodt

import (
	"math/bits"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// Bytes per flattened variable and constraint, as MiniZinc and Gecode
// hold them (measured on the conformance data: a few hundred bytes each),
// and the memory both take before any model (the standard library's
// declarations, the solver).
const (
	bytesPerItem = 512
	baseBytes    = 64 << 20
)

// Size estimates the model of the job (Estimate).
func (Backend) Size(job *backend.Job) (backend.Size, error) {
	return Estimate(job.Data, job.Problem)
}

// Estimate is the size of the model of problem p on d, counted before
// the data is grouped: at most one group per row, the binary view's tests (one per distinct
// value of a column), the complete tree of the problem's depth (for
// min-depth and min-size without a depth limit, about log2(rows)+2:
// the greedy tree's depth is not known yet). The routing takes G·K
// element constraints over F+1 values, the counts L·C loads over G
// items.
func Estimate(d *model.Dataset, p model.Problem) (backend.Size, error) {
	g := int64(d.Rows())
	f := int64(testCount(d))
	k, capped := p.DepthLimit()
	if p.Objective != model.MinError {
		est := bits.Len(uint(d.Rows())) + 2
		if !capped || k > est {
			k = est
		}
		k = min(k, int(f))
	}
	if k > 24 {
		return backend.Size{}, backend.Invalidf("cp-odt: a complete tree of depth %d has more positions than the model can hold", k)
	}
	var c backend.Counter
	n := int64(1)<<k - 1
	l := n + 1
	classes := int64(d.NumClasses())
	s := backend.Size{
		Variables:   c.Add(n, l, c.Mul(g, int64(k+1)), c.Mul(l, classes)),
		Constraints: c.Add(c.Mul(g, int64(2*k)), n, classes, c.Mul(l, classes)),
		NonZeros:    c.Add(c.Mul(c.Mul(g, int64(k)), f+1), c.Mul(c.Mul(l, classes), g)),
	}
	s.Bytes = c.Add(baseBytes, c.Mul(c.Add(s.Variables, s.Constraints), bytesPerItem), c.Mul(s.NonZeros, 8))
	return s, nil
}

// testCount is the number of tests of the binary view: per numeric
// column its distinct values less one, per categorical column its
// levels (one for two).
func testCount(d *model.Dataset) int {
	n := 0
	for _, f := range d.Features {
		seen := map[float64]bool{}
		for _, v := range f.Values {
			seen[v] = true
		}
		k := len(seen)
		switch {
		case k <= 1:
		case f.Kind == model.Categorical && k == 2:
			n++
		case f.Kind == model.Categorical:
			n += k
		default:
			n += k - 1
		}
	}
	return n
}
