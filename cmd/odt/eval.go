package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
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
	Model string `json:"model"`
	Data  string `json:"data"`
	model.Evaluation
	Depth         int `json:"depth"`
	InternalNodes int `json:"internal_nodes"`
}

func evaluate(g *model.Graph, d *model.Dataset, modelPath string) evaluation {
	return evaluation{Model: modelPath, Data: d.Name, Evaluation: model.Evaluate(g, d), Depth: g.Depth(), InternalNodes: g.InternalNodes()}
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
		fmt.Fprintf(w, "accuracy: %.4f (balanced %.4f)\n", ev.Accuracy, ev.BalancedAccuracy)
		writeConfusion(w, ev.Evaluation, "confusion matrix", "")
		return nil
	})
}

func runPredict(e env, args []string) error {
	c := newFlags("predict", "odt predict --model FILE [flags] DATA",
		"Prints the model's predicted label for every row of DATA, one per line, in row order.\n"+
			"DATA has the same format as for solve (its labels are read but not used).", 1, 1)
	var modelPath, out string
	var proba bool
	var df dataFlags
	c.StringVar(&modelPath, "model", "", "the model or result JSON `FILE` (required)")
	df.declare(c)
	c.BoolVar(&proba, "proba", false, "print one probability per class instead: CSV with a header of class names; the class counts of each row's leaf, as recorded by odt solve")
	c.outFlag(&out, "write the predictions to `FILE` instead of stdout")
	pos, err := c.parse(e.stdout, args)
	if err != nil {
		return err
	}
	g, d, err := modelAndData(modelPath, &df, pos[0])
	if err != nil {
		return err
	}
	if proba {
		if !g.HasCounts() {
			return badInput(fmt.Errorf("%s: %w", modelPath, model.ErrNoCounts))
		}
		return writeResult(out, e.stdout, func(w io.Writer) error {
			cw := csv.NewWriter(w)
			cw.Write(g.Classes)
			rec := make([]string, len(g.Classes))
			for r := range d.Rows() {
				p, err := g.Proba(d, r)
				if err != nil {
					return err
				}
				for i, x := range p {
					rec[i] = strconv.FormatFloat(x, 'g', -1, 64)
				}
				cw.Write(rec)
			}
			cw.Flush()
			return cw.Error()
		})
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

// writeConfusion prints the confusion matrix of an evaluation under a
// title, each row after indent.
func writeConfusion(w io.Writer, ev model.Evaluation, title, indent string) {
	fmt.Fprintln(w, title+" (rows: true class, columns: predicted class):")
	width := 6
	for _, cl := range ev.Classes {
		width = max(width, len(cl)+1)
	}
	for _, row := range ev.Confusion {
		for _, x := range row {
			width = max(width, len(fmt.Sprint(x))+1)
		}
	}
	fmt.Fprintf(w, "%s%*s", indent, width, "")
	for _, cl := range ev.Classes {
		fmt.Fprintf(w, " %*s", width, cl)
	}
	fmt.Fprintln(w)
	for i, row := range ev.Confusion {
		fmt.Fprintf(w, "%s%*s", indent, width, ev.Classes[i])
		for _, x := range row {
			fmt.Fprintf(w, " %*d", width, x)
		}
		fmt.Fprintln(w)
	}
}
