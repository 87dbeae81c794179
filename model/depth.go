package model

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// NoDepthLimit, as Problem.MaxDepth, means that the depth is not capped:
// the default of the min-depth and min-size objectives. Any MaxDepth ≥ 0
// is a cap, 0 meaning a single leaf.
const NoDepthLimit = -1

// DepthLimit reports the problem's cap on the depth of the model: the
// cap and true when MaxDepth ≥ 0 (0: a single leaf), or 0 and false for
// NoDepthLimit. It is the one place that reads MaxDepth's
// representation; code that asks "is there a cap, and what is it" calls
// it.
func (p Problem) DepthLimit() (int, bool) {
	if p.MaxDepth < 0 {
		return 0, false
	}
	return p.MaxDepth, true
}

// DepthReduction says that a solve searched a smaller maximum depth than
// the one asked for, because no deeper tree can have a better objective
// (see Problem.UsefulDepth).
type DepthReduction struct {
	// Requested is the problem's MaxDepth; Used the depth searched.
	Requested int `json:"requested"`
	Used      int `json:"used"`
	// Reason states the bound that gave Used.
	Reason string `json:"reason"`
}

// UsefulDepth is a depth beyond which no tree can improve the optimum of
// the error objective on d (with or without a leaf cost, node limit or
// minimum support), with the reason, or (p.MaxDepth, "") when the
// problem's own limit is not larger. Each bound holds for every optimal
// tree, so that solving at the smaller depth gives the same optimum:
//
//   - no root-to-leaf path needs a test twice, nor a test that is
//     constant on its branch: depth ≤ the number of distinct Boolean
//     tests of the data (thresholds between consecutive distinct values of
//     a numeric column, one per level of a categorical one, as Binarize
//     builds them; a coarser view has fewer);
//   - every split leaves at least MinSupport rows on each side, so a path
//     of depth k holds at least (k+1)·MinSupport rows:
//     depth ≤ ⌊rows/MinSupport⌋ − 1;
//   - with a leaf cost λ a tree of L leaves costs at least λ·L, and the
//     optimum costs at most the single leaf's objective: L ≤ ⌊leaf
//     objective/λ⌋ and depth ≤ L − 1;
//   - a tree of at most MaxNodes internal nodes has depth ≤ MaxNodes.
//
// (Not log₂ of the rows: a deep path can pay off on a few rows.) Other
// objectives, and problems without a depth cap, are returned unchanged.
func (p Problem) UsefulDepth(d *Dataset) (int, string) {
	p = p.Normalized()
	limit, capped := p.DepthLimit()
	if p.Objective != MinError || !capped || d == nil || limit == 0 {
		return p.MaxDepth, ""
	}
	best, why := limit, ""
	lower := func(k int, reason string) {
		if k < best {
			best, why = max(k, 0), reason
		}
	}
	if n := d.Rows(); n/p.MinSupport-1 < best {
		if p.MinSupport > 1 {
			lower(n/p.MinSupport-1, fmt.Sprintf("every split leaves at least %d rows (min support) on each side of %d rows", p.MinSupport, n))
		} else {
			lower(n-1, fmt.Sprintf("every split leaves at least one of the %d rows on each side", n))
		}
	}
	if p.MaxNodes > 0 {
		lower(p.MaxNodes, fmt.Sprintf("a tree of at most %d internal nodes is at most that deep", p.MaxNodes))
	}
	if p.LeafCost > 0 {
		leaves := leafCostLeaves(d, p.LeafCost)
		lower(leaves-1, fmt.Sprintf("with leaf cost %g a tree better than one leaf has at most %d leaves", p.LeafCost, leaves))
	}
	if tests, ok := countTestsUpTo(d, best); ok && tests < best {
		lower(tests, fmt.Sprintf("no path needs a test twice and the data has %d distinct tests", tests))
	}
	return best, why
}

// leafCostLeaves is the most leaves a tree can have and still cost no
// more than the single leaf under leaf cost lambda: ⌊leaf objective/λ⌋,
// rounded up by a hair so that floating point never loses a tie.
func leafCostLeaves(d *Dataset, lambda float64) int {
	counts := d.ClassCounts()
	total, top := 0.0, 0.0
	for _, c := range counts {
		total += c
		top = max(top, c)
	}
	if total <= 0 {
		return 1
	}
	extra := (total - top) / total / lambda // the leaf's error in units of λ
	extra = extra*(1+1e-12) + 1e-9
	if extra >= float64(math.MaxInt32) {
		return math.MaxInt32
	}
	return 1 + int(math.Floor(extra))
}

// countTestsUpTo counts the Boolean tests of d's exact binary view (see
// Binarize), stopping with false as soon as the count exceeds limit: the
// count matters only when it is smaller than the depth, which is usually
// small, so the distinct values of a big column are rarely all counted.
func countTestsUpTo(d *Dataset, limit int) (int, bool) {
	total := 0
	for _, f := range d.Features {
		if f.Kind == Categorical {
			switch n := len(f.Levels); {
			case n == 2:
				total++
			case n > 2:
				total += n
			}
		} else {
			seen := make(map[float64]struct{})
			for _, v := range f.Values {
				if _, ok := seen[v]; ok {
					continue
				}
				seen[v] = struct{}{}
				if total+len(seen)-1 > limit {
					return 0, false
				}
			}
			total += max(len(seen)-1, 0)
		}
		if total > limit {
			return 0, false
		}
	}
	return total, true
}

// describeDepth renders a problem's depth limit for messages.
func describeDepth(p Problem) string {
	if k, ok := p.DepthLimit(); ok {
		return fmt.Sprintf("max depth %d", k)
	}
	return "no depth limit"
}

// DescribeDepth renders the depth limit of p for output: "max depth 3",
// "max depth 0 (a single leaf)" or "no depth limit"; a reduction (may
// be nil) adds the depth searched and why.
func DescribeDepth(p Problem, r *DepthReduction) string {
	s := describeDepth(p)
	if k, ok := p.DepthLimit(); ok && k == 0 {
		s += " (a single leaf)"
	}
	if r != nil && r.Used != r.Requested {
		s += fmt.Sprintf(" (searched to depth %d: %s)", r.Used, strings.TrimSpace(r.Reason))
	}
	return s
}

// MarshalJSON writes the result with its fields, except that a result
// without a model has no errors and no objective: no numbers describe a
// model that does not exist.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	if r.Model != nil {
		return json.Marshal(plain(r))
	}
	return json.Marshal(struct {
		plain
		Errors    *int     `json:"errors,omitempty"`
		Objective *float64 `json:"objective,omitempty"`
	}{plain: plain(r)})
}
