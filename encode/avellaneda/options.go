package avellaneda

import (
	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/satjob"
)

// encodingParams shape the formula: solving, exporting and decoding
// read them alike.
func encodingParams() []backend.Param {
	return []backend.Param{
		backend.BoolParam("drop-conflicts", false, "drop rows whose tests equal another row's with a different label (keeping each group's majority label) instead of failing"),
		backend.EnumParam("amo", "none", []string{"none", "sequential", "pairwise"}, "at-most-one feature per node: none (implied by the example clauses), sequential or pairwise"),
		backend.EnumParam("counter", "totalizer", []string{"totalizer", "sequential"}, "node limit's count of labelled leaves: totalizer (along the tree) or sequential (the paper's clauses 8-10)"),
		backend.EnumParam("clauses", "order", []string{"order", "paper"}, "example clauses (3)-(4): order (one clause per numeric column and node through order variables) or paper (one per threshold)"),
		backend.BoolParam("class-cuts", true, "a subtree that examples of j classes reach has at least j labelled leaves (node limit, totalizer counter) and, with more than four classes, at most 2^height classes reach a node"),
		backend.BoolParam("symmetry", false, "node limit: restrict to the canonical perfect trees of Theorem 2 (dummy nodes repeat the root's test); off by default: not faster on the inferdt rows"),
	}
}

func params(size bool) []backend.Param {
	ps := []backend.Param{
		satjob.SolverParam("once per solver call"),
		backend.IntParam("batch", defaultBatch(size), "misclassified examples added to the formula per iteration of the incremental loop").AtLeast(1),
		backend.EnumParam("pick", "nearest", []string{"nearest", "first"}, "which misclassified examples the incremental loop adds: nearest (Hamming distance) to an example of another class in the formula, or the first in row order"),
		backend.BoolParam("seed", false, "start each depth from the examples the previous depth needed instead of none (pays with pick=first, costs with nearest)"),
	}
	ps = append(ps, satjob.CertifyParams("")...)
	ps = append(ps, backend.TrustSolverParam(), satjob.ProofParam())
	if size {
		ps = append(ps, backend.EnumParam("size-search", "descend", []string{"descend", "bisect"}, "descend (bound = best tree's leaves − 1 until refuted) or bisect (the paper's bisection on the number of leaves)"))
	}
	return append(ps, encodingParams()...)
}

// Options are a sat-depth or sat-size job's options, read once
// (JobOptions). The first shape the formula (export and decode must use
// the same; the encoder reads them alone), the others the search
// (Settings).
type Options struct {
	AMO     AMO
	Counter Counter
	// PaperClauses writes formulas (3)-(4) as the paper does, one clause
	// per feature, node and example. By default the thresholds of a
	// numeric column (ordered: an example is above a prefix of them) share
	// order variables per node, GE[q][t] "node q+1 tests a threshold of
	// t's column of rank >= t's rank" and LE[q][t] "... <= ...", so that
	// an example needs two clauses per column and node instead of one per
	// threshold (the formula is equivalent on F, C and X).
	PaperClauses bool
	// Symmetry adds the node limit's symmetry breaking (breakSymmetry). Off
	// by default: sound and tested, but it did not make DT_size faster on
	// the inferdt files (figures in docs/benchmarks.md, "Figures behind
	// constants and defaults").
	Symmetry bool
	// NoClassCuts leaves out the class-count cuts, implied clauses that are
	// on by default. Under the totalizer node limit (classCuts), a subtree
	// that examples of j classes reach has at least j labelled leaves,
	// which shortened DT_size on every inferdt file tried. With more than
	// four classes, at every depth (depthCuts), a node of height h is
	// reached by at most 2^h classes, which shortened DT_depth and DT_size
	// on zoo; with three classes the cut bites only just above the leaves
	// and made DT_size slower on iris and wine, hence more than four
	// (figures in docs/benchmarks.md, "Figures behind constants and
	// defaults").
	NoClassCuts bool

	// DropConflicts drops conflicting rows instead of failing
	// (drop-conflicts).
	DropConflicts bool
	// Batch is how many misclassified examples are added per iteration
	// (batch); FirstMisclassified picks the first in row order
	// (pick=first) instead of the nearest; Seed starts each depth from
	// the examples the previous one needed (seed).
	Batch              int
	FirstMisclassified bool
	Seed               bool
	// Bisect bisects on the number of leaves (size-search=bisect).
	Bisect bool
	// SAT are the SAT solver and the certificate.
	SAT satjob.Options
}

// JobOptions reads the job's options.
func JobOptions(job *backend.Job) (Options, error) {
	v := job.Options
	return Options{
		AMO:                AMO(v.String("amo")),         // an enum of AMO's values
		Counter:            Counter(v.String("counter")), // an enum of Counter's values
		PaperClauses:       v.String("clauses") == "paper",
		Symmetry:           v.Bool("symmetry"),
		NoClassCuts:        !v.Bool("class-cuts"),
		DropConflicts:      v.Bool("drop-conflicts"),
		Batch:              v.Int("batch"),
		FirstMisclassified: v.String("pick") == "first",
		Seed:               v.Bool("seed"),
		Bisect:             v.String("size-search") == "bisect",
		SAT:                satjob.JobOptions(job),
	}, nil
}
