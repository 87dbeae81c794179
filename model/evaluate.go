package model

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Evaluation is how a model does on a dataset: the `test` block of a
// result and the output of `odt eval`.
type Evaluation struct {
	Rows           int     `json:"rows"`
	Errors         int     `json:"errors"`
	WeightedErrors float64 `json:"weighted_errors"`
	Accuracy       float64 `json:"accuracy"`
	// BalancedAccuracy is the mean over the classes present in the data
	// of the fraction of their rows predicted right (unweighted rows).
	BalancedAccuracy float64 `json:"balanced_accuracy"`
	// Classes names the rows and columns of Confusion: the data's classes
	// in order, then classes only the model knows.
	Classes []string `json:"classes"`
	// Confusion[i][j] counts rows of true class i predicted as class j.
	Confusion [][]int `json:"confusion"`
}

// Evaluate applies g to every row of d (classes matched by name) and
// counts errors, accuracy, balanced accuracy and the confusion matrix.
// d must have labels: data read without them (ReadOptions.NoLabel) gives
// an evaluation of no rows.
func Evaluate(g *Graph, d *Dataset) Evaluation {
	if len(d.Classes) == 0 {
		ev := Evaluation{Classes: slices.Clone(g.Classes), Confusion: make([][]int, len(g.Classes))}
		for i := range ev.Confusion {
			ev.Confusion[i] = make([]int, len(g.Classes))
		}
		return ev
	}
	classes := append([]string(nil), d.Classes...)
	idx := make(map[string]int, len(classes))
	for i, c := range classes {
		idx[c] = i
	}
	for _, c := range g.Classes {
		if _, ok := idx[c]; !ok {
			idx[c] = len(classes)
			classes = append(classes, c)
		}
	}
	conf := make([][]int, len(classes))
	for i := range conf {
		conf[i] = make([]int, len(classes))
	}
	ev := Evaluation{Rows: d.Rows(), Classes: classes, Confusion: conf}
	for r, l := range d.Labels {
		p := idx[g.className(g.Predict(d, r))]
		conf[l][p]++
		if p != l {
			ev.Errors++
			ev.WeightedErrors += d.Weight(r)
		}
	}
	if ev.Rows > 0 {
		ev.Accuracy = 1 - float64(ev.Errors)/float64(ev.Rows)
	}
	recall, present := 0.0, 0
	for c := range d.Classes {
		n := 0
		for _, x := range conf[c] {
			n += x
		}
		if n > 0 {
			recall += float64(conf[c][c]) / float64(n)
			present++
		}
	}
	if present > 0 {
		ev.BalancedAccuracy = recall / float64(present)
	}
	return ev
}

// SetCounts records in every leaf of g the (weighted) number of rows of
// each class of d that reach it, indexed like g.Classes (d's classes are
// matched by name; rows of a class g does not know are not counted).
// Call it with the training data after solving: Proba and the JSON, text
// and DOT forms then show the counts. Leaves no row reaches get zeros.
func (g *Graph) SetCounts(d *Dataset) {
	for i := range g.Nodes {
		if g.Nodes[i].Leaf {
			g.Nodes[i].Counts = make([]float64, len(g.Classes))
		}
	}
	inv := make([]int, len(d.Classes)) // d's class -> g's class
	for i := range inv {
		inv[i] = -1
	}
	for gi, di := range g.classMap(d) {
		if di >= 0 {
			inv[di] = gi
		}
	}
	for r, l := range d.Labels {
		if l >= len(inv) {
			break // data without labels: nothing to count
		}
		if c := inv[l]; c >= 0 {
			g.Nodes[g.Leaf(d, r)].Counts[c] += d.Weight(r)
		}
	}
}

// HasCounts reports whether every leaf reachable from the root holds class
// counts (see SetCounts).
func (g *Graph) HasCounts() bool {
	for _, i := range g.reachable() {
		if n := g.Nodes[i]; n.Leaf && len(n.Counts) != len(g.Classes) {
			return false
		}
	}
	return true
}

// ErrNoCounts is returned by Proba for a model whose leaves hold no class
// counts (for example one saved before counts were recorded).
var ErrNoCounts = errors.New("the model's leaves hold no class counts (re-solve to record them), so it gives no probabilities")

// Proba returns, for row r of d, the probability of each class of g (in
// g.Classes order): the class counts of the leaf the row reaches, divided
// by their sum. A leaf no training row reached gives probability 1 to its
// class.
func (g *Graph) Proba(d *Dataset, r int) ([]float64, error) {
	if !g.HasCounts() {
		return nil, ErrNoCounts
	}
	return leafProba(g.Nodes[g.Leaf(d, r)]), nil
}

func leafProba(n Node) []float64 {
	p := make([]float64, len(n.Counts))
	tot := 0.0
	for _, c := range n.Counts {
		tot += c
	}
	if tot == 0 {
		p[n.Class] = 1
		return p
	}
	for i, c := range n.Counts {
		p[i] = c / tot
	}
	return p
}

// checkCounts validates a leaf's counts as read from JSON.
func checkCounts(counts []float64, classes int) error {
	if len(counts) != classes {
		return fmt.Errorf("%d class counts for %d classes", len(counts), classes)
	}
	for _, c := range counts {
		if c < 0 || math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("class count %v is not a finite non-negative number", c)
		}
	}
	return nil
}
