package backendtest

import (
	"fmt"
	"math/rand/v2"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// tinyData is random data: n rows, f features of a few values each (a
// binary one, a numeric one, and with mixed a categorical one), k classes
// drawn with a signal on the first feature.
func tinyData(rng *rand.Rand, n, f, k int, mixed bool) *model.Dataset {
	d := &model.Dataset{Name: fmt.Sprintf("random-%dx%d", n, f)}
	for c := range k {
		d.Classes = append(d.Classes, fmt.Sprint("c", c))
	}
	for j := range f {
		ft := model.Feature{Name: fmt.Sprint("x", j), Values: make([]float64, n)}
		levels := 2 + j%3
		if mixed && j == f-1 {
			ft.Kind = model.Categorical
			ft.Levels = []string{"red", "green", "blue"}
			levels = 3
		}
		for r := range n {
			ft.Values[r] = float64(rng.IntN(levels))
		}
		d.Features = append(d.Features, ft)
	}
	d.Labels = make([]int, n)
	for r := range n {
		if rng.IntN(3) == 0 {
			d.Labels[r] = rng.IntN(k)
		} else {
			d.Labels[r] = int(d.Features[0].Values[r]) % k
		}
	}
	// Every class appears, so the data is valid for every backend.
	for c := range k {
		d.Labels[c%n] = c
	}
	return d
}

// consistent drops the rows that repeat an earlier row's features with
// another label, so that a tree with no error exists.
func consistent(d *model.Dataset) *model.Dataset {
	var keep []int
	for _, g := range d.IdenticalGroups() {
		for _, r := range g {
			if d.Labels[r] == d.Labels[g[0]] {
				keep = append(keep, r)
			}
		}
	}
	out := d.Subset(keep)
	out.Name = d.Name + "-consistent"
	return out
}

// weighted returns d with random row weights (whole numbers when whole).
func weighted(rng *rand.Rand, d *model.Dataset, whole bool) *model.Dataset {
	out := d.Subset(identity(d.Rows()))
	out.Weights = make([]float64, d.Rows())
	for i := range out.Weights {
		out.Weights[i] = float64(1 + rng.IntN(3))
		if !whole {
			out.Weights[i] += 0.25 * float64(rng.IntN(4))
		}
	}
	return out
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// defaultProblem is a problem of the objective the suite checks
// (Config.Objective, by default the backend's main one).
func defaultProblem(info backend.Info, c Config, depth int) model.Problem {
	p := model.Problem{Objective: c.objective(info), MaxDepth: model.NoDepthLimit}
	switch p.Objective {
	case model.MinError:
		p.MaxDepth = depth
	case model.DiagramError:
		p.Skeleton, p.Alpha = []int{1, 2, 2}, 0.01
	}
	return p
}

// hard is a problem that keeps the backend busy for several seconds.
func hard(info backend.Info, c Config) (*model.Dataset, model.Problem) {
	if c.Hard != nil {
		return c.Hard()
	}
	rng := rand.New(rand.NewPCG(11, 12))
	p := model.Problem{Objective: c.objective(info), MaxDepth: model.NoDepthLimit}
	n, f, levels := 2000, 10, 40
	switch p.Objective {
	case model.MinError:
		p.MaxDepth = 6
	case model.MinDepth, model.MinSize, model.MinNodes:
		n, f, levels = 400, 8, 30
	case model.DiagramError:
		n, f, levels = 300, 8, 30
		p.Skeleton, p.Alpha = []int{1, 2, 4, 8}, 0.01
	}
	d := &model.Dataset{Name: "hard", Classes: []string{"a", "b", "c"}, Labels: make([]int, n)}
	for j := range f {
		ft := model.Feature{Name: fmt.Sprint("x", j), Values: make([]float64, n)}
		for r := range n {
			ft.Values[r] = float64(rng.IntN(levels))
		}
		d.Features = append(d.Features, ft)
	}
	for r := range n {
		d.Labels[r] = rng.IntN(3)
	}
	if p.Objective.Consistent() {
		d = consistent(d)
	}
	return d, p
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
