package model

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// reshuffled returns d with its feature columns in reverse order behind an
// extra column, every categorical column's levels and the classes listed
// in reverse order (the values and labels renumbered to match): the same
// table as a file with other column and value orders would give.
func reshuffled(d *Dataset) *Dataset {
	out := &Dataset{Name: d.Name + "-reshuffled", Weights: d.Weights}
	out.Features = append(out.Features, Feature{Name: "row_id", Values: make([]float64, d.Rows())})
	for r := range d.Rows() {
		out.Features[0].Values[r] = float64(r)
	}
	for i := len(d.Features) - 1; i >= 0; i-- {
		f := d.Features[i]
		nf := Feature{Name: f.Name, Kind: f.Kind, Values: slices.Clone(f.Values)}
		if f.Kind == Categorical {
			nf.Levels = slices.Clone(f.Levels)
			slices.Reverse(nf.Levels)
			for r, v := range nf.Values {
				nf.Values[r] = float64(len(f.Levels) - 1 - int(v))
			}
		}
		out.Features = append(out.Features, nf)
	}
	out.Classes = slices.Clone(d.Classes)
	slices.Reverse(out.Classes)
	for _, l := range d.Labels {
		out.Labels = append(out.Labels, len(d.Classes)-1-l)
	}
	return out
}

func TestBindAppliesByName(t *testing.T) {
	d := flowers()
	b := NewBuilder(d, KindTree)
	linear := b.Graph(b.Linear(map[int]float64{0: 1, 1: -0.5}, -1, b.Leaf(0), b.Category(2, "blue", b.Leaf(2), b.Leaf(1))))
	for name, g := range map[string]*Graph{"tree": flowerTree(d), "diagram": diamond(d), "linear": linear} {
		t.Run(name, func(t *testing.T) {
			s := reshuffled(d)
			bound, err := g.Bind(s)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(bound.Features, s.FeatureNames()) {
				t.Errorf("bound features %q, want the data's %q", bound.Features, s.FeatureNames())
			}
			for r := range d.Rows() {
				want := g.Classes[g.Predict(d, r)]
				if got := bound.Classes[bound.Predict(s, r)]; got != want {
					t.Errorf("row %d: predicted %s on the reshuffled data, %s on the original", r, got, want)
				}
			}
			ev, evs := Evaluate(g, d), Evaluate(bound, s)
			if ev.Errors != evs.Errors || ev.Accuracy != evs.Accuracy || g.Errors(d) != bound.Errors(s) {
				t.Errorf("errors %d (Errors %d) on the reshuffled data, %d (%d) on the original", evs.Errors, bound.Errors(s), ev.Errors, g.Errors(d))
			}
			// The graph itself is not changed.
			if again, _ := g.Bind(d); !reflect.DeepEqual(again.PredictLabels(d), g.PredictLabels(d)) {
				t.Error("binding to the data's own columns changed the predictions")
			}
		})
	}
}

func TestBindPositionWouldBeWrong(t *testing.T) {
	// With the two numeric columns swapped, the data still fits the
	// model by position (CheckData), but only by name does it get the
	// original predictions: setosa row 0 has petal_length > 0.8.
	d := flowers()
	g := diamond(d)
	s := flowers()
	s.Features[0], s.Features[1] = s.Features[1], s.Features[0]
	if err := g.CheckData(s); err != nil {
		t.Fatal(err)
	}
	bound, err := g.Bind(s)
	if err != nil {
		t.Fatal(err)
	}
	for r := range s.Rows() {
		byPos, byName, want := g.Predict(s, r), bound.Predict(s, r), g.Predict(d, r)
		if byName != want {
			t.Errorf("row %d: bound prediction %d, want %d", r, byName, want)
		}
		if r == 0 && byPos == want {
			t.Errorf("row %d: the positional prediction is right too; the data does not exercise Bind", r)
		}
	}
}

func TestBindRefuses(t *testing.T) {
	d := flowers()
	g := flowerTree(d) // tests petal_width and colour, not petal_length
	cases := []struct {
		name string
		edit func(s *Dataset)
		msg  []string
	}{
		{"missing tested feature", func(s *Dataset) { s.Features = slices.Delete(s.Features, 0, 1) }, []string{"petal_width", "flowers"}},
		{"two missing", func(s *Dataset) { s.Features = s.Features[1:2] }, []string{`"petal_width", "colour"`}},
		{"renamed", func(s *Dataset) { s.Features[2].Name = "color" }, []string{`"colour"`, "color"}},
		{"twice", func(s *Dataset) { s.Features = append(s.Features, s.Features[0]) }, []string{"more than one", "petal_width"}},
		{"numeric where categorical", func(s *Dataset) {
			s.Features[2] = Feature{Name: "colour", Values: make([]float64, s.Rows())}
		}, []string{"colour", "categorical", "numeric"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := flowers()
			c.edit(s)
			_, err := g.Bind(s)
			if err == nil {
				t.Fatal("Bind accepted the data")
			}
			for _, m := range c.msg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q lacks %q", err, m)
				}
			}
		})
	}
	// A column the model does not test may be absent.
	s := flowers()
	s.Features = slices.Delete(s.Features, 1, 2) // petal_length
	bound, err := g.Bind(s)
	if err != nil {
		t.Fatalf("a column the model does not test is absent: %v", err)
	}
	if got, want := bound.PredictLabels(s), g.PredictLabels(d); !reflect.DeepEqual(got, want) {
		t.Errorf("predictions %v, want %v", got, want)
	}
	// A model with two tested features of one name cannot be bound.
	twice := &Graph{Kind: KindTree, Features: []string{"a", "a"}, Classes: []string{"p", "q"}, Nodes: []Node{
		{Feature: 0, Threshold: 1, Low: 1, High: 2}, {Leaf: true, Feature: -1},
		{Feature: 1, Threshold: 2, Low: 3, High: 4}, {Leaf: true, Feature: -1}, {Leaf: true, Class: 1, Feature: -1}}}
	if _, err := twice.Bind(&Dataset{Name: "x", Features: []Feature{{Name: "a", Values: []float64{1}}}, Labels: []int{0}, Classes: []string{"p"}}); err == nil || !strings.Contains(err.Error(), `two features named "a"`) {
		t.Errorf("model naming two features a: %v", err)
	}
}

func TestUsedFeatures(t *testing.T) {
	d := flowers()
	if got := flowerTree(d).UsedFeatures(); !reflect.DeepEqual(got, []string{"petal_width", "colour"}) {
		t.Errorf("flowerTree uses %q", got)
	}
	if got := diamond(d).UsedFeatures(); !reflect.DeepEqual(got, d.FeatureNames()) {
		t.Errorf("diamond uses %q", got)
	}
}

func TestEvaluateMatchesClassesByName(t *testing.T) {
	// Classes listed in another order in the data count the same errors.
	d := flowers()
	g := flowerTree(d)
	s := reshuffled(d)
	bound, err := g.Bind(s)
	if err != nil {
		t.Fatal(err)
	}
	ev := Evaluate(bound, s)
	if ev.Errors != 1 {
		t.Errorf("%d errors with the classes in reverse order, want 1 (row 7)", ev.Errors)
	}
	if bound.WeightedErrors(s) != 1 {
		t.Errorf("weighted errors %v, want 1", bound.WeightedErrors(s))
	}
}

func TestUnlabelledDataIsNotEvaluated(t *testing.T) {
	// Data read without labels is predicted on; evaluating or counting
	// on it counts nothing rather than panicking or inventing errors.
	d, err := ReadCSV(strings.NewReader("colour,petal_width\nblue,1.3\n"), "u.csv", ReadOptions{NoLabel: true, MinRows: 1})
	if err != nil {
		t.Fatal(err)
	}
	g, err := flowerTree(flowers()).Bind(d)
	if err != nil {
		t.Fatal(err)
	}
	if got := g.Classes[g.Predict(d, 0)]; got != "versicolor" {
		t.Errorf("predicted %s, want versicolor", got)
	}
	if ev := Evaluate(g, d); ev.Rows != 0 || ev.Errors != 0 || len(ev.Confusion) != len(g.Classes) {
		t.Errorf("evaluation of unlabelled data: %+v", ev)
	}
	if g.Errors(d) != 0 || g.WeightedErrors(d) != 0 {
		t.Errorf("errors %d, weighted %v on unlabelled data", g.Errors(d), g.WeightedErrors(d))
	}
	g.SetCounts(d)
	for _, n := range g.Nodes {
		for _, c := range n.Counts {
			if c != 0 {
				t.Errorf("leaf counts %v from unlabelled data", n.Counts)
			}
		}
	}
}
