package odd

import (
	"fmt"
	"math/rand/v2"

	"github.com/odtkit/odtkit/model"
)

// randomBinary returns n rows of f random 0/1 features with a noisy
// label that depends on a few of them.
func randomBinary(seed uint64, n, f, classes int) *model.Dataset {
	r := rand.New(rand.NewPCG(seed, 99))
	d := emptyData(fmt.Sprintf("rnd%d", seed), n, f, classes)
	for i := range n {
		for j := range f {
			d.Features[j].Values[i] = float64(r.IntN(2))
		}
		l := (int(d.Features[0].Values[i]) ^ int(d.Features[1%f].Values[i])) % classes
		if r.IntN(4) == 0 {
			l = r.IntN(classes)
		}
		d.Labels = append(d.Labels, l)
	}
	return d
}

// emptyData is a dataset of f numeric features of n rows (all 0) and
// classes classes named by their index, without labels.
func emptyData(name string, n, f, classes int) *model.Dataset {
	d := &model.Dataset{Name: name}
	for j := range f {
		d.Features = append(d.Features, model.Feature{Name: fmt.Sprintf("f%d", j), Kind: model.Numeric, Values: make([]float64, n)})
	}
	for c := range classes {
		d.Classes = append(d.Classes, fmt.Sprint(c))
	}
	return d
}

// bestTreeErrors is an exhaustive search: the fewest errors of a tree of
// depth at most depth over 0/1 features.
func bestTreeErrors(d *model.Dataset, rows []int, depth int) int {
	counts := make([]int, d.NumClasses())
	for _, r := range rows {
		counts[d.Labels[r]]++
	}
	best := len(rows)
	for _, c := range counts {
		best = min(best, len(rows)-c)
	}
	if depth == 0 || best == 0 {
		return best
	}
	for f := range d.Features {
		lo, hi := splitRows(d, rows, f)
		if len(lo) == 0 || len(hi) == 0 {
			continue
		}
		best = min(best, bestTreeErrors(d, lo, depth-1)+bestTreeErrors(d, hi, depth-1))
	}
	return best
}

// splitRows splits rows by the 0/1 feature f.
func splitRows(d *model.Dataset, rows []int, f int) (lo, hi []int) {
	for _, r := range rows {
		if d.Features[f].Values[r] > 0.5 {
			hi = append(hi, r)
		} else {
			lo = append(lo, r)
		}
	}
	return lo, hi
}

func allRows(d *model.Dataset) []int {
	rows := make([]int, d.Rows())
	for i := range rows {
		rows[i] = i
	}
	return rows
}

// Exported for the external tests of the backend (package odd_test).
var (
	BestTreeErrors = bestTreeErrors
	AllRows        = allRows
)
