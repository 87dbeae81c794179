package odtkit

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/odtkit/odtkit/model"
)

func TestBlossomBackendTimeLimit(t *testing.T) {
	path := filepath.Join("..", "shared", "data", "cp4im", "german-credit.txt")
	if _, err := os.Stat(path); err != nil {
		t.Skip("blossom backend: ../shared not present")
	}
	d, err := model.ReadFile(path, model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	res, err := Solve(context.Background(), d, model.Problem{MaxDepth: 7}, Settings{Backend: "blossom",
		TimeLimit: 300 * time.Millisecond, OnIncumbent: func(model.Incumbent) { n++ }})
	if err != nil {
		t.Fatal(err) // includes verification of the model
	}
	if res.Optimal || res.Status != model.StatusTimeLimit || n < 2 {
		t.Fatalf("status %s optimal=%v after %d incumbents", res.Status, res.Optimal, n)
	}
	// The options of the backend are known to the selector; exact at depth 2.
	res, err = Solve(context.Background(), d, model.Problem{MaxDepth: 2}, Settings{Backend: "blossom",
		Options: Options{"order": "error", "lower-bound": "false", "depth2": "false", "merge-rows": "off",
			"drop-redundant": "no", "drop-uninformative": "0"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Optimal || res.Errors != 267 { // cp4im-optima.tsv: german-credit, depth 2
		t.Fatalf("german-credit depth 2: %d errors, optimal=%v; reference 267", res.Errors, res.Optimal)
	}
	if _, err := Solve(context.Background(), d, model.Problem{MaxDepth: 2}, Settings{Backend: "blossom",
		Options: Options{"order": "random"}}); err == nil {
		t.Fatal("unknown order accepted")
	}
}
