package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

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

// modelAndData reads the model and the data and binds the model to the
// data's columns by name. labelled says whether the data must have its
// labels (eval) or may lack them (predict; see applyOptions).
func modelAndData(modelPath string, df *dataFlags, dataPath string, labelled bool) (*model.Graph, *model.Dataset, error) {
	g, err := readModel(modelPath)
	if err != nil {
		return nil, nil, err
	}
	opt, err := applyOptions(g, df, dataPath, labelled)
	if err != nil {
		return nil, nil, err
	}
	// A first Ctrl-C or SIGTERM while reading stops eval and predict
	// (exit 130): they have no partial result to print.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	d, err := readDataFile(ctx, dataPath, opt)
	if err != nil && ctx.Err() != nil {
		return nil, nil, fmt.Errorf("%w: %w", errInterrupted, err)
	}
	if errors.Is(err, model.ErrMissingColumn) {
		return nil, nil, badInput(fmt.Errorf("model %s does not fit the data: %w", modelPath, err))
	}
	if err != nil {
		return nil, nil, err
	}
	b, err := g.Bind(d)
	if err != nil {
		return nil, nil, badInput(fmt.Errorf("model %s does not fit the data: %w", modelPath, err))
	}
	return b, d, nil
}

// applyOptions are the read options to apply g to the file at path: one
// row is enough; of a CSV file only the columns g tests are read (found
// by name, in any order, others skipped unparsed), those it tests as
// categories read as categories, and the label only when labelled or
// --label is given; a text file must hold g's features f0, f1, ... by
// position, after a label field unless (for predict) a regular file's
// first row holds exactly g's features, the first a number.
func applyOptions(g *model.Graph, df *dataFlags, path string, labelled bool) (model.ReadOptions, error) {
	opt, err := df.options()
	if err != nil {
		return opt, err
	}
	opt.MinRows = 1
	if opt.FormatOf(path) == model.FormatText {
		opt.Columns = g.Features
		if !labelled {
			// Without a label a row holds exactly the features, all
			// numbers; a first field that is no number is a label.
			first := textFirstRow(path)
			if len(first) == len(g.Features) && len(first) > 0 {
				_, err := strconv.ParseFloat(first[0], 64)
				opt.NoLabel = err == nil
			}
		}
		return opt, nil
	}
	opt.Columns = g.UsedFeatures()
	if opt.Columns == nil {
		opt.Columns = []string{}
	}
	opt.NoLabel = !labelled && df.label == ""
	seen := map[string]bool{}
	for _, c := range opt.Categorical {
		seen[c] = true
	}
	for _, nd := range g.Nodes {
		if !nd.Leaf && nd.IsCategory && !seen[g.Features[nd.Feature]] {
			seen[g.Features[nd.Feature]] = true
			opt.Categorical = append(opt.Categorical, g.Features[nd.Feature])
		}
	}
	return opt, nil
}

// textFirstRow is the fields of the first non-blank line of a regular
// text file, or nil when they cannot be had without consuming the input
// (a pipe) or the file cannot be read (the reader then says why).
func textFirstRow(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<30)
	for sc.Scan() {
		if fields := strings.Fields(strings.TrimPrefix(sc.Text(), "\uFEFF")); len(fields) > 0 {
			return fields
		}
	}
	return nil
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
			"errors, accuracy and the confusion matrix. The model is applied by feature and class name:\n"+
			"DATA's columns may come in any order and include columns the model does not test; a\n"+
			"column it tests that DATA lacks is an error.", 1, 1)
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
	if err := checkFormat(format, outputFormats("eval")...); err != nil {
		return err
	}
	g, d, err := modelAndData(modelPath, &df, pos[0], true)
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
			"DATA has the same format as for solve, one row or more; it needs no label. The model is\n"+
			"applied by feature name: of a CSV file only the columns the model tests are read, in\n"+
			"any order, other columns (a label among them) skipped; a column the model tests that\n"+
			"DATA lacks is an error. A text file holds the model's features by position, after a\n"+
			"label field or (when its rows hold exactly the model's features) without one.", 1, 1)
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
	g, d, err := modelAndData(modelPath, &df, pos[0], false)
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
