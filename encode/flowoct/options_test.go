package flowoct_test

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/flowoct"
	"github.com/odtkit/odtkit/model"
)

func settings(t *testing.T, p model.Problem, opts map[string]string) (flowoct.Settings, error) {
	t.Helper()
	job, err := backend.NewJob(flowoct.Backend{}.Info(), randomData(1, 10, 3, 2, false, false), p, opts)
	if err != nil {
		return flowoct.Settings{}, err
	}
	return flowoct.JobSettings(job)
}

// TestPublishedIsTheUndecomposedLooseMILP: formulation=published reads
// as decompose=0 tight=false, refuses the strengthenings given with it,
// and the old spellings of method are still taken.
func TestPublishedIsTheUndecomposedLooseMILP(t *testing.T) {
	p := model.Problem{MaxDepth: 2}
	pub, err := settings(t, p, map[string]string{"formulation": "published"})
	if err != nil {
		t.Fatal(err)
	}
	old, err := settings(t, p, map[string]string{"decompose": "0", "tight": "false"})
	if err != nil {
		t.Fatal(err)
	}
	if pub.Decompose != 0 || pub.Tight || pub.Benders || old.Decompose != 0 || old.Tight || old.Published || !pub.Published {
		t.Errorf("published %+v, decompose=0 tight=false %+v", pub, old)
	}
	// Beyond the name and what an export refuses, the two spellings are
	// one setting: the solve reads nothing else, so it runs the same
	// search on any data (the StrongTree cells in docs/benchmarks.md
	// measure it).
	if old.SolveOnly == "" || pub.SolveOnly != "" {
		t.Errorf("solve-only option: published %q, decompose=0 tight=false %q", pub.SolveOnly, old.SolveOnly)
	}
	same, alt := pub, old
	same.Published, same.SolveOnly, alt.SolveOnly = false, "", ""
	if !reflect.DeepEqual(same, alt) {
		t.Errorf("formulation=published solves as %+v, decompose=0 tight=false as %+v", same, alt)
	}
	def, err := settings(t, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if def.Published || def.Decompose != 2 || !def.Tight || def.Benders || !def.WarmStart {
		t.Errorf("defaults %+v", def)
	}
	for _, opts := range []map[string]string{{"formulation": "published", "tight": "true"}, {"formulation": "published", "decompose": "1"}} {
		if _, err := settings(t, p, opts); !errors.Is(err, backend.ErrInvalid) {
			t.Errorf("%v: want a refusal, got %v", opts, err)
		}
	}
	for _, c := range []struct {
		opts    map[string]string
		benders bool
	}{{map[string]string{"formulation": "benders"}, true}, {map[string]string{"formulation": "flow"}, false}, {map[string]string{"method": "benders"}, true}} {
		s, err := settings(t, p, c.opts)
		if err != nil || s.Benders != c.benders {
			t.Errorf("%v: benders %v, %v", c.opts, s.Benders, err)
		}
	}
	if _, err := settings(t, model.Problem{Objective: model.MinDepth, MaxDepth: model.NoDepthLimit}, map[string]string{"method": "benders"}); err == nil || !strings.Contains(err.Error(), "error objective") {
		t.Errorf("method=benders for min-depth: %v", err)
	}
}

// TestPublishedSolvesAsDecomposeZeroNotTight: the two spellings give the
// same optimum and build the same MILP.
func TestPublishedSolvesAsDecomposeZeroNotTight(t *testing.T) {
	needHiGHS(t)
	d := randomData(5, 30, 4, 2, false, false)
	p := model.Problem{MaxDepth: 2}
	pub := solve(t, d, p, "milp-flowoct", map[string]string{"formulation": "published"})
	old := solve(t, d, p, "milp-flowoct", map[string]string{"decompose": "0", "tight": "false"})
	if !pub.Optimal || !old.Optimal || math.Abs(pub.Objective-old.Objective) > 1e-9 {
		t.Errorf("published %s %v, decompose=0 tight=false %s %v", pub.Status, pub.Objective, old.Status, old.Objective)
	}
	for _, k := range []string{"columns", "rows", "nonzeros"} {
		if pub.Stats[k] != old.Stats[k] {
			t.Errorf("%s: published %v, decompose=0 tight=false %v", k, pub.Stats[k], old.Stats[k])
		}
	}
}
