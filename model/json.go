package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
)

// GraphFormat is the value of the "format" field of a graph's JSON.
const GraphFormat = "odtkit-graph-1"

type jsonNode struct {
	ID        int                `json:"id"`
	Feature   *int               `json:"feature,omitempty"`
	Threshold *float64           `json:"threshold,omitempty"`
	Category  *string            `json:"category,omitempty"`
	Weights   map[string]float64 `json:"weights,omitempty"`
	Low       *int               `json:"low,omitempty"`
	High      *int               `json:"high,omitempty"`
	Class     *int               `json:"class,omitempty"`
	Counts    []float64          `json:"counts,omitempty"`
}

type jsonGraph struct {
	Format   string     `json:"format"`
	Kind     GraphKind  `json:"kind"`
	Features []string   `json:"features"`
	Classes  []string   `json:"classes"`
	Root     int        `json:"root"`
	Nodes    []jsonNode `json:"nodes"`
}

// MarshalJSON renders the graph in the contract's JSON form.
func (g *Graph) MarshalJSON() ([]byte, error) {
	jg := jsonGraph{Format: GraphFormat, Kind: g.Kind, Features: g.Features, Classes: g.Classes, Root: g.Root}
	if jg.Features == nil {
		jg.Features = []string{}
	}
	if jg.Classes == nil {
		jg.Classes = []string{}
	}
	jg.Nodes = make([]jsonNode, len(g.Nodes))
	for i, n := range g.Nodes {
		jn := jsonNode{ID: i}
		if n.Leaf {
			c := n.Class
			jn.Class = &c
			jn.Counts = n.Counts
		} else {
			low, high := n.Low, n.High
			jn.Low, jn.High = &low, &high
			switch {
			case n.Weights != nil:
				jn.Weights = make(map[string]float64, len(n.Weights))
				for f, w := range n.Weights {
					jn.Weights[strconv.Itoa(f)] = w
				}
				t := n.Threshold
				jn.Threshold = &t
			case n.IsCategory:
				f, c := n.Feature, n.Category
				jn.Feature, jn.Category = &f, &c
			default:
				f, t := n.Feature, n.Threshold
				jn.Feature, jn.Threshold = &f, &t
			}
		}
		jg.Nodes[i] = jn
	}
	return json.Marshal(jg)
}

// UnmarshalJSON reads the contract's JSON form and validates the graph.
func (g *Graph) UnmarshalJSON(b []byte) error {
	var jg jsonGraph
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&jg); err != nil {
		return err
	}
	if jg.Format != GraphFormat {
		return fmt.Errorf("model format %q, want %q", jg.Format, GraphFormat)
	}
	// Absent lists read as empty ones, as MarshalJSON writes them.
	if jg.Features == nil {
		jg.Features = []string{}
	}
	if jg.Classes == nil {
		jg.Classes = []string{}
	}
	out := Graph{Kind: jg.Kind, Features: jg.Features, Classes: jg.Classes, Nodes: make([]Node, len(jg.Nodes))}
	pos := make(map[int]int, len(jg.Nodes))
	for i, jn := range jg.Nodes {
		if _, dup := pos[jn.ID]; dup {
			return fmt.Errorf("node id %d appears twice", jn.ID)
		}
		pos[jn.ID] = i
	}
	ref := func(id int) (int, error) {
		i, ok := pos[id]
		if !ok {
			return 0, fmt.Errorf("no node with id %d", id)
		}
		return i, nil
	}
	for i, jn := range jg.Nodes {
		if jn.Class != nil {
			if jn.Low != nil || jn.High != nil || jn.Feature != nil || jn.Weights != nil {
				return fmt.Errorf("node %d has a class and a test", jn.ID)
			}
			if jn.Counts != nil {
				if err := checkCounts(jn.Counts, len(jg.Classes)); err != nil {
					return fmt.Errorf("node %d: %w", jn.ID, err)
				}
			}
			out.Nodes[i] = Node{Leaf: true, Class: *jn.Class, Feature: -1, Counts: jn.Counts}
			continue
		}
		if jn.Counts != nil {
			return fmt.Errorf("node %d: class counts on an internal node", jn.ID)
		}
		if jn.Low == nil || jn.High == nil {
			return fmt.Errorf("node %d has neither a class nor both low and high", jn.ID)
		}
		low, err := ref(*jn.Low)
		if err != nil {
			return fmt.Errorf("node %d: %w", jn.ID, err)
		}
		high, err := ref(*jn.High)
		if err != nil {
			return fmt.Errorf("node %d: %w", jn.ID, err)
		}
		n := Node{Low: low, High: high, Feature: -1}
		switch {
		case jn.Weights != nil:
			if jn.Feature != nil || jn.Category != nil || jn.Threshold == nil {
				return fmt.Errorf("node %d: a weighted test takes weights and threshold only", jn.ID)
			}
			n.Weights = make(map[int]float64, len(jn.Weights))
			for k, w := range jn.Weights {
				f, err := strconv.Atoi(k)
				if err != nil {
					return fmt.Errorf("node %d: weight key %q is not a feature index", jn.ID, k)
				}
				n.Weights[f] = w
			}
			n.Threshold = *jn.Threshold
		case jn.Feature != nil && jn.Category != nil:
			if jn.Threshold != nil {
				return fmt.Errorf("node %d: a categorical test takes no threshold", jn.ID)
			}
			n.Feature, n.IsCategory, n.Category = *jn.Feature, true, *jn.Category
		case jn.Feature != nil && jn.Threshold != nil:
			n.Feature, n.Threshold = *jn.Feature, *jn.Threshold
		default:
			return fmt.Errorf("node %d: a test needs feature and threshold, feature and category, or weights and threshold", jn.ID)
		}
		out.Nodes[i] = n
	}
	root, err := ref(jg.Root)
	if err != nil {
		return fmt.Errorf("root: %w", err)
	}
	out.Root = root
	if err := out.Validate(); err != nil {
		return err
	}
	*g = out
	return nil
}

// ReadModelFile reads a model from a file holding either a graph's JSON or
// a result JSON (whose "model" field is used).
func ReadModelFile(path string) (*Graph, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	g, err := ParseModel(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return g, nil
}

// ParseModel reads a graph JSON or a result JSON holding one.
func ParseModel(r io.Reader) (*Graph, error) {
	var probe struct {
		Format string          `json:"format"`
		Model  json.RawMessage `json:"model"`
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field == "" {
			// Valid JSON, but not an object.
			return nil, fmt.Errorf("not a model: a JSON %s, want an object (a model or a result holding one)", typeErr.Value)
		}
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	if probe.Format == "" && probe.Model != nil {
		if string(probe.Model) == "null" {
			return nil, fmt.Errorf("the result holds no model")
		}
		b = probe.Model
	}
	var g Graph
	if err := json.Unmarshal(b, &g); err != nil {
		return nil, fmt.Errorf("bad model: %w", err)
	}
	return &g, nil
}

// sortedWeights returns the feature indices of a weight map in order.
func sortedWeights(w map[int]float64) []int {
	keys := make([]int, 0, len(w))
	for f := range w {
		keys = append(keys, f)
	}
	sort.Ints(keys)
	return keys
}
