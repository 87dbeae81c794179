// Package learn runs learning protocols over any solver: a train /
// validation / test split, stratified cross-validation, and tuning of the
// problem's parameters over a grid (chosen on validation rows or inner
// folds, then refitted on the training and validation rows together).
//
// The solve step is a function value (SolveFunc), so the package depends
// on the model layer only; the odt command passes odtkit.Solve. Every
// protocol is deterministic for its seed: the splits come from
// model.StratifiedSplit and model.StratifiedFolds, ties between grid
// points go to the earlier one in grid order.
package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/odtkit/odtkit/model"
)

// SolveFunc learns a model of d for problem p.
type SolveFunc func(ctx context.Context, d *model.Dataset, p model.Problem) (*model.Result, error)

// Balanced wraps solve so that it trains with class-balanced row weights
// (model.BalancedWeights of the data it is given, computed on the
// training rows only); d itself is not changed.
func Balanced(solve SolveFunc) SolveFunc {
	return func(ctx context.Context, d *model.Dataset, p model.Problem) (*model.Result, error) {
		w := *d
		w.Weights = model.BalancedWeights(d)
		return solve(ctx, &w, p)
	}
}

// Grid lists values of the problem's parameters to tune over. An empty
// list keeps the base problem's value.
type Grid struct {
	Depths      []int
	MinSupports []int
	Alphas      []float64
	Skeletons   [][]int
	// LeafCosts are values of Problem.LeafCost (the sparse error objective).
	LeafCosts []float64
}

// Problems expands the grid over base: every combination, in the order
// skeleton, depth, min support, leaf cost, alpha (the last varying
// fastest).
func (g Grid) Problems(base model.Problem) []model.Problem {
	out := []model.Problem{base}
	expand := func(n int, set func(p *model.Problem, i int)) {
		if n == 0 {
			return
		}
		var next []model.Problem
		for _, p := range out {
			for i := range n {
				q := p
				set(&q, i)
				next = append(next, q)
			}
		}
		out = next
	}
	expand(len(g.Skeletons), func(p *model.Problem, i int) { p.Skeleton = slices.Clone(g.Skeletons[i]) })
	expand(len(g.Depths), func(p *model.Problem, i int) { p.MaxDepth = g.Depths[i] })
	expand(len(g.MinSupports), func(p *model.Problem, i int) { p.MinSupport = g.MinSupports[i] })
	expand(len(g.LeafCosts), func(p *model.Problem, i int) { p.LeafCost = g.LeafCosts[i] })
	expand(len(g.Alphas), func(p *model.Problem, i int) { p.Alpha = g.Alphas[i] })
	return out
}

// Options tune a protocol.
type Options struct {
	// BalancedScore ranks grid points by balanced accuracy instead of
	// accuracy.
	BalancedScore bool
	// InnerFolds is the number of inner folds used to tune when there are
	// no validation rows (default 3).
	InnerFolds int
	// Seed seeds the inner folds.
	Seed int64
}

func (o Options) score(ev model.Evaluation) float64 {
	if o.BalancedScore {
		return ev.BalancedAccuracy
	}
	return ev.Accuracy
}

// Split names the rows of a dataset used for training, validation and
// test. Valid and Test may be empty.
type Split struct {
	Train []int `json:"train"`
	Valid []int `json:"valid"`
	Test  []int `json:"test"`
}

// Outcome is what a protocol learned: the final solve (its model holds
// the class counts of its training rows) with its evaluations filled in.
type Outcome struct {
	Result *model.Result
	// Problem is the chosen grid point (the only one without tuning).
	Problem model.Problem
}

// HoldOut trains on split.Train and evaluates on split.Valid and
// split.Test. With more than one candidate problem it first tunes: each
// candidate is trained on Train and scored on Valid (or, when Valid is
// empty, by InnerFolds-fold cross-validation on Train), the best is
// chosen (the earliest on ties) and refitted on Train and Valid together.
// The result's Train, Validation, Test and Tuning fields are filled in.
func HoldOut(ctx context.Context, solve SolveFunc, d *model.Dataset, split Split, candidates []model.Problem, opt Options) (*Outcome, error) {
	if len(candidates) == 0 {
		return nil, model.Invalidf("learn: no candidate problem")
	}
	if len(split.Train) == 0 {
		return nil, model.Invalidf("learn: no training rows")
	}
	train := d.Subset(split.Train)
	var valid *model.Dataset
	if len(split.Valid) > 0 {
		valid = d.Subset(split.Valid)
	}
	chosen := candidates[0]
	var trials []model.Trial
	var validEval *model.Evaluation
	fitRows := split.Train
	if len(candidates) > 1 {
		var best int
		var err error
		if valid != nil {
			var evs []*model.Evaluation
			best, trials, evs, err = Tune(ctx, solve, train, valid, candidates, opt)
			if err == nil {
				validEval = evs[best]
			}
		} else {
			best, trials, err = TuneCV(ctx, solve, train, candidates, opt)
		}
		if err != nil {
			return nil, err
		}
		chosen = candidates[best]
		fitRows = union(split.Train, split.Valid)
	}
	fit := d.Subset(fitRows)
	res, err := solve(ctx, fit, chosen)
	if err != nil {
		return nil, err
	}
	if res.Model == nil {
		return nil, fmt.Errorf("learn: no model for %s (status %s)", describe(chosen), res.Status)
	}
	res.Model.SetCounts(fit)
	ev := model.Evaluate(res.Model, fit)
	res.Train = &ev
	if validEval == nil && valid != nil && len(candidates) == 1 {
		e := model.Evaluate(res.Model, valid)
		validEval = &e
	}
	res.Validation = validEval
	if len(split.Test) > 0 {
		e := model.Evaluate(res.Model, d.Subset(split.Test))
		res.Test = &e
	}
	res.Tuning = trials
	return &Outcome{Result: res, Problem: chosen}, nil
}

// union returns the sorted union of two sorted row lists without duplicates.
func union(a, b []int) []int {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// Tune trains every candidate on train, scores it on valid and returns the
// index of the best (highest score, the earliest on ties), the trials in
// candidate order (the chosen one marked) and each candidate's
// validation evaluation (nil when its solve found no model). A solve error
// stops the tuning; a solve without a model scores -1.
func Tune(ctx context.Context, solve SolveFunc, train, valid *model.Dataset, candidates []model.Problem, opt Options) (int, []model.Trial, []*model.Evaluation, error) {
	trials := make([]model.Trial, len(candidates))
	evs := make([]*model.Evaluation, len(candidates))
	for i, p := range candidates {
		res, err := solve(ctx, train, p)
		if err != nil {
			return 0, nil, nil, fmt.Errorf("tuning %s: %w", describe(p), err)
		}
		trials[i] = model.Trial{Problem: p, Status: res.Status, Score: -1}
		if res.Model != nil {
			ev := model.Evaluate(res.Model, valid)
			evs[i] = &ev
			trials[i].Score = opt.score(ev)
		}
	}
	best, err := pick(trials)
	return best, trials, evs, err
}

// TuneCV scores every candidate by stratified k-fold cross-validation on
// train (k = opt.InnerFolds, default 3; the mean score over the folds)
// and returns the best index (the earliest on ties) and the trials.
func TuneCV(ctx context.Context, solve SolveFunc, train *model.Dataset, candidates []model.Problem, opt Options) (int, []model.Trial, error) {
	k := opt.InnerFolds
	if k == 0 {
		k = 3
	}
	folds, err := model.StratifiedFolds(train, k, opt.Seed)
	if err != nil {
		// More folds than rows is a request the data cannot serve.
		return 0, nil, model.Invalidf("inner folds: %w", err)
	}
	trials := make([]model.Trial, len(candidates))
	for i, p := range candidates {
		trials[i] = model.Trial{Problem: p, Status: model.StatusOptimal}
		sum := 0.0
		for f := range folds {
			res, err := solve(ctx, train.Subset(otherFolds(folds, f)), p)
			if err != nil {
				return 0, nil, fmt.Errorf("tuning %s: %w", describe(p), err)
			}
			if res.Status != model.StatusOptimal {
				trials[i].Status = res.Status
			}
			if res.Model == nil {
				sum = math.Inf(-1)
				break
			}
			sum += opt.score(model.Evaluate(res.Model, train.Subset(folds[f])))
		}
		trials[i].Score = max(sum/float64(len(folds)), -1)
	}
	best, err := pick(trials)
	return best, trials, err
}

// pick marks and returns the trial with the highest score (the earliest on
// ties); it fails when no trial found a model.
func pick(trials []model.Trial) (int, error) {
	best := -1
	for i, t := range trials {
		if t.Score >= 0 && (best < 0 || t.Score > trials[best].Score) {
			best = i
		}
	}
	if best < 0 {
		return 0, errors.New("tuning: no grid point found a model")
	}
	trials[best].Chosen = true
	return best, nil
}

// otherFolds returns the rows of every fold but f, sorted.
func otherFolds(folds [][]int, f int) []int {
	var rows []int
	for i, fold := range folds {
		if i != f {
			rows = append(rows, fold...)
		}
	}
	slices.Sort(rows)
	return rows
}

// CrossValidate runs HoldOut once per fold: fold f is the test set, the
// other folds the training set (tuned by inner folds when there are
// several candidates). It returns one outcome per fold.
func CrossValidate(ctx context.Context, solve SolveFunc, d *model.Dataset, folds [][]int, candidates []model.Problem, opt Options) ([]*Outcome, error) {
	out := make([]*Outcome, len(folds))
	for f := range folds {
		o, err := HoldOut(ctx, solve, d, FoldSplit(folds, f), candidates, opt)
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", f+1, err)
		}
		out[f] = o
	}
	return out, nil
}

// FoldSplit is the split of cross-validation fold f (0-based): fold f is
// the test set, the other folds the training set, no validation rows.
func FoldSplit(folds [][]int, f int) Split {
	return Split{Train: otherFolds(folds, f), Test: slices.Clone(folds[f])}
}

func describe(p model.Problem) string {
	s := fmt.Sprintf("depth %d", p.MaxDepth)
	if p.MinSupport > 1 {
		s += fmt.Sprintf(", min support %d", p.MinSupport)
	}
	if len(p.Skeleton) > 0 {
		s = fmt.Sprintf("skeleton %v", p.Skeleton)
	}
	if p.Alpha != 0 {
		s += fmt.Sprintf(", alpha %g", p.Alpha)
	}
	return s
}
