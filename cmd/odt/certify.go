package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/odtkit/odtkit"
)

// runCertify checks a certificate directory written by odt solve
// --certify.
func runCertify(e env, args []string) error {
	c := newFlags("certify", "odt certify DIR",
		"Checks the certificate that odt solve --certify DIR wrote: every LRAT proof in DIR against\n"+
			"its DIMACS formula, step by step, and that each refutation listed in DIR/index.json is a\n"+
			"clause the proof derives from negations of its assumptions only. Exit 0: every proof\n"+
			"checks, and the bound of the index is certified; exit 1: a proof or a refutation is\n"+
			"refused (the message names the file, line and clause); exit 2: DIR holds no readable\n"+
			"certificate.", 1, 1)
	pos, err := c.parse(e.stdout, args)
	if err != nil {
		return err
	}
	dir := pos[0]
	if err := odtkit.ReadCertificateIndex(dir); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return badInput(fmt.Errorf("%s: no certificate (%s missing)", dir, odtkit.CertificateIndex))
		}
		return badInput(err)
	}
	// A first Ctrl-C or SIGTERM stops the check (exit 130).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := odtkit.CertifyDir(ctx, dir)
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%w: %w", errInterrupted, err)
	}
	if err != nil {
		if errors.Is(err, odtkit.ErrNotCertified) {
			return fmt.Errorf("not certified: %w", err)
		}
		return badInput(err)
	}
	fmt.Fprintf(e.stdout, "certified:   %s\n", s.Claim)
	for _, b := range s.Certified {
		fmt.Fprintf(e.stdout, "refutation:  %s\n", b)
	}
	fmt.Fprintf(e.stdout, "checked:     %d proofs, %d steps, %d bytes in %.3fs\n", s.Proofs, s.Steps, s.ProofBytes, s.Seconds)
	return nil
}
