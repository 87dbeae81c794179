package sat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/odtkit/odtkit/sat/lrat"
)

// An External solver whose command line asks for proofs ({drat} or
// {proof}) logs the proof of its last refutation for a certificate: the
// formula it wrote (every clause added so far) and the LRAT proof odtkit
// checked (the solver's own, or the elaboration of its DRAT proof). Its
// calls must then have no assumptions, as sat-dt1's (one call per node
// count) and sat-depth's (calls as examples are added, until a depth is
// refuted) have (CertifiableCalls).
var _ ProofLogger = (*External)(nil)

// externalProof is what an External solver keeps of its checked
// refutation for EndProofContext.
type externalProof struct {
	dir            string // the kept files' directory
	formula, proof string // the kept files ("" before a refutation)
	empty          int64  // the empty clause's ID in proof
	inputs, added  int64
	deleted        int64
}

// keep moves the formula in and the checked LRAT proof into the log's
// directory, in place of an earlier call's.
func (p *externalProof) keep(c *lrat.Checker, in, proof string) error {
	id, ok := c.EmptyClause()
	if !ok {
		return errors.New("sat: the checked proof holds no empty clause")
	}
	p.formula, p.proof = filepath.Join(p.dir, "formula.cnf"), filepath.Join(p.dir, "proof.lrat")
	if err := moveFile(in, p.formula); err != nil {
		return fmt.Errorf("sat: keeping the proof: %w", err)
	}
	if err := moveFile(proof, p.proof); err != nil {
		return fmt.Errorf("sat: keeping the proof: %w", err)
	}
	p.empty, p.inputs, p.added, p.deleted = id, c.Inputs(), c.Added, c.Deleted
	return nil
}

// moveFile renames from to to, or copies it where a rename cannot (to
// another file system).
func moveFile(from, to string) error {
	if os.Rename(from, to) == nil {
		return nil
	}
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	if err := dst.Close(); err != nil {
		return err
	}
	return os.Remove(from)
}

// StartProof starts keeping the proof of the next call's refutation
// (the files go beside path); the command line must ask for proofs and
// the solver hold no clause yet.
func (e *External) StartProof(path string) error {
	if _, kind := withProof(e.argv, ""); kind == noProof {
		return fmt.Errorf("%w: the external solver %q writes no proof ({drat} or {proof})", ErrNotCertifiable, e.argv[0])
	}
	if e.log != nil {
		return errors.New("sat: a proof is being logged already")
	}
	if e.cnf.NumClauses() > 0 {
		return errors.New("sat: a proof must start before the first clause")
	}
	dir := path + ".d"
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("sat: proof: %w", err)
	}
	e.log = &externalProof{dir: dir}
	return nil
}

// Proving reports whether a proof is being kept.
func (e *External) Proving() bool { return e.log != nil }

// AddLemma adds a clause for the next call (an External solver starts
// each call from the clauses afresh).
func (e *External) AddLemma(lits ...Lit) { e.AddClause(lits...) }

// Refutation is the ID of the empty clause in the kept proof of the last
// call, which had no assumptions.
func (e *External) Refutation() (int64, []Lit, bool) {
	if e.log == nil || e.log.proof == "" {
		return 0, nil, false
	}
	return e.log.empty, nil, true
}

// EndProofContext moves the kept formula and proof to the paths given.
func (e *External) EndProofContext(ctx context.Context, formula, proof string) (*ProofFiles, error) {
	p := e.log
	if p == nil {
		return nil, errors.New("sat: no proof is being logged")
	}
	e.log = nil
	defer os.RemoveAll(p.dir)
	if p.proof == "" {
		return nil, errors.New("sat: the external solver refuted nothing whose proof was kept")
	}
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	out := &ProofFiles{Formula: formula, Proof: proof, Inputs: p.inputs, Steps: p.added + p.deleted, Added: p.added, Deletions: p.deleted, identity: true}
	for _, m := range []struct {
		from, to string
		size     *int64
	}{{p.formula, formula, &out.FormulaBytes}, {p.proof, proof, &out.ProofBytes}} {
		if err := moveFile(m.from, m.to); err != nil {
			return nil, fmt.Errorf("sat: proof: %w", err)
		}
		st, err := os.Stat(m.to)
		if err != nil {
			return nil, fmt.Errorf("sat: proof: %w", err)
		}
		*m.size = st.Size()
	}
	return out, nil
}

// dropProof stops keeping proofs and removes what was kept.
func (e *External) dropProof() {
	if e.log != nil {
		os.RemoveAll(e.log.dir)
		e.log = nil
	}
}
