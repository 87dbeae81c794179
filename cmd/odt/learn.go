package main

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/learn"
	"github.com/odtkit/odtkit/model"
)

// learnFlags are odt solve's flags for held-out evaluation, splits, class
// weights and tuning.
type learnFlags struct {
	test, splitFile, classWeight string
	holdout                      float64
	fold, tuneFolds              int
}

func (l *learnFlags) declare(c *cmdFlags) {
	c.StringVar(&l.test, "test", "", "evaluate the model on the test data `FILE` too (same format and flags as DATA)")
	c.Float64Var(&l.holdout, "holdout", 0, "hold out this `FRACTION` of the rows (stratified, by --seed) as the test set")
	c.StringVar(&l.splitFile, "split", "", "split `FILE` (as odt bench writes): train on its train rows, tune on its valid rows, test on its test rows")
	c.IntVar(&l.fold, "fold", 0, "with a cross-validation --split file: test on fold `I` (1-based), train on the others")
	c.IntVar(&l.tuneFolds, "tune-folds", 3, "with a grid and no validation rows: tune by `K`-fold cross-validation")
	c.StringVar(&l.classWeight, "class-weight", "", "class weights `MODE`: balanced weights rows by inverse class frequency (as explicit weights would), or none")
}

func (l *learnFlags) check() error {
	given := 0
	for _, b := range []bool{l.test != "", l.holdout != 0, l.splitFile != ""} {
		if b {
			given++
		}
	}
	switch {
	case given > 1:
		return usagef("--test, --holdout and --split exclude each other")
	case l.holdout < 0 || l.holdout >= 1 || l.holdout != l.holdout:
		return usagef("--holdout %v: want a fraction of the rows in (0,1), e.g. 0.25", l.holdout)
	case l.fold != 0 && l.splitFile == "":
		return usagef("--fold needs a cross-validation --split file")
	case l.tuneFolds < 2:
		return usagef("--tune-folds %d: want at least 2", l.tuneFolds)
	case l.classWeight != "" && l.classWeight != "balanced" && l.classWeight != "none":
		return usagef("--class-weight %q: want balanced or none", l.classWeight)
	}
	return nil
}

// protocol reports whether the result gets evaluation blocks.
func (l *learnFlags) protocol() bool {
	return l.test != "" || l.holdout != 0 || l.splitFile != "" || l.classWeight == "balanced"
}

// heldOut is the rows to train on and the data to test on.
type heldOut struct {
	split learn.Split
	test  *model.Dataset // --test data, or nil
}

// split reads the test file or the split file, or draws the holdout.
func (l *learnFlags) split(ctx context.Context, data *model.Dataset, df *dataFlags, seed int64) (heldOut, error) {
	var h heldOut
	switch {
	case l.test != "":
		// The training data's feature columns, found by name, are read
		// the way they were read for training; other columns are skipped.
		opt, err := df.options()
		if err != nil {
			return h, err
		}
		opt.Columns = data.FeatureNames()
		if opt.FormatOf(l.test) == model.FormatCSV {
			for _, f := range data.Features {
				if f.Kind == model.Categorical && !slices.Contains(opt.Categorical, f.Name) {
					opt.Categorical = append(opt.Categorical, f.Name)
				}
			}
		}
		opt.MinRows = 1
		t, err := readDataFile(ctx, l.test, opt)
		if err != nil {
			return h, err
		}
		h.test = t
	case l.holdout != 0:
		sf, err := learn.NewSplitFile(data, []float64{1 - l.holdout, l.holdout}, seed)
		if err != nil {
			return h, usagef("--holdout: %v", err)
		}
		h.split, _ = sf.Split(0)
		return h, nil
	case l.splitFile != "":
		sf, err := learn.ReadSplitFile(l.splitFile)
		if err != nil {
			return h, badInput(err)
		}
		if err := sf.Check(data); err != nil {
			return h, badInput(fmt.Errorf("--split %s: %w", l.splitFile, err))
		}
		if h.split, err = sf.Split(l.fold); err != nil {
			return h, usagef("--split %s: %v", l.splitFile, err)
		}
		return h, nil
	}
	h.split.Train = make([]int, data.Rows())
	for r := range h.split.Train {
		h.split.Train[r] = r
	}
	return h, nil
}

// run solves with the protocol the flags ask for: one solve on all rows
// (the plain case), or learn.HoldOut over the split and the grid.
func (l *learnFlags) run(ctx context.Context, data *model.Dataset, h heldOut, candidates []model.Problem,
	settings odtkit.Settings, prog *progress) (*model.Result, error) {
	solve := func(ctx context.Context, d *model.Dataset, p model.Problem) (*model.Result, error) {
		return odtkit.Solve(ctx, d, p, settings)
	}
	balanced := l.classWeight == "balanced"
	if balanced {
		solve = learn.Balanced(solve)
	}
	if len(candidates) == 1 && !l.protocol() {
		res, err := solve(ctx, data, candidates[0])
		if err == nil && res.Model != nil {
			res.Model.SetCounts(data)
		}
		return res, err
	}
	if h.test != nil {
		if err := checkSameFeatures(data, h.test); err != nil {
			return nil, err
		}
	}
	if len(candidates) > 1 {
		prog.printf("tuning over %d grid points", len(candidates))
	}
	out, err := learn.HoldOut(ctx, solve, data, h.split, candidates,
		learn.Options{BalancedScore: balanced, InnerFolds: l.tuneFolds, Seed: settings.Seed})
	if err != nil {
		return nil, err
	}
	res := out.Result
	for _, t := range res.Tuning {
		prog.printf("grid point %s: validation score %.4f%s", describeProblem(t.Problem.Normalized(), nil), t.Score, map[bool]string{true: " (chosen)"}[t.Chosen])
	}
	if h.test != nil {
		g, err := res.Model.Bind(h.test)
		if err != nil {
			return nil, badInput(fmt.Errorf("--test %s: %w", l.test, err))
		}
		ev := model.Evaluate(g, h.test)
		res.Test = &ev
	}
	return res, nil
}

// checkSameFeatures fails unless test has the training data's feature
// columns, found by name in any order, of the same kinds.
func checkSameFeatures(train, test *model.Dataset) error {
	cols, err := test.FeatureColumns(train.FeatureNames())
	if err != nil {
		return badInput(fmt.Errorf("--test %s: %w", test.Name, err))
	}
	for i, f := range train.Features {
		if g := test.Features[cols[i]]; g.Kind != f.Kind {
			return badInput(fmt.Errorf("--test %s: feature %q is %s, in the training data %s %s", test.Name, f.Name, g.Kind, train.Name, f.Kind))
		}
	}
	return nil
}

// writeEvaluations prints the train/validation/test blocks and the tuning.
func writeEvaluations(w io.Writer, res *model.Result) {
	for _, b := range []struct {
		name string
		ev   *model.Evaluation
	}{{"train:", res.Train}, {"validation:", res.Validation}, {"test:", res.Test}} {
		if b.ev == nil {
			continue
		}
		fmt.Fprintf(w, "%-12s %d rows, %d errors, accuracy %.4f, balanced accuracy %.4f\n", b.name, b.ev.Rows, b.ev.Errors, b.ev.Accuracy, b.ev.BalancedAccuracy)
	}
	if res.Test != nil {
		writeConfusion(w, *res.Test, "test confusion matrix", "  ")
	}
	for i, t := range res.Tuning {
		head := "tuning:"
		if i > 0 {
			head = ""
		}
		fmt.Fprintf(w, "%-12s %s: score %.4f%s\n", head, describeProblem(t.Problem.Normalized(), nil), t.Score, map[bool]string{true: " (chosen)"}[t.Chosen])
	}
}
