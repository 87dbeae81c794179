package backendtest

import (
	"context"
	"math/bits"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// bruteBackend solves the error objective by the suite's own brute force
// on data of at most 64 rows, and, for larger data, reports a leaf and
// then waits for its context: a correct backend, the suite's positive
// control. Its flaw, when set, breaks one rule of the contract.
type bruteBackend struct{ flaw string }

func (b bruteBackend) Info() backend.Info {
	caps := backend.Caps{MinSupport: true, Weights: backend.AnyWeights}
	return backend.Info{Name: "brute", Family: backend.FamilyDP, Description: "exhaustive search (test only)", Input: "binary view",
		Objectives: []model.Objective{model.MinError}, Exact: true, Anytime: true, Caps: caps,
		Params: []backend.Param{backend.EnumParam("mode", "plain", []string{"plain", "fancy"}, "a mode").
			Checked(func(string) error { return nil }), backend.IntParam("k", 1, "a count").AtLeast(1)}}
}

// leafTree is the majority-class leaf of d.
func leafTree(d *model.Dataset) *model.Graph {
	b := model.NewBuilder(d, model.KindTree)
	c, _ := model.Majority(d.ClassCounts())
	return b.Graph(b.Leaf(c))
}

func (b bruteBackend) Solve(ctx context.Context, job *backend.Job) (*model.Result, error) {
	d, p := job.Data, job.Problem
	leaf := leafTree(d)
	job.Report.Report(leaf.WeightedErrors(d), leaf)
	if d.Rows() > 64 {
		if b.flaw == "ignores-ctx" {
			time.Sleep(2500 * time.Millisecond)
		} else {
			<-ctx.Done()
		}
		return &model.Result{Model: leaf, Errors: leaf.Errors(d), Objective: leaf.WeightedErrors(d)}, nil
	}
	if b.flaw == "ignores-fields" {
		p.MinSupport = 1 // declared (Caps.MinSupport), not honoured
	}
	br := newBrute(d, p.MinSupport)
	g := br.tree(br.all, p.MaxDepth, model.NewBuilder(d, model.KindTree))
	obj := g.WeightedErrors(d)
	if b.flaw == "lies" {
		obj++
	}
	if obj < leaf.WeightedErrors(d) {
		job.Report.Report(obj, g)
	}
	return &model.Result{Model: g, Errors: g.Errors(d), Objective: obj, LowerBound: obj, Optimal: true}, nil
}

// tree builds an optimal tree on rows (depth at most depth).
func (br *brute) tree(rows uint64, depth int, b *model.Builder) *model.Graph {
	var rec func(rows uint64, depth int) int
	tests := model.Binarize(br.d).Tests
	rec = func(rows uint64, depth int) int {
		best := br.minError(rows, depth)
		if bits.OnesCount64(rows) >= br.minSup && br.leaf(rows) == best {
			cnt := make([]float64, br.d.NumClasses())
			for m := rows; m != 0; m &= m - 1 {
				r := bits.TrailingZeros64(m)
				cnt[br.d.Labels[r]] += br.d.Weight(r)
			}
			c, _ := model.Majority(cnt)
			return b.Leaf(c)
		}
		for i, t := range br.tests {
			hi, lo := rows&t, rows&^t
			if hi != 0 && lo != 0 && br.minError(lo, depth-1)+br.minError(hi, depth-1) == best {
				l := rec(lo, depth-1)
				return b.Split(tests[i], l, rec(hi, depth-1))
			}
		}
		panic("brute: no tree reaches the optimum")
	}
	return b.Graph(rec(rows, depth))
}

func TestSuiteOnACorrectBackend(t *testing.T) {
	if flaw := os.Getenv("BACKENDTEST_FLAW"); flaw != "" {
		Run(t, bruteBackend{flaw: flaw}, Config{})
		return
	}
	Run(t, bruteBackend{}, Config{})
}

// TestSuiteCatchesFlaws runs the suite on flawed backends in a child
// process and expects it to fail, naming the broken rule.
func TestSuiteCatchesFlaws(t *testing.T) {
	if os.Getenv("BACKENDTEST_FLAW") != "" {
		t.Skip("child")
	}
	for flaw, want := range map[string]string{
		"ignores-ctx":    "Cancel",
		"lies":           "claims objective",
		"ignores-fields": "silently ignored",
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSuiteOnACorrectBackend$", "-test.count=1")
		cmd.Env = append(os.Environ(), "BACKENDTEST_FLAW="+flaw)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), want) {
			t.Errorf("flaw %s: the suite did not fail with %q (err %v):\n%s", flaw, want, err, out)
		}
	}
}
