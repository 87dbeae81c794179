package odtkit

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/odtkit/odtkit/model"
)

func TestContreeBackend(t *testing.T) {
	path := filepath.Join("..", "shared", "data", "numeric", "bank.txt")
	if _, err := os.Stat(path); err != nil {
		t.Skip("contree backend: ../shared not present")
	}
	d, err := model.ReadFile(path, model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Solve(context.Background(), d, model.Problem{MaxDepth: 2}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Backend != "contree" || !r.Optimal || r.Errors != 100 || r.Status != model.StatusOptimal {
		t.Fatalf("auto on numeric bank depth 2: backend %s optimal %v errors %d status %s (want contree, optimal, 100)", r.Backend, r.Optimal, r.Errors, r.Status)
	}
	r, err = Solve(context.Background(), d, model.Problem{MaxDepth: 3}, Settings{Backend: "contree", Options: Options{"max-gap": "5"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Errors < 23 || r.Errors > 28 || r.LowerBound > 23 {
		t.Fatalf("max-gap 5 at depth 3: %d errors, bound %v (optimum 23)", r.Errors, r.LowerBound)
	}
	if _, err := Solve(context.Background(), d, model.Problem{MaxDepth: 2, MinSupport: 5}, Settings{Backend: "contree"}); err == nil {
		t.Fatal("min support accepted")
	}
}
