package model

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// Objective is what a solve optimises.
type Objective string

const (
	// MinError: fewest misclassified rows (weighted when the data has
	// weights) for a tree of at most MaxDepth levels.
	MinError Objective = "error"
	// MinDepth: smallest depth of a tree with no training error.
	MinDepth Objective = "min-depth"
	// MinSize: fewest nodes among trees of minimum depth with no training error.
	MinSize Objective = "min-size"
	// MinNodes: fewest nodes (internal nodes plus leaves) of a tree with
	// no training error, at any depth (within MaxDepth when it is
	// capped). Unlike MinSize it does not fix the least depth first: its
	// optimum may be deeper and is never larger.
	MinNodes Objective = "min-nodes"
	// DiagramError: a decision diagram on a skeleton of layer widths,
	// minimising objective 18 of the ODD paper: the misclassification
	// rate plus Alpha × (active internal nodes − 1)/(skeleton nodes − 1).
	DiagramError Objective = "diagram"
)

// Problem states what to learn. Backends refuse the limits that do not
// apply to their objective (see backend.Check).
//
// MaxDepth is the maximum depth for every objective: a cap ≥ 0 (0: a
// single leaf), or NoDepthLimit (−1) for none, which the error objective
// does not accept. Read it through DepthLimit. The zero Problem (no
// objective, depth 0) is refused by CheckStated rather than solved as a
// single leaf: state the objective, or a depth for the default error
// objective. A depth larger than can matter is searched at the smaller
// UsefulDepth, which cannot change the optimum.
type Problem struct {
	Objective Objective `json:"objective"`
	// MaxDepth bounds the number of tests on a root-to-leaf path
	// (NoDepthLimit: no bound, for min-depth, min-size and min-nodes).
	MaxDepth int `json:"max_depth"`
	// MinSupport is the least number of rows in a leaf (1 = no constraint).
	MinSupport int `json:"min_support"`
	// MaxNodes optionally bounds the number of internal (test) nodes of
	// the model (0 = no bound), for every backend: a tree with k tests has
	// k internal nodes and k+1 leaves (2k+1 nodes in all). Backends whose
	// formulation counts something else translate to this meaning.
	MaxNodes int `json:"max_nodes,omitempty"`
	// LeafCost (λ ≥ 0) makes the error objective sparse: a model scores
	// (weighted errors)/(total weight) + λ × leaves (see Evaluate). Zero
	// leaves the plain error objective; other objectives refuse it.
	LeafCost float64 `json:"leaf_cost,omitempty"`
	// Skeleton holds the layer widths of a diagram (first layer = 1).
	Skeleton []int `json:"skeleton,omitempty"`
	// Alpha weighs the number of active nodes in the diagram objective.
	Alpha float64 `json:"alpha,omitempty"`
}

// Consistent reports whether the objective asks for a tree with no
// training error: min-depth, min-size or min-nodes.
func (o Objective) Consistent() bool {
	return o == MinDepth || o == MinSize || o == MinNodes
}

// Normalized returns p with defaults filled in: MinError objective,
// MinSupport at least 1.
func (p Problem) Normalized() Problem {
	if p.Objective == "" {
		p.Objective = MinError
	}
	if p.MinSupport < 1 {
		p.MinSupport = 1
	}
	return p
}

// CheckStated refuses a problem that states neither an objective nor a
// depth: the zero Problem would otherwise be solved as a single leaf
// (MaxDepth 0) of the default error objective. Callers that fill in a
// default objective (backend.NewJob, the registry) call it first.
func (p Problem) CheckStated() error {
	if p.Objective == "" && p.MaxDepth == 0 {
		return fmt.Errorf("the problem states no objective and max depth 0: set MaxDepth (the error objective's maximum depth; 0 alone would be a single leaf) or the Objective (with MaxDepth model.NoDepthLimit for no depth cap)")
	}
	return nil
}

// Validate checks the problem's limits.
func (p Problem) Validate() error {
	if p.MaxDepth < NoDepthLimit {
		return fmt.Errorf("max depth %d is negative (%d: no depth limit)", p.MaxDepth, NoDepthLimit)
	}
	switch p.Objective {
	case MinError, "":
		if _, ok := p.DepthLimit(); !ok {
			return fmt.Errorf("the error objective needs a maximum depth (no depth limit was given)")
		}
	case MinDepth, MinSize, MinNodes:
	case DiagramError:
		if len(p.Skeleton) == 0 {
			return fmt.Errorf("the diagram objective needs a skeleton of layer widths")
		}
		for i, w := range p.Skeleton {
			if w < 1 {
				return fmt.Errorf("skeleton layer %d has width %d", i, w)
			}
		}
		if p.Skeleton[0] != 1 {
			return fmt.Errorf("the first skeleton layer is the root and must have width 1, not %d", p.Skeleton[0])
		}
		if p.Alpha < 0 || math.IsNaN(p.Alpha) {
			return fmt.Errorf("alpha %v must be non-negative", p.Alpha)
		}
	default:
		return fmt.Errorf("unknown objective %q", p.Objective)
	}
	if p.Objective != DiagramError {
		if p.Alpha != 0 {
			return fmt.Errorf("alpha %v weighs the diagram objective only (objective %s)", p.Alpha, p.Objective)
		}
		if len(p.Skeleton) > 0 {
			return fmt.Errorf("a skeleton shapes the diagram objective only (objective %s)", p.Objective)
		}
	}
	if p.MinSupport < 0 {
		return fmt.Errorf("min support %d is negative", p.MinSupport)
	}
	if p.MaxNodes < 0 {
		return fmt.Errorf("max nodes %d is negative", p.MaxNodes)
	}
	if p.LeafCost < 0 || math.IsNaN(p.LeafCost) || math.IsInf(p.LeafCost, 0) {
		return fmt.Errorf("leaf cost %v must be a finite non-negative number", p.LeafCost)
	}
	if p.LeafCost > 0 && p.Objective != MinError && p.Objective != "" {
		return fmt.Errorf("a leaf cost (%v) weighs the error objective only (objective %s)", p.LeafCost, p.Objective)
	}
	return nil
}

// Status is how a solve ended. It is not an error: a time-limited solve
// returns its best model with a status saying so.
type Status string

const (
	StatusOptimal    Status = "optimal"      // proven optimal
	StatusTimeLimit  Status = "time-limit"   // stopped by the time limit, best model returned
	StatusCancelled  Status = "cancelled"    // stopped by the caller, best model returned
	StatusMemory     Status = "memory-limit" // stopped by a memory limit
	StatusFeasible   Status = "feasible"     // a model without proof (heuristic backends)
	StatusInfeasible Status = "infeasible"   // proven: no model satisfies the problem
	StatusNoSolution Status = "no-solution"  // stopped before any model was found
	// StatusGap: the search stopped once its model was proven within the
	// gap the user allowed (the DP backends' gap and abs-gap options):
	// objective − lower_bound is within it, the lower bound is proven.
	StatusGap Status = "gap"
)

// Incumbent is one improving model found during a solve. LowerBound is
// the best lower bound the backend had proven when it found the model
// (0 when it reports none: see Trace.Bound).
type Incumbent struct {
	Seconds    float64 `json:"seconds"`
	Objective  float64 `json:"objective"`
	LowerBound float64 `json:"lower_bound,omitempty"`
	Model      *Graph  `json:"-"`
}

// BoundPoint is a rise of the proven lower bound during a solve.
type BoundPoint struct {
	Seconds    float64 `json:"seconds"`
	LowerBound float64 `json:"lower_bound"`
}

// BoundFunc receives each rise of the lower bound a backend proves while
// it searches (an anytime bound). A nil BoundFunc ignores them; call
// Report rather than the func itself.
type BoundFunc func(lowerBound float64)

// Report forwards a bound when f is not nil.
func (f BoundFunc) Report(lowerBound float64) {
	if f != nil {
		f(lowerBound)
	}
}

// IncumbentFunc receives each improving model a backend finds. A nil
// IncumbentFunc ignores them; call Report rather than the func itself.
type IncumbentFunc func(objective float64, g *Graph)

// Report forwards an incumbent when f is not nil.
func (f IncumbentFunc) Report(objective float64, g *Graph) {
	if f != nil {
		f(objective, g)
	}
}

// Result is the outcome of a solve. docs/formats.md shows its JSON form.
//
// Errors and Objective describe the model: a result without one (no
// model found, infeasible) leaves them out of its JSON form.
type Result struct {
	Backend string  `json:"backend"`
	Problem Problem `json:"problem"`
	// Depth, when not nil, says that the solve searched a smaller maximum
	// depth than Problem.MaxDepth, one that cannot change the optimum
	// (Problem.UsefulDepth).
	Depth  *DepthReduction `json:"depth_reduced,omitempty"`
	Rows   int             `json:"rows"`
	Errors int             `json:"errors"`
	// DroppedRows counts rows a backend left out of a consistent-tree
	// objective because identical rows carry different labels (the SAT
	// backends' drop-conflicts): the verifier then accepts exactly that
	// many errors, and only when they equal the data's ConflictFloor.
	DroppedRows int     `json:"dropped_rows,omitempty"`
	Objective   float64 `json:"objective"`
	LowerBound  float64 `json:"lower_bound"`
	// Gap is the relative gap between objective and lower bound, as
	// filled by the selector from Gap(); 0 when optimal.
	RelGap     float64     `json:"gap"`
	Optimal    bool        `json:"optimal"`
	Status     Status      `json:"status"`
	Seconds    float64     `json:"seconds"`
	Incumbents []Incumbent `json:"incumbents"`
	// Bounds lists the rises of the lower bound during the search, for
	// the backends that report them (the DP family); empty otherwise.
	Bounds []BoundPoint   `json:"bounds,omitempty"`
	Stats  map[string]any `json:"stats,omitempty"`
	Model  *Graph         `json:"model"`
	// ClaimedBound is a lower bound an external solver claimed (an
	// optimum, a refutation, infeasibility) that odtkit could not check,
	// and ClaimedBy names that solver or answer file: it never makes a
	// result optimal unless TrustedSolver is set (see Claim).
	ClaimedBound *float64 `json:"claimed_bound,omitempty"`
	ClaimedBy    string   `json:"claimed_by,omitempty"`
	// TrustedSolver records that the user chose to take the external
	// solver's claims as proofs (the backend option trust-solver=true).
	TrustedSolver bool `json:"trusted_solver,omitempty"`
	// Train, Validation and Test evaluate the model on its training rows,
	// on validation rows and on test rows when a learning protocol (a
	// held-out test set, a split, class weights) asked for them; nil
	// otherwise. Validation is that of the chosen grid point's model
	// trained on the training rows only (see package learn).
	Train      *Evaluation `json:"train,omitempty"`
	Validation *Evaluation `json:"validation,omitempty"`
	Test       *Evaluation `json:"test,omitempty"`
	// Tuning lists the grid points tried on validation, in grid order.
	Tuning []Trial `json:"tuning,omitempty"`
	// Certified is set when the refutations the lower bound rests on
	// came with proofs that odtkit checked (odt solve --certify),
	// Certificate says where they are and what they prove.
	Certified   bool         `json:"certified"`
	Certificate *Certificate `json:"certificate,omitempty"`
	// Unchecked is set when the bound was to be certified and its proofs
	// were not checked (the check was stopped): the bound then proves no
	// optimality, nor Infeasible an infeasibility.
	Unchecked bool `json:"-"`
	// Proved is set when the backend's search proved its model optimal
	// (or, with ClaimedBy set, when the external solver behind it claims
	// so: then it proves nothing unless trusted).
	Proved bool `json:"-"`
	// Infeasible is set when the search proved that no model satisfies
	// the problem — or, with ClaimedBy set, when an external solver
	// claims so (it then proves nothing unless trusted).
	Infeasible bool `json:"-"`
	// Stop is why the search ended (see StopReason). With Model,
	// LowerBound, Proved, Infeasible, Unchecked and the claim, it is what a
	// backend reports; the status rule (backend.Settle) names Status and
	// Optimal from them.
	Stop StopReason `json:"-"`
}

// Certificate describes the checked proofs of a result's lower bound:
// their directory (odt certify re-checks it), what each refutation
// proves, their size and the time the check took.
type Certificate struct {
	Dir string `json:"dir"`
	// Claim is the claim in words; Objective and Bound the claim as
	// data (every model of the problem has an objective of at least
	// Bound), Infeasible set when it is that no model exists;
	// DataSHA256 names the data file by its SHA-256.
	Claim        string   `json:"claim"`
	Objective    string   `json:"objective"`
	Bound        float64  `json:"bound"`
	Infeasible   bool     `json:"infeasible,omitempty"`
	DataSHA256   string   `json:"data_sha256"`
	Bounds       []string `json:"bounds"`
	ProofBytes   int64    `json:"proof_bytes"`
	ProofSteps   int64    `json:"proof_steps"`
	CheckSeconds float64  `json:"check_seconds"`
}

// SetCertificate marks r certified by c and puts c's size and check
// time in r's Stats (proof_bytes, proof_steps, proof_check_seconds).
func (r *Result) SetCertificate(c *Certificate) {
	r.Certified, r.Certificate = true, c
	if r.Stats == nil {
		r.Stats = map[string]any{}
	}
	r.Stats["proof_bytes"] = c.ProofBytes
	r.Stats["proof_steps"] = c.ProofSteps
	r.Stats["proof_check_seconds"] = c.CheckSeconds
}

// Trial is one grid point tried while tuning: its problem, how its solve
// ended and its validation score (accuracy or balanced accuracy; the mean
// over inner folds when tuned by cross-validation; -1 when no model).
type Trial struct {
	Problem Problem `json:"problem"`
	Status  Status  `json:"status"`
	Score   float64 `json:"score"`
	Chosen  bool    `json:"chosen,omitempty"`
}

// Gap is the relative gap between objective and lower bound (0 when
// optimal, 1 when no model was found).
func (r *Result) Gap() float64 {
	if r.Model == nil {
		return 1
	}
	if r.Optimal || r.Objective <= r.LowerBound {
		return 0
	}
	return (r.Objective - r.LowerBound) / math.Max(math.Abs(r.Objective), 1e-12)
}

// Trace records improving incumbents with their elapsed time since a start
// instant. It is the one place that stamps times, so traces of all
// backends are comparable. Offer may be called from several goroutines.
type Trace struct {
	mu     sync.Mutex
	start  time.Time
	list   []Incumbent
	then   func(Incumbent)
	bounds []BoundPoint
}

// NewTrace starts a trace at start; then (may be nil) is called with every
// improving incumbent.
func NewTrace(start time.Time, then func(Incumbent)) *Trace {
	return &Trace{start: start, then: then}
}

// Offer records the incumbent when it improves on the last one (lower
// objective) and reports whether it did.
func (t *Trace) Offer(objective float64, g *Graph) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := len(t.list); n > 0 && objective >= t.list[n-1].Objective {
		return false
	}
	inc := Incumbent{Seconds: time.Since(t.start).Seconds(), Objective: objective, Model: g}
	if k := len(t.bounds); k > 0 {
		inc.LowerBound = min(t.bounds[k-1].LowerBound, objective)
	}
	t.list = append(t.list, inc)
	if t.then != nil {
		t.then(inc)
	}
	return true
}

// Func returns t.Offer as an IncumbentFunc.
func (t *Trace) Func() IncumbentFunc {
	return func(objective float64, g *Graph) { t.Offer(objective, g) }
}

// Bound records a lower bound when it rises above the last one and
// reports whether it did. Incumbents offered later carry it. It may be
// called from several goroutines.
func (t *Trace) Bound(lowerBound float64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if k := len(t.bounds); k > 0 && lowerBound <= t.bounds[k-1].LowerBound {
		return false
	}
	if math.IsNaN(lowerBound) || math.IsInf(lowerBound, 0) {
		return false
	}
	t.bounds = append(t.bounds, BoundPoint{Seconds: time.Since(t.start).Seconds(), LowerBound: lowerBound})
	return true
}

// BoundFunc returns t.Bound as a BoundFunc.
func (t *Trace) BoundFunc() BoundFunc {
	return func(lb float64) { t.Bound(lb) }
}

// Bounds returns the recorded rises of the lower bound in order.
func (t *Trace) Bounds() []BoundPoint {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.bounds
}

// Incumbents returns the recorded incumbents in order.
func (t *Trace) Incumbents() []Incumbent {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.list
}

// PrimalGap is the primal gap of an objective value against a reference
// (optimal or best known) objective: 0 when they are equal,
// |obj−ref| / max(|obj|, |ref|) otherwise, capped at 1.
func PrimalGap(obj, ref float64) float64 {
	if obj == ref {
		return 0
	}
	g := math.Abs(obj-ref) / math.Max(math.Abs(obj), math.Abs(ref))
	return math.Min(g, 1)
}

// PrimalIntegral integrates the primal gap of a trace of incumbents over
// [0, horizon] seconds (Berthold 2013, as used by the CA-DL8.5 paper): the
// gap is 1 before the first incumbent, then the gap of the latest
// incumbent, and the integral runs to the horizon (the time limit), not to
// the last incumbent. Incumbents after the horizon are ignored.
func PrimalIntegral(trace []Incumbent, ref, horizon float64) float64 {
	total, t, gap := 0.0, 0.0, 1.0
	for _, inc := range trace {
		s := math.Max(inc.Seconds, t)
		if s >= horizon {
			break
		}
		total += gap * (s - t)
		t, gap = s, PrimalGap(inc.Objective, ref)
	}
	if horizon > t {
		total += gap * (horizon - t)
	}
	return total
}
