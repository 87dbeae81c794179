package main

import "errors"

// This file is a placeholder: the MILP backend replaces it with the real
// MPS export of its encodings.

// exportMPS writes the MILP of req's encoding to req.Out in MPS format.
func exportMPS(req exportRequest) error {
	return errors.New("MPS export is not available in this build")
}
