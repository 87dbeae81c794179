package odtkit

import (
	"context"
	"slices"

	"github.com/odtkit/odtkit/dp/dl85"
	"github.com/odtkit/odtkit/model"
)

// cadl85Backend is CA-DL8.5: complete anytime DL8.5 with restarts under a
// relaxed pruning rule.
type cadl85Backend struct{}

func (cadl85Backend) Info() Info {
	return Info{
		Name:        "cadl85",
		Description: "CA-DL8.5: complete anytime DL8.5, restarts under a pruning rule relaxed each time (purity, gain, discrepancy, topk, topk*)",
		Objectives:  []model.Objective{model.MinError},
		Input:       "binary view",
		Exact:       true,
		Anytime:     true,
		Params: append(slices.Clone(dl85CommonParams),
			Param{Name: "rule", Default: "discrepancy", Help: "pruning rule: purity, gain, discrepancy, topk or topk*"},
			Param{Name: "relax", Default: "monotonic", Help: "relaxation schedule: monotonic (+step), exponential (×2, 0 becomes step) or luby (+step×luby(i))"},
			Param{Name: "start", Default: "rule's", Help: "initial threshold (purity 0.5, gain 0 bits, discrepancy 0, topk/topk* k=1)"},
			Param{Name: "step", Default: "rule's", Help: "relaxation step δ (purity 0.1, gain 0.05, discrepancy 1, topk/topk* 1)"},
			Param{Name: "max-restarts", Default: "0", Help: "stop after that many restarts (0 = until proven optimal)"},
		),
	}
}

func (cadl85Backend) Solve(ctx context.Context, job Job) (*model.Result, error) {
	s, err := dl85Settings(job)
	if err != nil {
		return nil, err
	}
	spec := dl85.Spec{Rule: job.Options.String("rule", "discrepancy"), Relax: job.Options.String("relax", "monotonic")}
	if _, ok := job.Options["start"]; ok {
		if spec.Start, err = job.Options.Float("start", 0); err != nil {
			return nil, err
		}
		spec.StartSet = true
	}
	if spec.Step, err = job.Options.Float("step", 0); err != nil {
		return nil, err
	}
	if s.MaxRestarts, err = job.Options.Int("max-restarts", 0); err != nil {
		return nil, err
	}
	v := model.Binarize(job.Data)
	r, err := dl85.SolveNamed(ctx, v, spec, s)
	return dl85Result(job, r, err)
}
