package odtkit

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/odtkit/odtkit/model"
)

// TestAutoWeightedDiagram: a diagram on data with whole row weights goes
// to sat-odd (milp-odd counts unweighted errors), which solves it; on
// unweighted data milp-odd stays first where HiGHS is built in, and
// sat-odd takes its place where it is not.
func TestAutoWeightedDiagram(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	d := &model.Dataset{Name: "w", Classes: []string{"a", "b"}, Labels: make([]int, 12), Weights: make([]float64, 12)}
	for j := range 3 {
		f := model.Feature{Name: string(rune('x' + j)), Values: make([]float64, 12)}
		for r := range f.Values {
			f.Values[r] = float64(rng.IntN(2))
		}
		d.Features = append(d.Features, f)
	}
	for r := range d.Labels {
		d.Labels[r] = int(d.Features[0].Values[r])
		d.Weights[r] = float64(1 + rng.IntN(3))
	}
	d.Labels[0] = 1 - d.Labels[0]
	p := model.Problem{Objective: model.DiagramError, Skeleton: []int{1, 2}, Alpha: 0.1, MaxDepth: model.NoDepthLimit}
	if name, err := DefaultRegistry().Auto(d, p); name != "sat-odd" || err != nil {
		t.Errorf("weighted: auto picked %q (%v), want sat-odd", name, err)
	}
	res, err := Solve(context.Background(), d, p, Settings{})
	if err != nil || !res.Optimal || res.Backend != "sat-odd" {
		t.Fatalf("weighted auto solve: %+v, %v", res, err)
	}
	if want := d.Weights[0] / d.TotalWeight(); res.Objective != want {
		t.Errorf("objective %v, want the one misclassified row's weight share %v", res.Objective, want)
	}
	d.Weights = nil
	want := "milp-odd"
	if !HiGHSEnabled {
		want = "sat-odd" // milp-odd only exports in this build
	}
	if name, err := DefaultRegistry().Auto(d, p); name != want || err != nil {
		t.Errorf("unweighted: auto picked %q (%v), want %s", name, err, want)
	}
	// Whatever the build, auto's pick solves the diagram.
	res, err = Solve(context.Background(), d, p, Settings{})
	if err != nil || !res.Optimal {
		t.Fatalf("unweighted auto solve: %+v, %v", res, err)
	}
}
