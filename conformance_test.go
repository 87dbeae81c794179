package odtkit

import (
	"bytes"
	"context"
	"os/exec"
	"testing"

	"github.com/odtkit/odtkit/backend/backendtest"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

// TestConformance runs the backend conformance suite over every backend of
// the default registry, on generated data (no ../shared needed).
func TestConformance(t *testing.T) {
	r := DefaultRegistry()
	if len(r.List()) == 0 {
		t.Fatal("the default registry is empty")
	}
	for _, info := range r.List() {
		t.Run(info.Name, func(t *testing.T) {
			b, _ := r.Get(info.Name)
			c := backendtest.Config{Verify: Verify, Pipeline: pipeline(r, info.Name)}
			switch info.Name {
			case "milp-odd", "milp-odt", "milp-flowoct", "milp-oct", "milp-binoct":
				if !milp.HiGHSEnabled {
					t.Skip("HiGHS is not built in (build with -tags highs)")
				}
				c.Brute = 6 // MILP solves of tiny data, each well under a second
				c.Rows = 12 // a proof on 40 random rows takes minutes
			case "cp-odt":
				if _, err := exec.LookPath("minizinc"); err != nil {
					t.Skip("minizinc is not installed (Debian: apt-get install minizinc flatzinc)")
				}
				// Gecode's complete search is its claim: trusted here, so
				// that its optima are compared with brute force's.
				c.Options = map[string]string{"trust-solver": "true"}
				c.Brute = 4
				c.Rows = 24
			case "race":
				c.VaryingModel = true // the tree is that of the first member to prove
			}
			if testing.Short() {
				c.Brute = 3
			}
			backendtest.Run(t, b, c)
		})
	}
}

// pipeline runs the named backend through the registry r, for the
// suite's export, trust-rule and certificate checks.
func pipeline(r *Registry, name string) *backendtest.Pipeline {
	set := func(opts map[string]string) Settings { return Settings{Backend: name, Options: opts} }
	return &backendtest.Pipeline{
		Solve: func(ctx context.Context, d *model.Dataset, p model.Problem, opts map[string]string) (*model.Result, error) {
			return r.Solve(ctx, d, p, set(opts))
		},
		Export: func(ctx context.Context, w *bytes.Buffer, d *model.Dataset, p model.Problem, opts map[string]string) (string, error) {
			return r.Export(ctx, w, d, p, set(opts))
		},
		Decode: func(ctx context.Context, answer []byte, d *model.Dataset, p model.Problem, opts map[string]string) (*model.Result, error) {
			return r.Decode(ctx, bytes.NewReader(answer), d, p, set(opts))
		},
		Certify: func(ctx context.Context, dir, data string) error {
			_, err := CertifyDir(ctx, dir, data, 0)
			return err
		},
		ReadCSV: func(path string) (*model.Dataset, error) {
			return model.ReadFileContext(context.Background(), path, model.ReadOptions{})
		},
	}
}
