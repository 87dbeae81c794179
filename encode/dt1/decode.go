package dt1

import (
	"context"
	"fmt"
	"io"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// Decode reads a model (the value of each literal) as a decision tree
// over the view's data: node 1 is the root, an internal node tests the
// feature its a variable names, its left child (test false) is the j of
// its l variable and its right child (test true) j+1; a leaf's class is
// its c variable's. Branches no example takes are removed (their parent
// replaced by the other child) and a node whose children are leaves of
// one class becomes that leaf, so the tree may have fewer than N nodes;
// it classifies every example as the model's tree does.
func (e *Encoding) Decode(value func(sat.Lit) bool) (*model.Graph, error) {
	n := e.N
	b := model.NewBuilder(e.View.Data, model.KindTree)
	var emit func(i int, rows []int, depth int) (id int, leaf bool, class int, err error)
	emit = func(i int, rows []int, depth int) (int, bool, int, error) {
		if depth > n {
			return 0, false, 0, fmt.Errorf("node %d: the model's child variables make a cycle", i)
		}
		if value(e.v[i]) {
			c := e.leafClass(i, value)
			return b.Leaf(c), true, c, nil
		}
		f := -1
		for r, x := range e.a[i] {
			if value(x) {
				f = r
				break
			}
		}
		left := -1
		for j, x := range e.l[i] {
			if x != 0 && value(x) {
				left = j
				break
			}
		}
		if f < 0 || left < 0 {
			return 0, false, 0, fmt.Errorf("internal node %d has no feature or no child in the model", i)
		}
		t := e.Tests[f]
		var lo, hi []int
		for _, r := range rows {
			if e.View.True[t].Has(r) {
				hi = append(hi, r)
			} else {
				lo = append(lo, r)
			}
		}
		switch {
		case len(lo) == 0 && len(rows) > 0:
			return emit(left+1, hi, depth+1)
		case len(hi) == 0 && len(rows) > 0:
			return emit(left, lo, depth+1)
		}
		l, lleaf, lc, err := emit(left, lo, depth+1)
		if err != nil {
			return 0, false, 0, err
		}
		h, hleaf, hc, err := emit(left+1, hi, depth+1)
		if err != nil {
			return 0, false, 0, err
		}
		if lleaf && hleaf && lc == hc {
			return l, true, lc, nil
		}
		return b.Split(e.View.Tests[t], l, h), false, 0, nil
	}
	id, _, _, err := emit(1, e.Rows, 0)
	if err != nil {
		return nil, err
	}
	return b.Graph(id), nil
}

// leafClass is the class of leaf i in the model.
func (e *Encoding) leafClass(i int, value func(sat.Lit) bool) int {
	if e.nc <= 2 {
		if e.nc == 2 && value(e.c[i][0]) {
			return 1
		}
		return 0
	}
	for k, x := range e.c[i] {
		if value(x) {
			return k
		}
	}
	return 0
}

// decodeChecked decodes a model and checks that the tree classifies every
// example correctly.
func (e *Encoding) decodeChecked(value func(sat.Lit) bool) (*model.Graph, error) {
	g, err := e.Decode(value)
	if err != nil {
		return nil, fmt.Errorf("internal error: %w", err)
	}
	d := e.View.Data
	for _, r := range e.Rows {
		if g.Predict(d, r) != d.Labels[r] {
			return nil, fmt.Errorf("internal error: the tree of a model of %d nodes misclassifies row %d", e.N, r+1)
		}
	}
	return g, nil
}

// Decode reads a SAT solver's answer for the exported formula.
func (Backend) Decode(ctx context.Context, job *backend.Job, r io.Reader) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	n, err := exportNodes(job)
	if err != nil {
		return nil, err
	}
	o, p, err := prepare(ctx, job)
	if err != nil {
		return nil, err
	}
	if err := admit(job, o, p, n); err != nil {
		return nil, err
	}
	e, err := Encode(ctx, job.Budget, p.View, p.Tests, p.Reps, n, o)
	if err != nil {
		return nil, err
	}
	defer e.Release()
	st, m, err := sat.ParseComplete(r, e.CNF.NumVars)
	if err != nil {
		return nil, backend.Answer(backend.Invalidf("solver output: %w", err))
	}
	res = &model.Result{DroppedRows: p.Dropped, Stats: map[string]any{
		"solver_status": st.String(),
		"nodes":         n,
		"distinct_rows": len(p.Reps),
		"tests_used":    len(p.Tests),
	}}
	switch st {
	case sat.Unsatisfiable:
		// The solver's word that no tree of exactly n nodes exists; by
		// the lemma of MinNodes no smaller one does either, so every
		// consistent tree has at least n+2 nodes. Without a proof (the
		// proof option) odtkit cannot check it: a claim, infeasible only
		// when trusted.
		if err := satjob.Unsatisfiable(ctx, job, e.CNF, res, float64(n+2)); err != nil {
			return nil, err
		}
		return res, nil
	case sat.Unknown:
		res.Stop = model.StopNone // read to its end: no model
		return res, nil
	}
	if ok, i := e.CNF.Satisfies(m); !ok {
		return nil, backend.Answer(backend.Invalidf("the solver's model falsifies clause %d %v of the formula (were --max-nodes and the options the same as for the export?)", i+1, e.CNF.Clause(i)))
	}
	g, err := e.decodeChecked(func(l sat.Lit) bool {
		v := l.Var()
		val := v < len(m) && m[v]
		return val == l.Sign()
	})
	if err != nil {
		return nil, backend.Answer(backend.Invalid(err))
	}
	res.Model = g
	res.Errors = g.Errors(job.Data)
	res.Objective = job.Problem.Evaluate(job.Data, g)
	res.LowerBound = float64(min(leastNodes(p), g.Size()))
	res.Stop = model.StopNone
	return res, nil
}
