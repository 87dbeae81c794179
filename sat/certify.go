package sat

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/odtkit/odtkit/sat/drat"
	"github.com/odtkit/odtkit/sat/lrat"
)

// Certifier writes the proofs of a solve's refutations for a
// certificate directory (package lrat): each formula that odtkit's CDCL
// solver refutes something on gets a DIMACS file, an LRAT proof and its
// refutations (Proofs). The files are written into a new directory
// beside the certificate's (Work) and take its place only by Commit, so
// that a run that does not finish leaves nothing; Discard removes them.
type Certifier struct {
	// Dir is the certificate directory, Work the one being written.
	Dir, Work string
	// Proofs lists the proofs written, in order.
	Proofs    []lrat.Proof
	committed bool
}

// Refuted is an Unsatisfiable call to certify: the log ID of the clause
// refuting it (CDCL.Refutation), its assumptions, and the bound they
// stand for.
type Refuted struct {
	LogID       int64
	Assumptions []Lit
	Bound       int
}

// ErrCertificateDir is wrapped by NewCertifier's refusal of a directory
// that holds something other than a certificate, or a certificate that
// is not to be replaced.
var ErrCertificateDir = errors.New("certify")

// NewCertifier starts the certificate of a solve in dir: missing, empty,
// or (with replace) holding a certificate (its index), which Commit
// replaces. Anything else is refused (ErrCertificateDir).
func NewCertifier(dir string, replace bool) (*Certifier, error) {
	if err := CheckCertificateDir(dir, replace); err != nil {
		return nil, err
	}
	parent, base := filepath.Split(filepath.Clean(dir))
	if parent == "" {
		parent = "."
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("certify: %w", err)
	}
	work, err := os.MkdirTemp(parent, "."+base+".part-")
	if err != nil {
		return nil, fmt.Errorf("certify: %w", err)
	}
	return &Certifier{Dir: dir, Work: work}, nil
}

// CheckCertificateDir refuses (ErrCertificateDir) a directory dir that a
// certificate may not be written to: one that is not a directory, or
// holds files but no certificate, or a certificate and replace is not
// set. A missing or empty directory is accepted.
func CheckCertificateDir(dir string, replace bool) error {
	st, err := os.Stat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("certify: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrCertificateDir, dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("certify: %w", err)
	}
	if len(ents) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, lrat.IndexFile)); err != nil {
		return fmt.Errorf("%w: %s holds %d files and no certificate (%s): a certificate goes into a missing or empty directory", ErrCertificateDir, dir, len(ents), lrat.IndexFile)
	}
	if !replace {
		return fmt.Errorf("%w: %s holds a certificate (replace it with --force, or certify-force=true)", ErrCertificateDir, dir)
	}
	return nil
}

// ErrNotCertifiable is returned for a solver that writes no proof.
var ErrNotCertifiable = errors.New("certify: only odtkit's CDCL solver (sat-solver=cdcl) writes proofs")

// Start logs s's proof from now on; s must be odtkit's CDCL solver,
// holding no clause yet. name names the files.
func (c *Certifier) Start(s Solver, name string) error {
	pl, ok := s.(ProofLogger)
	if !ok {
		return ErrNotCertifiable
	}
	return pl.StartProof(filepath.Join(c.Work, name+".log"))
}

// Finish ends s's proof, writes its files (name.cnf, name.lrat) and
// lists its refutations among the proofs; encoding is what the proof's
// formula is built from beside the problem (see lrat.Proof). Writing
// stops soon after ctx ends.
func (c *Certifier) Finish(ctx context.Context, s Solver, name string, encoding []byte, refs ...Refuted) error {
	pl, ok := s.(ProofLogger)
	if !ok {
		return ErrNotCertifiable
	}
	f, err := pl.EndProofContext(ctx, filepath.Join(c.Work, name+".cnf"), filepath.Join(c.Work, name+".lrat"))
	if err != nil {
		return fmt.Errorf("certify: %w", err)
	}
	p := lrat.Proof{Name: name, Formula: name + ".cnf", Proof: name + ".lrat", Encoding: encoding, Refutations: []lrat.Refutation{}}
	for _, r := range refs {
		as := make([]int, len(r.Assumptions))
		for i, a := range r.Assumptions {
			as[i] = int(a)
		}
		p.Refutations = append(p.Refutations, lrat.Refutation{Bound: r.Bound, Assumptions: as, Clause: f.ID(r.LogID)})
	}
	c.Proofs = append(c.Proofs, p)
	return nil
}

// Drop ends s's proof without writing it (nothing of it is needed).
func (c *Certifier) Drop(s Solver) {
	if pl, ok := s.(ProofLogger); ok {
		pl.dropProof()
	}
}

// Commit puts the certificate written in Work in Dir's place (a
// certificate there before is removed).
func (c *Certifier) Commit() error {
	if c.committed {
		return nil
	}
	old := ""
	if _, err := os.Stat(c.Dir); err == nil {
		old = c.Work + ".old"
		if err := os.Rename(c.Dir, old); err != nil {
			return fmt.Errorf("certify: %w", err)
		}
	}
	if err := os.Rename(c.Work, c.Dir); err != nil {
		if old != "" {
			os.Rename(old, c.Dir)
		}
		return fmt.Errorf("certify: %w", err)
	}
	c.committed = true
	if old != "" {
		os.RemoveAll(old)
	}
	return nil
}

// Discard removes what was written, unless committed (a nil Certifier
// does nothing).
func (c *Certifier) Discard() {
	if c != nil && !c.committed {
		os.RemoveAll(c.Work)
	}
}

// CertifyOption is the name of the backends' option that names a
// certificate directory, CertifyForceOption the one that lets it replace
// a certificate there, and CertifyHelp the first's help.
const (
	CertifyOption      = "certify"
	CertifyForceOption = "certify-force"
	CertifyHelp        = "directory DIR: write the formula, LRAT proof and refutation of every bound the optimum rests on there (index.json beside, stating the data, problem and claim) and check them before reporting certified: true (odtkit's CDCL solver; sat-depth and sat-dt1 also an external solver that writes proofs, {drat} or {proof}; odt certify DIR DATA checks again); DIR must be missing or empty (certify-force=true replaces a certificate)"
	CertifyForceHelp   = "with certify=DIR: replace the certificate DIR holds"
)

// Certifiable says whether a solver specification (NewSolver) writes
// proofs a Certifier takes.
func Certifiable(spec string) error {
	switch strings.TrimSpace(spec) {
	case "", "cdcl", "cdcl-glue":
		return nil
	}
	return fmt.Errorf("%w, not %q", ErrNotCertifiable, spec)
}

// The proof placeholders of an external solver's command line.
const (
	lratPlaceholder = "{proof}"
	dratPlaceholder = "{drat}"
)

// proofKind is the proof an external solver is asked for.
type proofKind int

const (
	noProof proofKind = iota
	lratProof
	dratProof
)

// CertifiableCalls is Certifiable for a search whose solver calls have
// no assumptions and whose refutations each end a solver's formula
// (sat-dt1, sat-depth): there an external solver that writes proofs
// ({drat} or {proof}) is certifiable too, its checked proof going into
// the certificate.
func CertifiableCalls(spec string) error {
	if Certifiable(spec) == nil {
		return nil
	}
	if cmd, ok := strings.CutPrefix(strings.TrimSpace(spec), "external:"); ok && (strings.Contains(cmd, lratPlaceholder) || strings.Contains(cmd, dratPlaceholder)) {
		return nil
	}
	return fmt.Errorf("%w, or an external solver that writes proofs ({drat} or {proof}), not %q", ErrNotCertifiable, spec)
}

// withProof replaces {proof} or {drat} in a command line's words by
// path and reports which one a word held.
func withProof(argv []string, path string) ([]string, proofKind) {
	out := make([]string, len(argv))
	kind := noProof
	for i, a := range argv {
		switch {
		case strings.Contains(a, lratPlaceholder):
			kind = lratProof
		case strings.Contains(a, dratPlaceholder):
			kind = dratProof
		}
		out[i] = strings.ReplaceAll(strings.ReplaceAll(a, lratPlaceholder, path), dratPlaceholder, path)
	}
	return out, kind
}

// checkRefutation checks an external solver's proof (LRAT or DRAT:
// kind) that the DIMACS formula in is unsatisfiable (checkProof); it
// returns the checker holding the proof's clauses and the LRAT file it
// checked.
func checkRefutation(ctx context.Context, in, proof string, kind proofKind, dir string, limit int64) (*lrat.Checker, string, error) {
	c, err := lrat.ReadFormula(in)
	if err != nil {
		return nil, "", fmt.Errorf("its formula: %w", err)
	}
	file, err := checkProof(ctx, c, proof, kind, dir, limit)
	return c, file, err
}

// checkProof checks that the proof in file proof, LRAT or DRAT (kind),
// refutes the formula c holds: an LRAT proof is checked by package lrat
// as it is, a DRAT proof is first elaborated into LRAT (package drat) in
// a file of the directory dir, its memory capped at limit bytes (0 =
// none; drat.Options.MaxBytes).
func checkProof(ctx context.Context, c *lrat.Checker, proof string, kind proofKind, dir string, limit int64) (string, error) {
	lratFile := proof
	if kind == dratProof {
		pf, err := lrat.OpenRegular(proof)
		if err != nil {
			return "", fmt.Errorf("its DRAT proof: %w", err)
		}
		defer pf.Close()
		lratFile = filepath.Join(dir, "elaborated.lrat")
		of, err := os.Create(lratFile)
		if err != nil {
			return "", fmt.Errorf("its DRAT proof: %w", err)
		}
		_, err = drat.Elaborate(ctx, c, pf, proof, of, drat.Options{TempDir: dir, MaxBytes: limit})
		if cerr := of.Close(); err == nil && cerr != nil {
			err = cerr
		}
		if err != nil {
			return "", fmt.Errorf("its DRAT proof: %w", err)
		}
	}
	what := "its proof"
	if kind == dratProof {
		what = "its DRAT proof, elaborated to LRAT"
	}
	if err := c.CheckFile(ctx, lratFile); err != nil {
		return "", fmt.Errorf("%s: %w", what, err)
	}
	if !c.Refuted() {
		return "", fmt.Errorf("%s %s: %w: no empty clause derived", what, filepath.Base(lratFile), lrat.ErrRefused)
	}
	return lratFile, nil
}

// CheckRefutation checks that the proof in file proof refutes f: an LRAT
// proof (text) when the file's name ends in .lrat, else a DRAT proof
// (text or binary), as a solver writes it for f's DIMACS form
// (WriteDIMACS: clause i has ID i). It returns nil only when the proof
// checks and derives the empty clause. limit caps the memory of a DRAT
// proof's elaboration (bytes, 0 = none; drat.Options.MaxBytes).
func (f *CNF) CheckRefutation(ctx context.Context, proof string, limit int64) error {
	var b bytes.Buffer
	if err := f.WriteDIMACS(&b); err != nil {
		return err
	}
	c, err := lrat.ReadDIMACS(&b, "the formula")
	if err != nil {
		return err
	}
	kind := dratProof
	if strings.HasSuffix(proof, ".lrat") {
		kind = lratProof
	}
	dir, err := os.MkdirTemp("", "odtkit-proof-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	_, err = checkProof(ctx, c, proof, kind, dir, limit)
	return err
}
