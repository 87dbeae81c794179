package satodd_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/odtkit/odtkit/dp/dl85"
	"github.com/odtkit/odtkit/encode/satodd"
	"github.com/odtkit/odtkit/internal/shared"
	"github.com/odtkit/odtkit/model"
)

// agreeWithDL85 solves d on the skeleton 1 (or 1,2) at α = 0 with each
// per-root value: a diagram on it is a tree of depth 1 (2) and the other
// way round, so its proven error must be dl85's at that depth.
func agreeWithDL85(t *testing.T, d *model.Dataset, skeleton []int, perRoot []string) {
	t.Helper()
	ref := run(t, dl85.Backend{}, d, model.Problem{Objective: model.MinError, MaxDepth: len(skeleton)})
	if !ref.Optimal {
		t.Fatalf("%s: dl85 did not prove depth %d", d.Name, len(skeleton))
	}
	p := model.Problem{Objective: model.DiagramError, Skeleton: skeleton}
	for _, pr := range perRoot {
		res := run(t, satodd.Backend{}, d, p, map[string]string{"per-root": pr})
		if !res.Optimal {
			t.Errorf("%s %v per-root=%s: not proven (%s)", d.Name, skeleton, pr, res.Status)
			continue
		}
		if e := res.Model.WeightedErrors(d); math.Abs(e-ref.Objective) > 1e-9 || math.Abs(res.LowerBound-res.Objective) > 1e-12 {
			t.Errorf("%s %v per-root=%s: sat-odd proves %v errors (objective %v, bound %v), dl85 %v at depth %d",
				d.Name, skeleton, pr, e, res.Objective, res.LowerBound, ref.Objective, len(skeleton))
		}
	}
}

// TestAgreesWithDL85 compares sat-odd at α = 0 with dl85 on generated
// 0/1 data, with and without whole row weights, on both searches.
func TestAgreesWithDL85(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	for i := range 8 {
		d := binaryData(rng, 60+rng.IntN(60), 5+rng.IntN(4), 2+i%3/2)
		if i%2 == 1 {
			d = withWeights(rng, d)
		}
		d.Name = fmt.Sprint(d.Name, "-", i)
		skeleton := []int{1, 2}
		if i%4 == 0 {
			skeleton = []int{1}
		}
		agreeWithDL85(t, d, skeleton, []string{"true", "false"})
	}
}

// TestAgreesWithDL85CP4IM compares sat-odd on the skeleton 1,2 at α = 0
// with dl85 at depth 2 on hepatitis and vote (../shared): per-root on
// both, the whole diagram at once too with ODTKIT_LONG=1 (tens of
// seconds each).
func TestAgreesWithDL85CP4IM(t *testing.T) {
	if testing.Short() {
		t.Skip("proving two cp4im files takes tens of seconds")
	}
	dir := shared.Dir(t, "data/cp4im")
	perRoot := []string{"true"}
	if shared.Long() {
		perRoot = append(perRoot, "false")
	}
	for _, name := range []string{"hepatitis", "vote"} {
		d, err := model.ReadFile(filepath.Join(dir, "data", "cp4im", name+".txt"), model.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		agreeWithDL85(t, d, []int{1, 2}, perRoot)
	}
}
