package blossom_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/dp/blossom"
	"github.com/odtkit/odtkit/dp/cart"
	"github.com/odtkit/odtkit/model"
)

func TestBlossomBackendTimeLimit(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "data", "cp4im", "german-credit.txt")
	if _, err := os.Stat(path); err != nil {
		t.Skip("blossom backend: ../shared not present")
	}
	d, err := model.ReadFile(path, model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	res, err := registry().Solve(context.Background(), d, model.Problem{MaxDepth: 7}, odtkit.Settings{Backend: "blossom",
		TimeLimit: 300 * time.Millisecond, OnIncumbent: func(model.Incumbent) { n++ }})
	if err != nil {
		t.Fatal(err) // includes verification of the model
	}
	if res.Optimal || res.Status != model.StatusTimeLimit || n < 2 {
		t.Fatalf("status %s optimal=%v after %d incumbents", res.Status, res.Optimal, n)
	}
	// The options of the backend are known to the selector; exact at depth 2.
	res, err = registry().Solve(context.Background(), d, model.Problem{MaxDepth: 2}, odtkit.Settings{Backend: "blossom",
		Options: odtkit.Options{"order": "error", "lower-bound": "false", "depth2": "false", "merge-rows": "off",
			"drop-redundant": "no", "drop-uninformative": "0"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Optimal || res.Errors != 267 { // cp4im-optima.tsv: german-credit, depth 2
		t.Fatalf("german-credit depth 2: %d errors, optimal=%v; reference 267", res.Errors, res.Optimal)
	}
	if _, err := registry().Solve(context.Background(), d, model.Problem{MaxDepth: 2}, odtkit.Settings{Backend: "blossom",
		Options: odtkit.Options{"order": "random"}}); err == nil {
		t.Fatal("unknown order accepted")
	}
}

// Each setting of the backend reaches the search: switched off alone, it
// keeps the optimum (anneal depth 4: 91 in cp4im-optima.tsv) and changes
// the statistics of the part it controls.
func TestBlossomBackendSwitches(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "data", "cp4im", "anneal.txt")
	if _, err := os.Stat(path); err != nil {
		t.Skip("blossom backend: ../shared not present")
	}
	d, err := model.ReadFile(path, model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	solve := func(o odtkit.Options) (*model.Result, []float64) {
		t.Helper()
		var incs []float64
		res, err := registry().Solve(context.Background(), d, model.Problem{MaxDepth: 4}, odtkit.Settings{Backend: "blossom", Options: o,
			OnIncumbent: func(inc model.Incumbent) { incs = append(incs, inc.Objective) }})
		if err != nil {
			t.Fatal(err) // includes verification of the model
		}
		if !res.Optimal || res.Errors != 91 {
			t.Fatalf("%v: %d errors, optimal=%v; reference 91", o, res.Errors, res.Optimal)
		}
		return res, incs
	}
	stat := func(r *model.Result, key string) int64 {
		t.Helper()
		switch x := r.Stats[key].(type) {
		case int:
			return int64(x)
		case int64:
			return x
		}
		t.Fatalf("stat %s is %T", key, r.Stats[key])
		return 0
	}
	def, defIncs := solve(nil)
	if stat(def, "pruned") == 0 || stat(def, "depth2_solves") == 0 || stat(def, "rows_used") >= int64(d.Rows()) ||
		stat(def, "tests_used") >= stat(def, "binary_tests") || stat(def, "error_offset") != 34 {
		t.Fatalf("default run: stats %v (anneal: 34 irreducible errors, redundant tests)", def.Stats)
	}
	if r, _ := solve(odtkit.Options{"lower-bound": "false"}); stat(r, "pruned") != 0 {
		t.Errorf("lower-bound=false: %d branches pruned", stat(r, "pruned"))
	}
	if r, _ := solve(odtkit.Options{"depth2": "false"}); stat(r, "depth2_solves") != 0 || stat(r, "depth1_solves") == 0 {
		t.Errorf("depth2=false: %d two-level and %d one-level solves", stat(r, "depth2_solves"), stat(r, "depth1_solves"))
	}
	if r, _ := solve(odtkit.Options{"merge-rows": "false"}); stat(r, "rows_used") != int64(d.Rows()) || stat(r, "error_offset") != 0 {
		t.Errorf("merge-rows=false: %d rows of %d, offset %d", stat(r, "rows_used"), d.Rows(), stat(r, "error_offset"))
	}
	if r, _ := solve(odtkit.Options{"drop-redundant": "false"}); stat(r, "tests_used") != stat(r, "binary_tests") {
		t.Errorf("drop-redundant=false: %d tests of %d", stat(r, "tests_used"), stat(r, "binary_tests"))
	}
	if r, _ := solve(odtkit.Options{"drop-uninformative": "false"}); stat(r, "decisions") <= stat(def, "decisions") {
		t.Errorf("drop-uninformative=false: %d decisions, %d with the uninformative tests dropped",
			stat(r, "decisions"), stat(def, "decisions"))
	}
	for _, ord := range []string{"error", "index"} {
		r, _ := solve(odtkit.Options{"order": ord})
		if stat(r, "first_complete") == stat(def, "first_complete") && stat(r, "decisions") == stat(def, "decisions") {
			t.Errorf("order=%s: same first tree (%d) and decisions (%d) as the Gini order", ord,
				stat(r, "first_complete"), stat(def, "decisions"))
		}
	}
	// With the greedy seed the first incumbent is the cart tree; without it,
	// Blossom's own first report (the root leaf: the minority count).
	cart, err := registry().Solve(context.Background(), d, model.Problem{MaxDepth: 4}, odtkit.Settings{Backend: "cart"})
	if err != nil {
		t.Fatal(err)
	}
	if len(defIncs) == 0 || defIncs[0] != cart.Objective {
		t.Errorf("first incumbent %v, cart tree %v", defIncs, cart.Objective)
	}
	if _, incs := solve(odtkit.Options{"cart-seed": "false"}); len(incs) == 0 || incs[0] != 187 {
		t.Errorf("cart-seed=false: first incumbent %v, want the root leaf's 187 errors", incs)
	}
}

// registry holds the backends these tests compare, as the root registry
// does (it verifies every result).
func registry() *odtkit.Registry {
	return odtkit.NewRegistry(blossom.Backend{}, cart.Backend{})
}
