package sat

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/odtkit/odtkit/sat/lrat"
)

// Certifier writes the proofs of a solve's refutations to a directory
// and checks them (package lrat): each formula that odtkit's CDCL
// solver refutes something on gets a DIMACS file, an LRAT proof and its
// refutations in the directory's index.
type Certifier struct {
	Dir     string
	backend string
	index   lrat.Index
}

// Refuted is an Unsatisfiable call to certify: the log ID of the clause
// refuting it (CDCL.Refutation), its assumptions, and what it proves.
type Refuted struct {
	LogID       int64
	Assumptions []Lit
	Bound       int
	Certifies   string
}

// NewCertifier makes dir (when missing) for the certificate of a solve
// by backend. A certificate already there is replaced.
func NewCertifier(dir, backend string) (*Certifier, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("certify: %w", err)
	}
	if err := os.Remove(filepath.Join(dir, lrat.IndexFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("certify: %w", err)
	}
	return &Certifier{Dir: dir, backend: backend}, nil
}

// ErrNotCertifiable is returned for a solver that writes no proof.
var ErrNotCertifiable = errors.New("certify: only odtkit's CDCL solver (sat-solver=cdcl) writes proofs")

// Start logs s's proof from now on; s must be odtkit's CDCL solver,
// holding no clause yet. name names the files.
func (c *Certifier) Start(s Solver, name string) error {
	cd, ok := s.(*CDCL)
	if !ok {
		return ErrNotCertifiable
	}
	return cd.StartProof(filepath.Join(c.Dir, name+".log"))
}

// Finish ends s's proof, writes its files (name.cnf, name.lrat) and
// lists its refutations in the index.
func (c *Certifier) Finish(s Solver, name string, refs ...Refuted) error {
	cd, ok := s.(*CDCL)
	if !ok {
		return ErrNotCertifiable
	}
	f, err := cd.EndProof(filepath.Join(c.Dir, name+".cnf"), filepath.Join(c.Dir, name+".lrat"))
	if err != nil {
		return fmt.Errorf("certify: %w", err)
	}
	p := lrat.Proof{Formula: name + ".cnf", Proof: name + ".lrat", FormulaBytes: f.FormulaBytes, ProofBytes: f.ProofBytes,
		Clauses: f.Inputs, Steps: f.Steps}
	for _, r := range refs {
		as := make([]int, len(r.Assumptions))
		for i, a := range r.Assumptions {
			as[i] = int(a)
		}
		p.Refutations = append(p.Refutations, lrat.Refutation{Certifies: r.Certifies, Bound: r.Bound, Assumptions: as, Clause: f.ID(r.LogID)})
	}
	c.index.Proofs = append(c.index.Proofs, p)
	return nil
}

// Drop ends s's proof without writing it (nothing of it is needed).
func (c *Certifier) Drop(s Solver) {
	if cd, ok := s.(*CDCL); ok {
		cd.dropProof()
	}
}

// Check writes the index, with the claim and bound of the whole
// certificate, and checks the directory (lrat.CheckDir) until ctx ends.
func (c *Certifier) Check(ctx context.Context, claim string, bound float64) (*lrat.Summary, error) {
	c.index.Format, c.index.Backend, c.index.Claim, c.index.Bound = lrat.Format, c.backend, claim, bound
	if c.index.Proofs == nil {
		c.index.Proofs = []lrat.Proof{}
	}
	if err := lrat.WriteIndex(c.Dir, &c.index); err != nil {
		return nil, fmt.Errorf("certify: %w", err)
	}
	s, err := lrat.CheckDir(ctx, c.Dir)
	if err != nil {
		return nil, fmt.Errorf("certify: the proof does not check: %w", err)
	}
	return s, nil
}

// CertifyOption is the name of the backends' option that names a
// certificate directory, CertifyHelp its help.
const (
	CertifyOption = "certify"
	CertifyHelp   = "directory DIR: write the formula, LRAT proof and refutation of every bound the optimum rests on there (index.json beside) and check them before reporting certified: true (odtkit's CDCL solver; odt certify DIR checks again)"
)

// Certifiable says whether a solver specification (NewSolver) writes
// proofs a Certifier takes.
func Certifiable(spec string) error {
	switch strings.TrimSpace(spec) {
	case "", "cdcl":
		return nil
	}
	return fmt.Errorf("%w, not %q", ErrNotCertifiable, spec)
}

// withProof replaces {proof} in a command line's words by path and
// reports whether a word held it.
func withProof(argv []string, path string) ([]string, bool) {
	out := make([]string, len(argv))
	found := false
	for i, a := range argv {
		found = found || strings.Contains(a, "{proof}")
		out[i] = strings.ReplaceAll(a, "{proof}", path)
	}
	return out, found
}

// checkRefutation checks an external solver's LRAT proof that the DIMACS
// formula in is unsatisfiable: every step, and a derived empty clause.
func checkRefutation(ctx context.Context, in, proof string) error {
	c, err := lrat.CheckFiles(ctx, in, proof)
	if err != nil {
		return fmt.Errorf("its proof: %w", err)
	}
	if !c.Refuted() {
		return fmt.Errorf("its proof %s: %w: no empty clause derived", filepath.Base(proof), lrat.ErrRefused)
	}
	return nil
}
