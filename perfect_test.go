package odtkit

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit/internal/shared"
	"github.com/odtkit/odtkit/model"
)

// perfectBackends are the DP backends that solve the consistent-tree
// objectives, each checked against the SAT backends.
var perfectBackends = []string{"dl85", "cadl85"}

// satFor is the SAT backend of a consistent-tree objective.
func satFor(obj model.Objective) string {
	if obj == model.MinSize {
		return "sat-size"
	}
	return "sat-depth"
}

// solvePerfect solves d for obj with backend name, verified and proven
// optimal, and returns the result.
func solvePerfect(t *testing.T, name string, d *model.Dataset, p model.Problem, opts Options) *model.Result {
	t.Helper()
	res, err := Solve(context.Background(), d, p, Settings{Backend: name, TimeLimit: 2 * time.Minute, Options: opts, Threads: 1})
	if err != nil {
		t.Fatalf("%s on %s (%+v): %v", name, d.Name, p, err)
	}
	if !res.Optimal && res.Status != model.StatusInfeasible {
		t.Fatalf("%s on %s (%+v): not proven (status %s, objective %v, bound %v)", name, d.Name, p, res.Status, res.Objective, res.LowerBound)
	}
	return res
}

// randomConsistent is random data (numeric, categorical, 2-4 classes)
// with the conflicting rows of each group of identical rows removed.
func randomConsistent(rng *rand.Rand, i int) *model.Dataset {
	n, f, k := 10+rng.IntN(20), 2+rng.IntN(4), 2+rng.IntN(3)
	d := &model.Dataset{Name: fmt.Sprintf("random-%d", i)}
	for c := range k {
		d.Classes = append(d.Classes, fmt.Sprint("c", c))
	}
	for j := range f {
		ft := model.Feature{Name: fmt.Sprint("x", j), Values: make([]float64, n)}
		levels := 2 + rng.IntN(5)
		if j == f-1 && i%2 == 0 {
			ft.Kind, ft.Levels, levels = model.Categorical, []string{"a", "b", "c"}, 3
		}
		for r := range n {
			ft.Values[r] = float64(rng.IntN(levels))
		}
		d.Features = append(d.Features, ft)
	}
	d.Labels = make([]int, n)
	for r := range n {
		d.Labels[r] = (int(d.Features[0].Values[r]) + rng.IntN(2)*int(d.Features[1].Values[r])) % k
	}
	keep, _, _ := d.ConsistentRows(true)
	var rows []int
	for r := range n {
		if keep.Has(r) {
			rows = append(rows, r)
		}
	}
	out := d.Subset(rows)
	out.Name = d.Name
	return out
}

// TestPerfectAgreesWithSAT: on generated data, the DP backends' minimum
// depth and minimum size equal sat-depth's and sat-size's, without and
// with a depth cap and a node limit.
func TestPerfectAgreesWithSAT(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	cases := 12
	if testing.Short() {
		cases = 4
	}
	for i := range cases {
		d := randomConsistent(rng, i)
		for _, obj := range []model.Objective{model.MinDepth, model.MinSize} {
			p := model.Problem{Objective: obj, MaxDepth: model.NoDepthLimit}
			want := solvePerfect(t, satFor(obj), d, p, nil)
			for _, b := range perfectBackends {
				got := solvePerfect(t, b, d, p, nil)
				if got.Objective != want.Objective {
					t.Errorf("%s %s: %s %v, %s %v", d.Name, obj, b, got.Objective, satFor(obj), want.Objective)
				}
			}
			// A cap one below the least depth is infeasible; at it, the same
			// optimum. A node limit below the optimum's internal nodes may
			// move the answer to the next depth or make it infeasible: both
			// must agree on it (the cap keeps the SAT backends' refutations
			// of deeper trees short).
			depth := want.Model.Depth()
			capped := []model.Problem{{Objective: obj, MaxDepth: depth},
				{Objective: obj, MaxDepth: depth + 1, MaxNodes: max(1, want.Model.InternalNodes()-1)}}
			if depth > 1 {
				capped = append(capped, model.Problem{Objective: obj, MaxDepth: depth - 1})
			}
			for _, q := range capped {
				w := solvePerfect(t, satFor(obj), d, q, nil)
				g := solvePerfect(t, "dl85", d, q, nil)
				if w.Status != g.Status || w.Objective != g.Objective {
					t.Errorf("%s %+v: dl85 %s %v, %s %s %v", d.Name, q, g.Status, g.Objective, satFor(obj), w.Status, w.Objective)
				}
			}
		}
	}
}

// TestPerfectAgreesOnTestdata: the same on the data shipped in testdata
// (min-size on vote takes the SAT backend minutes: min-depth only).
func TestPerfectAgreesOnTestdata(t *testing.T) {
	for _, c := range []struct {
		file string
		objs []model.Objective
	}{
		{"iris.csv", []model.Objective{model.MinDepth, model.MinSize}},
		{"monk1.csv", []model.Objective{model.MinDepth, model.MinSize}},
		{"vote.txt", []model.Objective{model.MinDepth}},
	} {
		d, err := model.ReadFile(filepath.Join("testdata", c.file), model.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, obj := range c.objs {
			p := model.Problem{Objective: obj, MaxDepth: model.NoDepthLimit}
			opts := Options{"drop-conflicts": "true"}
			want := solvePerfect(t, satFor(obj), d, p, opts)
			got := solvePerfect(t, "dl85", d, p, opts)
			if got.Objective != want.Objective || got.DroppedRows != want.DroppedRows {
				t.Errorf("%s %s: dl85 %v (%d rows dropped), %s %v (%d dropped)", c.file, obj, got.Objective, got.DroppedRows,
					satFor(obj), want.Objective, want.DroppedRows)
			}
		}
	}
}

// TestPerfectConflicts: conflicting rows fail the DP backends with
// sat-depth's error (model.ErrConflict, a bad request, the same message),
// and drop-conflicts drops the same rows.
func TestPerfectConflicts(t *testing.T) {
	d := &model.Dataset{Name: "conflict", Classes: []string{"a", "b"},
		Features: []model.Feature{{Name: "x", Values: []float64{0, 1, 1, 2, 2, 2, 3}}},
		Labels:   []int{0, 1, 0, 1, 1, 0, 0}}
	for _, obj := range []model.Objective{model.MinDepth, model.MinSize} {
		p := model.Problem{Objective: obj, MaxDepth: model.NoDepthLimit}
		_, want := Solve(context.Background(), d, p, Settings{Backend: satFor(obj)})
		if !errors.Is(want, model.ErrConflict) || !errors.Is(want, ErrInvalid) {
			t.Fatalf("%s: %v, want a conflict error", satFor(obj), want)
		}
		for _, b := range perfectBackends {
			_, err := Solve(context.Background(), d, p, Settings{Backend: b})
			// The same message but for the backend's name in front.
			if !errors.Is(err, model.ErrConflict) || !errors.Is(err, ErrInvalid) ||
				strings.TrimPrefix(err.Error(), b+": ") != strings.TrimPrefix(want.Error(), satFor(obj)+": ") {
				t.Errorf("%s %s: %v\nwant: %v", b, obj, err, want)
			}
			if !strings.Contains(err.Error(), "row 2 (label b), row 3 (label a)") {
				t.Errorf("%s %s: %q does not name the first conflicting rows", b, obj, err)
			}
			opts := Options{"drop-conflicts": "true"}
			w := solvePerfect(t, satFor(obj), d, p, opts)
			g := solvePerfect(t, b, d, p, opts)
			if g.DroppedRows != 2 || g.Errors != 2 || g.Objective != w.Objective || w.DroppedRows != 2 {
				t.Errorf("%s %s drop-conflicts: %d dropped, %d errors, objective %v; %s: %d dropped, objective %v",
					b, obj, g.DroppedRows, g.Errors, g.Objective, satFor(obj), w.DroppedRows, w.Objective)
			}
		}
	}
}

// TestPerfectReference checks the DP backends' minimum depth and size on
// the inferdt files of ../shared against the reference optima (skipped
// without ../shared).
func TestPerfectReference(t *testing.T) {
	dir := shared.Dir(t, "reference/inferdt.tsv")
	for _, row := range shared.Table(t, "reference/inferdt.tsv") {
		file := row["dataset"]
		if testing.Short() && (strings.HasPrefix(file, "wine") || strings.HasPrefix(file, "balance") || strings.HasPrefix(file, "car")) {
			continue
		}
		d, err := model.ReadFile(filepath.Join(dir, "data", "inferdt", file), model.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			obj model.Objective
			col string
		}{{model.MinDepth, "min_depth"}, {model.MinSize, "min_nodes"}} {
			want, ok := row.Int(c.col)
			if !ok {
				continue // not established
			}
			res := solvePerfect(t, "dl85", d, model.Problem{Objective: c.obj, MaxDepth: model.NoDepthLimit}, nil)
			if int(res.Objective) != want {
				t.Errorf("%s %s: dl85 %v, reference %d", file, c.obj, res.Objective, want)
			}
		}
	}
}
