package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/model"
)

func TestExportMPS(t *testing.T) {
	d, err := model.ReadFile("../../testdata/iris.csv", model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		enc    string
		p      model.Problem
		layers int
	}{
		{"odd", model.Problem{Objective: model.DiagramError, Skeleton: []int{1, 2, 2}, Alpha: 0.01}, 3},
		{"odt", model.Problem{MaxDepth: 2, MinSupport: 1}, 2},
	} {
		var buf bytes.Buffer
		if err := exportMPS(exportRequest{Data: d, Encoding: c.enc, Problem: c.p, Out: &buf}); err != nil {
			t.Fatal(err)
		}
		m, err := milp.ReadMPS(&buf)
		if err != nil {
			t.Fatal(err)
		}
		lambda := 0
		for _, col := range m.Columns {
			if strings.HasPrefix(col.Name, "lambda_") && col.Integer {
				lambda++
			}
		}
		if lambda != d.Rows()*c.layers {
			t.Errorf("%s: %d λ columns, want %d", c.enc, lambda, d.Rows()*c.layers)
		}
	}
	if err := exportMPS(exportRequest{Data: d, Encoding: "depth", Out: &bytes.Buffer{}}); err == nil || exitCode(err) != 2 {
		t.Errorf("depth encoding to MPS: %v", err)
	}
	if err := exportMPS(exportRequest{Data: d, Encoding: "odd", Problem: model.Problem{Objective: model.DiagramError}, Out: &bytes.Buffer{}}); err == nil || exitCode(err) != 2 {
		t.Errorf("odd without skeleton: %v", err)
	}
}
