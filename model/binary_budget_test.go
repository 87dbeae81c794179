package model_test

import (
	"context"
	"errors"
	"testing"

	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// checkView tests every bit of v against the raw data.
func checkView(t *testing.T, v *model.BinaryView) {
	t.Helper()
	for k, ts := range v.Tests {
		for r := range v.N {
			if v.Value(k, r) != ts.Eval(v.Data, r) {
				t.Fatalf("test %d (%s) row %d: bit %v", k, ts.String(v.Data), r, v.Value(k, r))
			}
		}
	}
}

func TestBinarizeBudgetCoarsens(t *testing.T) {
	d := modeltest.Numeric(3000, 4, 7)
	// A categorical column is kept whole.
	d.Features = append(d.Features, model.Feature{Name: "c", Kind: model.Categorical,
		Values: make([]float64, d.Rows()), Levels: []string{"a", "b", "c"}})
	for r := range d.Rows() {
		d.Features[4].Values[r] = float64(r % 3)
	}
	exact := model.Binarize(d)
	if exact.Coarse || exact.FullTests != exact.NumTests() {
		t.Fatalf("exact view: coarse %v, %d of %d tests", exact.Coarse, exact.NumTests(), exact.FullTests)
	}
	if v, err := model.BinarizeBudget(context.Background(), d, exact.Bytes()); err != nil || v.Coarse || v.NumTests() != exact.NumTests() {
		t.Fatalf("a cap the exact view fits: err %v, coarse %v", err, v.Coarse)
	}
	limit := int64(200 * 8 * ((d.Rows() + 63) / 64))
	v, err := model.BinarizeBudget(context.Background(), d, limit)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Coarse || v.FullTests != exact.NumTests() {
		t.Fatalf("coarse %v, full %d want %d", v.Coarse, v.FullTests, exact.NumTests())
	}
	if v.Bytes() > limit || v.NumTests() < 150 {
		t.Fatalf("%d tests, %d bytes for a cap of %d", v.NumTests(), v.Bytes(), limit)
	}
	checkView(t, v)
	// Every kept test is one of the exact view's, and each column keeps
	// increasing thresholds; the categorical column keeps its 3 tests.
	in := map[model.Test]bool{}
	for _, ts := range exact.Tests {
		in[ts] = true
	}
	perCol := map[int]int{}
	for k, ts := range v.Tests {
		if !in[ts] {
			t.Fatalf("test %s is not in the exact view", ts.String(d))
		}
		if k > 0 && v.Tests[k-1].Feature == ts.Feature && !ts.Categorical && v.Tests[k-1].Threshold >= ts.Threshold {
			t.Fatalf("thresholds out of order at %d", k)
		}
		perCol[ts.Feature]++
	}
	if perCol[4] != 3 {
		t.Errorf("categorical column kept %d tests, want 3", perCol[4])
	}
	for c := range 4 {
		if perCol[c] < 40 {
			t.Errorf("column %d kept %d tests: %v", c, perCol[c], perCol)
		}
	}
	// Too small for one test per column: refused with ErrMemoryLimit.
	if _, err := model.BinarizeBudget(context.Background(), d, 8*8*int64((d.Rows()+63)/64)); !errors.Is(err, model.ErrMemoryLimit) {
		t.Errorf("tiny cap: %v, want ErrMemoryLimit", err)
	}
}

func TestBinarizeBudgetCancelled(t *testing.T) {
	d := modeltest.Numeric(2000, 3, 1)
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stop here")
	cancel(stop)
	if _, err := model.BinarizeBudget(ctx, d, 0); !errors.Is(err, stop) {
		t.Errorf("cancelled: %v", err)
	}
}
