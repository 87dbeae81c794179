package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/odtkit/odtkit"
)

func runBackends(e env, args []string) error {
	c := newFlags("backends", "odt backends [flags]",
		"Lists the solver backends built into odt: what each solves (objectives), on what input,\n"+
			"whether it is exact and anytime, and its options (--opt key=value) with their defaults.", 0, 0)
	var format, out string
	c.StringVar(&format, "format", "text", "output `format`: text, markdown or json")
	c.outFlag(&out, "write the list to `FILE` instead of stdout")
	if _, err := c.parse(e.stdout, args); err != nil {
		return err
	}
	if err := checkFormat(format, "text", "markdown", "json"); err != nil {
		return err
	}
	infos := odtkit.DefaultRegistry().List()
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
			fmt.Fprintln(w, "| backend | objectives | input | exact | anytime | options (default) | description |")
			fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
			for _, in := range infos {
				var ps []string
				for _, p := range in.Params {
					ps = append(ps, fmt.Sprintf("`%s` (%s)", p.Name, p.Default))
				}
				fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s | %s |\n", in.Name, objectives(in), in.Input,
					yesNo(in.Exact), yesNo(in.Anytime), strings.Join(ps, ", "), in.Description)
			}
			return nil
		}
		for i, in := range infos {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "%s\n  %s\n", in.Name, in.Description)
			fmt.Fprintf(w, "  objectives: %s\n", objectives(in))
			fmt.Fprintf(w, "  input:      %s\n", in.Input)
			fmt.Fprintf(w, "  exact: %s, anytime: %s\n", yesNo(in.Exact), yesNo(in.Anytime))
			if len(in.Params) == 0 {
				fmt.Fprintln(w, "  options:    none")
				continue
			}
			fmt.Fprintln(w, "  options (--opt key=value):")
			for _, p := range in.Params {
				fmt.Fprintf(w, "    %s (default %s): %s\n", p.Name, p.Default, p.Help)
			}
		}
		return nil
	})
}

func objectives(in odtkit.Info) string {
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
	Name    string `json:"name"`
	Default string `json:"default"`
	Help    string `json:"help"`
}

type infoJSON struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Objectives  []string    `json:"objectives"`
	Input       string      `json:"input"`
	Exact       bool        `json:"exact"`
	Anytime     bool        `json:"anytime"`
	Params      []paramJSON `json:"params"`
}

func infosJSON(infos []odtkit.Info) []infoJSON {
	out := make([]infoJSON, len(infos))
	for i, in := range infos {
		j := infoJSON{Name: in.Name, Description: in.Description, Input: in.Input, Exact: in.Exact,
			Anytime: in.Anytime, Objectives: []string{}, Params: []paramJSON{}}
		for _, o := range in.Objectives {
			j.Objectives = append(j.Objectives, string(o))
		}
		for _, p := range in.Params {
			j.Params = append(j.Params, paramJSON{p.Name, p.Default, p.Help})
		}
		out[i] = j
	}
	return out
}
