package bench

import (
	"math"
	"testing"

	"github.com/odtkit/odtkit/model"
)

func TestProtocolGridShards(t *testing.T) {
	cells := ProtocolGrid([]string{"a.txt", "b.csv"}, []string{"dl85", "cart"}, []int{2, 3}, []int64{1, 2, 3}, 4, "cv 4", false)
	if len(cells) != 2*2*2*3*4 {
		t.Fatalf("%d cells, want 96", len(cells))
	}
	seen := map[string]int{}
	for i := 1; i <= 5; i++ {
		for _, c := range Shard(cells, i, 5) {
			seen[c.Key()]++
		}
	}
	if len(seen) != len(cells) {
		t.Fatalf("5 shards cover %d distinct cells of %d", len(seen), len(cells))
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("cell %q run %d times", k, n)
		}
	}
	tuned := ProtocolGrid([]string{"a.txt"}, []string{"dl85"}, []int{2, 3}, []int64{1, 2}, 0, "split 50/25/25", true)
	if len(tuned) != 2 || tuned[0].Depth != 0 || !tuned[0].Tuned || tuned[1].Seed != 2 || tuned[0].Fold != 0 {
		t.Fatalf("tuned split grid %+v", tuned)
	}
}

func protoRun(ds, b string, seed int64, test float64, obj float64, depth int) Run {
	tr, va := 0.9, 0.8
	bal := test - 0.01
	r := Run{Cell: Cell{Dataset: ds + ".txt", Backend: b, Repeat: 1, Protocol: "split 50/25/25", Seed: seed, Tuned: true},
		Status: "optimal", Optimal: true, Objective: fptr(obj), LowerBound: fptr(obj), Errors: iptr(int(obj)), TimeToProof: fptr(1),
		Learning: Learning{TrainAccuracy: &tr, ValidAccuracy: &va, TestAccuracy: &test, TestBalancedAccuracy: &bal,
			Chosen: &model.Problem{Objective: model.MinError, MaxDepth: depth, MinSupport: 1}}}
	return r
}

func TestAccuracyTableAndCrossCheck(t *testing.T) {
	runs := []Run{
		protoRun("vote", "dl85", 1, 0.90, 10, 2),
		protoRun("vote", "dl85", 2, 0.94, 12, 3),
		protoRun("vote", "cart", 1, 0.80, 11, 2), // not optimal below
		protoRun("vote", "blossom", 1, 0.90, 10, 2),
		protoRun("vote", "blossom", 2, 0.92, 9, 2), // same seed as dl85's 12 but another chosen depth
	}
	runs[2].Optimal = false
	s := Summarize(runs)
	if len(s.Conflicts) != 0 {
		t.Fatalf("runs on different seeds or problems cross-checked: %v", s.Conflicts)
	}
	bad := append(runs, protoRun("vote", "cart", 1, 0.8, 11, 2)) // proves 11 where dl85 proved 10
	if len(Summarize(bad).Conflicts) != 1 {
		t.Fatalf("a real disagreement on the same seed and problem was not flagged: %v", Summarize(bad).Conflicts)
	}
	acc := Accuracy(runs, s.Backends)
	if len(acc) != 6 {
		t.Fatalf("%d entries, want 3 backends × (vote, all)", len(acc))
	}
	dl := acc[0]
	if dl.Dataset != "vote" || dl.Backend != "dl85" || dl.Runs != 2 || math.Abs(dl.Test-0.92) > 1e-12 ||
		math.Abs(dl.TestSD-math.Sqrt(0.0008)) > 1e-12 || dl.TestMin != 0.90 || dl.TestMax != 0.94 || dl.Chosen["d2"] != 1 || dl.Chosen["d3"] != 1 {
		t.Fatalf("dl85 entry %+v", dl)
	}
	if acc[3].Dataset != "all" || acc[3].Backend != "dl85" || acc[3].Runs != 2 {
		t.Fatalf("pooled entries not last: %+v", acc[3])
	}
	if Accuracy([]Run{run("vote", "dl85", 3, 12, true)}, []string{"dl85"}) != nil {
		t.Fatal("plain runs gave an accuracy table")
	}
}
