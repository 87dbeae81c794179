package satjob

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/sat"
	"github.com/odtkit/odtkit/sat/lrat"
)

// Descent is a search for the least cost on one incremental solver whose
// formula holds a counter of the cost: it asks for ever smaller bounds
// until one is refuted. The space may be split into parts, each one
// literal assumed beside the bound (a root test: with it fixed the two
// subtrees of the root are independent, which the solver does not see
// on the whole tree); each bound is then refuted part by part, and a
// refuted part is kept as a clause (its literal forces the cost above
// the bound), so that later calls need not find it again.
type Descent struct {
	Solver sat.Solver
	// AtLeast is the counter's output forced true when the cost reaches
	// k (1 ≤ k ≤ Cap), 0 when no cost reaches k.
	AtLeast func(k int) sat.Lit
	Cap     int
	// Parts are the literals of the parts (nil: the whole space). Every
	// model must make one of them true.
	Parts []sat.Lit
	// Bisect tries the middle of a part's lower bound and the best cost
	// instead of one below the best cost.
	Bisect bool
	// Model reads the solver's model after a satisfiable call with bound
	// k: its cost (at most k, checked by Model against the data) or an
	// error.
	Model func(k int) (int, error)
	// Certify keeps the refutation that proves the least cost
	// (DescentResult.Refutation), on a solver that logs a proof
	// (sat.ProofLogger). A refuted part's clause is then a lemma
	// derived in the proof (sat.ProofLogger.AddLemma), and when the space has
	// parts one more call refutes the bound on the whole space from
	// them: one refutation certifies the descent.
	Certify bool
}

// Refutation is an unsatisfiable call of a descent: no cost is at most
// Bound under Assumptions; LogID is the solver's proof clause that
// refutes them (sat.ProofLogger.Refutation).
type Refutation struct {
	Bound       int
	Assumptions []sat.Lit
	LogID       int64
}

// Step is one solver call: the part assumed, the bound on the cost and
// the answer.
type Step struct {
	// Part is the index of the part assumed (Descent.Parts), -1 for
	// none.
	Part   int
	Bound  int
	Status sat.Status
	Cost   int // cost of the model found (satisfiable calls)
}

// Outcome is what a search that ends in a descent found (sat-odt,
// sat-odd).
type Outcome struct {
	// Model is the best model (the incumbent when nothing better was
	// found).
	Model *model.Graph
	// Cost is Model's cost; LowerBound a proven bound on the optimum
	// (Cost when Optimal).
	Cost, LowerBound int
	Optimal          bool
	// Stopped is set when ctx ended the search.
	Stopped bool
	// TooLarge is set when the formula with its counter would pass the
	// search's clause budget: the incumbent is returned unproven.
	TooLarge bool
	// Calls counts solver calls; Vars and Clauses size the formula
	// (counter included).
	Calls, Vars, Clauses int
	// Steps lists each bound tried and its answer, in order.
	Steps []Step
}

// Ended is what a search that failed with err returns: when ctx has
// ended (err is its doing), the outcome so far, stopped; otherwise err.
func (o *Outcome) Ended(ctx context.Context, err error) (*Outcome, error) {
	if ctx.Err() != nil {
		o.Stopped = true
		return o, nil
	}
	return nil, err
}

// DescentResult is where a descent ended.
type DescentResult struct {
	// Cost is the best cost found (the one given when nothing better
	// was); LowerBound the least cost proven over all parts.
	Cost, LowerBound int
	Optimal, Stopped bool
	Calls            int
	Steps            []Step
	// Refutation, with Descent.Certify, is the call that proves
	// LowerBound when Optimal (nil when the floor proves it).
	Refutation *Refutation
}

// Run descends from an incumbent of cost cost ≤ d.Cap with floor a known
// lower bound. It returns when a bound one below the best cost is
// refuted on every part (Optimal), when ctx ends or the solver gives no
// answer (Stopped), or with the first error of the solver or of Model.
func (d Descent) Run(ctx context.Context, cost, floor int) (*DescentResult, error) {
	out := &DescentResult{Cost: cost, LowerBound: floor}
	type part struct {
		lit   sat.Lit
		lower int
		ref   *Refutation // the call that proved lower (Certify)
	}
	lemma := d.Solver.AddClause
	if l, ok := d.Solver.(sat.ProofLogger); ok {
		lemma = l.AddLemma
	}
	parts := []part{{lower: floor}}
	if len(d.Parts) > 0 {
		parts = parts[:0]
		for _, l := range d.Parts {
			parts = append(parts, part{lit: l, lower: floor})
		}
		for _, c := range Ordered(d.AtLeast, d.Cap) {
			d.Solver.AddClause(c...)
		}
	}
	lower := func() int {
		lb := out.Cost
		for _, pt := range parts {
			lb = min(lb, pt.lower)
		}
		return lb
	}
	for i := 0; i < len(parts); {
		pt := &parts[i]
		if pt.lower >= out.Cost {
			i++
			continue
		}
		k := out.Cost - 1
		if d.Bisect {
			k = pt.lower + (out.Cost-1-pt.lower)/2
		}
		var as []sat.Lit
		if o := d.AtLeast(k + 1); o != 0 {
			as = append(as, o.Not())
		}
		step := Step{Part: -1, Bound: k}
		if pt.lit != 0 {
			as = append(as, pt.lit)
			step.Part = i
		}
		st, err := d.Solver.Solve(ctx, as...)
		out.Calls++
		if err != nil {
			return nil, fmt.Errorf("solver: %w", err)
		}
		step.Status = st
		switch st {
		case sat.Unknown:
			out.Stopped = true
			out.Steps = append(out.Steps, step)
			out.LowerBound = max(out.LowerBound, lower())
			return out, nil
		case sat.Unsatisfiable:
			pt.lower = k + 1
			if d.Certify {
				pt.ref = refutation(d.Solver, k, as)
			}
			if o := d.AtLeast(k + 1); pt.lit != 0 && o != 0 {
				lemma(pt.lit.Not(), o)
			}
		case sat.Satisfiable:
			got, err := d.Model(k)
			if err != nil {
				return nil, err
			}
			if got > k {
				return nil, fmt.Errorf("the model costs %d, above the bound %d", got, k)
			}
			step.Cost = got
			out.Cost = got
		}
		out.Steps = append(out.Steps, step)
	}
	out.LowerBound = out.Cost
	out.Optimal = true
	switch {
	case !d.Certify || floor >= out.Cost:
	case len(d.Parts) == 0:
		out.Refutation = parts[0].ref
	default:
		// Every part refuted: the bound on the whole space follows from
		// their lemmas (and the clause that some part holds).
		k := out.Cost - 1
		var as []sat.Lit
		if o := d.AtLeast(k + 1); o != 0 {
			as = append(as, o.Not())
		}
		st, err := d.Solver.Solve(ctx, as...)
		out.Calls++
		if err != nil {
			return nil, fmt.Errorf("solver: %w", err)
		}
		out.Steps = append(out.Steps, Step{Part: -1, Bound: k, Status: st})
		switch st {
		case sat.Satisfiable:
			return nil, fmt.Errorf("bound %d refuted on every part but not on the whole space", k)
		case sat.Unsatisfiable:
			out.Refutation = refutation(d.Solver, k, as)
		default:
			// Stopped before the refutation that certifies the bound:
			// only the floor is claimed.
			out.Optimal, out.Stopped, out.LowerBound = false, true, floor
		}
	}
	return out, nil
}

// Ordered are the clauses that put a counter's outputs in order
// (reaching k+1 implies reaching k), which a descent by parts adds: a
// part's clause at bound k then holds at every lower one.
func Ordered(atLeast func(int) sat.Lit, cap int) [][]sat.Lit {
	var out [][]sat.Lit
	for k := 1; k < cap; k++ {
		if a, b := atLeast(k), atLeast(k+1); a != 0 && b != 0 && a != b {
			out = append(out, []sat.Lit{b.Not(), a})
		}
	}
	return out
}

// Certify ends the proof of the descent's solver when c is not nil:
// with the formula, proof and refutation of its optimum written to c
// under name when a refutation proves it, with nothing when the floor
// does (floor ≥ the optimum) or the descent did not end optimal.
// encoding is what the formula is built from beside the problem.
func (r *DescentResult) Certify(ctx context.Context, c *sat.Certifier, solver sat.Solver, name string, floor int, encoding []byte) error {
	if c == nil {
		return nil
	}
	if !r.Optimal || r.Refutation == nil {
		c.Drop(solver)
		if r.Optimal && r.LowerBound > floor {
			return fmt.Errorf("certify: the lower bound %d has no refutation in the proof", r.LowerBound)
		}
		return nil
	}
	f := r.Refutation
	return c.Finish(ctx, solver, name, encoding, sat.Refuted{LogID: f.LogID, Assumptions: f.Assumptions, Bound: f.Bound + 1})
}

// refutation is the last call's refutation of bound k under as, when
// the solver logs a proof (nil otherwise).
func refutation(s sat.Solver, k int, as []sat.Lit) *Refutation {
	r, ok := s.(sat.ProofLogger)
	if !ok {
		return nil
	}
	id, _, ok := r.Refutation()
	if !ok {
		return nil
	}
	return &Refutation{Bound: k, Assumptions: slices.Clone(as), LogID: id}
}

// CounterBound is the assumptions that state "the count stays below k"
// (bound k of a certificate's refutation) on a counter with outputs
// atLeast up to cap: ok is false for a k outside 1..cap.
func CounterBound(atLeast func(int) sat.Lit, cap int) func(k int) (as []sat.Lit, ok bool) {
	return func(k int) ([]sat.Lit, bool) {
		if k < 1 || k > cap {
			return nil, false
		}
		if o := atLeast(k); o != 0 {
			return []sat.Lit{o.Not()}, true
		}
		return []sat.Lit{}, true
	}
}

// LastRefuted is the refutation of the last call of s, made under the
// assumptions as, as a certificate records it for bound: s must log a
// proof (sat.ProofLogger) and its last call must have been refuted,
// else the error wraps sat.ErrNotCertifiable.
func LastRefuted(s sat.Solver, as []sat.Lit, bound int) (sat.Refuted, error) {
	pl, ok := s.(sat.ProofLogger)
	if !ok {
		return sat.Refuted{}, sat.ErrNotCertifiable
	}
	id, _, ok := pl.Refutation()
	if !ok {
		return sat.Refuted{}, fmt.Errorf("%w: the solver's last call has no refutation in its proof", sat.ErrNotCertifiable)
	}
	return sat.Refuted{LogID: id, Assumptions: as, Bound: bound}, nil
}

// DescentProof names the files of a descent's proof in a certificate:
// one proof per solve, whose formula holds the counter cut at a cap.
const DescentProof = "formula"

// capEncoding is what the formula of a descent's proof is built from
// beside the problem: the cap of its counter (the incumbent's cost when
// the descent began).
type capEncoding struct {
	Cap int `json:"cap"`
}

// CapEncoding is the encoding (lrat.Proof.Encoding) of a descent's
// proof whose counter is cut at cap.
func CapEncoding(cap int) []byte {
	b, _ := json.Marshal(capEncoding{Cap: cap})
	return b
}

// ReadCap is the cap of the counter that proof pr, a descent's proof of
// a certificate of the named backend, records (CapEncoding): at least 1.
func ReadCap(pr lrat.Proof, backend string) (int, error) {
	if pr.Name != DescentProof {
		return 0, fmt.Errorf("%s writes no proof named %q", backend, pr.Name)
	}
	var enc capEncoding
	if err := json.Unmarshal(pr.Encoding, &enc); err != nil {
		return 0, fmt.Errorf("encoding: %w", err)
	}
	if enc.Cap < 1 {
		return 0, fmt.Errorf("counter cap %d is below 1", enc.Cap)
	}
	return enc.Cap, nil
}

// DescentRefuted is the largest bound the proofs of a certificate of the
// named backend refute (ok false: none), every proof a descent's.
func DescentRefuted(proofs []lrat.Proof, backend string) (k int, ok bool, err error) {
	refuted := Refuted(proofs)
	for name := range refuted {
		if name != DescentProof {
			return 0, false, fmt.Errorf("%s writes no proof named %q", backend, name)
		}
	}
	k, ok = refuted[DescentProof]
	return k, ok, nil
}
