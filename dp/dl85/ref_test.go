package dl85

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/odtkit/odtkit/dp/internal/dl85"
	"github.com/odtkit/odtkit/dp/internal/dptest"
	"github.com/odtkit/odtkit/internal/shared"
	"github.com/odtkit/odtkit/model"
)

// dl85RefCell is one row of ../shared/reference/cp4im-optima.tsv.
type dl85RefCell struct {
	Dataset        string
	Depth, Optimum int
	DL85CPU        float64 // -1 when not numeric
	MurTreeCPU     float64
}

// dl85SharedDir locates ../shared beside the repository root (or skips).
func dl85SharedDir(tb testing.TB) string {
	tb.Helper()
	return shared.Dir(tb, "reference/cp4im-optima.tsv")
}

func dl85RefCells(tb testing.TB) []dl85RefCell {
	tb.Helper()
	num := func(r shared.Row, col string) float64 {
		if x, ok := r.Float(col); ok {
			return x
		}
		return -1
	}
	var cells []dl85RefCell
	for _, r := range shared.Table(tb, "reference/cp4im-optima.tsv") {
		depth, ok1 := r.Int("depth")
		opt, ok2 := r.Int("optimum")
		if !ok1 || !ok2 {
			continue // unknown optimum
		}
		cells = append(cells, dl85RefCell{Dataset: r["dataset"], Depth: depth, Optimum: opt, DL85CPU: num(r, "dl85_cpu_s"), MurTreeCPU: num(r, "murtree_cpu_s")})
	}
	if len(cells) == 0 {
		tb.Fatal("no reference cells")
	}
	return cells
}

var dl85DataCache sync.Map

// dl85Load reads and binarises a cp4im dataset (cached across tests).
func dl85Load(tb testing.TB, name string) *model.BinaryView {
	tb.Helper()
	if v, ok := dl85DataCache.Load(name); ok {
		return v.(*model.BinaryView)
	}
	dir := dl85SharedDir(tb)
	d, err := model.ReadFile(filepath.Join(dir, "data", "cp4im", name+".txt"), model.ReadOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	v := model.Binarize(d)
	dl85DataCache.Store(name, v)
	return v
}

// dl85Check verifies a result against the data: depth, claimed errors,
// bound and the expected optimum.
func dl85Check(t *testing.T, v *model.BinaryView, depth, minSup int, r *Result, want float64) {
	t.Helper()
	if !r.Optimal {
		t.Fatalf("not proven optimal (error %v, bound %v)", r.Error, r.LowerBound)
	}
	if err := r.Tree.Validate(); err != nil {
		t.Fatalf("invalid tree: %v", err)
	}
	if got := r.Tree.Depth(); got > depth {
		t.Fatalf("tree depth %d > %d", got, depth)
	}
	if got := r.Tree.WeightedErrors(v.Data); got != r.Error {
		t.Fatalf("tree makes %v errors, solver claims %v", got, r.Error)
	}
	if r.Error != want {
		t.Fatalf("error %v, reference optimum %v", r.Error, want)
	}
	if r.LowerBound != r.Error {
		t.Fatalf("optimal result with bound %v != error %v", r.LowerBound, r.Error)
	}
	if minSup > 1 {
		count := map[int]int{}
		for row := range v.Data.Rows() {
			count[r.Tree.Leaf(v.Data, row)]++
		}
		for leaf, c := range count {
			if c < minSup {
				t.Fatalf("leaf %d holds %d rows < min support %d", leaf, c, minSup)
			}
		}
	}
}

func dl85Long() bool { return shared.Long() }

// dl85SlowD4 are the depth-4 cells that take this solver several seconds
// (ionosphere about a minute): they run with ODTKIT_LONG=1 only.
var dl85SlowD4 = map[string]bool{"ionosphere": true, "pendigits": true, "vehicle": true}

// TestDL85Reference checks DL8.5 against every cp4im optimum at depths
// 1-4 except the slow depth-4 cells of dl85SlowD4, which run under
// ODTKIT_LONG=1.
func TestDL85Reference(t *testing.T) {
	for _, c := range dl85RefCells(t) {
		quick := c.Depth <= 3 || (c.Depth == 4 && !dl85SlowD4[c.Dataset])
		if !quick && !(dl85Long() && c.Depth <= 4) {
			continue
		}
		t.Run(c.Dataset+"/d"+strconv.Itoa(c.Depth), func(t *testing.T) {
			v := dl85Load(t, c.Dataset)
			top := math.Inf(-1)
			r, err := Solve(context.Background(), v, Config{MaxDepth: c.Depth, OnBound: func(lb float64) { top = max(top, lb) }})
			if err != nil {
				t.Fatal(err)
			}
			dl85Check(t, v, c.Depth, 1, r, float64(c.Optimum))
			if top != float64(c.Optimum) {
				t.Fatalf("highest bound reported %v, reference optimum %v", top, c.Optimum)
			}
		})
	}
}

// BenchmarkDL85 measures the time to a proven optimum per cp4im dataset
// and depth (filter with -bench 'Solve/pendigits/d4$'; -benchtime=1x runs
// each cell once). Besides ns/op it reports cpu-s (user+system CPU seconds
// of the process per solve, garbage collector included, comparable with
// the reference's CPU seconds), peakRSS-MB (the process's peak resident
// set during the cell, reset before it; Linux only, else -1), cacheMB (the
// engine's estimate of its cache at its peak) and the reference DL8.5 and
// MurTree CPU seconds of the cell (-1 when not numeric).
// Cells named VARIANT-dN measure the improvements by turning one off
// ('/d4$' leaves them out): nod2 without the depth-2 step, nolb without
// the lower bounds of cached branches, noinherit with every test checked
// at every node, nosim without the similarity bound, falsefirst with the
// false side of every test searched first, nolink with every depth-2
// step counting its own pairs.
func BenchmarkDL85(b *testing.B) {
	variants := []struct {
		name string
		s    Config
	}{
		{"", Config{}},
		{"nod2-", Config{NoDepth2: true}},
		{"nolb-", Config{tune: func(c *dl85.Config) { c.NoCachedBounds = true }}},
		{"noinherit-", Config{tune: func(c *dl85.Config) { c.NoInheritTests = true }}},
		{"nosim-", Config{tune: func(c *dl85.Config) { c.NoSimilarity = true }}},
		{"falsefirst-", Config{tune: func(c *dl85.Config) { c.FalseFirst = true }}},
		{"nolink-", Config{tune: func(c *dl85.Config) { c.NoLinkedDepth2 = true }}},
	}
	for _, c := range dl85RefCells(b) {
		if c.Depth < 2 {
			continue
		}
		for _, vr := range variants {
			name := c.Dataset + "/" + vr.name + "d" + strconv.Itoa(c.Depth)
			b.Run(name, func(b *testing.B) {
				v := dl85Load(b, c.Dataset)
				var r *Result
				var err error
				reset := dl85ResetPeakRSS()
				cpu0 := dptest.CPUSeconds()
				for b.Loop() {
					r, err = Solve(context.Background(), v, withDepth(vr.s, c.Depth, 1))
					if err != nil {
						b.Fatal(err)
					}
				}
				cpu := (dptest.CPUSeconds() - cpu0) / float64(b.N)
				if cpu0 < 0 {
					cpu = -1
				}
				peak := -1.0
				if reset {
					peak = dl85PeakRSSMB()
				}
				if r.Error != float64(c.Optimum) || !r.Optimal {
					b.Fatalf("error %v (optimal %v), reference %d", r.Error, r.Optimal, c.Optimum)
				}
				b.ReportMetric(cpu, "cpu-s")
				b.ReportMetric(peak, "peakRSS-MB")
				b.ReportMetric(float64(r.Stats["cache_peak_bytes"].(int64))/(1<<20), "cacheMB")
				b.ReportMetric(c.DL85CPU, "ref-dl85-s")
				b.ReportMetric(c.MurTreeCPU, "ref-murtree-s")
			})
		}
	}
}
