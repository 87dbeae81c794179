package satjob_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
)

// job is a job on testdata/iris.csv whose certify option names dir.
func job(t *testing.T, dir string) *backend.Job {
	t.Helper()
	d, err := model.ReadFile("../../testdata/iris.csv", model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	info := backend.Info{Name: "x", Objectives: []model.Objective{model.MinError},
		Params: []backend.Param{backend.StringParam(sat.CertifyOption, "", ""), backend.BoolParam(sat.CertifyForceOption, false, "")}}
	j, err := backend.NewJob(info, d, model.Problem{MaxDepth: 2}, map[string]string{sat.CertifyOption: dir})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// refuted writes a proof refuting x1 ∧ ¬x1 under no assumption.
func refuted(t *testing.T, c *sat.Certifier) {
	t.Helper()
	s := sat.NewCDCL()
	if err := c.Start(s, "p"); err != nil {
		t.Fatal(err)
	}
	s.AddClause(1, 2)
	s.AddClause(1, -2)
	s.AddClause(-1, 2)
	s.AddClause(-1, -2)
	if st, err := s.Solve(context.Background()); err != nil || st != sat.Unsatisfiable {
		t.Fatalf("%v %v", st, err)
	}
	id, _, _ := s.Refutation()
	if err := c.Finish(context.Background(), s, "p", []byte(`{}`), sat.Refuted{LogID: id, Bound: 1}); err != nil {
		t.Fatal(err)
	}
}

// TestConcludeStopped: a check stopped by its context leaves the result
// unproven (not optimal, unchecked, the stop's status) and no directory,
// partial or not; a check that runs puts the certificate in place.
func TestConcludeStopped(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cert")
	j := job(t, dir)
	c, err := satjob.Start(j)
	if err != nil {
		t.Fatal(err)
	}
	refuted(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := &model.Result{Optimal: true, Status: model.StatusOptimal, LowerBound: 1, Objective: 1}
	if err := satjob.Conclude(ctx, j, "x", res, c); err != nil {
		t.Fatal(err)
	}
	if res.Optimal || !res.Unchecked || res.Status != model.StatusCancelled || res.Certified {
		t.Fatalf("stopped check: %+v", res)
	}
	ents, _ := os.ReadDir(filepath.Dir(dir))
	if len(ents) != 0 {
		t.Fatalf("a stopped check left %v", ents)
	}

	c, err = satjob.Start(j)
	if err != nil {
		t.Fatal(err)
	}
	refuted(t, c)
	res = &model.Result{Optimal: true, Status: model.StatusOptimal, LowerBound: 1, Objective: 1}
	if err := satjob.Conclude(context.Background(), j, "x", res, c); err != nil {
		t.Fatal(err)
	}
	if !res.Certified || res.Certificate.Bound != 1 || res.Certificate.DataSHA256 == "" {
		t.Fatalf("checked: %+v", res)
	}
	x, err := satjob.ReadIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	if x.Data.File != "../../testdata/iris.csv" || x.Data.Bytes == 0 || x.Problem.Problem.MaxDepth != 2 || x.Claim.Bound != 1 {
		t.Fatalf("index %+v", x)
	}
	if _, err := satjob.Start(j); err == nil {
		t.Fatal("a certificate was written over without certify-force")
	}
}
