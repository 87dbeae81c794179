package odtkit

import (
	"context"
	"errors"

	"github.com/odtkit/odtkit/backend"
	"github.com/odtkit/odtkit/encode/avellaneda"
	"github.com/odtkit/odtkit/model"
)

// satBackend is sat-depth or sat-size (package encode/avellaneda).
type satBackend struct{ size bool }

func (b satBackend) backend() backend.Backend {
	if b.size {
		return avellaneda.SizeBackend{}
	}
	return avellaneda.DepthBackend{}
}

func (b satBackend) Info() Info { return adapted{b.backend()}.Info() }

func (b satBackend) Solve(ctx context.Context, job Job) (*model.Result, error) {
	return adapted{b.backend()}.Solve(ctx, job)
}

// adapted runs a backend of the new contract (package backend) behind
// the old root Backend interface until the registry moves to it (issue
// 13). It validates the options with the backend's typed parameters.
type adapted struct{ b backend.Backend }

func (a adapted) Info() Info {
	i := a.b.Info()
	out := Info{Name: i.Name, Description: i.Description, Objectives: i.Objectives, Input: i.Input, Exact: i.Exact, Anytime: i.Anytime}
	for _, p := range i.Params {
		out.Params = append(out.Params, Param{Name: p.Name, Default: p.ShownDefault(), Help: p.Help})
	}
	return out
}

func (a adapted) Solve(ctx context.Context, job Job) (*model.Result, error) {
	j, err := backend.NewJob(a.b.Info(), job.Data, job.Problem, job.Options)
	if err != nil {
		return nil, Invalid(err)
	}
	j.Seed, j.Threads, j.Report = job.Seed, job.Threads, job.Report
	res, err := a.b.Solve(ctx, j)
	if errors.Is(err, backend.ErrInvalid) {
		return nil, Invalid(err)
	}
	return res, err
}

// satConflictsOnly reports whether a consistent-tree model's errs errors
// are exactly the rows the backend dropped as conflicting and exactly the
// data's conflict floor.
func satConflictsOnly(d *model.Dataset, res *model.Result, errs int) bool {
	return res.DroppedRows == errs && d.ConflictFloor() == errs
}
