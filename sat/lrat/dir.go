package lrat

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// IndexFile is the name of a certificate directory's index.
const IndexFile = "index.json"

// Format names the index's format.
const Format = "odtkit-lrat-certificate-1"

// Index is a certificate directory's index.json: which formulas and
// proofs it holds and what their refutations certify. Each proof
// refutes the assumptions of its refutations: the clause of each
// refutation, derived in the proof, holds only negations of those
// assumptions, so the formula has no model under them.
type Index struct {
	Format  string `json:"format"`
	Backend string `json:"backend"`
	// Claim is what the directory certifies as a whole, in words (the
	// lower bound of the solve), Bound that bound.
	Claim  string  `json:"claim"`
	Bound  float64 `json:"bound"`
	Proofs []Proof `json:"proofs"`
}

// Proof is one formula, its proof and its refutations.
type Proof struct {
	// Formula (DIMACS) and Proof (text LRAT) are file names in the
	// directory; the formula's clause i has ID i in the proof.
	Formula      string `json:"formula"`
	Proof        string `json:"proof"`
	FormulaBytes int64  `json:"formula_bytes"`
	ProofBytes   int64  `json:"proof_bytes"`
	// Clauses is the formula's number of clauses, Steps the proof's
	// lines (additions and deletions).
	Clauses     int64        `json:"clauses"`
	Steps       int64        `json:"steps"`
	Refutations []Refutation `json:"refutations"`
}

// Refutation is an unsatisfiable call: its assumptions (DIMACS
// literals) and the ID of the proof's clause that refutes them.
type Refutation struct {
	// Certifies says in words what the refutation proves (the formula's
	// meaning is the encoder's).
	Certifies   string `json:"certifies"`
	Bound       int    `json:"bound"`
	Assumptions []int  `json:"assumptions"`
	Clause      int64  `json:"clause"`
}

// Summary is what CheckDir checked.
type Summary struct {
	Dir         string
	Claim       string
	Bound       float64
	Proofs      int
	Certified   []string // what each refutation certifies
	ProofBytes  int64
	Steps       int64
	Seconds     float64
	Refutations int
}

// WriteIndex writes x as dir's index.
func WriteIndex(dir string, x *Index) error {
	b, err := json.MarshalIndent(x, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, IndexFile), append(b, '\n'), 0o644)
}

// ReadIndex reads dir's index.
func ReadIndex(dir string) (*Index, error) {
	path := filepath.Join(dir, IndexFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var x Index
	if err := json.Unmarshal(b, &x); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if x.Format != Format {
		return nil, fmt.Errorf("%s: format %q, want %q", path, x.Format, Format)
	}
	for _, p := range x.Proofs {
		for _, name := range []string{p.Formula, p.Proof} {
			if name == "" || filepath.Base(name) != name {
				return nil, fmt.Errorf("%s: %q is not a file name in the directory", path, name)
			}
		}
	}
	return &x, nil
}

// CheckDir checks a certificate directory: every proof against its
// formula, step by step, and every refutation's clause (derived in its
// proof and not deleted) against its assumptions. An error that refuses
// a proof or a refutation wraps ErrRefused (a *StepError names the
// file, line and clause of a proof's step); one that reads no index or
// no file does not, nor the end of ctx (which stops the check).
func CheckDir(ctx context.Context, dir string) (*Summary, error) {
	x, err := ReadIndex(dir)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	s := &Summary{Dir: dir, Claim: x.Claim, Bound: x.Bound, Proofs: len(x.Proofs)}
	for _, p := range x.Proofs {
		c, err := CheckFiles(ctx, filepath.Join(dir, p.Formula), filepath.Join(dir, p.Proof))
		if err != nil {
			return nil, err
		}
		s.Steps += c.Added + c.Deleted
		if st, err := os.Stat(filepath.Join(dir, p.Proof)); err == nil {
			s.ProofBytes += st.Size()
		}
		for _, r := range p.Refutations {
			if err := c.refutes(r); err != nil {
				return nil, fmt.Errorf("%s: %w", filepath.Join(dir, p.Proof), err)
			}
			s.Certified = append(s.Certified, r.Certifies)
			s.Refutations++
		}
	}
	s.Seconds = time.Since(start).Seconds()
	return s, nil
}

// refutes checks that clause r.Clause is live, derived, and negates
// only assumptions of r.
func (c *Checker) refutes(r Refutation) error {
	cl, ok := c.Clause(r.Clause)
	if !ok || r.Clause <= c.inputs {
		return fmt.Errorf("%w: refutation %q: clause %d is not derived in the proof (or is deleted)", ErrRefused, r.Certifies, r.Clause)
	}
	for _, l := range cl {
		if !slices.Contains(r.Assumptions, -l) {
			return fmt.Errorf("%w: refutation %q: clause %d holds %d, which negates no assumption", ErrRefused, r.Certifies, r.Clause, l)
		}
	}
	return nil
}
