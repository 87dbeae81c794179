package model

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// GraphKind tells a tree (every node has at most one parent) from a
// diagram (nodes may be shared).
type GraphKind string

const (
	KindTree    GraphKind = "tree"
	KindDiagram GraphKind = "diagram"
)

// Node is a node of a decision graph: a leaf naming a class, or an
// internal node with a test and two successors.
//
// Tests of internal nodes (docs/formats.md shows their JSON form):
//   - univariate numeric: the row goes to Low when x[Feature] <= Threshold, else High;
//   - categorical (IsCategory): to High when x[Feature] equals Category, else Low;
//   - multivariate (Weights != nil, Feature = -1): to Low when
//     sum_j Weights[j]*x[j] <= Threshold, else High.
type Node struct {
	Leaf       bool
	Class      int
	Feature    int
	Threshold  float64
	IsCategory bool
	Category   string
	Weights    map[int]float64
	Low, High  int
	// Counts, on a leaf, holds the training rows of each class that reach
	// it (indexed like Graph.Classes; weighted when the data has weights),
	// or nil when not recorded (see Graph.SetCounts).
	Counts []float64
}

// Graph is a decision graph: trees and diagrams alike.
type Graph struct {
	Kind     GraphKind
	Features []string
	Classes  []string
	Root     int
	Nodes    []Node
}

// Builder assembles a graph bottom-up. Every method returns the new
// node's index, to be used as a successor of later nodes.
type Builder struct {
	data  *Dataset
	kind  GraphKind
	nodes []Node
}

// MajorityLeaf is the tree of one leaf predicting d's majority class (by
// weight; the lowest index on ties): the model every error problem
// admits when d's rows meet its minimum support.
func MajorityLeaf(d *Dataset) *Graph {
	class, _ := Majority(d.ClassCounts())
	b := NewBuilder(d, KindTree)
	return b.Graph(b.Leaf(class))
}

// NewBuilder starts a graph over d's features and classes.
func NewBuilder(d *Dataset, kind GraphKind) *Builder {
	return &Builder{data: d, kind: kind}
}

func (b *Builder) add(n Node) int {
	b.nodes = append(b.nodes, n)
	return len(b.nodes) - 1
}

// Leaf adds a leaf predicting class c.
func (b *Builder) Leaf(c int) int { return b.add(Node{Leaf: true, Class: c, Feature: -1}) }

// Split adds a node for a binary-view test: rows where the test is false
// go to low, rows where it is true go to high.
func (b *Builder) Split(t Test, low, high int) int {
	if t.Categorical {
		return b.Category(t.Feature, b.data.Features[t.Feature].Levels[t.Level], low, high)
	}
	return b.Threshold(t.Feature, t.Threshold, low, high)
}

// Threshold adds a node sending x[f] <= t to low, else high.
func (b *Builder) Threshold(f int, t float64, low, high int) int {
	return b.add(Node{Feature: f, Threshold: t, Low: low, High: high})
}

// Category adds a node sending rows with x[f] == level to high, else low.
func (b *Builder) Category(f int, level string, low, high int) int {
	return b.add(Node{Feature: f, IsCategory: true, Category: level, Low: low, High: high})
}

// Linear adds a node sending sum_j w[j]*x[j] <= t to low, else high.
func (b *Builder) Linear(w map[int]float64, t float64, low, high int) int {
	return b.add(Node{Feature: -1, Weights: w, Threshold: t, Low: low, High: high})
}

// Graph returns the graph rooted at root, keeping only the nodes reachable
// from it, numbered in depth-first order (root = 0).
func (b *Builder) Graph(root int) *Graph {
	g := &Graph{Kind: b.kind, Features: b.data.FeatureNames(), Classes: slices.Clone(b.data.Classes), Nodes: b.nodes, Root: root}
	return g.Compact()
}

// Compact returns a copy of g holding only the nodes reachable from the
// root, renumbered in depth-first order with the root first.
func (g *Graph) Compact() *Graph {
	id := make(map[int]int)
	var order []int
	var visit func(i int)
	visit = func(i int) {
		if _, ok := id[i]; ok || i < 0 || i >= len(g.Nodes) {
			return
		}
		id[i] = len(order)
		order = append(order, i)
		if n := g.Nodes[i]; !n.Leaf {
			visit(n.Low)
			visit(n.High)
		}
	}
	visit(g.Root)
	out := &Graph{Kind: g.Kind, Features: g.Features, Classes: g.Classes, Nodes: make([]Node, len(order))}
	for j, i := range order {
		n := g.Nodes[i]
		if !n.Leaf {
			n.Low, n.High = id[n.Low], id[n.High]
		}
		out.Nodes[j] = n
	}
	return out
}

// Validate checks that the graph is well formed: indices in range,
// acyclic, every node reachable from the root, and for a tree at most one
// parent per node.
func (g *Graph) Validate() error {
	if g.Kind != KindTree && g.Kind != KindDiagram {
		return fmt.Errorf("graph kind %q is neither %q nor %q", g.Kind, KindTree, KindDiagram)
	}
	n := len(g.Nodes)
	if n == 0 {
		return errors.New("graph has no nodes")
	}
	if g.Root < 0 || g.Root >= n {
		return fmt.Errorf("root %d out of range [0,%d)", g.Root, n)
	}
	indeg := make([]int, n)
	for i, nd := range g.Nodes {
		if nd.Leaf {
			if nd.Class < 0 || nd.Class >= len(g.Classes) {
				return fmt.Errorf("node %d: class %d out of range (%d classes)", i, nd.Class, len(g.Classes))
			}
			continue
		}
		for _, s := range []int{nd.Low, nd.High} {
			if s < 0 || s >= n {
				return fmt.Errorf("node %d: successor %d out of range [0,%d)", i, s, n)
			}
			indeg[s]++
		}
		switch {
		case nd.Weights != nil:
			if len(nd.Weights) == 0 {
				return fmt.Errorf("node %d: empty weight vector", i)
			}
			for f := range nd.Weights {
				if f < 0 || f >= len(g.Features) {
					return fmt.Errorf("node %d: weight on feature %d out of range (%d features)", i, f, len(g.Features))
				}
			}
		case nd.Feature < 0 || nd.Feature >= len(g.Features):
			return fmt.Errorf("node %d: feature %d out of range (%d features)", i, nd.Feature, len(g.Features))
		}
	}
	// Acyclic and reachable: depth-first search with colours.
	const (
		white = iota
		grey
		black
	)
	colour := make([]int, n)
	var dfs func(i int) error
	dfs = func(i int) error {
		colour[i] = grey
		if nd := g.Nodes[i]; !nd.Leaf {
			for _, s := range []int{nd.Low, nd.High} {
				switch colour[s] {
				case grey:
					return fmt.Errorf("cycle through nodes %d and %d", i, s)
				case white:
					if err := dfs(s); err != nil {
						return err
					}
				}
			}
		}
		colour[i] = black
		return nil
	}
	if err := dfs(g.Root); err != nil {
		return err
	}
	for i := range colour {
		if colour[i] == white {
			return fmt.Errorf("node %d is not reachable from the root", i)
		}
	}
	if g.Kind == KindTree {
		for i, d := range indeg {
			if d > 1 {
				return fmt.Errorf("tree node %d has %d parents", i, d)
			}
		}
		if indeg[g.Root] != 0 {
			return fmt.Errorf("tree root %d has a parent", g.Root)
		}
	}
	return nil
}

// goesHigh reports whether row r of d goes to the high successor of nd.
func goesHigh(nd *Node, d *Dataset, r int) bool {
	switch {
	case nd.Weights != nil:
		s := 0.0
		for f, w := range nd.Weights {
			s += w * d.Features[f].Values[r]
		}
		return s > nd.Threshold
	case nd.IsCategory:
		f := &d.Features[nd.Feature]
		if f.Kind != Categorical {
			return false
		}
		return f.Levels[int(f.Values[r])] == nd.Category
	default:
		return d.Features[nd.Feature].Values[r] > nd.Threshold
	}
}

// Leaf returns the index of the leaf that row r of d reaches.
func (g *Graph) Leaf(d *Dataset, r int) int {
	i := g.Root
	for steps := 0; !g.Nodes[i].Leaf; steps++ {
		nd := &g.Nodes[i]
		if goesHigh(nd, d, r) {
			i = nd.High
		} else {
			i = nd.Low
		}
		if steps > len(g.Nodes) {
			panic("model: Graph.Leaf on a cyclic graph (call Validate first)")
		}
	}
	return i
}

// Predict returns the graph's class index for row r of d (an index into
// g.Classes).
func (g *Graph) Predict(d *Dataset, r int) int { return g.Nodes[g.Leaf(d, r)].Class }

// CheckData reports whether d fits the graph: enough feature columns,
// categorical tests on categorical columns and numeric tests on numeric ones.
func (g *Graph) CheckData(d *Dataset) error {
	if d.NumFeatures() < len(g.Features) {
		return fmt.Errorf("the model uses %d features, the data %s has %d", len(g.Features), d.Name, d.NumFeatures())
	}
	for i, nd := range g.Nodes {
		if nd.Leaf {
			continue
		}
		check := func(f int, wantCat bool) error {
			if f >= d.NumFeatures() {
				return fmt.Errorf("node %d tests feature %d; the data %s has %d", i, f, d.Name, d.NumFeatures())
			}
			if (d.Features[f].Kind == Categorical) != wantCat {
				return fmt.Errorf("node %d tests feature %d (%s) as %s, but it is %s in %s", i, f, d.Features[f].Name,
					map[bool]string{true: "categorical", false: "numeric"}[wantCat], d.Features[f].Kind, d.Name)
			}
			return nil
		}
		if nd.Weights != nil {
			for f := range nd.Weights {
				if err := check(f, false); err != nil {
					return err
				}
			}
		} else if err := check(nd.Feature, nd.IsCategory); err != nil {
			return err
		}
	}
	return nil
}

// FeatureColumns returns, for each name, the index of d's feature column
// of that name. A name d lacks, or holds twice, is an error naming every
// such name and d.
func (d *Dataset) FeatureColumns(names []string) ([]int, error) {
	at := make(map[string]int, len(d.Features))
	twice := map[string]bool{}
	for i, f := range d.Features {
		if _, dup := at[f.Name]; dup {
			twice[f.Name] = true
		}
		at[f.Name] = i
	}
	out := make([]int, len(names))
	var absent, ambiguous []string
	for i, n := range names {
		c, ok := at[n]
		switch {
		case !ok:
			absent = append(absent, fmt.Sprintf("%q", n))
		case twice[n]:
			ambiguous = append(ambiguous, fmt.Sprintf("%q", n))
		}
		out[i] = c
	}
	switch {
	case len(absent) > 0:
		return nil, fmt.Errorf("the data %s has no feature column %s (its features: %s)", d.Name, strings.Join(absent, ", "), strings.Join(d.FeatureNames(), ", "))
	case len(ambiguous) > 0:
		return nil, fmt.Errorf("the data %s has more than one feature column named %s", d.Name, strings.Join(ambiguous, ", "))
	}
	return out, nil
}

// UsedFeatures lists the names of the features the graph's reachable
// nodes test, in the order of g.Features.
func (g *Graph) UsedFeatures() []string {
	var out []string
	for f, u := range g.usedMask() {
		if u {
			out = append(out, g.Features[f])
		}
	}
	return out
}

// usedMask marks the features g's reachable nodes test.
func (g *Graph) usedMask() []bool {
	used := make([]bool, len(g.Features))
	for _, i := range g.reachable() {
		nd := g.Nodes[i]
		switch {
		case nd.Leaf:
		case nd.Weights != nil:
			for f := range nd.Weights {
				used[f] = true
			}
		default:
			used[nd.Feature] = true
		}
	}
	return used
}

// Bind returns g applied to d's columns by name: a copy whose tests name
// the index of d's feature column of the same name as g's feature, and
// whose Features are d's names. d may order its columns differently and
// hold columns g does not test; a feature g tests that d lacks (or holds
// twice) is an error naming it and d, and so is a numeric test on a
// categorical column or the reverse. Categorical tests and classes are
// matched by name already (Category holds the level's text, Evaluate and
// Errors match class names), so the bound graph predicts for d's rows
// what g predicts for the same values under g's own column order.
func (g *Graph) Bind(d *Dataset) (*Graph, error) {
	g = g.Compact() // every node reachable
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("invalid model: %w", err)
	}
	var used []string
	var usedIdx []int
	seen := map[string]bool{}
	for f, u := range g.usedMask() {
		if !u {
			continue
		}
		n := g.Features[f]
		if seen[n] {
			return nil, fmt.Errorf("the model tests two features named %q, so it cannot be applied by name", n)
		}
		seen[n] = true
		used, usedIdx = append(used, n), append(usedIdx, f)
	}
	cols, err := d.FeatureColumns(used)
	if err != nil {
		return nil, err
	}
	remap := make([]int, len(g.Features)) // g's feature -> d's column
	for i := range remap {
		remap[i] = -1
	}
	for k, f := range usedIdx {
		remap[f] = cols[k]
	}
	out := &Graph{Kind: g.Kind, Features: d.FeatureNames(), Classes: g.Classes, Root: g.Root, Nodes: make([]Node, len(g.Nodes))}
	for i, nd := range g.Nodes {
		switch {
		case nd.Leaf:
		case nd.Weights != nil:
			w := make(map[int]float64, len(nd.Weights))
			for f, x := range nd.Weights {
				w[remap[f]] = x
			}
			nd.Weights = w
		default:
			nd.Feature = remap[nd.Feature]
		}
		out.Nodes[i] = nd
	}
	if err := out.CheckData(d); err != nil {
		return nil, err
	}
	return out, nil
}

// classMap maps the graph's class indices to d's (by name), -1 where d
// has no such class.
func (g *Graph) classMap(d *Dataset) []int {
	idx := make(map[string]int, len(d.Classes))
	for i, c := range d.Classes {
		idx[c] = i
	}
	m := make([]int, len(g.Classes))
	for i, c := range g.Classes {
		if j, ok := idx[c]; ok {
			m[i] = j
		} else {
			m[i] = -1
		}
	}
	return m
}

// PredictLabels returns, for every row of d, the predicted class index in
// g.Classes.
func (g *Graph) PredictLabels(d *Dataset) []int {
	out := make([]int, d.Rows())
	for r := range out {
		out[r] = g.Predict(d, r)
	}
	return out
}

// Errors counts the rows of d whose predicted class (matched by name)
// differs from their label (none for data without labels).
func (g *Graph) Errors(d *Dataset) int {
	if len(d.Classes) == 0 {
		return 0
	}
	m := g.classMap(d)
	e := 0
	for r, l := range d.Labels {
		if m[g.Predict(d, r)] != l {
			e++
		}
	}
	return e
}

// WeightedErrors sums the weights of the misclassified rows of d.
func (g *Graph) WeightedErrors(d *Dataset) float64 {
	if len(d.Classes) == 0 {
		return 0
	}
	m := g.classMap(d)
	e := 0.0
	for r, l := range d.Labels {
		if m[g.Predict(d, r)] != l {
			e += d.Weight(r)
		}
	}
	return e
}

// Depth is the number of internal nodes on the longest root-to-leaf path.
func (g *Graph) Depth() int {
	memo := make([]int, len(g.Nodes))
	for i := range memo {
		memo[i] = -1
	}
	var depth func(i int) int
	depth = func(i int) int {
		if memo[i] >= 0 {
			return memo[i]
		}
		d := 0
		if nd := g.Nodes[i]; !nd.Leaf {
			d = 1 + max(depth(nd.Low), depth(nd.High))
		}
		memo[i] = d
		return d
	}
	return depth(g.Root)
}

// reachable lists the nodes reachable from the root.
func (g *Graph) reachable() []int {
	seen := make([]bool, len(g.Nodes))
	var out []int
	stack := []int{g.Root}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[i] {
			continue
		}
		seen[i] = true
		out = append(out, i)
		if nd := g.Nodes[i]; !nd.Leaf {
			stack = append(stack, nd.High, nd.Low)
		}
	}
	return out
}

// InternalNodes counts the internal (test) nodes reachable from the root.
func (g *Graph) InternalNodes() int {
	k := 0
	for _, i := range g.reachable() {
		if !g.Nodes[i].Leaf {
			k++
		}
	}
	return k
}

// Leaves counts the leaves reachable from the root.
func (g *Graph) Leaves() int { return len(g.reachable()) - g.InternalNodes() }

// Size counts all nodes reachable from the root (internal nodes and leaves).
func (g *Graph) Size() int { return len(g.reachable()) }
