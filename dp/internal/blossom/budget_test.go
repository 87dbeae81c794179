package blossom

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/odtkit/odtkit/backend"
)

// tableBound is the most the two-level rule's tables can hold on d: the
// single and pair counts of every column, twice (a branch's and its
// parent's), and every column packed on all rows (with a word of padding
// per class segment).
func tableBound(d *Data) int64 {
	m, C := int64(len(d.Cols)), int64(d.C)
	w2 := int64(d.W) + C + 1
	return 8 * (2*m*C + 2*m*m*C + m*w2)
}

// The budget of a search holds what its structures hold at once — the
// data, the branch slots in use at the peak, the two-level tables at
// their largest — however many branches the search visits, and is
// balanced when Solve returns. Accounting each visit of the two-level
// rule anew made a long search stop for memory it never held; a cap at
// that footprint must let it finish with the unbudgeted optimum.
func TestBudgetReleasesWhatIsFreed(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	d := randomData(t, rng, 800, 20, 3, 1)
	want := Solve(context.Background(), d, Options{MaxDepth: 4}, nil)
	if !want.Optimal || want.Stats.Depth2 < 1000 {
		t.Fatalf("optimal %v after %d two-level steps: the test needs a long search", want.Optimal, want.Stats.Depth2)
	}
	for _, workers := range []int{1, 2} {
		ample := backend.NewBudget(1 << 40)
		r := Solve(context.Background(), d, Options{MaxDepth: 4, Budget: ample, Workers: workers}, nil)
		checkResult(t, d, r, 4)
		slots := int64(r.Stats.PeakBranches+workers) * (&search{d: d}).slotBytes()
		footprint := d.Bytes()*int64(workers) + slots + tableBound(d)*int64(workers)
		if p := ample.Peak(); p > footprint {
			t.Errorf("%d workers: peak %d bytes accounted, more than the %d the search can hold at once", workers, p, footprint)
		}
		if u := ample.Used(); u != 0 {
			t.Errorf("%d workers: %d bytes still reserved after Solve", workers, u)
		}
		capped := backend.NewBudget(footprint)
		r = Solve(context.Background(), d, Options{MaxDepth: 4, Budget: capped, Workers: workers}, nil)
		if r.Cause != nil || !r.Optimal || r.Error != want.Error {
			t.Errorf("%d workers, cap %d bytes: error %d (optimal %v, cause %v), unbudgeted %d", workers, footprint, r.Error, r.Optimal, r.Cause, want.Error)
		}
		if u := capped.Used(); u != 0 {
			t.Errorf("%d workers, capped: %d bytes still reserved", workers, u)
		}
	}
}
