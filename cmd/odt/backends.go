package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/backend"
)

func runBackends(e env, args []string) error {
	c := newFlags("backends", "odt backends [flags]",
		"Lists the solver backends built into odt: what each solves (objectives), its family of\n"+
			"formulation (dp, sat, milp, heuristic, portfolio), on what input, whether it is exact and\n"+
			"anytime, which problem fields it honours, and its options (--opt key=value) with their\n"+
			"values and defaults. --matrix shows instead the objective × family table: which backends\n"+
			"solve each objective, by family.", 0, 0)
	var format, out string
	var showMatrix bool
	c.StringVar(&format, "format", "text", "output `format`: text, markdown or json")
	c.BoolVar(&showMatrix, "matrix", false, "show the objective × family table of the backends instead of the list")
	c.outFlag(&out, "write the list to `FILE` instead of stdout")
	if _, err := c.parse(e.stdout, args); err != nil {
		return err
	}
	if err := checkFormat(format, outputFormats("backends")...); err != nil {
		return err
	}
	infos := odtkit.DefaultRegistry().List()
	if showMatrix {
		return writeResult(out, e.stdout, func(w io.Writer) error { return newMatrix(infos).write(w, format) })
	}
	return writeResult(out, e.stdout, func(w io.Writer) error {
		switch format {
		case "json":
			b, err := json.MarshalIndent(infosJSON(infos), "", "  ")
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(w, "%s\n", b)
			return err
		case "markdown":
			return writeBackendsMarkdown(w, infos)
		}
		for i, in := range infos {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "%s\n  %s\n", in.Name, in.Description)
			fmt.Fprintf(w, "  family:     %s\n", in.Family)
			fmt.Fprintf(w, "  objectives: %s\n", objectives(in))
			fmt.Fprintf(w, "  input:      %s\n", in.Input)
			fmt.Fprintf(w, "  exact: %s, anytime: %s\n", yesNo(in.Exact), yesNo(in.Anytime))
			fmt.Fprintf(w, "  also takes: %s\n", caps(in.Caps))
			if len(in.Params) == 0 {
				fmt.Fprintln(w, "  options:    none")
				continue
			}
			fmt.Fprintln(w, "  options (--opt key=value):")
			for _, p := range in.Params {
				fmt.Fprintf(w, "    %s (%s; default %s): %s\n", p.Name, p.Allowed(), orNone(p.ShownDefault()), p.Help)
			}
		}
		return nil
	})
}

// caps lists the problem fields and data a backend honours beyond its
// objective.
func caps(c backend.Caps) string {
	var s []string
	if c.MinSupport {
		s = append(s, "--min-support")
	}
	if c.MaxNodes {
		s = append(s, "--max-nodes")
	}
	if c.LeafCost {
		s = append(s, "--leaf-cost")
	}
	switch c.Weights {
	case backend.AnyWeights:
		s = append(s, "row weights")
	case backend.WholeWeights:
		s = append(s, "whole-number row weights")
	}
	if c.Memory {
		s = append(s, "a memory budget")
	}
	if c.Threads {
		s = append(s, "--threads")
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func orNone(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

func objectives(in backend.Info) string {
	s := make([]string, len(in.Objectives))
	for i, o := range in.Objectives {
		s[i] = string(o)
	}
	return strings.Join(s, ", ")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

type paramJSON struct {
	Name    string   `json:"name"`
	Kind    string   `json:"kind"`
	Default string   `json:"default"`
	Values  []string `json:"values,omitempty"`
	Allowed string   `json:"allowed"`
	Help    string   `json:"help"`
}

type infoJSON struct {
	Name        string      `json:"name"`
	Family      string      `json:"family"`
	Description string      `json:"description"`
	Paper       string      `json:"paper,omitempty"`
	Objectives  []string    `json:"objectives"`
	Input       string      `json:"input"`
	Exact       bool        `json:"exact"`
	Anytime     bool        `json:"anytime"`
	MinSupport  bool        `json:"min_support"`
	MaxNodes    bool        `json:"max_nodes"`
	LeafCost    bool        `json:"leaf_cost"`
	Threads     bool        `json:"threads"`
	Weights     string      `json:"weights"`
	Params      []paramJSON `json:"params"`
}

func infosJSON(infos []backend.Info) []infoJSON {
	out := make([]infoJSON, len(infos))
	for i, in := range infos {
		j := infoJSON{Name: in.Name, Family: string(in.Family), Description: in.Description, Paper: in.Paper, Input: in.Input, Exact: in.Exact,
			Anytime: in.Anytime, MinSupport: in.Caps.MinSupport, MaxNodes: in.Caps.MaxNodes, LeafCost: in.Caps.LeafCost,
			Threads: in.Caps.Threads,
			Weights: in.Caps.Weights.String(), Objectives: []string{}, Params: []paramJSON{}}
		for _, o := range in.Objectives {
			j.Objectives = append(j.Objectives, string(o))
		}
		for _, p := range in.Params {
			j.Params = append(j.Params, paramJSON{Name: p.Name, Kind: p.Kind.String(), Default: p.ShownDefault(),
				Values: p.Values, Allowed: p.Allowed(), Help: p.Help})
		}
		out[i] = j
	}
	return out
}
