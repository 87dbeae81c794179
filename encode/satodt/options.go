package satodt

import (
	"errors"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/maxsat"
	"github.com/odtkit/odtkit/encode/satjob"
)

// params are sat-odt's options.
func params() []backend.Param {
	ps := []backend.Param{
		satjob.SolverParam("once per bound"),
		backend.BoolParam("dead", false, "two classes: a node above two leaves of one class tests the first kept test (its test changes nothing; one choice instead of all)"),
		backend.BoolParam("repeats", false, "let a node repeat an ancestor's test (off: such trees are left out of the formula, they only add symmetric answers)"),
		backend.EnumParam("counter", string(CounterLeaves), []string{string(CounterLeaves), string(CounterRows)}, "how the solve counts the error: leaves (per leaf, from the weight outside each class of the rows reaching it, summed along the tree: every subtree's error is a number the solver bounds and learns about before the leaves' classes are chosen) or rows (one totalizer over the soft literals, as in the exported formula)"),
		backend.BoolParam("per-root", true, "descend and bisect: refute each bound one root test at a time (the solver then searches two independent subtrees; a refuted root test is kept as a clause) instead of on the whole tree at once"),
	}
	ps = append(ps, satjob.CertifyParams("search=descend or bisect")...)
	ps = append(ps,
		backend.EnumParam("search", "descend", []string{"descend", "bisect", "rows"}, "bounds tried: descend (one below the best tree's error until refuted), bisect (the middle of lower bound and best error) or rows (from the lower bound up, on the rows the trees found misclassify, added as they come)"))
	return append(ps, maxsat.Params()...)
}

// Options are a sat-odt job's options, read once (JobOptions). The
// first shape the formula (solve, export and decode alike; Encode reads
// them alone), the others the solve.
type Options struct {
	// Repeats allows a node to repeat an ancestor's test (by default
	// such trees are left out: they add nothing but symmetric answers).
	Repeats bool
	// Dead (two classes) makes a node above two leaves of one class test
	// kept test 0: its test is then irrelevant, and one choice instead
	// of every test spares the solver symmetric answers.
	Dead bool
	// sidesOnly leaves the soft literals out of the groups' clauses
	// (AddGroup adds the sides alone): a search counting the error per
	// leaf (Reach) does not read them.
	sidesOnly bool

	// Counter is how a solve counts the error (counter).
	Counter Counter
	// Search is the bounds a solve tries: "descend", "bisect" or "rows"
	// (search).
	Search string
	// PerRoot refutes each bound one root test at a time (per-root).
	PerRoot bool
	// SAT are the SAT solver and the certificate; MaxSAT the exported
	// file and the external MaxSAT solver that may solve it.
	SAT    satjob.Options
	MaxSAT maxsat.Options
}

// JobOptions reads the job's options.
func JobOptions(job *backend.Job) (Options, error) {
	v := job.Options
	o := Options{
		Repeats: v.Bool("repeats"),
		Dead:    v.Bool("dead"),
		Counter: Counter(v.String("counter")),
		Search:  v.String("search"),
		PerRoot: v.Bool("per-root"),
		SAT:     satjob.JobOptions(job),
	}
	var err error
	o.MaxSAT, err = maxsat.JobOptions(v)
	return o, err
}

// certifiable refuses a certificate (backend.ErrInvalid) with options
// whose solves write no proof: another SAT solver than odtkit's CDCL,
// an external MaxSAT solver, the search by rows.
func (o Options) certifiable() error {
	if err := o.SAT.Certifiable(o.MaxSAT.Argv); err != nil {
		return err
	}
	if o.Search == "rows" {
		return backend.Invalid(errors.New("certify: search=rows writes no proof (use descend or bisect)"))
	}
	return nil
}
