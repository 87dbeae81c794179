package satjob

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
	"github.com/odtkit/odtkit/sat/lrat"
)

// ErrRefused is wrapped by every error that refuses a certificate (it is
// lrat.ErrRefused).
var ErrRefused = lrat.ErrRefused

// Summary is what a check of a certificate proved.
type Summary struct {
	Dir string
	// Claim is the claim checked, Statement it in words.
	Claim     Claim
	Statement string
	// Certified says in words what each refutation proves.
	Certified         []string
	Proofs            int
	Refutations       int
	ProofBytes, Steps int64
	Seconds           float64
}

// Formula is a proof's formula as the encoder builds it again.
type Formula struct {
	// CNF holds the clauses the encoder makes for the proof: every
	// clause of the stored formula must be one of them (in any order).
	CNF *sat.CNF
	// Assume returns the assumptions whose refutation proves bound k
	// (ok false: no such bound in this formula).
	Assume func(k int) (as []sat.Lit, ok bool)
	// Says puts bound k of this formula in words.
	Says func(k int) string
}

// Reencoder is a SAT backend whose certificates can be re-derived.
type Reencoder interface {
	// Reencode builds the formula of proof p of a certificate of job
	// (p.Encoding holds what the search chose beside the problem).
	Reencode(ctx context.Context, job *backend.Job, p lrat.Proof) (*Formula, error)
	// Bound is what the data of job proves with the proofs (checked,
	// with their refutations; none: the data alone).
	Bound(ctx context.Context, job *backend.Job, proofs []lrat.Proof) (Claim, error)
}

// Refuted is the largest bound each proof refutes, by proof name.
func Refuted(proofs []lrat.Proof) map[string]int {
	out := map[string]int{}
	for _, p := range proofs {
		for _, r := range p.Refutations {
			if b, ok := out[p.Name]; !ok || r.Bound > b {
				out[p.Name] = r.Bound
			}
		}
	}
	return out
}

// refusef is an error that refuses a certificate.
func refusef(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, a...))
}

// ReadData reads the data of certificate x from path (the file the
// index names when path is ""): its size and SHA-256 must be the
// index's, and the dataset read with the recorded options must have the
// recorded fingerprint, else the certificate is refused (ErrRefused).
func ReadData(ctx context.Context, x *Index, path string) (*model.Dataset, error) {
	if path == "" {
		path = x.Data.File
	}
	f, err := lrat.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); n != x.Data.Bytes || sum != x.Data.SHA256 {
		return nil, refusef("data %s: %d bytes with SHA-256 %s, the certificate's data %s has %d bytes with SHA-256 %s",
			path, n, sum, x.Data.File, x.Data.Bytes, x.Data.SHA256)
	}
	d, err := model.ReadFileContext(ctx, path, x.Data.ReadOptions())
	if err != nil {
		return nil, err
	}
	if fp := d.Fingerprint(); fp != x.Data.Fingerprint {
		return nil, refusef("data %s read as the certificate records gives fingerprint %s, not the certificate's %s", path, fp, x.Data.Fingerprint)
	}
	return d, nil
}

// Check re-derives certificate x in dir for job (the recorded problem
// on the data, backend.NewJob): every proof's formula built again by re
// (a stored formula with a clause the encoder does not make is refused,
// naming it), every proof checked against it, every refutation's
// assumptions the encoder's for its bound, and the claim derived from
// the refutations and the data (re.Bound): the index may claim no more.
// Refusals wrap ErrRefused.
func Check(ctx context.Context, dir string, x *Index, job *backend.Job, re Reencoder) (*Summary, error) {
	if x.Problem.Backend == "" {
		return nil, refusef("the index names no backend")
	}
	fs := make(map[string]*Formula, len(x.Proofs))
	for _, p := range x.Proofs {
		if _, dup := fs[p.Name]; dup {
			return nil, refusef("two proofs named %q", p.Name)
		}
		f, err := re.Reencode(ctx, job, p)
		if err != nil {
			if ctx.Err() != nil {
				return nil, err
			}
			return nil, refusef("proof %q: %v", p.Name, err)
		}
		fs[p.Name] = f
	}
	sum, err := checkProofs(ctx, dir, x, fs)
	if err != nil {
		return nil, err
	}
	cl, err := re.Bound(ctx, job, x.Proofs)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, refusef("%v", err)
	}
	if x.Claim.Objective != cl.Objective || x.Claim.Infeasible != cl.Infeasible || x.Claim.Depth != cl.Depth || x.Claim.Bound > cl.Bound+1e-9*max(1, math.Abs(cl.Bound)) {
		return nil, refusef("the index claims %q, the data and the proofs prove %q", Statement(x.Problem, x.Claim), Statement(x.Problem, cl))
	}
	// The index's claim is what was checked (it may be below what the
	// proofs give, never above but for rounding).
	sum.Claim, sum.Statement = x.Claim, Statement(x.Problem, x.Claim)
	return sum, nil
}

// checkProofs checks every proof of x in dir and its refutations, and
// with fs (the re-encoded formulas by proof name) the stored formulas
// and the assumptions against them.
func checkProofs(ctx context.Context, dir string, x *Index, fs map[string]*Formula) (*Summary, error) {
	start := time.Now()
	s := &Summary{Dir: dir, Claim: x.Claim, Statement: x.Statement, Proofs: len(x.Proofs)}
	for _, p := range x.Proofs {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if err := p.CheckName(); err != nil {
			return nil, err
		}
		if len(p.Refutations) == 0 {
			return nil, refusef("proof %q refutes nothing", p.Name)
		}
		formula := filepath.Join(dir, p.Formula)
		c, err := lrat.ReadFormula(formula)
		if err != nil {
			return nil, err
		}
		f := fs[p.Name]
		if fs != nil {
			if err := sameFormula(ctx, c, f, formula); err != nil {
				return nil, err
			}
		}
		if err := c.CheckProof(ctx, dir, p); err != nil {
			return nil, err
		}
		s.Steps += c.Added + c.Deleted
		if st, err := os.Stat(filepath.Join(dir, p.Proof)); err == nil {
			s.ProofBytes += st.Size()
		}
		for _, r := range p.Refutations {
			says := fmt.Sprintf("%s: refutes bound %d", p.Name, r.Bound)
			if f != nil {
				want, ok := f.Assume(r.Bound)
				if !ok {
					return nil, refusef("%s: refutation of bound %d: the formula has no such bound", filepath.Join(dir, p.Proof), r.Bound)
				}
				if !sameLits(r.Assumptions, want) {
					return nil, refusef("%s: refutation of bound %d: assumptions %v are not the encoder's literals for the bound (%v)", filepath.Join(dir, p.Proof), r.Bound, r.Assumptions, want)
				}
				says = f.Says(r.Bound)
			}
			s.Certified = append(s.Certified, says)
			s.Refutations++
		}
	}
	s.Seconds = time.Since(start).Seconds()
	return s, nil
}

// sameLits reports whether a and b hold the same literals.
func sameLits(a []int, b []sat.Lit) bool {
	x := slices.Clone(a)
	y := make([]int, len(b))
	for i, l := range b {
		y[i] = int(l)
	}
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}

// canonical is a clause's literals sorted, each once.
func canonical(c []int) []int {
	slices.Sort(c)
	return slices.Compact(c)
}

// sameFormula refuses the first clause of the stored formula (in c)
// that is not a clause of f.
func sameFormula(ctx context.Context, c *lrat.Checker, f *Formula, name string) error {
	seed := maphash.MakeSeed()
	key := func(cl []int) uint64 {
		var h maphash.Hash
		h.SetSeed(seed)
		var b [4]byte
		for _, l := range cl {
			u := uint32(int32(l))
			b[0], b[1], b[2], b[3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
			h.Write(b[:])
		}
		return h.Sum64()
	}
	made := make(map[uint64][]int32, f.CNF.NumClauses())
	for i := range f.CNF.NumClauses() {
		if i%65536 == 0 && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		cl := f.CNF.Clause(i)
		xs := make([]int, len(cl))
		for j, l := range cl {
			xs[j] = int(l)
		}
		k := key(canonical(xs))
		made[k] = append(made[k], int32(i))
	}
	for id := int64(1); id <= c.Inputs(); id++ {
		if id%65536 == 0 && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		cl, _ := c.Clause(id)
		cl = canonical(cl)
		found := false
		for _, i := range made[key(cl)] {
			xs := make([]int, len(f.CNF.Clause(int(i))))
			for j, l := range f.CNF.Clause(int(i)) {
				xs[j] = int(l)
			}
			if slices.Equal(canonical(xs), cl) {
				found = true
				break
			}
		}
		if !found {
			return refusef("%s: clause %d (%s0) is not a clause the encoder makes for the recorded problem", name, id, lits(cl))
		}
	}
	return nil
}

func lits(cl []int) string {
	var b strings.Builder
	for _, l := range cl {
		fmt.Fprintf(&b, "%d ", l)
	}
	return b.String()
}

// IsRefused reports whether err refuses a certificate (as opposed to a
// file that cannot be read or a stop).
func IsRefused(err error) bool { return errors.Is(err, ErrRefused) }
