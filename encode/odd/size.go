package odd

import (
	"fmt"
	"math"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/milpjob"
	"github.com/odtkit/odtkit/model"
)

// Bytes per entry of the estimate: a column and a row of milp.Model with
// their names, a non-zero (an int index and a float64 value), and the
// Encoding's index of a per-row variable, doubled for the garbage a
// collected heap holds between collections (HiGHS's own copy is
// milpjob.HiGHSBytes). Calibrated on the peak resident memory of exports
// of milp-odt on pima-indians-diabetes (docs/benchmarks.md, "Figures
// behind constants and defaults").
const (
	colBytes = 2 * 96
	rowBytes = 2 * 112
	nzBytes  = 2 * 16
)

// Estimate is the size of the MILP that Encode would build for the data
// and options, computed from the data's dimensions and the skeleton
// before anything is allocated: its columns, rows and non-zeros, and
// the bytes of the Go model (with solving: plus HiGHS's copy of it).
// The counts are exact up to the error cuts and the non-zero feature
// values (counted as if none were zero). A MILP whose counts exceed
// what HiGHS can index (2³¹−1) is refused with ErrInput.
func Estimate(d *model.Dataset, o Options, solving bool) (backend.Size, error) {
	var c backend.Counter
	n := int64(d.Rows())
	K := int64(max(d.NumClasses(), 2))
	var J int64
	for f, ft := range d.Features {
		switch {
		case o.Fair != nil && f == o.Fair.Column:
		case ft.Kind == model.Categorical && len(ft.Levels) == 2:
			J++
		case ft.Kind == model.Categorical:
			J += int64(len(ft.Levels))
		default:
			J++
		}
	}
	Dn := int64(len(o.Skeleton))
	var V int64
	for _, w := range o.Skeleton {
		V = c.Add(V, int64(max(w, 0)))
	}
	// Per side of a node: its allowed successors. Design rows and
	// non-zeros that do not grow with the rows.
	var y, fixedRows, fixedNZ int64
	first := 2
	if o.FirstLayerOrder {
		first = 1
	}
	for l, w64 := range o.Skeleton {
		w := int64(w64)
		next := int64(0)
		if l+1 < len(o.Skeleton) {
			next = int64(o.Skeleton[l+1])
			if o.Tree {
				next = 1
			}
		}
		side := c.Add(K, next) // arcs of one side of one node
		y = c.Add(y, c.Mul(c.Mul(2, w), side))
		succ := c.Add(K, next)
		if o.Tree && next > 0 {
			succ = c.Add(K, 2)
		}
		// (6) two rows per node; (8) one per successor; (11) one per
		// negative arc with up to all positive arcs.
		fixedRows = c.Add(fixedRows, c.Mul(w, c.Add(2, succ, side)))
		fixedNZ = c.Add(fixedNZ, c.Mul(w, c.Add(c.Mul(2, side+1), c.Mul(3, succ), c.Mul(side, side+2))))
		// (12) pairs of a layer, each with both nodes' in-arcs.
		if !o.NoSymmetryBreaking && l >= first {
			indeg := int64(1)
			if !o.Tree {
				indeg = c.Mul(2, int64(o.Skeleton[l-1]))
			}
			pairs := w / 2
			if !o.Tree {
				pairs = c.Mul(w, w-1) / 2
			}
			fixedRows = c.Add(fixedRows, pairs)
			fixedNZ = c.Add(fixedNZ, c.Mul(pairs, c.Mul(2, indeg)))
		}
	}
	// (7), and (15)–(16) for univariate splits.
	fixedRows = c.Add(fixedRows, V)
	fixedNZ = c.Add(fixedNZ, c.Mul(V, 2*K+2))
	if !o.Multivariate {
		fixedRows = c.Add(fixedRows, c.Mul(V, c.Add(1, c.Mul(2, J))))
		fixedNZ = c.Add(fixedNZ, c.Mul(V, c.Mul(5, J)))
	}
	// Design columns: d, y, a, b (and e).
	ab := c.Mul(V, J+1)
	if !o.Multivariate {
		ab = c.Add(ab, c.Mul(V, J))
	}
	design := c.Add(V, y, ab)
	if o.ErrorCuts && o.CountCut && !o.Multivariate && V > 1 {
		// The counting binaries, their order and link rows, two cuts.
		design = c.Add(design, V-1)
		fixedRows = c.Add(fixedRows, V+1)
		fixedNZ = c.Add(fixedNZ, c.Mul(6, V), c.Mul(2, c.Mul(n, K)))
	}
	// Per data row: λ, w, z (one per y), the terminal flows; rows 1–5,
	// 9–10, 13–14, 17; non-zeros: each z four times (its tail's and its
	// head's flow rows, its arc row with the y), each w in rows 1–5 and
	// 13–14, the hyperplanes' a and b in 13–14 (and the margins).
	perCols := c.Add(Dn, c.Mul(2, V), y, K)
	perRows := c.Add(c.Mul(5, V), c.Mul(2, Dn), K, y)
	perNZ := c.Add(c.Mul(4, y), c.Mul(10, V), c.Mul(2, Dn), K, c.Mul(c.Mul(2, V), J+1))
	if !o.Multivariate {
		perNZ = c.Add(perNZ, c.Mul(V, J))
	}
	s := backend.Size{
		Variables:   c.Add(design, c.Mul(n, perCols)),
		Constraints: c.Add(fixedRows, c.Mul(n, perRows), 3),
		NonZeros:    c.Add(fixedNZ, c.Mul(n, perNZ), c.Mul(3, c.Mul(n, K))),
	}
	// The Encoding's indices of the per-row variables, the scaled data.
	index := c.Mul(16, c.Add(c.Mul(n, perCols), c.Mul(n, c.Mul(2, c.Mul(V, 3)))))
	s.Bytes = c.Add(c.Mul(colBytes, s.Variables), c.Mul(rowBytes, s.Constraints), c.Mul(nzBytes, s.NonZeros),
		index, c.Mul(16, c.Mul(n, J)))
	if solving {
		s.Bytes = c.Add(s.Bytes, milpjob.HiGHSBytes(&c, s.Variables, s.Constraints, s.NonZeros))
	}
	if c.Over {
		return s, fmt.Errorf("%w: the MILP of a skeleton of %d layers on %d rows is too large to be counted", ErrInput, len(o.Skeleton), n)
	}
	if s.Variables > math.MaxInt32 || s.Constraints > math.MaxInt32 || s.NonZeros > math.MaxInt32 {
		return s, fmt.Errorf("%w: the MILP would have %s, more than a MILP solver can index (2^31-1 of each)", ErrInput, s)
	}
	return s, nil
}

// Size estimates the job's MILP (see Estimate), for solving it.
func (DiagramBackend) Size(job *backend.Job) (backend.Size, error) { return jobSize(job, false, true) }

// Size estimates the job's MILP (see Estimate), for solving it.
func (TreeBackend) Size(job *backend.Job) (backend.Size, error) { return jobSize(job, true, true) }

func jobSize(job *backend.Job, tree, solving bool) (backend.Size, error) {
	if (tree && job.Problem.Objective == model.MinError && job.Problem.MaxDepth == 0) || (solving && job.Data.NumClasses() == 1) {
		return backend.Size{}, nil // the single leaf, no MILP
	}
	o, err := JobOptions(job, tree)
	if err != nil {
		return backend.Size{}, err
	}
	if err := o.check(job.Data); err != nil {
		return backend.Size{}, backend.Invalid(err)
	}
	s, err := Estimate(job.Data, o, solving)
	if err != nil {
		return s, backend.Invalid(err)
	}
	return s, nil
}

// admit estimates the job's MILP and refuses it, before building it,
// when it cannot fit the job's memory cap; otherwise it accounts the
// estimate in the job's budget until release is called.
func admit(job *backend.Job, tree, solving bool) (s backend.Size, release func(), err error) {
	s, err = jobSize(job, tree, solving)
	if err != nil {
		return s, func() {}, err
	}
	name := "milp-odd"
	if tree {
		name = "milp-odt"
	}
	if err := job.Budget.Admit(s, "the "+name+" MILP"); err != nil {
		return s, func() {}, err
	}
	if err := job.Budget.Reserve(s.Bytes, "the "+name+" MILP"); err != nil {
		return s, func() {}, err
	}
	return s, func() { job.Budget.Release(s.Bytes) }, nil
}
