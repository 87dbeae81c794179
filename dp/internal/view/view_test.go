package view

import (
	"context"
	"errors"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// info is a backend that takes every objective, weights and a minimum
// support, for the jobs of these tests.
func info() backend.Info {
	return backend.Info{Name: "t", Objectives: []model.Objective{model.MinError, model.MinDepth},
		Caps: backend.Caps{MinSupport: true, Weights: backend.AnyWeights, DepthCap: true}}
}

// TestEarly: a search stopped before it had a tree answers with the
// majority leaf where the problem admits one (weights counted), with no
// model where it does not, and with the error while ctx is not done.
func TestEarly(t *testing.T) {
	d := modeltest.Numeric(60, 3, 1)
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	boom := errors.New("boom")
	job := func(p model.Problem, d *model.Dataset) *backend.Job {
		j, err := backend.NewJob(info(), d, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	if _, err := Early(context.Background(), job(model.Problem{MaxDepth: 2}, d), boom); err != boom {
		t.Fatalf("ctx not done: %v, want the error", err)
	}
	res, err := Early(stopped, job(model.Problem{MaxDepth: 2}, d), boom)
	if err != nil || res.Model == nil || res.Model.Size() != 1 {
		t.Fatalf("stopped: %+v, %v; want the majority leaf", res, err)
	}
	class, errs := model.Majority(d.ClassCounts())
	if res.Model.Predict(d, 0) != class || res.Errors != int(errs) || res.Objective != errs {
		t.Errorf("leaf of class %d with %d errors, objective %v; want class %d, %v errors", res.Model.Predict(d, 0), res.Errors, res.Objective, class, errs)
	}
	// Weights move the majority: the rows of the other class weigh more.
	w := *d
	w.Weights = make([]float64, d.Rows())
	for r := range w.Weights {
		w.Weights[r] = 1
		if d.Labels[r] != class {
			w.Weights[r] = 10
		}
	}
	if res, err := Early(stopped, job(model.Problem{MaxDepth: 2}, &w), boom); err != nil || res.Model == nil || res.Model.Predict(&w, 0) == class {
		t.Errorf("weighted: %+v, %v; want the leaf of the heavier class", res, err)
	}
	for name, p := range map[string]model.Problem{
		"min support above the rows": {MaxDepth: 2, MinSupport: 61},
		"min-depth":                  {Objective: model.MinDepth, MaxDepth: 2},
	} {
		if res, err := Early(stopped, job(p, d), boom); err != nil || res == nil || res.Model != nil {
			t.Errorf("%s: %+v, %v; want no model", name, res, err)
		}
	}
}
