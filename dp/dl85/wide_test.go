package dl85

import (
	"context"
	"testing"
	"time"

	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

// cadl85 on 50 rows × 10,000 binary columns at depth 2, where the depth-2
// tables (1.6 GB) are skipped:
//   - the depth-1 branches a restart solves are cached for the next ones
//     (they were not while the depth-2 step was on but skipped, so every
//     restart solved them all again: 431 restarts in 40 s, now ~4,000);
//   - the discrepancy rule relaxed by +1 admits one more root test per
//     restart, so its proof takes one restart per test (10,000, about
//     100 s); relaxed exponentially it reaches dl85's proven optimum in
//     16 restarts (about 5 s; dl85 about 4 s).
func TestCADL85Wide(t *testing.T) {
	v := model.Binarize(modeltest.Binary(50, 10_000, 3))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // generous: a hang guard
	defer cancel()
	few, err := SolveNamed(ctx, v, Spec{Rule: "discrepancy"}, Config{MaxDepth: 2, MaxRestarts: 20})
	if err != nil {
		t.Fatal(err)
	}
	if n, r := few.Stats["cache_entries"].(int), few.Stats["restarts"].(int); n <= r || few.Stats["depth2_skipped"].(int64) == 0 {
		t.Fatalf("%d restarts with the depth-2 step skipped left %d cache entries: the depth-1 branches are not reused", r, n)
	}
	want, err := Solve(ctx, v, Config{MaxDepth: 2})
	if err != nil || !want.Optimal {
		t.Fatalf("dl85: %v, optimal %v", err, want != nil && want.Optimal)
	}
	got, err := SolveNamed(ctx, v, Spec{Rule: "discrepancy", Relax: "exponential"}, Config{MaxDepth: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Optimal || got.Error != want.Error || got.Tree.Errors(v.Data) != int(want.Error) {
		t.Fatalf("cadl85 (exponential): error %v, optimal %v, %v restarts; dl85 proves %v", got.Error, got.Optimal, got.Stats["restarts"], want.Error)
	}
}
