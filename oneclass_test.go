package odtkit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// TestOneClassEveryBackend: on data of a single class, every registered
// backend and objective returns the single leaf, proven optimal by the
// exact ones, and
// every exported formulation is satisfiable (DIMACS) or feasible (MPS).
func TestOneClassEveryBackend(t *testing.T) {
	d := &model.Dataset{Name: "one", Classes: []string{"a"},
		Features: []model.Feature{
			{Name: "x", Kind: model.Numeric, Values: []float64{1, 2, 3, 4, 5}},
			{Name: "z", Kind: model.Numeric, Values: []float64{0, 1, 0, 1, 1}},
		},
		Labels: []int{0, 0, 0, 0, 0}}
	r := DefaultRegistry()
	for _, info := range r.List() {
		for _, obj := range info.Objectives {
			p := model.Problem{Objective: obj, MaxDepth: model.NoDepthLimit}
			switch obj {
			case model.MinError:
				p.MaxDepth = 2
			case model.DiagramError:
				p.Skeleton, p.Alpha = []int{1, 2}, 0.1
			}
			t.Run(info.Name+"/"+string(obj), func(t *testing.T) {
				res, err := r.Solve(context.Background(), d, p, Settings{Backend: info.Name})
				if errors.Is(err, milp.ErrNotEnabled) {
					t.Skip("HiGHS is not built in (build with -tags highs)")
				}
				if err != nil {
					t.Fatal(err)
				}
				if res.Model == nil || len(res.Model.Nodes) != 1 || !res.Model.Nodes[res.Model.Root].Leaf ||
					res.Errors != 0 || (info.Exact && (!res.Optimal || res.Status != model.StatusOptimal)) {
					t.Fatalf("status %s, optimal %v, errors %d, model %v: want the single leaf, proven", res.Status, res.Optimal, res.Errors, res.Model)
				}
				var buf bytes.Buffer
				if obj == model.MinDepth || obj == model.MinSize {
					p.MaxDepth = 2 // the formula of one depth
				}
				if obj == model.MinNodes {
					p.MaxNodes = 1 // sat-dt1: the formula of exactly 3 nodes
				}
				format, err := r.Export(context.Background(), &buf, d, p, Settings{Backend: info.Name})
				if err != nil {
					if b, _ := r.Get(info.Name); isExporter(b) {
						t.Fatalf("export: %v", err)
					}
					return // no formulation to export
				}
				switch format {
				case "dimacs":
					cnf, err := sat.ReadDIMACS(&buf)
					if err != nil {
						t.Fatal(err)
					}
					s := sat.NewCDCL()
					sat.AddCNF(s, cnf, 0)
					if st, err := s.Solve(context.Background()); err != nil || st != sat.Satisfiable {
						t.Fatalf("the exported CNF: %v %v, want satisfiable", st, err)
					}
				case "mps":
					m, err := milp.ReadMPS(&buf)
					if err != nil {
						t.Fatal(err)
					}
					if !milp.HiGHSEnabled {
						return
					}
					sol, err := milp.HiGHS().Solve(context.Background(), m, milp.Params{Threads: 1})
					// The single leaf: no error, one node for min-size.
					want := 0.0
					if obj == model.MinSize {
						want = 1
					}
					if err != nil || sol.Status != milp.StatusOptimal || math.Abs(sol.Objective-want) > 1e-9 {
						t.Fatalf("the exported MILP: %+v %v, want feasible with objective %v", sol, err, want)
					}
				case "wcnf":
					// Feasible: the hard clauses are satisfiable.
					s := sat.NewCDCL()
					if err := addHardWCNF(s, buf.String()); err != nil {
						t.Fatal(err)
					}
					if st, err := s.Solve(context.Background()); err != nil || st != sat.Satisfiable {
						t.Fatalf("the exported WCNF's hard clauses: %v %v, want satisfiable", st, err)
					}
				case "mzn":
					// Solvable by Gecode as it is, with the single leaf's
					// objective (one node for min-size, at depth 0).
					if _, err := exec.LookPath("minizinc"); err != nil {
						return
					}
					file := filepath.Join(t.TempDir(), "one.mzn")
					if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
					out, err := exec.Command("minizinc", "--solver", "gecode", file).Output()
					if err != nil || !strings.Contains(string(out), "objective = 0;") && !(obj == model.MinSize && strings.Contains(string(out), "objective = 1;")) {
						t.Fatalf("minizinc on the exported model: %v\n%s", err, out)
					}
				default:
					t.Fatalf("format %q", format)
				}
			})
		}
	}
}

// addHardWCNF adds the hard clauses of a classic WCNF text (weight = the
// header's top weight) to s.
func addHardWCNF(s sat.Solver, text string) error {
	top := ""
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] == "c" {
			continue
		}
		if f[0] == "p" {
			if len(f) != 5 || f[1] != "wcnf" {
				return fmt.Errorf("WCNF header %q", line)
			}
			top = f[4]
			continue
		}
		if top == "" {
			return fmt.Errorf("WCNF clause before the header: %q", line)
		}
		if f[0] != top {
			continue // soft
		}
		var lits []sat.Lit
		for _, x := range f[1 : len(f)-1] {
			v, err := strconv.Atoi(x)
			if err != nil {
				return fmt.Errorf("WCNF clause %q: %w", line, err)
			}
			lits = append(lits, sat.Lit(v))
		}
		s.AddClause(lits...)
	}
	return nil
}

func isExporter(b backend.Backend) bool { _, ok := b.(backend.Exporter); return ok }
