package dl85

import (
	"context"
	"strconv"
	"testing"
	"time"
)

var cadl85Rules = []string{"purity", "gain", "discrepancy", "topk", "topk*"}
var cadl85Relaxes = []string{"monotonic", "exponential", "luby"}

// TestCADL85Reference runs every rule × relaxation of CA-DL8.5 to
// completion on the cp4im files at depths 1-3, with the rules governing
// every level (no depth-2 step) at depths up to 2 and on the smaller
// files at depth 3; ODTKIT_LONG=1 adds every file at depth 3, with and
// without the depth-2 step.
func TestCADL85Reference(t *testing.T) {
	for _, c := range dl85RefCells(t) {
		if c.Depth > 3 {
			continue
		}
		v := dl85Load(t, c.Dataset)
		small := v.N*v.NumTests() <= 150000
		for _, rule := range cadl85Rules {
			for _, relax := range cadl85Relaxes {
				for _, noD2 := range []bool{true, false} {
					long := c.Depth == 3 && (!small || !noD2)
					if long && !dl85Long() {
						continue
					}
					name := c.Dataset + "/d" + strconv.Itoa(c.Depth) + "/" + rule + "/" + relax
					if !noD2 {
						name += "/depth2"
					}
					t.Run(name, func(t *testing.T) {
						r, err := SolveNamed(context.Background(), v, Spec{Rule: rule, Relax: relax}, Config{MaxDepth: c.Depth, NoDepth2: noD2})
						if err != nil {
							t.Fatal(err)
						}
						dl85Check(t, v, c.Depth, 1, r, float64(c.Optimum))
					})
				}
			}
		}
	}
	_ = time.Second
}
