package satjob

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// TestDistinctRowsEqualsRowKeys: the partition refinement finds the
// lowest kept row of each distinct vector of kept tests, as reading each
// row's whole vector does, on data with many repeated rows.
func TestDistinctRowsEqualsRowKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for trial := range 40 {
		n, f := 1+rng.IntN(60), 1+rng.IntN(6)
		d := modeltest.Numeric(n, f, uint64(trial))
		for _, col := range d.Features {
			for r := range col.Values {
				col.Values[r] = float64(rng.IntN(3)) // few values: repeated rows
			}
		}
		v := model.Binarize(d)
		keep := model.NewBitset(n)
		var tests []int
		for tt := range v.Tests {
			if rng.IntN(4) > 0 {
				tests = append(tests, tt)
			}
		}
		for r := range n {
			if rng.IntN(5) > 0 {
				keep.Set(r)
			}
		}
		got, err := distinctRows(context.Background(), v, tests, keep)
		if err != nil {
			t.Fatal(err)
		}
		var want []int
		seen := map[string]bool{}
		for r := range n {
			if !keep.Has(r) {
				continue
			}
			key := make([]byte, len(tests))
			for i, tt := range tests {
				if v.True[tt].Has(r) {
					key[i] = 1
				}
			}
			if !seen[string(key)] {
				seen[string(key)] = true
				want = append(want, r)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: distinct rows %v, want %v", trial, got, want)
		}
	}
}

// TestPrepareRefusesACoarseView: the minimum depth and size need every
// threshold, so a view beyond the cap is refused, not coarsened; an ended
// context stops the preparation with its cause.
func TestPrepareRefusesACoarseView(t *testing.T) {
	d := modeltest.Numeric(2000, 20, 1)
	if _, err := PrepareExamples(context.Background(), d, true, 1<<20); err == nil || !strings.Contains(err.Error(), "refused before building") {
		t.Fatalf("a 1 MiB cap on %d thresholds: %v, want a memory-limit refusal", 20*1999, err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stopped")
	cancel(stop)
	if _, err := PrepareExamples(ctx, d, true, 0); !errors.Is(err, stop) {
		t.Fatalf("an ended context: %v, want its cause", err)
	}
	p, err := PrepareExamples(context.Background(), d, true, 0)
	if err != nil || len(p.Reps) == 0 {
		t.Fatalf("no cap: %v, %d representatives", err, len(p.Reps))
	}
}

// TestJobExamples: conflicting rows are a bad request unless dropped
// (then counted, and left out of the rows kept), as is a job the
// backend does not take; an ended context stops with its cause.
func TestJobExamples(t *testing.T) {
	d := modeltest.Binary(60, 2, 3) // 4 distinct rows, random labels: conflicts
	info := backend.Info{Name: "x", Objectives: []model.Objective{model.MinDepth},
		Params: []backend.Param{backend.BoolParam("drop-conflicts", false, "")}}
	job, err := backend.NewJob(info, d, model.Problem{Objective: model.MinDepth, MaxDepth: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := JobExamples(context.Background(), job, false); !errors.Is(err, backend.ErrInvalid) || !errors.Is(err, model.ErrConflict) {
		t.Fatalf("conflicting rows: %v", err)
	}
	p, err := JobExamples(context.Background(), job, true)
	if err != nil {
		t.Fatal(err)
	}
	if p.Dropped == 0 || p.Keep.Count() != d.Rows()-p.Dropped || len(p.Reps) > 4 || p.PresentClasses() < 1 {
		t.Fatalf("dropped %d, kept %d of %d, %d representatives", p.Dropped, p.Keep.Count(), d.Rows(), len(p.Reps))
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stop")
	cancel(stop)
	if _, err := JobExamples(ctx, job, true); !errors.Is(err, stop) {
		t.Fatalf("ended context: %v", err)
	}
}
