package odtkit

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/sat"
	"github.com/odtkit/odtkit/sat/lrat"
)

// HiGHSEnabled reports whether this build solves MILPs with HiGHS in
// process (built with -tags highs).
const HiGHSEnabled = milp.HiGHSEnabled

// CertifyOption is the option of the SAT backends (sat-depth, sat-size,
// sat-odt, sat-odd) that names the directory where a solve writes the
// LRAT certificate of its bound; CertifyForceOption lets it replace a
// certificate there.
const (
	CertifyOption      = sat.CertifyOption
	CertifyForceOption = sat.CertifyForceOption
)

// CertificateIndex is the file of a certificate directory that states
// its data, problem and claim and lists its formulas and proofs.
const CertificateIndex = lrat.IndexFile

// ErrNotCertified is wrapped by the error of CertifyDir when the
// certificate does not prove its claim: a proof, a refutation, the data
// or a formula is refused.
var ErrNotCertified = lrat.ErrRefused

// ErrNotRederived is wrapped by CertifyDir's error for a backend whose
// formulas odtkit does not build again from the data: its proofs were
// checked against the stored formulas only, which certifies nothing
// about the problem.
var ErrNotRederived = errors.New("the formulas of this backend are not built again from the data")

// Certificate is what CertifyDir checked: the claim derived, what each
// refutation proves, the proofs and steps checked.
type Certificate = satjob.Summary

// CheckCertificateDir refuses a directory a solve may not write a
// certificate to: not a directory, or holding files but no certificate,
// or a certificate and replace is not set.
func CheckCertificateDir(dir string, replace bool) error {
	return sat.CheckCertificateDir(dir, replace)
}

// ReadCertificateIndex reads the index of the certificate directory dir
// without checking any proof, so that a directory holding no readable
// certificate is refused before the check.
func ReadCertificateIndex(dir string) error {
	_, err := satjob.ReadIndex(dir)
	return err
}

// CertifyDir re-derives the certificate in dir: it reads the data (the
// file data, or the one the index names when data is ""; refused when
// its size, SHA-256 or content differs from the index's), builds each
// formula again from the recorded problem with the backend's encoder
// (a stored formula holding a clause the encoder does not make is
// refused), checks every proof against it, takes the meaning of each
// refutation's assumptions from the encoder, and derives the bound from
// the refutations and the data: the index may claim no more. A refusal
// wraps ErrNotCertified. The check honours ctx and the memory cap
// memoryLimitMB (0: none).
func CertifyDir(ctx context.Context, dir, data string, memoryLimitMB int) (*Certificate, error) {
	x, err := satjob.ReadIndex(dir)
	if err != nil {
		return nil, err
	}
	budget := backend.NewBudget(int64(memoryLimitMB) << 20)
	ctx, stop := limits(ctx, Settings{}, budget)
	defer stop()
	d, err := satjob.ReadData(ctx, x, data)
	if err != nil {
		return nil, err
	}
	b, ok := DefaultRegistry().Get(x.Problem.Backend)
	if !ok || b.Info().Name != x.Problem.Backend {
		return nil, fmt.Errorf("%w: the index names backend %q, which writes no certificate", ErrNotCertified, x.Problem.Backend)
	}
	job, err := backend.NewJob(b.Info(), d, x.Problem.Problem, x.Problem.Options)
	if err != nil {
		return nil, fmt.Errorf("%w: the recorded problem: %w", ErrNotCertified, err)
	}
	job.Budget = budget
	re, ok := b.(satjob.Reencoder)
	if !ok {
		return nil, fmt.Errorf("%w: %s: %w", ErrNotCertified, x.Problem.Backend, ErrNotRederived)
	}
	return satjob.Check(ctx, dir, x, job, re)
}

// WriteStandard writes the certificate in dir in the standard form any
// LRAT checker takes: for each refutation of each proof, out/NAME.cnf
// (the formula plus one unit clause per assumption) and out/NAME.lrat
// (the proof with the clause IDs after the formula's moved past the
// units, and a last step deriving the empty clause from the refutation
// and the units). It returns the names written (without extension).
// Run it on a certificate CertifyDir accepted: it checks nothing.
func WriteStandard(ctx context.Context, dir, out string) ([]string, error) {
	x, err := satjob.ReadIndex(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	var names []string
	for _, p := range x.Proofs {
		if err := p.CheckName(); err != nil {
			return nil, err
		}
		for i, r := range p.Refutations {
			name := p.Name
			if len(p.Refutations) > 1 {
				name += "-" + strconv.Itoa(i+1)
			}
			if err := writeStandard(ctx, filepath.Join(dir, p.Formula), filepath.Join(dir, p.Proof), filepath.Join(out, name), r); err != nil {
				return nil, err
			}
			names = append(names, name)
		}
	}
	return names, nil
}

// writeStandard writes base.cnf and base.lrat for refutation r.
func writeStandard(ctx context.Context, formula, proof, base string, r lrat.Refutation) error {
	c, err := lrat.ReadFormula(formula)
	if err != nil {
		return err
	}
	m, a := c.Inputs(), int64(len(r.Assumptions))
	if err := writeFile(base+".cnf", func(w *bufio.Writer) error {
		fmt.Fprintf(w, "c %s with one unit clause per assumption of the refutation of bound %d\n", filepath.Base(formula), r.Bound)
		fmt.Fprintf(w, "p cnf %d %d\n", c.Vars(), m+a)
		for id := int64(1); id <= m; id++ {
			cl, _ := c.Clause(id)
			for _, l := range cl {
				w.WriteString(strconv.Itoa(l) + " ")
			}
			w.WriteString("0\n")
		}
		for _, l := range r.Assumptions {
			fmt.Fprintf(w, "%d 0\n", l)
		}
		return nil
	}); err != nil {
		return err
	}
	shift := func(id int64) int64 {
		if id > m {
			return id + a
		}
		return id
	}
	return writeFile(base+".lrat", func(w *bufio.Writer) error {
		f, err := lrat.OpenRegular(proof)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 1<<16), lrat.MaxLine)
		last := m + a
		var refuting []int
		for n := 0; sc.Scan(); n++ {
			if n%4096 == 0 && ctx.Err() != nil {
				return context.Cause(ctx)
			}
			st, err := lrat.ParseStep(sc.Text())
			if err != nil {
				continue // blank lines and comments
			}
			if !st.Delete && st.ID == r.Clause {
				refuting = st.Lits
			}
			st.ID = shift(st.ID)
			for i, h := range st.Hints {
				st.Hints[i] = int(shift(int64(h)))
			}
			last = max(last, st.ID)
			w.WriteString(st.String() + "\n")
		}
		if err := sc.Err(); err != nil {
			return err
		}
		var hints []int64
		for _, l := range refuting {
			for j, as := range r.Assumptions {
				if as == -l {
					hints = append(hints, m+int64(j)+1)
					break
				}
			}
		}
		hints = append(hints, shift(r.Clause))
		fmt.Fprintf(w, "%d 0", last+1)
		for _, h := range hints {
			fmt.Fprintf(w, " %d", h)
		}
		w.WriteString(" 0\n")
		return nil
	})
}

// writeFile writes path through a buffered writer, whole or not at all.
func writeFile(path string, fill func(w *bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}
