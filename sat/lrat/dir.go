package lrat

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
)

// IndexFile is the name of a certificate directory's index, which lists
// its proofs (Proof) beside what the writer records of its problem.
const IndexFile = "index.json"

// Proof is one formula, its proof and its refutations in a certificate
// directory.
type Proof struct {
	// Name names the proof (the writer's search step it certifies);
	// Formula (DIMACS) and Proof (text LRAT) are file names in the
	// directory; the formula's clause i has ID i in the proof.
	Name    string `json:"name"`
	Formula string `json:"formula"`
	Proof   string `json:"proof"`
	// Encoding holds what the writer needs, beside its problem, to
	// build the formula again (opaque here).
	Encoding    json.RawMessage `json:"encoding,omitempty"`
	Refutations []Refutation    `json:"refutations"`
}

// Refutation is an unsatisfiable call: the bound its assumptions
// (DIMACS literals) stand for and the ID of the proof's clause that
// refutes them.
type Refutation struct {
	Bound       int   `json:"bound"`
	Assumptions []int `json:"assumptions"`
	Clause      int64 `json:"clause"`
}

// CheckName refuses a proof whose file names are not plain names in the
// directory.
func (p Proof) CheckName() error {
	for _, name := range []string{p.Formula, p.Proof} {
		if name == "" || filepath.Base(name) != name || name == "." || name == ".." {
			return fmt.Errorf("%w: %q is not a file name in the directory", ErrRefused, name)
		}
	}
	return nil
}

// Refutes checks that clause r.Clause is live, derived in the proof (not
// an input clause), and holds only negations of r's assumptions.
func (c *Checker) Refutes(r Refutation) error {
	cl, ok := c.Clause(r.Clause)
	if !ok || r.Clause <= c.inputs {
		return fmt.Errorf("%w: refutation of bound %d: clause %d is not derived in the proof (or is deleted)", ErrRefused, r.Bound, r.Clause)
	}
	for _, l := range cl {
		if !slices.Contains(r.Assumptions, -l) {
			return fmt.Errorf("%w: refutation of bound %d: clause %d holds %d, which negates no assumption", ErrRefused, r.Bound, r.Clause, l)
		}
	}
	return nil
}

// CheckProof checks the proof of p in dir against the formula of c (read
// from p's formula file, or built otherwise and compared with it) and
// every refutation of p; c holds the proof's clauses afterwards.
func (c *Checker) CheckProof(ctx context.Context, dir string, p Proof) error {
	if err := p.CheckName(); err != nil {
		return err
	}
	path := filepath.Join(dir, p.Proof)
	if err := c.CheckFile(ctx, path); err != nil {
		return err
	}
	for _, r := range p.Refutations {
		if err := c.Refutes(r); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}
