package avellaneda

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit/internal/shared"
	"github.com/odtkit/odtkit/model"
)

// sharedDir locates ../shared beside the repository root (or skips).
func sharedDir(t testing.TB) string {
	t.Helper()
	return shared.Dir(t, "reference/inferdt.tsv")
}

type refRow struct {
	file                  string
	depth, nodes          int // -1 = not established
	cpuDepth, cpuSize     float64
	cpuDepthOK, cpuSizeOK bool
}

func readReference(t testing.TB, dir string) []refRow {
	t.Helper()
	var rows []refRow
	for _, row := range shared.Table(t, "reference/inferdt.tsv") {
		num := func(col string) int {
			if n, ok := row.Int(col); ok {
				return n
			}
			return -1
		}
		r := refRow{file: row["dataset"], depth: num("min_depth"), nodes: num("min_nodes")}
		r.cpuDepth, r.cpuDepthOK = row.Float("cpu_depth_s")
		r.cpuSize, r.cpuSizeOK = row.Float("cpu_size_s")
		rows = append(rows, r)
	}
	return rows
}

// long reports whether the long suite runs (ODTKIT_LONG=1, not -short).
func long() bool { return shared.Long() }

// isLongRow: the rows InferDT could not finish (car, balance-scale) take
// minutes; they run only in the long suite.
func isLongRow(r refRow) bool {
	return strings.HasPrefix(r.file, "car") || strings.HasPrefix(r.file, "balance-scale")
}

// longTimeout bounds each DT_depth and DT_size of the long rows
// (ODTKIT_LONG_TIMEOUT, a Go duration; default 20m).
func longTimeout(t testing.TB) time.Duration {
	s := os.Getenv("ODTKIT_LONG_TIMEOUT")
	if s == "" {
		return 20 * time.Minute
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("ODTKIT_LONG_TIMEOUT: %v", err)
	}
	return d
}

// TestReferenceInferDT checks DT_depth and DT_size against the reference
// table and that every tree classifies all rows. By default it runs
// DT_depth on every row InferDT finished quickly and DT_size where
// InferDT needed at most a second; ODTKIT_LONG=1 runs every established
// cell and logs the times beside the reference CPU times (sums over the
// rows where both reference times are numbers).
func TestReferenceInferDT(t *testing.T) {
	dir := sharedDir(t)
	var sumDepth, sumSize, cpuDepth, cpuSize, refDepth, refSize float64
	complete := true
	for _, ref := range readReference(t, dir) {
		if isLongRow(ref) && !long() {
			t.Logf("%s: skipped (set ODTKIT_LONG=1 for car and balance-scale)", ref.file)
			continue
		}
		if ref.depth < 0 {
			continue
		}
		t.Run(ref.file, func(t *testing.T) {
			d, err := model.ReadFile(filepath.Join(dir, "data", "inferdt", ref.file), model.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := Prepare(d, false)
			if err != nil {
				t.Fatal(err)
			}
			// Each of DT_depth and DT_size gets its own timeout on the long rows.
			limited := func() (context.Context, context.CancelFunc) {
				if isLongRow(ref) {
					return context.WithTimeout(context.Background(), longTimeout(t))
				}
				return context.WithCancel(context.Background())
			}
			ctx, cancel := limited()
			defer cancel()
			c0, start := cpuSeconds(), time.Now()
			od, err := MinDepth(ctx, p, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			td, cd := time.Since(start).Seconds(), cpuSeconds()-c0
			if od.Stopped {
				t.Fatalf("DT_depth did not finish within %v (depth lower bound %d, reference %d)", longTimeout(t), od.DepthLowerBound, ref.depth)
			}
			checkTree(t, d, od.Model)
			if !od.Optimal || od.Depth != ref.depth {
				t.Fatalf("min depth %d (optimal %v), reference %d", od.Depth, od.Optimal, ref.depth)
			}
			t.Logf("%s: DT_depth %d in %.2fs wall, %.2fs CPU (%d examples; reference %s CPU)", ref.file, od.Depth, td, cd, od.Examples, refTime(ref.cpuDepth, ref.cpuDepthOK))
			if ref.nodes < 0 || (!long() && !(ref.cpuSizeOK && ref.cpuSize <= 1)) {
				if ref.cpuDepthOK && ref.cpuSizeOK {
					complete = false
				}
				return
			}
			ctx, cancel = limited()
			defer cancel()
			c0, start = cpuSeconds(), time.Now()
			os, err := MinSize(ctx, p, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			ts, cs := time.Since(start).Seconds(), cpuSeconds()-c0
			if os.Stopped {
				best := "no tree"
				if os.Model != nil {
					best = fmt.Sprintf("best %d nodes", os.Model.Size())
				}
				t.Fatalf("DT_size did not finish within %v (%s, leaves lower bound %d, reference %d nodes)", longTimeout(t), best, os.LeavesLowerBound, ref.nodes)
			}
			checkTree(t, d, os.Model)
			if size := os.Model.Size(); !os.Optimal || size != ref.nodes {
				t.Fatalf("min size %d (optimal %v), reference %d", size, os.Optimal, ref.nodes)
			}
			if os.Model.Depth() != ref.depth {
				t.Fatalf("min-size tree has depth %d, minimum %d", os.Model.Depth(), ref.depth)
			}
			t.Logf("%s: DT_size %d in %.2fs wall, %.2fs CPU (%d examples, %d solver calls; reference %s CPU)",
				ref.file, os.Model.Size(), ts, cs, os.Examples, os.Calls, refTime(ref.cpuSize, ref.cpuSizeOK))
			if ref.cpuDepthOK && ref.cpuSizeOK {
				sumDepth += td
				sumSize += ts
				cpuDepth += cd
				cpuSize += cs
				refDepth += ref.cpuDepth
				refSize += ref.cpuSize
			}
		})
	}
	if complete && refDepth > 0 {
		t.Logf("rows with both reference times: DT_depth %.2fs wall, %.2fs CPU (reference %.2fs CPU); DT_size %.2fs wall, %.2fs CPU (reference %.2fs CPU)",
			sumDepth, cpuDepth, refDepth, sumSize, cpuSize, refSize)
	}
}

func refTime(x float64, ok bool) string {
	if !ok {
		return "none"
	}
	return strconv.FormatFloat(x, 'f', 2, 64) + "s"
}

// checkTree asserts that g is a valid tree classifying every row of d.
func checkTree(t testing.TB, d *model.Dataset, g *model.Graph) {
	t.Helper()
	if g == nil {
		t.Fatal("no tree")
	}
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if g.Kind != model.KindTree {
		t.Fatalf("kind %s", g.Kind)
	}
	if e := g.Errors(d); e != 0 {
		t.Fatalf("tree misclassifies %d rows", e)
	}
	// Decode keeps no branch that no row takes.
	reached := map[int]bool{}
	for r := range d.Rows() {
		reached[g.Leaf(d, r)] = true
	}
	if len(reached) != g.Leaves() {
		t.Fatalf("rows reach %d of the tree's %d leaves", len(reached), g.Leaves())
	}
}
