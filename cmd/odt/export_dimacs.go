package main

import (
	"errors"

	"github.com/odtkit/odtkit/model"
)

// This file is a placeholder: the SAT backend replaces it with the real
// DIMACS export and decoding of its encodings.

// exportDIMACS writes the CNF of req's encoding to req.Out.
func exportDIMACS(req exportRequest) error {
	return errors.New("DIMACS export is not available in this build")
}

// decodeDIMACS reads a SAT solver's output for req's encoding back into a result.
func decodeDIMACS(req decodeRequest) (*model.Result, error) {
	return nil, errors.New("DIMACS decoding is not available in this build")
}
