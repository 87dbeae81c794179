package odtkit

import (
	"context"

	"github.com/odtkit/odtkit/milp"
	"github.com/odtkit/odtkit/sat"
	"github.com/odtkit/odtkit/sat/lrat"
)

// HiGHSEnabled reports whether this build solves MILPs with HiGHS in
// process (built with -tags highs).
const HiGHSEnabled = milp.HiGHSEnabled

// CertifyOption is the option of the SAT backends (sat-depth, sat-size,
// sat-odt, sat-odd) that names the directory where a solve writes the
// LRAT certificate of its bound.
const CertifyOption = sat.CertifyOption

// CertificateIndex is the file of a certificate directory that lists its
// formulas, proofs and refutations.
const CertificateIndex = lrat.IndexFile

// ErrNotCertified is wrapped by the error of CertifyDir when a proof or a
// refutation of the certificate is refused (the certificate was read, and
// it does not prove its claim).
var ErrNotCertified = lrat.ErrRefused

// Certificate is what CertifyDir checked: the bound certified, the
// refutations, the proofs and steps checked.
type Certificate = lrat.Summary

// ReadCertificateIndex reads the index of the certificate directory dir
// without checking any proof, so that a directory holding no readable
// certificate is refused before the check.
func ReadCertificateIndex(dir string) error {
	_, err := lrat.ReadIndex(dir)
	return err
}

// CertifyDir checks the certificate a solve with the certify option
// wrote to dir: every LRAT proof against its DIMACS formula, and that
// each refutation the index lists is derived from its assumptions only.
// The check honours ctx.
func CertifyDir(ctx context.Context, dir string) (*Certificate, error) {
	return lrat.CheckDir(ctx, dir)
}
