package cpodt

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// Goal is what the model minimises: the value of its enum GOAL.
type Goal string

// The goals of the model.
const (
	GoalError Goal = "Error"
	GoalDepth Goal = "Depth"
	GoalSize  Goal = "Size"
)

// goalOf is the model's goal for an objective.
func goalOf(o model.Objective) Goal {
	switch o {
	case model.MinDepth:
		return GoalDepth
	case model.MinSize:
		return GoalSize
	}
	return GoalError
}

// Group is a set of rows with equal values on every kept test: every
// tree sends them to the same leaf.
type Group struct {
	// Rep is the group's first row.
	Rep int
	// Weight is the total row weight of each class in the group.
	Weight []int64
	// Rows is the number of rows (for the minimum support).
	Rows int
}

// Label is the group's heaviest class (the first of equal ones).
func (g Group) Label() int {
	best := 0
	for c, w := range g.Weight {
		if w > g.Weight[best] {
			best = c
		}
	}
	return best
}

// Instance is the model's data: the tests, the groups of rows, the
// depth of the complete tree and the objective's integer units.
type Instance struct {
	View  *model.BinaryView
	Tests []int // kept tests (indices into View.Tests): no duplicate, complement or constant
	// Groups are the rows grouped by their values on the kept tests, in
	// order of first row.
	Groups  []Group
	Classes int
	Goal    Goal
	// Depth is K, the depth of the complete tree.
	Depth int
	// MinSupport and MaxTests are the problem's limits (1, 0: none).
	MinSupport, MaxTests int
	// ErrorUnit and LeafUnit make the Error goal's objective an integer:
	// ErrorUnit·errors + LeafUnit·leaves is (errors/total + λ·leaves)
	// times total·ErrorUnit.
	ErrorUnit, LeafUnit int64
	// Upper is the objective of a known tree, or -1.
	Upper int64
	// Lower is the least objective the solver is asked for, or -1: the
	// depth of a tree (or its objective at that depth) when every
	// shallower one is refuted.
	Lower int64
	// Total is the total row weight, Floor the weight no tree gets
	// right (in each group, the weight outside its heaviest class).
	Total, Floor int64
}

// Internal is N, the number of internal positions of the complete tree.
func (in *Instance) Internal() int { return 1<<in.Depth - 1 }

// Complete says whether every internal position must test: the Error
// goal without a leaf cost or a minimum support (see the model).
func (in *Instance) Complete() bool {
	return in.Goal == GoalError && in.LeafUnit == 0 && in.MinSupport <= 1
}

// Value is the group's value on kept test t.
func (in *Instance) Value(g, t int) bool { return in.View.Value(in.Tests[t], in.Groups[g].Rep) }

// maxInt is the largest value the model's integers may take: Gecode's
// integer variables stop at 2^31 - 2.
const maxInt = 1<<31 - 2

// prepare builds the model's data for the job's problem at depth k:
// the binary view within a share of the memory cap, its kept tests, the
// groups. For Depth and Size, identical rows of different classes are
// a bad request (no tree makes no error).
func prepare(ctx context.Context, job *backend.Job, k int) (*Instance, error) {
	d, p := job.Data, job.Problem
	if r, ok := d.FractionalWeight(); ok {
		return nil, backend.Invalidf("%s: cp-odt takes whole-number row weights only (row %d has weight %v)", d.Where(r), r+1, d.Weights[r])
	}
	v, err := model.BinarizeBudget(ctx, d, max(job.Budget.Limit()/4, 0))
	if err != nil {
		return nil, err
	}
	kept, err := v.KeptTests(ctx)
	if err != nil {
		return nil, err
	}
	in := &Instance{View: v, Classes: d.NumClasses(), Goal: goalOf(p.Objective), Depth: k,
		MinSupport: max(p.MinSupport, 1), MaxTests: p.MaxNodes, ErrorUnit: 1, Upper: -1, Lower: -1, Tests: kept}
	group, reps, err := v.Groups(ctx, in.Tests, nil)
	if err != nil {
		return nil, err
	}
	in.Groups = make([]Group, len(reps))
	for g, r := range reps {
		in.Groups[g] = Group{Rep: r, Weight: make([]int64, in.Classes)}
	}
	for r, g := range group {
		w := int64(math.Round(d.Weight(r)))
		in.Groups[g].Weight[d.Labels[r]] += w
		in.Groups[g].Rows++
		in.Total += w
	}
	for gi, g := range in.Groups {
		in.Floor += g.total() - g.Weight[g.Label()]
		if in.Goal != GoalError && g.total() != g.Weight[g.Label()] {
			return nil, backend.Invalidf("%s and %s: rows with equal tests and different labels; no tree makes no error (cp-odt solves %s on consistent data only)",
				d.Where(g.Rep), d.Where(in.other(gi)), p.Objective)
		}
	}
	if p.LeafCost > 0 {
		if in.ErrorUnit, in.LeafUnit, err = leafUnits(p.LeafCost, in.Total); err != nil {
			return nil, err
		}
	}
	if err := in.fits(); err != nil {
		return nil, err
	}
	return in, nil
}

// other is a row of group g whose label is not the group's first row's.
func (in *Instance) other(g int) int {
	d := in.View.Data
	rep := in.Groups[g].Rep
	for r := range d.Rows() {
		if d.Labels[r] != d.Labels[rep] && in.sameGroup(r, rep) {
			return r
		}
	}
	return rep
}

func (in *Instance) sameGroup(a, b int) bool {
	for _, t := range in.Tests {
		if in.View.Value(t, a) != in.View.Value(t, b) {
			return false
		}
	}
	return true
}

func (g Group) total() int64 {
	var s int64
	for _, w := range g.Weight {
		s += w
	}
	return s
}

// leafUnits writes λ·leaves + errors/total in integer units: λ is read
// as the decimal it prints as (0.02 = 1/50 exactly), so that with λ =
// a/b the objective times total·b is b·errors + a·total·leaves.
func leafUnits(lambda float64, total int64) (errUnit, leafUnit int64, err error) {
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(lambda, 'g', -1, 64))
	if !ok {
		return 0, 0, backend.Invalidf("cp-odt: leaf cost %v is not a decimal number", lambda)
	}
	b := r.Denom()
	a := new(big.Int).Mul(r.Num(), big.NewInt(total))
	if !b.IsInt64() || !a.IsInt64() || b.Int64() > maxInt || a.Int64() > maxInt {
		return 0, 0, backend.Invalidf("cp-odt: leaf cost %v with a total row weight of %d needs integers beyond the solver's 2^31 (give the leaf cost with fewer digits)", lambda, total)
	}
	return b.Int64(), a.Int64(), nil
}

// fits refuses an instance whose objective would pass the solver's
// integers.
func (in *Instance) fits() error {
	if in.Depth > 24 {
		return backend.Invalidf("cp-odt: a complete tree of depth %d has more positions than the model can hold", in.Depth)
	}
	hi := new(big.Int).Mul(big.NewInt(in.ErrorUnit), big.NewInt(in.Total))
	hi.Add(hi, new(big.Int).Mul(big.NewInt(in.LeafUnit), big.NewInt(int64(in.Internal()+1))))
	if hi.Cmp(big.NewInt(maxInt)) > 0 || in.Total > maxInt {
		return backend.Invalidf("cp-odt: the objective may reach %s, beyond the solver's integers (2^31)", hi)
	}
	return nil
}

// lookaheadBudget caps the literals of the lookahead constraints the
// model states (see Lookahead): MiniZinc flattens them at about 20 µs
// each (monk2 at depth 6: 327k, 6.5 s), so a few seconds at most.
const lookaheadBudget = 1 << 18

// Lookahead is the number of levels above the leaves whose positions the
// model checks for a consistent subtree before searching below them
// (Depth and Size; 0 for Error): 2 when the two-level check, about
// 2^(K−2)·F²·G literals, fits lookaheadBudget, else 1 when the one-level
// check, about 2^(K−1)·F·G, does.
func (in *Instance) Lookahead() int {
	if in.Goal == GoalError || in.Depth < 1 {
		return 0
	}
	f, g := int64(len(in.Tests)), int64(len(in.Groups))
	if in.Depth >= 2 && int64(1)<<(in.Depth-2)*f*f*g <= lookaheadBudget {
		return 2
	}
	if int64(1)<<(in.Depth-1)*f*g <= lookaheadBudget {
		return 1
	}
	return 0
}

// Objective is the model's objective of a tree given by its internal
// nodes (tests), depth and errors (weighted), in the model's units.
func (in *Instance) Objective(tests, depth int, errors int64) int64 {
	switch in.Goal {
	case GoalDepth:
		return int64(depth)
	case GoalSize:
		return int64(depth)*int64(2*in.Internal()+2) + int64(2*tests+1)
	}
	return in.ErrorUnit*errors + in.LeafUnit*int64(tests+1)
}

// String describes the instance for messages.
func (in *Instance) String() string {
	return fmt.Sprintf("%s goal, depth %d, %d tests, %d groups, %d classes", in.Goal, in.Depth, len(in.Tests), len(in.Groups), in.Classes)
}
