package main

import (
	"github.com/odtkit/odtkit"
	"github.com/odtkit/odtkit/milp"
)

// exportMPS writes the MILP of req's encoding (odd: a diagram on
// --skeleton; odt: a tree of --depth, or on a 1-2-4-… skeleton) to
// req.Out in free MPS format. It needs no solver.
func exportMPS(req exportRequest) error {
	if req.Encoding != "odd" && req.Encoding != "odt" {
		return usagef("--to mps exports the MILP encodings odd and odt, not %q", req.Encoding)
	}
	e, err := odtkit.MILPEncode(req.Data, req.Encoding, req.Problem, req.Options)
	if err != nil {
		return badInput(err)
	}
	return milp.WriteMPS(req.Out, e.Model)
}
