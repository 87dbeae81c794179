package avellaneda

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/odtkit/odtkit/model"
)

// sharedDir locates ../shared beside the repository root.
func sharedDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared")
	if _, err := os.Stat(filepath.Join(dir, "reference", "inferdt.tsv")); err != nil {
		t.Skip("inferdt reference: ../shared not present")
	}
	return dir
}

type refRow struct {
	file                  string
	depth, nodes          int // -1 = not established
	cpuDepth, cpuSize     float64
	cpuDepthOK, cpuSizeOK bool
}

func readReference(t testing.TB, dir string) []refRow {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "reference", "inferdt.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []refRow
	sc := bufio.NewScanner(f)
	header := true
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		if header {
			header = false
			continue
		}
		c := strings.Split(line, "\t")
		num := func(s string) int {
			n, err := strconv.Atoi(s)
			if err != nil {
				return -1
			}
			return n
		}
		fl := func(s string) (float64, bool) {
			x, err := strconv.ParseFloat(s, 64)
			return x, err == nil
		}
		r := refRow{file: c[0], depth: num(c[3]), nodes: num(c[4])}
		r.cpuDepth, r.cpuDepthOK = fl(c[5])
		r.cpuSize, r.cpuSizeOK = fl(c[6])
		rows = append(rows, r)
	}
	return rows
}

// long reports whether the long suite runs (ODTKIT_LONG=1, not -short).
func long() bool { return os.Getenv("ODTKIT_LONG") == "1" && !testing.Short() }

// isLongRow: the rows InferDT could not finish, and the balance-scale
// sizes, take minutes.
func isLongRow(r refRow) bool {
	return strings.HasPrefix(r.file, "car") || strings.HasPrefix(r.file, "balance-scale")
}

// TestReferenceInferDT checks DT_depth and DT_size against the reference
// table and that every tree classifies all rows.
func TestReferenceInferDT(t *testing.T) {
	dir := sharedDir(t)
	var sumDepth, sumSize, refDepth, refSize float64
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
			start := time.Now()
			od, err := MinDepth(context.Background(), p, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			td := time.Since(start).Seconds()
			checkTree(t, d, od.Tree)
			if !od.Optimal || od.Depth != ref.depth {
				t.Fatalf("min depth %d (optimal %v), reference %d", od.Depth, od.Optimal, ref.depth)
			}
			if ref.nodes < 0 && !long() {
				t.Logf("%s: depth %d in %.2fs (%d examples)", ref.file, od.Depth, td, od.Examples)
				return
			}
			start = time.Now()
			os, err := MinSize(context.Background(), p, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			ts := time.Since(start).Seconds()
			checkTree(t, d, os.Tree)
			if size := os.Tree.Size(); ref.nodes >= 0 && (!os.Optimal || size != ref.nodes) {
				t.Fatalf("min size %d (optimal %v), reference %d", size, os.Optimal, ref.nodes)
			}
			if os.Tree.Depth() != ref.depth {
				t.Fatalf("min-size tree has depth %d, minimum %d", os.Tree.Depth(), ref.depth)
			}
			t.Logf("%s: depth %d in %.2fs (%d examples, ref %.2fs), size %d in %.2fs (%d examples, ref %.2fs)",
				ref.file, od.Depth, td, od.Examples, ref.cpuDepth, os.Tree.Size(), ts, os.Examples, ref.cpuSize)
			if ref.cpuDepthOK && ref.cpuSizeOK {
				sumDepth += td
				sumSize += ts
				refDepth += ref.cpuDepth
				refSize += ref.cpuSize
			}
		})
	}
	t.Logf("rows with both reference times: DT_depth %.2fs (reference %.2fs), DT_size %.2fs (reference %.2fs)", sumDepth, refDepth, sumSize, refSize)
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
}
