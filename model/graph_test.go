package model

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// flowers is a small dataset with numeric and categorical columns:
// petal_width, petal_length and colour; classes setosa, versicolor, virginica.
func flowers() *Dataset {
	d := &Dataset{Name: "flowers", Classes: []string{"setosa", "versicolor", "virginica"}}
	d.Features = []Feature{
		{Name: "petal_width", Values: []float64{0.2, 0.3, 1.3, 1.5, 2.1, 2.4, 1.0, 1.8}},
		{Name: "petal_length", Values: []float64{1.4, 1.5, 4.0, 4.5, 5.8, 6.0, 3.5, 4.8}},
	}
	categorical(d, "colour", "white", "white", "blue", "blue", "purple", "purple", "blue", "purple")
	d.Labels = []int{0, 0, 1, 1, 2, 2, 1, 1}
	return d
}

// flowerTree: petal_width <= 0.8 → setosa; else colour == purple →
// virginica, else versicolor. Row 7 (purple, versicolor) is its one error.
func flowerTree(d *Dataset) *Graph {
	b := NewBuilder(d, KindTree)
	set := b.Leaf(0)
	ver := b.Leaf(1)
	vir := b.Leaf(2)
	inner := b.Category(2, "purple", ver, vir)
	return b.Graph(b.Threshold(0, 0.8, set, inner))
}

func TestGraphSemantics(t *testing.T) {
	d := flowers()
	g := flowerTree(d)
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := g.CheckData(d); err != nil {
		t.Fatal(err)
	}
	want := []int{0, 0, 1, 1, 2, 2, 1, 2}
	if got := g.PredictLabels(d); !reflect.DeepEqual(got, want) {
		t.Errorf("predictions %v, want %v", got, want)
	}
	if g.Errors(d) != 1 {
		t.Errorf("errors %d, want 1", g.Errors(d))
	}
	if g.Depth() != 2 || g.InternalNodes() != 2 || g.Leaves() != 3 || g.Size() != 5 {
		t.Errorf("depth %d internal %d leaves %d size %d; want 2 2 3 5", g.Depth(), g.InternalNodes(), g.Leaves(), g.Size())
	}
	if g.Root != 0 || g.Kind != KindTree || !reflect.DeepEqual(g.Features, d.FeatureNames()) {
		t.Errorf("root %d kind %s features %q", g.Root, g.Kind, g.Features)
	}
	d.Weights = []float64{1, 1, 1, 1, 1, 1, 1, 2.5}
	if got := g.WeightedErrors(d); got != 2.5 {
		t.Errorf("weighted errors %v, want 2.5", got)
	}
	// Classes are matched by name, not index.
	g2 := *g
	g2.Classes = []string{"virginica", "setosa", "versicolor"}
	// With the names permuted the leaves say virginica, setosa, versicolor:
	// rows 0-6 are now wrong, row 7 (versicolor, reaching the third leaf) right.
	if e := g2.Errors(d); e != 7 {
		t.Errorf("errors with permuted class names %d, want 7", e)
	}
	// A tree of one leaf.
	b := NewBuilder(d, KindTree)
	leaf := b.Graph(b.Leaf(1))
	if leaf.Depth() != 0 || leaf.InternalNodes() != 0 || leaf.Errors(d) != 4 {
		t.Errorf("leaf: depth %d internal %d errors %d", leaf.Depth(), leaf.InternalNodes(), leaf.Errors(d))
	}
}

func TestLinearNode(t *testing.T) {
	d := flowers()
	b := NewBuilder(d, KindTree)
	// 2*width - length <= -0.5 → setosa-or-versicolor leaf 0, else 2.
	g := b.Graph(b.Linear(map[int]float64{0: 2, 1: -1}, -0.5, b.Leaf(0), b.Leaf(2)))
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	for r := range d.Rows() {
		s := 2*d.Features[0].Values[r] - d.Features[1].Values[r]
		want := 0
		if s > -0.5 {
			want = 2
		}
		if got := g.Predict(d, r); got != want {
			t.Errorf("row %d: sum %v predicted %d, want %d", r, s, got, want)
		}
	}
	if got := g.Condition(g.Nodes[0], false); got != "2*petal_width - 1*petal_length <= -0.5" {
		t.Errorf("condition %q", got)
	}
}

// diamond is a diagram whose two internal nodes share a leaf and a test node.
func diamond(d *Dataset) *Graph {
	return &Graph{Kind: KindDiagram, Features: d.FeatureNames(), Classes: d.Classes, Root: 0, Nodes: []Node{
		{Feature: 0, Threshold: 0.8, Low: 1, High: 2},
		{Feature: 1, Threshold: 1.45, Low: 3, High: 2},
		{Feature: 2, IsCategory: true, Category: "purple", Low: 4, High: 5},
		{Leaf: true, Class: 0, Feature: -1},
		{Leaf: true, Class: 1, Feature: -1},
		{Leaf: true, Class: 2, Feature: -1},
	}}
}

func TestDiagram(t *testing.T) {
	d := flowers()
	g := diamond(d)
	if err := g.Validate(); err != nil {
		t.Fatal(err)
	}
	if g.Depth() != 3 || g.InternalNodes() != 3 || g.Size() != 6 || g.Leaves() != 3 {
		t.Errorf("depth %d internal %d size %d leaves %d", g.Depth(), g.InternalNodes(), g.Size(), g.Leaves())
	}
	// Row 1 (width 0.3, length 1.5) goes low then high to the shared node 2.
	if got := g.PredictLabels(d); !reflect.DeepEqual(got, []int{0, 1, 1, 1, 2, 2, 1, 2}) {
		t.Errorf("predictions %v", got)
	}
	txt := g.Text()
	if strings.Count(txt, "colour == purple") != 1 || !strings.Contains(txt, "-> [n2]") || !strings.Contains(txt, "[n2]") {
		t.Errorf("diagram text should print the shared node once and refer to it:\n%s", txt)
	}
	// As a tree, the same nodes are invalid (node 2 has two parents).
	g.Kind = KindTree
	if err := g.Validate(); err == nil || !strings.Contains(err.Error(), "parents") {
		t.Errorf("tree with a shared node: %v", err)
	}
}

func TestValidateRejects(t *testing.T) {
	d := flowers()
	leaf := func(c int) Node { return Node{Leaf: true, Class: c, Feature: -1} }
	cases := []struct {
		name string
		g    Graph
		msg  string
	}{
		{"no nodes", Graph{Kind: KindTree}, "no nodes"},
		{"bad kind", Graph{Kind: "forest", Nodes: []Node{leaf(0)}}, "neither"},
		{"root out of range", Graph{Kind: KindTree, Root: 3, Nodes: []Node{leaf(0)}}, "root 3"},
		{"cycle", Graph{Kind: KindDiagram, Nodes: []Node{{Feature: 0, Low: 1, High: 2}, {Feature: 0, Low: 0, High: 2}, leaf(0)}}, "cycle"},
		{"self loop", Graph{Kind: KindDiagram, Nodes: []Node{{Feature: 0, Low: 0, High: 1}, leaf(0)}}, "cycle"},
		{"successor out of range", Graph{Kind: KindTree, Nodes: []Node{{Feature: 0, Low: 1, High: 5}, leaf(0)}}, "successor 5"},
		{"negative successor", Graph{Kind: KindTree, Nodes: []Node{{Feature: 0, Low: -1, High: 1}, leaf(0)}}, "successor -1"},
		{"tree in-degree 2", Graph{Kind: KindTree, Nodes: []Node{{Feature: 0, Low: 1, High: 1}, leaf(0)}}, "2 parents"},
		{"unreachable", Graph{Kind: KindTree, Nodes: []Node{{Feature: 0, Low: 1, High: 2}, leaf(0), leaf(1), leaf(2)}}, "node 3 is not reachable"},
		{"class out of range", Graph{Kind: KindTree, Nodes: []Node{leaf(3)}}, "class 3"},
		{"feature out of range", Graph{Kind: KindTree, Nodes: []Node{{Feature: 3, Low: 1, High: 2}, leaf(0), leaf(1)}}, "feature 3"},
		{"weight feature out of range", Graph{Kind: KindTree, Nodes: []Node{{Feature: -1, Weights: map[int]float64{7: 1}, Low: 1, High: 2}, leaf(0), leaf(1)}}, "feature 7"},
		{"empty weights", Graph{Kind: KindTree, Nodes: []Node{{Feature: -1, Weights: map[int]float64{}, Low: 1, High: 2}, leaf(0), leaf(1)}}, "empty weight"},
		{"edge into the root", Graph{Kind: KindTree, Root: 0, Nodes: []Node{leaf(0), {Feature: 0, Low: 0, High: 2}, leaf(1)}}, "not reachable"},
	}
	for _, c := range cases {
		g := c.g
		g.Features, g.Classes = d.FeatureNames(), d.Classes
		err := g.Validate()
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: Validate() = %v, want an error mentioning %q", c.name, err, c.msg)
		}
	}
}

func TestCheckData(t *testing.T) {
	d := flowers()
	g := flowerTree(d)
	// The colour column read as numeric does not fit a category test.
	d2 := flowers()
	d2.Features[2] = Feature{Name: "colour", Values: make([]float64, 8)}
	if err := g.CheckData(d2); err == nil {
		t.Error("a categorical test on a numeric column was accepted")
	}
	d3 := flowers()
	d3.Features = d3.Features[:1]
	if err := g.CheckData(d3); err == nil {
		t.Error("a model over 3 features accepted data with 1")
	}
	if err := g.CheckData(d); err != nil {
		t.Error(err)
	}
}

func TestCompact(t *testing.T) {
	d := flowers()
	b := NewBuilder(d, KindTree)
	b.Leaf(2) // unused
	l0, l1 := b.Leaf(0), b.Leaf(1)
	b.Threshold(1, 9, l0, l1) // unused
	root := b.Threshold(0, 1, l1, l0)
	g := b.Graph(root)
	if len(g.Nodes) != 3 || g.Root != 0 || g.Nodes[1].Class != 1 || g.Nodes[2].Class != 0 {
		t.Errorf("compacted graph %+v", g)
	}
	if err := g.Validate(); err != nil {
		t.Error(err)
	}
}

func TestGraphJSONRoundTrip(t *testing.T) {
	d := flowers()
	trees := []*Graph{flowerTree(d), diamond(d)}
	b := NewBuilder(d, KindTree)
	trees = append(trees, b.Graph(b.Linear(map[int]float64{0: 0.25, 2: -1e-7, 1: 3}, 0.1, b.Leaf(2), b.Leaf(0))))
	for _, g := range trees {
		raw, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		var back Graph
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if !reflect.DeepEqual(*g, back) {
			t.Errorf("round trip changed the graph:\n%+v\n%+v", *g, back)
		}
		for _, key := range []string{`"format":"odtkit-graph-1"`, `"kind":"` + string(g.Kind) + `"`, `"root":0`, `"nodes":[{"id":0,`} {
			if !bytes.Contains(raw, []byte(key)) {
				t.Errorf("JSON %s lacks %s", raw, key)
			}
		}
	}
	// The contract's example node shapes.
	raw, _ := json.Marshal(flowerTree(d))
	for _, key := range []string{`{"id":0,"feature":0,"threshold":0.8,"low":1,"high":2}`, `{"id":1,"class":0}`, `"category":"purple"`} {
		if !bytes.Contains(raw, []byte(key)) {
			t.Errorf("JSON %s lacks %s", raw, key)
		}
	}
}

func TestParseModel(t *testing.T) {
	d := flowers()
	g := flowerTree(d)
	res := &Result{Backend: "x", Model: g, Errors: 1, Incumbents: []Incumbent{}}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseModel(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, g) {
		t.Errorf("model from result JSON differs")
	}
	// Node ids need not be positions.
	sparse := `{"format":"odtkit-graph-1","kind":"tree","features":["a"],"classes":["n","y"],"root":10,
	  "nodes":[{"id":30,"class":1},{"id":10,"feature":0,"threshold":2,"low":20,"high":30},{"id":20,"class":0}]}`
	sg, err := ParseModel(strings.NewReader(sparse))
	if err != nil {
		t.Fatal(err)
	}
	one := &Dataset{Classes: []string{"n", "y"}, Labels: []int{0, 1}, Features: []Feature{{Name: "a", Values: []float64{1, 3}}}}
	if sg.Errors(one) != 0 || sg.Depth() != 1 {
		t.Errorf("sparse ids: errors %d depth %d", sg.Errors(one), sg.Depth())
	}
	bad := map[string]string{
		"not json":         `{"format":`,
		"wrong format":     `{"format":"other","kind":"tree","nodes":[{"id":0,"class":0}]}`,
		"null model":       `{"backend":"x","model":null}`,
		"duplicate id":     `{"format":"odtkit-graph-1","kind":"tree","classes":["a"],"nodes":[{"id":0,"class":0},{"id":0,"class":0}]}`,
		"dangling":         `{"format":"odtkit-graph-1","kind":"tree","features":["a"],"classes":["a"],"nodes":[{"id":0,"feature":0,"threshold":1,"low":1,"high":2},{"id":1,"class":0}]}`,
		"class and test":   `{"format":"odtkit-graph-1","kind":"tree","features":["a"],"classes":["a"],"nodes":[{"id":0,"class":0,"feature":0}]}`,
		"half a test":      `{"format":"odtkit-graph-1","kind":"tree","features":["a"],"classes":["a"],"nodes":[{"id":0,"low":1},{"id":1,"class":0}]}`,
		"test w/o thresh":  `{"format":"odtkit-graph-1","kind":"tree","features":["a"],"classes":["a"],"nodes":[{"id":0,"feature":0,"low":1,"high":2},{"id":1,"class":0},{"id":2,"class":0}]}`,
		"bad weight key":   `{"format":"odtkit-graph-1","kind":"tree","features":["a"],"classes":["a"],"nodes":[{"id":0,"weights":{"x":1},"threshold":0,"low":1,"high":2},{"id":1,"class":0},{"id":2,"class":0}]}`,
		"cycle":            `{"format":"odtkit-graph-1","kind":"diagram","features":["a"],"classes":["a"],"nodes":[{"id":0,"feature":0,"threshold":1,"low":0,"high":1},{"id":1,"class":0}]}`,
		"class range":      `{"format":"odtkit-graph-1","kind":"tree","features":["a"],"classes":["a"],"nodes":[{"id":0,"class":4}]}`,
		"missing root":     `{"format":"odtkit-graph-1","kind":"tree","features":["a"],"classes":["a"],"root":3,"nodes":[{"id":0,"class":0}]}`,
		"category+thresh":  `{"format":"odtkit-graph-1","kind":"tree","features":["a"],"classes":["a"],"nodes":[{"id":0,"feature":0,"category":"x","threshold":1,"low":1,"high":2},{"id":1,"class":0},{"id":2,"class":0}]}`,
		"no nodes":         `{"format":"odtkit-graph-1","kind":"tree","features":["a"],"classes":["a"],"nodes":[]}`,
		"array not object": `[1,2]`,
	}
	for name, text := range bad {
		if g, err := ParseModel(strings.NewReader(text)); err == nil {
			t.Errorf("%s: parsed into %+v, want an error", name, g)
		}
	}
	// JSON that is not an object says what it is, in the user's words.
	for text, want := range map[string]string{`[1,2]`: "a JSON array", `"tree"`: "a JSON string", `7`: "a JSON number", `true`: "a JSON bool"} {
		_, err := ParseModel(strings.NewReader(text))
		if err == nil || !strings.Contains(err.Error(), "not a model: "+want+", want an object") || strings.Contains(err.Error(), "Go ") {
			t.Errorf("%s: %v, want %q", text, err, want)
		}
	}
}

func TestRender(t *testing.T) {
	d := flowers()
	g := flowerTree(d)
	want := `petal_width <= 0.8
  class: setosa
petal_width > 0.8
  colour != purple
    class: versicolor
  colour == purple
    class: virginica
`
	if got := g.Text(); got != want {
		t.Errorf("Text():\n%s\nwant:\n%s", got, want)
	}
	dot := g.DOT()
	for _, s := range []string{"digraph", `n0 [shape=ellipse, label="petal_width > 0.8 ?"]`, `n1 [shape=box, style=rounded, label="setosa"]`,
		`n0 -> n1 [label="no", style=dashed]`, `n0 -> n2 [label="yes"]`, `label="colour == purple ?"`} {
		if !strings.Contains(dot, s) {
			t.Errorf("DOT lacks %q:\n%s", s, dot)
		}
	}
	if strings.Count(dot, "->") != 2*g.InternalNodes() || !strings.HasSuffix(dot, "}\n") {
		t.Errorf("DOT has %d edges for %d internal nodes", strings.Count(dot, "->"), g.InternalNodes())
	}
}

func TestPrimalIntegral(t *testing.T) {
	trace := []Incumbent{{Seconds: 2, Objective: 20}, {Seconds: 5, Objective: 10}, {Seconds: 12, Objective: 8}}
	// Gap 1 on [0,2], 0.5 on [2,5], 0 on [5,10]; the incumbent after the horizon is ignored.
	if got := PrimalIntegral(trace, 10, 10); math.Abs(got-3.5) > 1e-12 {
		t.Errorf("PrimalIntegral = %v, want 3.5", got)
	}
	// Runs to the horizon even when the last incumbent is not optimal.
	if got := PrimalIntegral(trace[:1], 10, 4); math.Abs(got-(2+0.5*2)) > 1e-12 {
		t.Errorf("PrimalIntegral = %v, want 3", got)
	}
	if got := PrimalIntegral(nil, 10, 7); got != 7 {
		t.Errorf("no incumbent: %v, want 7", got)
	}
	if PrimalGap(0, 0) != 0 || PrimalGap(5, 0) != 1 || PrimalGap(-1, 1) != 1 || PrimalGap(4, 3) != 0.25 {
		t.Errorf("PrimalGap: %v %v %v %v", PrimalGap(0, 0), PrimalGap(5, 0), PrimalGap(-1, 1), PrimalGap(4, 3))
	}
}

func TestTrace(t *testing.T) {
	var seen []float64
	tr := NewTrace(time.Now().Add(-time.Second), func(inc Incumbent) { seen = append(seen, inc.Objective) })
	f := tr.Func()
	for _, o := range []float64{10, 12, 10, 7, 9, 3} {
		f.Report(o, nil)
	}
	if !reflect.DeepEqual(seen, []float64{10, 7, 3}) {
		t.Errorf("reported %v, want only improvements 10 7 3", seen)
	}
	incs := tr.Incumbents()
	if len(incs) != 3 || incs[0].Seconds < 1 || incs[1].Seconds < incs[0].Seconds || incs[2].Seconds < incs[1].Seconds {
		t.Errorf("incumbents %+v: want 3 with non-decreasing times since the start", incs)
	}
	var nilFunc IncumbentFunc
	nilFunc.Report(1, nil) // must not panic
}

func TestProblemAndResult(t *testing.T) {
	p := Problem{}.Normalized()
	if p.Objective != MinError || p.MinSupport != 1 {
		t.Errorf("Normalized = %+v", p)
	}
	bad := []Problem{
		{Objective: "size"},
		{Objective: MinError, MaxDepth: -1},
		{Objective: DiagramError},
		{Objective: DiagramError, Skeleton: []int{2, 2}},
		{Objective: DiagramError, Skeleton: []int{1, 0}},
		{Objective: DiagramError, Skeleton: []int{1, 2}, Alpha: -1},
		{Objective: MinError, MaxNodes: -2},
	}
	for _, b := range bad {
		if b.Validate() == nil {
			t.Errorf("%+v validated", b)
		}
	}
	if err := (Problem{Objective: DiagramError, Skeleton: []int{1, 2, 2}, Alpha: 0.1}).Validate(); err != nil {
		t.Error(err)
	}
	r := &Result{Objective: 10, LowerBound: 5, Model: &Graph{}}
	if r.Gap() != 0.5 {
		t.Errorf("gap %v", r.Gap())
	}
	r.Optimal = true
	if r.Gap() != 0 || (&Result{}).Gap() != 1 {
		t.Error("gap of optimal / empty result")
	}
}

func TestTraceConcurrent(t *testing.T) {
	tr := NewTrace(time.Now(), nil)
	done := make(chan bool)
	for w := range 4 {
		go func() {
			for i := 1000; i > 0; i-- {
				tr.Offer(float64(i*4+w), nil)
			}
			done <- true
		}()
	}
	for range 4 {
		<-done
	}
	incs := tr.Incumbents()
	for i := 1; i < len(incs); i++ {
		if incs[i].Objective >= incs[i-1].Objective {
			t.Fatalf("incumbent %d does not improve: %v after %v", i, incs[i].Objective, incs[i-1].Objective)
		}
	}
	if last := incs[len(incs)-1].Objective; last != 4 {
		t.Errorf("best incumbent %v, want 4", last)
	}
}

func TestMajority(t *testing.T) {
	if c, e := Majority([]int64{3, 5, 5, 1}); c != 1 || e != 9 {
		t.Errorf("Majority int64 = %d, %d; want 1 (lowest index on ties), 9", c, e)
	}
	if c, e := Majority([]float64{0.5, 0.25}); c != 0 || e != 0.25 {
		t.Errorf("Majority float64 = %d, %v; want 0, 0.25", c, e)
	}
}
