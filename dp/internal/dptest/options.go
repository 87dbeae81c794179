package dptest

import (
	"math"

	"github.com/odtkit/odtkit/backend"
)

// allowedGap is the gap a search that stops early may leave at
// objective obj: the larger of the job's abs-gap option and its gap
// option (relative) times obj.
func allowedGap(job *backend.Job, obj float64) float64 {
	return math.Max(job.Options.Float("abs-gap"), job.Options.Float("gap")*obj)
}
