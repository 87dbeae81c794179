package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/odtkit/odtkit/model"
)

// readModel reads a model JSON or a result JSON; failures are bad input.
func readModel(path string) (*model.Graph, error) {
	if path == "" {
		return nil, usagef("--model FILE is required")
	}
	g, err := model.ReadModelFile(path)
	if err != nil {
		return nil, badInput(err)
	}
	return g, nil
}

// modelAndData reads the model and the data and checks they fit.
func modelAndData(modelPath string, df *dataFlags, dataPath string) (*model.Graph, *model.Dataset, error) {
	g, err := readModel(modelPath)
	if err != nil {
		return nil, nil, err
	}
	d, err := df.read(dataPath)
	if err != nil {
		return nil, nil, err
	}
	if err := g.CheckData(d); err != nil {
		return nil, nil, badInput(fmt.Errorf("model %s does not fit the data: %w", modelPath, err))
	}
	return g, d, nil
}

// evaluation is the JSON form of `odt eval`.
type evaluation struct {
	Model          string  `json:"model"`
	Data           string  `json:"data"`
	Rows           int     `json:"rows"`
	Errors         int     `json:"errors"`
	Accuracy       float64 `json:"accuracy"`
	WeightedErrors float64 `json:"weighted_errors"`
	Depth          int     `json:"depth"`
	InternalNodes  int     `json:"internal_nodes"`
	// Classes names the rows and columns of Confusion: the data's classes
	// in order, then classes only the model knows.
	Classes []string `json:"classes"`
	// Confusion[i][j] counts rows of true class i predicted as class j.
	Confusion [][]int `json:"confusion"`
}

func evaluate(g *model.Graph, d *model.Dataset, modelPath string) evaluation {
	classes := append([]string(nil), d.Classes...)
	idx := map[string]int{}
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
	for r, l := range d.Labels {
		p := idx[g.Classes[g.Predict(d, r)]]
		conf[l][p]++
	}
	ev := evaluation{Model: modelPath, Data: d.Name, Rows: d.Rows(), Errors: g.Errors(d), WeightedErrors: g.WeightedErrors(d),
		Depth: g.Depth(), InternalNodes: g.InternalNodes(), Classes: classes, Confusion: conf}
	ev.Accuracy = 1 - float64(ev.Errors)/float64(ev.Rows)
	return ev
}

func runEval(e env, args []string) error {
	c := newFlags("eval", "odt eval --model FILE [flags] DATA",
		"Evaluates a model (a model JSON, or a result JSON from odt solve --format json) on DATA:\n"+
			"errors, accuracy and the confusion matrix.", 1, 1)
	var modelPath, format, out string
	var df dataFlags
	c.StringVar(&modelPath, "model", "", "the model or result JSON `FILE` (required)")
	df.declare(c)
	c.StringVar(&format, "format", "text", "output `format`: text or json")
	c.outFlag(&out, "write the evaluation to `FILE` instead of stdout")
	pos, err := c.parse(e.stdout, args)
	if err != nil {
		return err
	}
	if err := checkFormat(format, "text", "json"); err != nil {
		return err
	}
	g, d, err := modelAndData(modelPath, &df, pos[0])
	if err != nil {
		return err
	}
	ev := evaluate(g, d, modelPath)
	return writeResult(out, e.stdout, func(w io.Writer) error {
		if format == "json" {
			b, err := json.MarshalIndent(ev, "", "  ")
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(w, "%s\n", b)
			return err
		}
		fmt.Fprintf(w, "model:    %s (%s, depth %d, %d internal nodes)\n", ev.Model, g.Kind, ev.Depth, ev.InternalNodes)
		fmt.Fprintf(w, "data:     %s (%d rows)\n", ev.Data, ev.Rows)
		fmt.Fprintf(w, "errors:   %d\n", ev.Errors)
		if d.Weights != nil {
			fmt.Fprintf(w, "weighted errors: %s\n", fmtNum(ev.WeightedErrors))
		}
		fmt.Fprintf(w, "accuracy: %.4f\n", ev.Accuracy)
		fmt.Fprintln(w, "confusion matrix (rows: true class, columns: predicted class):")
		width := 6
		for _, cl := range ev.Classes {
			width = max(width, len(cl)+1)
		}
		for _, row := range ev.Confusion {
			for _, x := range row {
				width = max(width, len(fmt.Sprint(x))+1)
			}
		}
		fmt.Fprintf(w, "%*s", width, "")
		for _, cl := range ev.Classes {
			fmt.Fprintf(w, " %*s", width, cl)
		}
		fmt.Fprintln(w)
		for i, row := range ev.Confusion {
			fmt.Fprintf(w, "%*s", width, ev.Classes[i])
			for _, x := range row {
				fmt.Fprintf(w, " %*d", width, x)
			}
			fmt.Fprintln(w)
		}
		return nil
	})
}

func runPredict(e env, args []string) error {
	c := newFlags("predict", "odt predict --model FILE [flags] DATA",
		"Prints the model's predicted label for every row of DATA, one per line, in row order.\n"+
			"DATA has the same format as for solve (its labels are read but not used).", 1, 1)
	var modelPath, out string
	var df dataFlags
	c.StringVar(&modelPath, "model", "", "the model or result JSON `FILE` (required)")
	df.declare(c)
	c.outFlag(&out, "write the predictions to `FILE` instead of stdout")
	pos, err := c.parse(e.stdout, args)
	if err != nil {
		return err
	}
	g, d, err := modelAndData(modelPath, &df, pos[0])
	if err != nil {
		return err
	}
	return writeResult(out, e.stdout, func(w io.Writer) error {
		var sb strings.Builder
		for r := range d.Rows() {
			sb.WriteString(g.Classes[g.Predict(d, r)])
			sb.WriteByte('\n')
		}
		_, err := io.WriteString(w, sb.String())
		return err
	})
}
