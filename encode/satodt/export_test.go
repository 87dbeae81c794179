package satodt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

func tinyJob(t *testing.T, depth int) *backend.Job {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 9))
	d := &model.Dataset{Name: "tiny", Classes: []string{"a", "b", "c"}}
	n := 30
	for j := range 3 {
		f := model.Feature{Name: fmt.Sprint("x", j), Values: make([]float64, n)}
		for r := range n {
			f.Values[r] = float64(rng.IntN(3))
		}
		d.Features = append(d.Features, f)
	}
	d.Labels = make([]int, n)
	for r := range n {
		d.Labels[r] = (int(d.Features[0].Values[r]) + rng.IntN(2)) % 3
	}
	job, err := backend.NewJob(Backend{}.Info(), d, model.Problem{MaxDepth: depth}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// answer renders an assignment as a solver's answer.
func answer(status string, cost int, val []bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "s %s\n", status)
	if cost >= 0 {
		fmt.Fprintf(&b, "o %d\n", cost)
	}
	b.WriteString("v")
	for v := 1; v < len(val); v++ {
		if val[v] {
			fmt.Fprintf(&b, " %d", v)
		} else {
			fmt.Fprintf(&b, " -%d", v)
		}
	}
	b.WriteString(" 0\n")
	return b.String()
}

// TestDecodeChecksClaims decodes answers built from the greedy tree's
// assignment: a consistent one gives that tree; a wrong cost, a
// falsified hard clause, an unsatisfiable claim and an optimum claimed
// for a model whose soft literals overcount its tree are errors.
func TestDecodeChecksClaims(t *testing.T) {
	ctx := context.Background()
	job := tinyJob(t, 2)
	o, err := JobOptions(job)
	if err != nil {
		t.Fatal(err)
	}
	p, f, err := formula(ctx, job, o)
	if err != nil {
		t.Fatal(err)
	}
	val := f.Values(p, Greedy(p, 2, Options{}))
	cost := f.Cost(func(l sat.Lit) bool { return val[l.Var()] == l.Sign() })
	res, err := Backend{}.Decode(ctx, job, strings.NewReader(answer("SATISFIABLE", cost, val)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Optimal || res.Objective != float64(cost) || res.Model.WeightedErrors(job.Data) != float64(cost) {
		t.Fatalf("decoded %+v, want the greedy tree's %d errors, not optimal", res, cost)
	}
	var noTest []any // the root tests nothing
	for i := range p.Tests {
		noTest = append(noTest, f.F.Lit(0, i), false)
	}
	bad := map[string]string{
		"claims cost":       answer("SATISFIABLE", cost+1, val),
		"unsatisfiable":     "s UNSATISFIABLE\n",
		"falsifies hard":    answer("SATISFIABLE", -1, flip(val, noTest...)),
		"model is not opti": answer("OPTIMUM FOUND", cost+f.Soft[0].Weight, flip(val, f.Soft[0].Lit, true)),
	}
	if val[f.Soft[0].Lit] {
		t.Fatal("the greedy tree misclassifies the first soft literal's rows; pick another")
	}
	for frag, text := range bad {
		_, err := Backend{}.Decode(ctx, job, strings.NewReader(text))
		if err == nil || !errors.Is(err, sat.ErrOutput) || !strings.Contains(err.Error(), frag) {
			t.Errorf("%s: error %v", frag, err)
		}
	}
}

func flip(val []bool, pairs ...any) []bool {
	out := append([]bool(nil), val...)
	for i := 0; i < len(pairs); i += 2 {
		out[pairs[i].(sat.Lit)] = pairs[i+1].(bool)
	}
	return out
}

// TestExportHeader: the WCNF header names the variable groups and the
// decode command, and the formula has as many soft clauses as soft
// literals.
func TestExportHeader(t *testing.T) {
	job := tinyJob(t, 2)
	var buf bytes.Buffer
	if err := (Backend{}).Export(context.Background(), &buf, job); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{"c var F ", "c var L ", "c var Y ", "c var E ", "odt decode --backend sat-odt --depth 2", "p wcnf "} {
		if !strings.Contains(text, want) {
			t.Errorf("header lacks %q", want)
		}
	}
	job.Problem.MaxDepth = 0
	if err := (Backend{}).Export(context.Background(), &buf, job); !errors.Is(err, backend.ErrInvalid) {
		t.Errorf("depth 0: %v, want an invalid request", err)
	}
}
