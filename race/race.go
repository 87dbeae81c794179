// Package race is a racing portfolio: a backend that runs several member
// backends at once on the same job and answers with the first proof.
//
// Each member that can take the problem as stated (backend.NewJob) runs in
// its own goroutine on a context derived from the job's, with its own
// default options, the job's seed and memory budget (shared: the cap
// counts every member) and one thread unless the `threads` option says
// otherwise. The race keeps one monotone incumbent for all of them: a
// member's incumbent is re-evaluated on the data and forwarded to the
// job's Report only when it is strictly better than every model reported
// so far, by any member. The first member to prove its answer optimal (or
// the problem infeasible) wins: the race cancels the others and waits for
// every one of them to return before it does, so no goroutine outlives
// Solve. A member that fails (an error, a panic, data it refuses) is
// recorded and the race goes on with the others; the race fails only when
// every member does.
//
// The result is the winner's model, or when nobody proved anything (the
// job's context ended first) the best model any member found. Its lower
// bound is the largest of the members' bounds — they all bound the same
// problem — and a best model that meets that bound is optimal even when
// no single member proved it. Stats["winner"] names the member that
// proved the answer and Stats["members"] lists each member's status,
// seconds, objective and bound.
//
// Determinism: the objective of a proved result does not depend on which
// member wins, but the tree does when the members' optimal trees differ
// (ties among optimal trees are broken by each member in its own way), and
// so may a stopped run's incumbent. Restrict `members` to one backend for
// a reproducible tree.
//
// The package imports only backend and model: the registry constructs a
// race with its members as values (see New).
package race

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/model"
)

// Backend runs its members at once and answers with the first proof.
// Build it with New; it is safe for concurrent use.
type Backend struct {
	info    backend.Info
	members []backend.Backend
	names   []string
}

// New returns a race named name over the given members, in the order
// they are listed (the order of Stats["members"] and of the `members`
// option's default). Its Info declares the union of what the members
// solve (objectives, problem fields, weights): each solve runs only the
// members that accept its problem, and a problem no selected member
// accepts is refused when Solve starts. New panics when name is empty,
// there is no member or two members share a name: the list is the
// program's, not the user's.
func New(name string, members ...backend.Backend) *Backend {
	if name == "" || len(members) == 0 {
		panic(fmt.Sprintf("race.New(%q): a race needs a name and at least one member", name))
	}
	b := &Backend{members: slices.Clone(members)}
	var inputs []string
	info := backend.Info{Name: name, Family: backend.FamilyPortfolio, Caps: backend.Caps{Memory: true}}
	for _, m := range members {
		mi := m.Info()
		if slices.Contains(b.names, mi.Name) {
			panic(fmt.Sprintf("race.New(%q): member %q listed twice", name, mi.Name))
		}
		b.names = append(b.names, mi.Name)
		for _, o := range mi.Objectives {
			if !slices.Contains(info.Objectives, o) {
				info.Objectives = append(info.Objectives, o)
			}
		}
		if !slices.Contains(inputs, mi.Input) {
			inputs = append(inputs, mi.Input)
		}
		info.Exact = info.Exact || mi.Exact
		info.Anytime = info.Anytime || mi.Anytime
		c := &info.Caps
		c.DepthCap = c.DepthCap || mi.Caps.DepthCap
		c.MaxNodes = c.MaxNodes || mi.Caps.MaxNodes
		c.MinSupport = c.MinSupport || mi.Caps.MinSupport
		c.LeafCost = c.LeafCost || mi.Caps.LeafCost
		c.Weights = max(c.Weights, mi.Caps.Weights)
		c.Memory = c.Memory && mi.Caps.Memory
	}
	info.Input = "each member's own (" + strings.Join(inputs, ", ") + ")"
	info.Description = "racing portfolio: runs " + strings.Join(b.names, ", ") +
		" at once on the same problem (those that accept it), shares their incumbents, stops at the first proof"
	info.Params = []backend.Param{
		backend.StringParam("members", "", "comma-separated members to race, among "+strings.Join(b.names, ", ")).
			Unset("all").Checked(b.checkMembers),
		backend.IntParam("threads", 1, "threads given to each member (0 = the member's default)").AtLeast(0),
	}
	b.info = info
	return b
}

// Info describes the race (see New).
func (b *Backend) Info() backend.Info { return b.info }

// Members returns the names of the race's members, in order.
func (b *Backend) Members() []string { return slices.Clone(b.names) }

// checkMembers validates the `members` option: known names, none twice.
func (b *Backend) checkMembers(text string) error {
	_, err := b.parseMembers(text)
	return err
}

// parseMembers returns the indices of the members named in text (all of
// them when text is blank), in the race's order.
func (b *Backend) parseMembers(text string) ([]int, error) {
	if strings.TrimSpace(text) == "" {
		idx := make([]int, len(b.members))
		for i := range idx {
			idx[i] = i
		}
		return idx, nil
	}
	var idx []int
	for _, f := range strings.Split(text, ",") {
		n := strings.TrimSpace(f)
		i := slices.Index(b.names, n)
		switch {
		case i < 0:
			return nil, fmt.Errorf("no member %q (the members are %s)", n, strings.Join(b.names, ", "))
		case slices.Contains(idx, i):
			return nil, fmt.Errorf("member %q named twice", n)
		}
		idx = append(idx, i)
	}
	slices.Sort(idx)
	return idx, nil
}

// entrant is one member running in a race.
type entrant struct {
	b    backend.Backend
	name string
	job  *backend.Job
	// Filled by the member's goroutine before it returns.
	res     *model.Result
	err     error
	seconds float64
	stopped bool // cancelled by the race after another member's proof
}

// shared is the race's monotone incumbent and its first proof.
type shared struct {
	mu     sync.Mutex
	d      *model.Dataset
	p      model.Problem
	report model.IncumbentFunc
	best   float64
	model  *model.Graph
	winner int // index of the first member to prove its answer, or -1
}

// offer re-evaluates a member's model and forwards it when it improves on
// every model offered so far. It returns an error when the model's
// objective is not the one claimed.
func (s *shared) offer(claimed float64, g *model.Graph) error {
	if g == nil {
		return nil
	}
	obj := s.p.Evaluate(s.d, g)
	if math.Abs(obj-claimed) > 1e-9*math.Max(1, math.Abs(obj)) {
		return fmt.Errorf("claimed objective %v, its model's is %v", claimed, obj)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if obj < s.best {
		s.best, s.model = obj, g
		s.report.Report(obj, g) // under the lock: reports stay in improving order
	}
	return nil
}

// Solve races the members that accept the job's problem (see the package
// documentation).
func (b *Backend) Solve(ctx context.Context, job *backend.Job) (res *model.Result, err error) {
	defer backend.Settled(ctx, job, &res, &err)
	es, err := b.entrants(job)
	if err != nil {
		return nil, err
	}
	s := &shared{d: job.Data, p: job.Problem, report: job.Report, best: math.Inf(1), winner: -1}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for i, e := range es {
		// An incumbent whose claim does not hold is not forwarded; the
		// member's final result is checked again when it returns.
		e.job.Report = func(obj float64, g *model.Graph) { _ = s.offer(obj, g) }
		wg.Go(func() {
			start := time.Now()
			e.res, e.err = run(rctx, e.b, e.job)
			e.seconds = time.Since(start).Seconds()
			backend.Settled(rctx, e.job, &e.res, &e.err) // its status and optimality, by the one rule
			if e.err == nil && e.res != nil {
				if err := s.offer(e.res.Objective, e.res.Model); err != nil {
					e.res, e.err = nil, err
				}
			}
			if e.err != nil || e.res == nil || !(e.res.Optimal && e.res.Model != nil || e.res.Status == model.StatusInfeasible) {
				e.stopped = context.Cause(rctx) == errDecided
				return
			}
			s.mu.Lock()
			first := s.winner < 0
			if first {
				s.winner = i
			}
			s.mu.Unlock()
			if first {
				cancel(errDecided)
			}
		})
	}
	wg.Wait()
	return b.result(ctx, s, es)
}

// errDecided is the cause with which the race stops the members once one
// of them has proved its answer.
var errDecided = errors.New("race decided by another member")

// entrants returns the selected members that accept the job's problem,
// each with its own job.
func (b *Backend) entrants(job *backend.Job) ([]*entrant, error) {
	o, err := JobOptions(job)
	if err != nil {
		return nil, err
	}
	idx, err := b.parseMembers(o.Members)
	if err != nil {
		return nil, backend.Invalidf("%s: option members: %w", b.info.Name, err)
	}
	var es []*entrant
	var refused []string
	for _, i := range idx {
		m := b.members[i]
		mi := m.Info()
		mj, err := backend.NewJob(mi, job.Data, job.Problem, nil)
		if err != nil {
			refused = append(refused, err.Error())
			continue
		}
		mj.Seed, mj.Threads, mj.Budget = job.Seed, o.Threads, job.Budget
		es = append(es, &entrant{b: m, name: mi.Name, job: mj})
	}
	if len(es) == 0 {
		return nil, backend.Invalidf("%s: no member takes this problem: %s", b.info.Name, strings.Join(refused, "; "))
	}
	return es, nil
}

// run solves one member's job, turning a panic into an error so that a
// member's bug stops that member only.
func run(ctx context.Context, b backend.Backend, job *backend.Job) (res *model.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("internal error: %v\n%s", p, debug.Stack())
		}
	}()
	res, err = b.Solve(ctx, job)
	if err == nil && res == nil {
		err = errors.New("returned neither a result nor an error")
	}
	return res, err
}

// MemberStat is one member's line in a race result's Stats["members"]
// (a []MemberStat): its status (its own, "error", or "stopped" when the
// race stopped it after another member's proof), its time, and the
// objective and bound it returned.
type MemberStat struct {
	Name       string   `json:"name"`
	Status     string   `json:"status"`
	Seconds    float64  `json:"seconds"`
	Objective  *float64 `json:"objective,omitempty"`
	LowerBound *float64 `json:"lower_bound,omitempty"`
	Error      string   `json:"error,omitempty"`
}

// result combines the members' answers into the race's.
func (b *Backend) result(ctx context.Context, s *shared, es []*entrant) (*model.Result, error) {
	var errs []error
	stats := make([]MemberStat, len(es))
	lb, memory := math.Inf(-1), false
	for i, e := range es {
		st := MemberStat{Name: e.name, Seconds: e.seconds}
		switch {
		case e.err != nil:
			st.Status, st.Error = "error", firstLine(e.err.Error())
			if errors.Is(e.err, model.ErrMemoryLimit) {
				st.Status, memory = string(model.StatusMemory), true
			}
			errs = append(errs, fmt.Errorf("%s: %w", e.name, e.err))
		default:
			r := e.res
			st.Status = string(r.Status)
			if r.Model != nil {
				st.Objective = &r.Objective
			}
			st.LowerBound = &r.LowerBound
			lb = max(lb, r.LowerBound)
			switch {
			case i == s.winner && r.Model != nil:
				st.Status = string(model.StatusOptimal)
			case i == s.winner:
				st.Status = string(model.StatusInfeasible)
			case e.stopped:
				st.Status = "stopped"
			case st.Status == "" && r.Optimal:
				st.Status = string(model.StatusOptimal)
			case st.Status == "":
				if st.Status = string(model.StoppedStatus(ctx)); st.Status == "" {
					st.Status = string(model.StatusFeasible)
				}
			}
			memory = memory || r.Status == model.StatusMemory
		}
		stats[i] = st
	}
	if len(errs) == len(es) {
		return nil, fmt.Errorf("%s: every member failed: %w", b.info.Name, errors.Join(errs...))
	}
	res := &model.Result{Stats: map[string]any{"members": stats, "winner": "none"}}
	proved := false
	if s.winner >= 0 {
		w := es[s.winner].res
		res.Stats["winner"] = es[s.winner].name
		if w.Model == nil { // proved infeasible
			res.Infeasible, res.LowerBound = true, w.LowerBound
			return res, nil
		}
		res.Model, res.Objective, proved = w.Model, w.Objective, true
	} else if s.model != nil {
		res.Model, res.Objective = s.model, s.best
	}
	if res.Model == nil {
		res.LowerBound = max(lb, 0)
		if memory && ctx.Err() == nil {
			res.Stop = model.StopMemory
		}
		return res, nil
	}
	res.Errors = res.Model.Errors(s.d)
	// Every member bounds the same problem: the largest bound holds, and a
	// best model that meets it is optimal whoever found it.
	res.LowerBound = min(max(lb, 0), res.Objective)
	switch {
	case proved:
		res.LowerBound, res.Proved = res.Objective, true
	case res.Objective <= lb:
		res.Proved = true // the best model meets the best bound
		res.Stats["winner"] = "bound"
	case memory && ctx.Err() == nil:
		res.Stop = model.StopMemory
	}
	return res, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
