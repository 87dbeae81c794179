package model

import (
	"encoding/binary"
	"math"
	"slices"
)

// Evaluate is the problem's objective of model g on d: the (weighted)
// training error for a tree, the depth or the node count of a consistent
// tree for min-depth / min-size / min-nodes, and objective 18 of the ODD paper for
// a diagram (see DiagramObjective). It is the one definition every
// backend and the verifier use.
func (p Problem) Evaluate(d *Dataset, g *Graph) float64 {
	switch p.Normalized().Objective {
	case MinDepth:
		return float64(g.Depth())
	case MinSize, MinNodes:
		return float64(g.Size())
	case DiagramError:
		return p.DiagramObjective(d, g)
	}
	if p.LeafCost > 0 {
		return p.SparseObjective(g.WeightedErrors(d), d.TotalWeight(), g.Leaves())
	}
	return g.WeightedErrors(d)
}

// SparseObjective is the error objective with a leaf cost λ = LeafCost:
// errors/total + λ·leaves, for a model with that weighted error and that
// many leaves on data of that total weight. It is the one formula every
// backend reports for a LeafCost > 0.
func (p Problem) SparseObjective(errors, total float64, leaves int) float64 {
	if total <= 0 {
		total = 1
	}
	return errors/total + p.LeafCost*float64(leaves)
}

// DiagramObjective is objective 18 of the ODD paper for g on d: the error
// rate plus Alpha × the share of the skeleton's non-root internal nodes g
// uses, Alpha·(internal nodes − 1)/(Σ skeleton − 1). With row weights the
// error rate is the misclassified weight over the total weight (a row of
// weight w counts as w rows).
func (p Problem) DiagramObjective(d *Dataset, g *Graph) float64 {
	obj := 0.0
	if w := d.TotalWeight(); w > 0 {
		obj = g.WeightedErrors(d) / w
	}
	total := 0
	for _, w := range p.Skeleton {
		total += w
	}
	if k := g.InternalNodes(); total > 1 && k > 1 {
		obj += p.Alpha * float64(k-1) / float64(total-1)
	}
	return obj
}

// IdenticalGroups groups the rows of d whose feature values are all
// equal, in order of first row; each group lists its rows in order.
func (d *Dataset) IdenticalGroups() [][]int {
	index := map[string]int{}
	var groups [][]int
	key := make([]byte, 0, 8*len(d.Features))
	for r := range d.Rows() {
		key = key[:0]
		for _, f := range d.Features {
			key = binary.LittleEndian.AppendUint64(key, math.Float64bits(f.Values[r]+0)) // -0 is 0
		}
		i, ok := index[string(key)]
		if !ok {
			i = len(groups)
			index[string(key)] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], r)
	}
	return groups
}

// ConflictFloor is the least number of rows any classifier misclassifies
// on d: in every group of identical rows, the rows outside the group's
// most frequent label.
func (d *Dataset) ConflictFloor() int {
	floor := 0
	count := make([]int, d.NumClasses())
	for _, rows := range d.IdenticalGroups() {
		clear(count)
		for _, r := range rows {
			count[d.Labels[r]]++
		}
		floor += len(rows) - slices.Max(count)
	}
	return floor
}
