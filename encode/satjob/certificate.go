// Certificates: a certificate directory holds, beside the DIMACS
// formulas and LRAT proofs written by sat.Certifier, an index (Index)
// that states its problem: the data file (size, SHA-256), the backend,
// problem and options solved, the odtkit version and the claim as data.
// Conclude checks a solve's certificate before the result is marked
// certified; Check (check.go) re-derives one from the data alone.

package satjob

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
	"github.com/odtkit/odtkit/sat/lrat"
)

// Format names the index's format.
const Format = "odtkit-lrat-certificate-2"

// Index is a certificate directory's index.json.
type Index struct {
	Format string `json:"format"`
	// Odtkit is the version (module version and VCS revision) of the
	// odtkit that wrote it.
	Odtkit  string  `json:"odtkit"`
	Data    Data    `json:"data"`
	Problem Problem `json:"problem"`
	Claim   Claim   `json:"claim"`
	// Statement is the claim in words, derived from Problem and Claim
	// (never read: Check derives it again).
	Statement string       `json:"statement"`
	Proofs    []lrat.Proof `json:"proofs"`
}

// Data names the data solved: the file as given, its size and SHA-256,
// the options it was read with, and the fingerprint of the dataset read
// (model.Dataset.Fingerprint).
type Data struct {
	File        string   `json:"file"`
	Bytes       int64    `json:"bytes"`
	SHA256      string   `json:"sha256"`
	Format      string   `json:"format,omitempty"`
	Label       string   `json:"label,omitempty"`
	Weight      string   `json:"weight,omitempty"`
	Categorical []string `json:"categorical,omitempty"`
	Columns     []string `json:"columns,omitempty"`
	Fingerprint string   `json:"fingerprint"`
}

// ReadOptions are the options the data was read with.
func (d Data) ReadOptions() model.ReadOptions {
	return model.ReadOptions{Format: model.Format(d.Format), Label: d.Label, Weight: d.Weight, Categorical: d.Categorical, Columns: d.Columns}
}

// Problem is the problem as solved: the backend, the problem (depth,
// skeleton, alpha, leaf cost, limits; after the backend's depth
// reduction) and the value of every option of the backend (the
// certificate's own options left out).
type Problem struct {
	Backend string            `json:"backend"`
	Problem model.Problem     `json:"problem"`
	Options map[string]string `json:"options"`
}

// Claim is what the certificate proves: every model of the problem has
// an objective of at least Bound, or (Infeasible) the problem has no
// model at all.
type Claim struct {
	Objective  model.Objective `json:"objective"`
	Bound      float64         `json:"bound"`
	Infeasible bool            `json:"infeasible,omitempty"`
	// Depth, for the size objective, is the least depth proven: no
	// tree of a lower depth exists, and Bound holds for the trees of
	// that depth.
	Depth int `json:"depth,omitempty"`
}

// Statement puts a claim on a problem in words.
func Statement(p Problem, c Claim) string {
	pr := p.Problem
	nodes := ""
	if pr.MaxNodes > 0 {
		nodes = fmt.Sprintf(" with at most %d internal nodes", pr.MaxNodes)
	}
	if c.Infeasible {
		return fmt.Sprintf("no tree of depth at most %v%s is consistent with the rows", c.Bound-1, nodes)
	}
	switch c.Objective {
	case model.MinDepth:
		return fmt.Sprintf("no tree%s of depth below %v is consistent with the rows", nodes, c.Bound)
	case model.MinSize:
		return fmt.Sprintf("no tree of depth below %d is consistent with the rows, and none of depth %d has fewer than %v nodes", c.Depth, c.Depth, c.Bound)
	case model.MinNodes:
		return fmt.Sprintf("no tree%s with fewer than %v nodes is consistent with the rows", nodes, c.Bound)
	case model.DiagramError:
		return fmt.Sprintf("no diagram on skeleton %v (alpha %v) has an objective below %v", pr.Skeleton, pr.Alpha, c.Bound)
	}
	return fmt.Sprintf("no tree of depth at most %d makes fewer than %v errors (weighted)", pr.MaxDepth, c.Bound)
}

// Version is odtkit's version as a certificate records it.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			v += " " + s.Value
		}
	}
	return strings.TrimSpace(v)
}

// Start begins the certificate of job when its certify option names a
// directory (nil otherwise): the data must be a file as read (not a
// split or reweighted rows of one), the directory missing, empty or
// (with certify-force) a certificate. A refusal wraps backend.ErrInvalid.
func Start(job *backend.Job) (*sat.Certifier, error) {
	o := JobOptions(job)
	dir := o.Certify
	if dir == "" {
		return nil, nil
	}
	src := job.Data.Source
	if src == nil || src.Fingerprint != job.Data.Fingerprint() {
		return nil, backend.Invalidf("certify: the data solved is not a data file as read (a split, a subset or reweighted rows): a certificate names its data by the file")
	}
	c, err := sat.NewCertifier(dir, o.CertifyForce)
	if err != nil {
		if errors.Is(err, sat.ErrCertificateDir) {
			return nil, backend.Invalid(err)
		}
		return nil, err
	}
	return c, nil
}

// record is the index of job's certificate with claim c.
func record(job *backend.Job, name string, c Claim, proofs []lrat.Proof) *Index {
	src := job.Data.Source
	o := src.Options
	x := &Index{Format: Format, Odtkit: Version(),
		Data: Data{File: src.Path, Bytes: src.Bytes, SHA256: src.SHA256, Format: string(o.Format), Label: o.Label,
			Weight: o.Weight, Categorical: o.Categorical, Columns: o.Columns, Fingerprint: src.Fingerprint},
		Problem: Problem{Backend: name, Problem: job.Problem, Options: job.Options.All()},
		Claim:   c, Proofs: proofs}
	delete(x.Problem.Options, sat.CertifyOption)
	delete(x.Problem.Options, sat.CertifyForceOption)
	if x.Proofs == nil {
		x.Proofs = []lrat.Proof{}
	}
	x.Statement = Statement(x.Problem, c)
	return x
}

// WriteIndex writes x as dir's index.
func WriteIndex(dir string, x *Index) error {
	b, err := json.MarshalIndent(x, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, lrat.IndexFile), append(b, '\n'), 0o644)
}

// maxIndex bounds the size of an index read.
const maxIndex = 64 << 20

// ReadIndex reads dir's index (a regular file of at most 64 MiB).
func ReadIndex(dir string) (*Index, error) {
	path := filepath.Join(dir, lrat.IndexFile)
	f, err := lrat.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > maxIndex {
		return nil, fmt.Errorf("%s: %d bytes, more than an index holds (%d)", path, st.Size(), maxIndex)
	}
	var x Index
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&x); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if x.Format != Format {
		return nil, fmt.Errorf("%s: format %q, want %q", path, x.Format, Format)
	}
	for _, p := range x.Proofs {
		if err := p.CheckName(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return &x, nil
}

// Conclude ends the certificate c of job (nothing when c is nil): for a
// proven result (its bound meets its objective, or it is infeasible:
// call it only when the search proved that) it writes the index with the
// result's claim, checks every proof and refutation, puts the
// directory in place and marks the result certified; a certificate
// that does not check is an error. Anything else leaves no directory.
// When ctx ends before the check does, the result claims nothing
// proven: its bound (or infeasibility) unchecked, its stop the
// context's.
func Conclude(ctx context.Context, job *backend.Job, name string, res *model.Result, c *sat.Certifier) error {
	if c == nil {
		return nil
	}
	defer c.Discard()
	// Proven: the search's facts (or a status already named) say so.
	infeasible := res.Model == nil && (res.Infeasible || res.Status == model.StatusInfeasible)
	if !infeasible && !res.Proved && !res.Optimal && (res.Model == nil || res.LowerBound < res.Objective) {
		return nil
	}
	cl := Claim{Objective: job.Problem.Objective, Bound: res.LowerBound, Infeasible: infeasible}
	switch {
	case cl.Infeasible:
		cl.Objective = model.MinDepth
	case cl.Objective == model.MinSize && res.Model != nil:
		cl.Depth = res.Model.Depth()
	}
	x := record(job, name, cl, c.Proofs)
	err := WriteIndex(c.Work, x)
	var sum *Summary
	if err == nil {
		sum, err = checkProofs(ctx, c.Work, x, nil)
	}
	if err == nil {
		err = c.Commit()
	}
	if err != nil && ctx.Err() != nil {
		res.Unchecked, res.Stop = true, model.StopOf(ctx)
		backend.SettleReported(ctx, res) // not optimal: the stop's status
		if res.Stats == nil {
			res.Stats = map[string]any{}
		}
		res.Stats["certificate"] = "stopped before its proofs were checked: the bound is the solver's, not certified"
		return nil
	}
	if err != nil {
		return fmt.Errorf("certify: the proof does not check: %w", err)
	}
	res.SetCertificate(&model.Certificate{Dir: c.Dir, Claim: x.Statement, Objective: string(cl.Objective), Bound: cl.Bound,
		Infeasible: cl.Infeasible, DataSHA256: x.Data.SHA256, Bounds: sum.Certified,
		ProofBytes: sum.ProofBytes, ProofSteps: sum.Steps, CheckSeconds: sum.Seconds})
	return nil
}
