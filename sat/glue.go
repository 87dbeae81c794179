package sat

import "slices"

// The glue mode of CDCL (SetGlue) follows the "focused" search of modern
// solvers (Glucose, CaDiCaL) where the default follows MiniSat: a learnt
// clause's glue (literal block distance: the number of decision levels
// among its literals when learnt, lowered when a later analysis finds
// fewer) decides both when to restart and which learnt clauses to keep.
//
//   - Restarts: after at least glueRestartMin conflicts since the last one,
//     whenever the fast moving average of the learnt glues exceeds the slow
//     one by glueRestartMargin (the recent clauses are worse than usual:
//     the current assignment is a poor place to search from).
//   - Reductions: every glueReduceBase + k·glueReduceStep conflicts (k
//     reductions so far). Clauses of glue ≤ glueTier1 are kept for good;
//     a clause used in an analysis since the last reduction is kept (of
//     glue ≤ glueTier2, for two reductions); of the others, the
//     glueReduceShare with the highest glue (then the most literals) go.
//
// After a conflict, the variables of the reasons of the learnt clause's
// literals are bumped too (CaDiCaL's reason-side bumping), and the
// variable activities decay fast at first (glueDecay).
//
// The learnt clause's extra arena word, its activity in the default
// mode, holds its glue and its use count here (setGlueWord).
const (
	glueFastWindow    = 33
	glueSlowWindow    = 1e5
	glueRestartMin    = 2
	glueRestartMargin = 1.10
	glueReduceBase    = 2000
	glueReduceStep    = 300
	glueReduceShare   = 0.75
	glueTier1         = 2
	glueTier2         = 6
	glueUsedShift     = 28
	glueMask          = 1<<glueUsedShift - 1
	// The variable activities decay fast at first, more slowly later
	// (as Glucose): glueDecayStart, then glueDecayStep more every
	// glueDecayEvery conflicts, up to varDecay.
	glueDecayStart = 0.80
	glueDecayStep  = 0.01
	glueDecayEvery = 5000
)

// SetGlue switches the search between the default (false: Luby restarts,
// activity-based deletion, as MiniSat) and the glue mode (true: restarts
// and deletion by glue, as Glucose and CaDiCaL's focused mode). Call it
// before the first clause; Reset keeps it.
func (s *CDCL) SetGlue(on bool) { s.glueMode = on }

// glueOf is the number of distinct decision levels among ls (all assigned).
func (s *CDCL) glueOf(ls []int32) int32 {
	s.stamp++
	n := int32(0)
	for _, l := range ls {
		lv := int(s.level[l>>1])
		for lv >= len(s.levelStamp) {
			s.levelStamp = append(s.levelStamp, 0)
		}
		if s.levelStamp[lv] != s.stamp {
			s.levelStamp[lv] = s.stamp
			n++
		}
	}
	return n
}

func (s *CDCL) glue(c int32) int32 { return s.extra(c) & glueMask }

// setGlueWord sets learnt clause c's glue and use count (the reductions
// it survives unused).
func (s *CDCL) setGlueWord(c, glue, used int32) { s.setExtra(c, glue|used<<glueUsedShift) }

func (s *CDCL) glueUsed(c int32) int32 { return s.extra(c) >> glueUsedShift }

// averageGlue counts the glue g of the clause just learnt into the
// moving averages that drive the restarts.
func (s *CDCL) averageGlue(g int32) {
	s.glueConflicts++
	fast := max(1/float64(glueFastWindow), 1/float64(s.glueConflicts))
	slow := max(1/float64(glueSlowWindow), 1/float64(s.glueConflicts))
	s.emaFast += (float64(g) - s.emaFast) * fast
	s.emaSlow += (float64(g) - s.emaSlow) * slow
	s.sinceRestart++
}

// useGlue marks learnt clause c used by an analysis and lowers its glue
// when its literals now span fewer levels.
func (s *CDCL) useGlue(c int32) {
	g := s.glue(c)
	if g > glueTier1 {
		if ng := s.glueOf(s.lits(c)); ng < g {
			g = ng
		}
	}
	used := int32(1)
	if g <= glueTier2 {
		used = 2
	}
	s.setGlueWord(c, g, used)
}

// restartDue tells whether the glue mode restarts now.
func (s *CDCL) restartDue() bool {
	return s.sinceRestart >= glueRestartMin && s.emaFast > glueRestartMargin*s.emaSlow
}

// reduceDue tells whether the glue mode reduces the learnt clauses now:
// on schedule, or when their words pass the cap learntsDue also keeps.
func (s *CDCL) reduceDue() bool {
	if s.conflicts >= s.nextReduce {
		return true
	}
	problemWords := s.arenaWords - s.wasted - s.learntWords
	return s.learntWords > max(learntWordsFactor*problemWords, minLearntWords)
}

// reduceGlue removes the least useful learnt clauses (see the glue mode).
func (s *CDCL) reduceGlue() {
	s.reductions++
	s.nextReduce = s.conflicts + glueReduceBase + int64(s.reductions)*glueReduceStep
	size := func(c int32) int32 { return s.header(c) & hdrSize }
	cands := s.cands[:0]
	for _, c := range s.learnts {
		if size(c) <= 2 || s.locked(c) {
			continue
		}
		g := s.glue(c)
		if g <= glueTier1 {
			continue
		}
		if u := s.glueUsed(c); u > 0 {
			s.setGlueWord(c, g, u-1)
			continue
		}
		cands = append(cands, c)
	}
	slices.SortStableFunc(cands, func(a, b int32) int {
		ga, gb := s.glue(a), s.glue(b)
		if ga != gb {
			return int(gb - ga)
		}
		return int(size(b) - size(a))
	})
	cut := int(float64(len(cands)) * glueReduceShare)
	for _, c := range cands[:cut] {
		s.removeLearnt(c)
	}
	s.cands = cands[:0]
	s.dropGone()
}

// bumpReasons bumps the variables of the reasons of the learnt clause's
// literals that the analysis did not bump (CaDiCaL's reason-side
// bumping): they are close to the conflict without being in it.
func (s *CDCL) bumpReasons(learnt []int32) {
	for _, q := range learnt {
		r := s.reason[q>>1]
		if r == noReason {
			continue
		}
		for _, x := range s.lits(r) {
			if u := x >> 1; s.level[u] > 0 && s.bumpedAt[u] != s.analyzed {
				s.bumpedAt[u] = s.analyzed
				s.bumpVar(u)
			}
		}
	}
}

// glueDecay is the glue mode's variable decay now.
func (s *CDCL) glueDecay() float64 {
	return min(varDecay, glueDecayStart+glueDecayStep*float64(s.glueConflicts/glueDecayEvery))
}
