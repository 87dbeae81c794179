package contree_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/dp/contree"
	"github.com/odtkit/odtkit/dp/dl85"
	"github.com/odtkit/odtkit/model"
)

func TestContreeBackend(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "data", "numeric", "bank.txt")
	if _, err := os.Stat(path); err != nil {
		t.Skip("contree backend: ../shared not present")
	}
	d, err := model.ReadFile(path, model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := registry().Solve(context.Background(), d, model.Problem{MaxDepth: 2}, odtkit.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Backend != "contree" || !r.Optimal || r.Errors != 100 || r.Status != model.StatusOptimal {
		t.Fatalf("auto on numeric bank depth 2: backend %s optimal %v errors %d status %s (want contree, optimal, 100)", r.Backend, r.Optimal, r.Errors, r.Status)
	}
	r, err = registry().Solve(context.Background(), d, model.Problem{MaxDepth: 3}, odtkit.Settings{Backend: "contree", Options: odtkit.Options{"max-gap": "5"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Errors < 23 || r.Errors > 28 || r.LowerBound > 23 {
		t.Fatalf("max-gap 5 at depth 3: %d errors, bound %v (optimum 23)", r.Errors, r.LowerBound)
	}
	for _, eta := range []string{"min", "max"} {
		r, err = registry().Solve(context.Background(), d, model.Problem{MaxDepth: 3}, odtkit.Settings{Backend: "contree", Options: odtkit.Options{"eta": eta}})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Optimal || r.Errors != 23 {
			t.Fatalf("eta=%s at depth 3: %d errors (optimal %v), reference 23", eta, r.Errors, r.Optimal)
		}
	}
	if _, err := registry().Solve(context.Background(), d, model.Problem{MaxDepth: 3}, odtkit.Settings{Backend: "contree", Options: odtkit.Options{"eta": "sum"}}); err == nil {
		t.Fatal("eta=sum accepted")
	}
	if _, err := registry().Solve(context.Background(), d, model.Problem{MaxDepth: 2, MinSupport: 5}, odtkit.Settings{Backend: "contree"}); err == nil {
		t.Fatal("min support accepted")
	}
}

// Integer row weights count a row that many times (checked against
// DL8.5, which takes weights directly); other weights are refused before
// any work.
func TestContreeBackendWeights(t *testing.T) {
	d := &model.Dataset{Name: "w", Classes: []string{"a", "b"}}
	x := []float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9}
	y := []float64{2, 7, 1, 8, 2, 8, 1, 8, 2, 8, 4, 5, 9, 0, 4}
	d.Features = []model.Feature{{Name: "x", Values: x}, {Name: "y", Values: y}}
	for r := range x {
		d.Labels = append(d.Labels, (r*7+3)%5%2)
		d.Weights = append(d.Weights, float64(1+(r*5)%4))
	}
	for depth := 1; depth <= 3; depth++ {
		p := model.Problem{Objective: model.MinError, MaxDepth: depth}
		r, err := registry().Solve(context.Background(), d, p, odtkit.Settings{Backend: "contree"})
		if err != nil {
			t.Fatal(err)
		}
		ref, err := registry().Solve(context.Background(), d, p, odtkit.Settings{Backend: "dl85"})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Optimal || !ref.Optimal || r.Objective != ref.Objective {
			t.Fatalf("depth %d: contree %v (optimal %v), dl85 %v (optimal %v)", depth, r.Objective, r.Optimal, ref.Objective, ref.Optimal)
		}
	}
	d.Weights[3] = 0.5
	if _, err := registry().Solve(context.Background(), d, model.Problem{MaxDepth: 2}, odtkit.Settings{Backend: "contree"}); !errors.Is(err, backend.ErrInvalid) {
		t.Fatalf("fractional weight: got %v, want an error wrapping backend.ErrInvalid", err)
	}
}

// registry holds the backends these tests compare, as the root registry
// does (it verifies every result).
func registry() *odtkit.Registry {
	return odtkit.NewRegistry(contree.Backend{}, dl85.Backend{})
}
