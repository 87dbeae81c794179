package dt1

import (
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
)

// encodingParams shape the formula: solving, exporting and decoding read
// them alike.
func encodingParams() []backend.Param {
	return []backend.Param{
		backend.BoolParam("drop-conflicts", false, "drop rows whose tests equal another row's with a different label (keeping each group's majority label) instead of failing"),
		backend.EnumParam("amo", "sequential", []string{"sequential", "pairwise"}, "at-most-one halves of the exactly-one constraints (left child, parent, feature): sequential counter or pairwise clauses"),
		backend.BoolParam("nonempty-leaves", false, "a strengthening, not the paper's: every leaf is reached by some example (variables x[j][e]); it keeps the fewest nodes and the search's lemma"),
		backend.BoolParam("impure-splits", false, "a strengthening, not the paper's: examples of two classes reach every internal node; it keeps the fewest nodes, but a refuted count then refutes that count alone (search=up only)"),
		backend.BoolParam("leaf-counting", true, "the paper's λ/τ constraints: count leaves and internal nodes among nodes 1..i and tie node i's children to them (breadth-first numbering)"),
	}
}

func params() []backend.Param {
	ps := []backend.Param{
		satjob.SolverParam("once per node count"),
		backend.EnumParam("search", "up", []string{"up", "bisect", "down"}, "node counts tried: up (2c-1, 2c+1, ... for c classes, until one is satisfiable), bisect (between the classes' bound and the greedy tree's count) or down (two below the best tree's count until one is refuted)"),
	}
	ps = append(ps, satjob.CertifyParams("search=up, no --max-nodes")...)
	ps = append(ps, backend.TrustSolverParam(), satjob.ProofParam())
	return append(ps, encodingParams()...)
}

// Options are a sat-dt1 job's options, read once (JobOptions). The
// first shape the formula (export and decode must use the same; Encode
// reads them alone), the others the search.
type Options struct {
	// AMO encodes the at-most-one halves ("" is AMOSequential).
	AMO AMO
	// NoCounting leaves out the paper's λ/τ constraints, which count the
	// leaves and internal nodes among nodes 1..i and tie node i's children
	// to those counts (the children of the m-th internal node are 2m and
	// 2m+1: the tree is numbered breadth first). They are implied by no
	// other clause: without them the formula admits every numbering of a
	// tree that the ranges LR and RR allow.
	NoCounting bool
	// NonEmptyLeaves adds a strengthening that is not the paper's: every
	// leaf is reached by some example (Encoding.nonEmptyLeaves).
	NonEmptyLeaves bool
	// ImpureSplits adds a strengthening that is not the paper's: examples
	// of two classes reach every internal node (Encoding.reach). A
	// refuted count then refutes that count alone.
	ImpureSplits bool

	// DropConflicts drops conflicting rows instead of failing
	// (drop-conflicts).
	DropConflicts bool
	// Bisect bisects on the node count (search=bisect).
	Bisect bool
	// Down descends from the greedy tree's count (search=down).
	Down bool
	// SAT are the SAT solver and the certificate.
	SAT satjob.Options
}

// JobOptions reads the job's options.
func JobOptions(job *backend.Job) (Options, error) {
	v := job.Options
	if v.Bool("impure-splits") && v.String("search") != "up" {
		return Options{}, backend.Invalidf("sat-dt1: impure-splits refutes one node count at a time: it needs search=up, not %s", v.String("search"))
	}
	return Options{
		AMO:            AMO(v.String("amo")),
		NoCounting:     !v.Bool("leaf-counting"),
		NonEmptyLeaves: v.Bool("nonempty-leaves"),
		ImpureSplits:   v.Bool("impure-splits"),
		DropConflicts:  v.Bool("drop-conflicts"),
		Bisect:         v.String("search") == "bisect",
		Down:           v.String("search") == "down",
		SAT:            satjob.JobOptions(job),
	}, nil
}
