package satjob_test

import (
	"context"
	"errors"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
)

// TestClaimUnchecked: without unchecked refutations the result stays as
// it is; with some, its bound becomes the external solver's claim and
// falls to the floor.
func TestClaimUnchecked(t *testing.T) {
	res := &model.Result{LowerBound: 5, Stats: map[string]any{}}
	satjob.ClaimUnchecked(res, 0, "external:kissat", 2)
	if res.LowerBound != 5 || res.ClaimedBound != nil || res.Stats["unchecked_refutations"] != nil {
		t.Fatalf("no unchecked refutation changed the result: %+v", res)
	}
	satjob.ClaimUnchecked(res, 3, "external:kissat", 2)
	if res.LowerBound != 2 || res.ClaimedBound == nil || *res.ClaimedBound != 5 || res.ClaimedBy != "external SAT solver kissat" || res.Stats["unchecked_refutations"] != 3 {
		t.Errorf("3 unchecked refutations: bound %v, claimed %v by %q, stats %v; want bound 2, 5 claimed by the external SAT solver kissat", res.LowerBound, res.ClaimedBound, res.ClaimedBy, res.Stats)
	}
}

// TestNoteChecked: checked refutations are counted in the stats, none
// leave them as they are.
func TestNoteChecked(t *testing.T) {
	res := &model.Result{Stats: map[string]any{}}
	satjob.NoteChecked(res, 0)
	if _, ok := res.Stats["checked_refutations"]; ok {
		t.Fatal("no checked refutation was recorded")
	}
	satjob.NoteChecked(res, 2)
	if res.Stats["checked_refutations"] != 2 {
		t.Errorf("stats %v, want checked_refutations 2", res.Stats)
	}
}

// TestFound: a found tree fills the result (its bound capped by the
// objective, proven only when optimal and not stopped); no tree is
// ErrNoTree unless the search was stopped.
func TestFound(t *testing.T) {
	ctx := context.Background()
	d := &model.Dataset{Classes: []string{"a", "b"}, Labels: []int{0, 0, 1},
		Features: []model.Feature{{Name: "x", Kind: model.Numeric, Values: []float64{0, 0, 1}}}}
	info := backend.Info{Name: "x", Objectives: []model.Objective{model.MinError}}
	job, err := backend.NewJob(info, d, model.Problem{MaxDepth: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := model.NewBuilder(d, model.KindTree)
	leaf := b.Graph(b.Leaf(0)) // one error

	res := &model.Result{}
	if err := satjob.Found(ctx, job, "x", res, nil, false, true, nil); err != nil || res.Model != nil {
		t.Errorf("no tree, stopped: %v, model %v; want the result as it was", err, res.Model)
	}
	if err := satjob.Found(ctx, job, "x", res, nil, false, false, nil); !errors.Is(err, satjob.ErrNoTree) {
		t.Errorf("no tree, not stopped: %v, want ErrNoTree", err)
	}
	for _, c := range []struct{ optimal, stopped, proved bool }{{true, false, true}, {true, true, false}, {false, false, false}} {
		res := &model.Result{LowerBound: 4}
		if err := satjob.Found(ctx, job, "x", res, leaf, c.optimal, c.stopped, nil); err != nil {
			t.Fatal(err)
		}
		want := job.Problem.Evaluate(d, leaf)
		if res.Model != leaf || res.Errors != 1 || res.Objective != want || res.LowerBound != want || res.Proved != c.proved {
			t.Errorf("%+v: model %v, errors %v, objective %v, bound %v, proved %v; want the leaf, 1 error, objective and bound %v, proved %v",
				c, res.Model, res.Errors, res.Objective, res.LowerBound, res.Proved, want, c.proved)
		}
	}
}
