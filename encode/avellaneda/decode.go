package avellaneda

import (
	"context"
	"fmt"
	"io"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// Decode reads a SAT solver's answer for the exported formula.
func (DepthBackend) Decode(ctx context.Context, job *backend.Job, r io.Reader) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	return decode(ctx, job, r)
}

// Decode reads a SAT solver's answer for the exported formula.
func (SizeBackend) Decode(ctx context.Context, job *backend.Job, r io.Reader) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	return decode(ctx, job, r)
}

// decode reads a solver's answer: a satisfying assignment decodes into a
// tree of depth at most the formula's, consistent with the kept rows (a
// feasible result: the formula fixes one depth, so no optimality is
// claimed); an unsatisfiable answer is status infeasible: no tree of
// depth at most k (within the node limit, by Theorem 2) classifies the
// kept rows, so every such tree has depth at least k+1 and at least
// 2(k+1)+1 nodes, the lower bound of the depth and size objectives.
func decode(ctx context.Context, job *backend.Job, r io.Reader) (*model.Result, error) {
	name := "sat-depth"
	if job.Problem.Objective == model.MinSize {
		name = "sat-size"
	}
	k, err := formulaDepth(job, name)
	if err != nil {
		return nil, err
	}
	o, p, err := prepare(ctx, job)
	if err != nil {
		return nil, err
	}
	if err := admit(job, o, p, true); err != nil {
		return nil, err
	}
	maxNodes := formulaNodes(job.Problem.MaxNodes)
	e, err := Encode(ctx, p, "", k, maxNodes, o)
	if err != nil {
		return nil, err
	}
	st, m, err := sat.ParseComplete(r, e.CNF.NumVars)
	if err != nil {
		return nil, backend.Answer(backend.Invalidf("solver output: %w", err))
	}
	res := &model.Result{DroppedRows: p.Dropped, Stats: map[string]any{
		"solver_status": st.String(),
		"depth":         k,
		"distinct_rows": len(p.Reps),
		"tests_used":    len(p.Tests),
	}}
	switch st {
	case sat.Unsatisfiable:
		// The solver's word that no tree of depth k exists, nor of any
		// smaller depth (a shallower tree is one of depth k too): every
		// tree then has depth at least k+1 and 2(k+1)+1 nodes. Without
		// a proof (the proof option) odtkit cannot check it: a claim,
		// infeasible only when trusted.
		bound := float64(k + 1)
		if job.Problem.Objective == model.MinSize {
			bound = float64(2*(k+1) + 1)
		}
		if err := satjob.Unsatisfiable(ctx, job, e.CNF, res, bound); err != nil {
			return nil, err
		}
		return res, nil
	case sat.Unknown:
		res.Stop = model.StopNone // read to its end: no model
		return res, nil
	}
	g, err := decodeModel(e, p, m)
	if err != nil {
		return nil, backend.Answer(backend.Invalid(err))
	}
	res.Model = g
	res.Errors = g.Errors(job.Data)
	res.Objective = job.Problem.Evaluate(job.Data, g)
	res.Stop = model.StopNone
	return res, nil
}

// DecodeModel checks that a solver's model (indexed by variable)
// satisfies the formula built from the same arguments, and decodes it
// into a tree, which classifies every kept row correctly.
func DecodeModel(ctx context.Context, p *satjob.Examples, k, maxNodes int, opt Options, m []bool) (*model.Graph, error) {
	e, err := Encode(ctx, p, "", k, maxNodes, opt)
	if err != nil {
		return nil, err
	}
	return decodeModel(e, p, m)
}

// decodeModel is DecodeModel on the formula e.
func decodeModel(e *Encoding, p *satjob.Examples, m []bool) (*model.Graph, error) {
	if ok, i := e.CNF.Satisfies(m); !ok {
		return nil, fmt.Errorf("the solver's model falsifies clause %d %v of the formula (were depth, max nodes and options the same as for the export?)", i+1, e.CNF.Clause(i))
	}
	g := e.Decode(func(l sat.Lit) bool {
		v := l.Var()
		val := v < len(m) && m[v]
		return val == l.Sign()
	})
	d := p.View.Data
	for r := range d.Rows() {
		if p.Keep.Has(r) && g.Predict(d, r) != d.Labels[r] {
			return nil, fmt.Errorf("internal error: decoded tree misclassifies row %d", r+1)
		}
	}
	return g, nil
}

// Decode reads a model (value of each literal) as a decision tree over
// the view's data. Unlabelled leaves, and the branches no example slot
// (added or not) takes, are removed and their parents replaced by the
// other child (Theorem 2); a node whose two children are leaves of the
// same class becomes that leaf. The tree so classifies every example
// slot as the model's perfect tree does, with fewer leaves: DT_size's
// next bound starts lower, and DT_depth's tree has no branch the data
// never takes. Every example in the
// formula reaches the leaf its X variables name, so the tree classifies
// them all correctly. With no labelled leaf at all (no example added)
// the tree is a single leaf of the most frequent class.
func (e *Encoding) Decode(value func(sat.Lit) bool) *model.Graph {
	e.readTree(value)
	return e.treeGraph()
}

// treeNode is a node of the tree a model describes (readTree): a leaf
// with its class, or an internal node with its binary-view test and the
// indices of its children in Encoding.tree.
type treeNode struct {
	leaf   bool
	class  int
	test   int
	lo, hi int32
}

// readTree reads the perfect tree a model describes into e.tree, without
// its unlabelled leaves and with a node whose children are leaves of one
// class made that leaf (see Decode), its root at e.root. The incremental
// loop predicts the examples with it (predict) and builds a graph
// (treeGraph) only for the tree it returns: a graph per solver call would
// be allocated for trees thrown away (figures in docs/benchmarks.md,
// "Figures behind constants and defaults").
func (e *Encoding) readTree(value func(sat.Lit) bool) {
	k := e.Depth
	e.tree = e.tree[:0]
	var build func(q, lvl int) int32
	build = func(q, lvl int) int32 {
		if lvl == k {
			v := q - (1 << k)
			for a := range e.View.Class {
				if value(e.C.Lit(v, a)) {
					e.tree = append(e.tree, treeNode{leaf: true, class: a})
					return int32(len(e.tree) - 1)
				}
			}
			return -1
		}
		lo, hi := build(2*q, lvl+1), build(2*q+1, lvl+1)
		switch {
		case lo < 0:
			return hi
		case hi < 0:
			return lo
		case e.tree[lo].leaf && e.tree[hi].leaf && e.tree[lo].class == e.tree[hi].class:
			return lo
		}
		f := 0
		for j := range e.Tests {
			if value(e.F.Lit(q-1, j)) {
				f = j
				break
			}
		}
		e.tree = append(e.tree, treeNode{test: e.Tests[f], lo: lo, hi: hi})
		return int32(len(e.tree) - 1)
	}
	if e.root = build(1, 0); e.root < 0 {
		best := 0
		for c := range e.View.Class {
			if e.View.Class[c].Count() > e.View.Class[best].Count() {
				best = c
			}
		}
		e.tree = append(e.tree, treeNode{leaf: true, class: best})
		e.root = int32(len(e.tree) - 1)
	}
}

// predict is the class the tree read last (readTree) gives row r of the
// view's data.
func (e *Encoding) predict(r int) int {
	n := &e.tree[e.root]
	for !n.leaf {
		if e.View.True[n.test].Has(r) {
			n = &e.tree[n.hi]
		} else {
			n = &e.tree[n.lo]
		}
	}
	return n.class
}

// treeGraph is the tree read last (readTree) as a graph, without the
// branches no example slot (added or not) takes.
func (e *Encoding) treeGraph() *model.Graph {
	b := model.NewBuilder(e.View.Data, model.KindTree)
	// emit writes n's subtree without the branches no example slot of rows
	// takes; it reports the leaf class when the subtree is one leaf.
	var emit func(i int32, rows []int) (id int, leaf bool, class int)
	emit = func(i int32, rows []int) (int, bool, int) {
		n := e.tree[i]
		if n.leaf {
			return b.Leaf(n.class), true, n.class
		}
		var left, right []int
		for _, r := range rows {
			if e.View.True[n.test].Has(r) {
				right = append(right, r)
			} else {
				left = append(left, r)
			}
		}
		switch {
		case len(left) == 0:
			return emit(n.hi, right)
		case len(right) == 0:
			return emit(n.lo, left)
		}
		lo, lleaf, lc := emit(n.lo, left)
		hi, hleaf, hc := emit(n.hi, right)
		if lleaf && hleaf && lc == hc {
			return lo, true, lc
		}
		return b.Split(e.View.Tests[n.test], lo, hi), false, 0
	}
	id, _, _ := emit(e.root, e.rows)
	return b.Graph(id)
}
