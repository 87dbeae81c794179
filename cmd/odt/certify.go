package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/odtkit/odtkit"
)

// runCertify re-derives a certificate directory written by odt solve
// --certify, and writes it in standard form with --standard.
func runCertify(e env, args []string) error {
	c := newFlags("certify", "odt certify [flags] DIR [DATA]",
		"Checks the certificate that odt solve --certify DIR wrote, trusting nothing in DIR but the\n"+
			"proofs it checks: it reads DATA (or the file DIR/index.json names), refused when its size or\n"+
			"SHA-256 differs from the index's; builds every formula again from the recorded problem with\n"+
			"the backend's encoder, refusing a stored formula that holds a clause the encoder does not make;\n"+
			"checks every LRAT proof against it, step by step; takes the meaning of each refutation's\n"+
			"assumptions from the encoder; and derives the bound it prints from the refutations and the\n"+
			"data (the index may claim no more). Exit 0: certified; exit 1: refused (the message names\n"+
			"what does not match), or stopped by --time-limit; exit 2: DIR holds no readable certificate.\n"+
			"--standard OUT then writes, per refutation, OUT/NAME.cnf (the formula plus one unit clause\n"+
			"per assumption) and OUT/NAME.lrat (the proof ending in the empty clause) for any LRAT\n"+
			"checker, e.g. cake_lpr NAME.cnf NAME.lrat.", 1, 2)
	var (
		standard  string
		timeLimit time.Duration
		memLimit  int
	)
	c.StringVar(&standard, "standard", "", "after the check, write the certificate in standard form (formula with the assumptions as unit clauses, proof ending in the empty clause) to `DIR`")
	c.durationVar(&timeLimit, "time-limit", 0, "stop the check after `DURATION` (0 = none): not certified")
	c.IntVar(&memLimit, "memory-limit", 0, "memory cap in `MB` (0 = 80% of the machine's memory): a check reaching it stops, not certified")
	pos, err := c.parse(e.stdout, args)
	if err != nil {
		return err
	}
	if timeLimit < 0 || memLimit < 0 {
		return usagef("--time-limit and --memory-limit must not be negative")
	}
	dir, data := pos[0], ""
	if len(pos) > 1 {
		data = pos[1]
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		if err == nil {
			err = errors.New("not a directory (a certificate is the directory odt solve --certify DIR wrote)")
		} else if errors.Is(err, os.ErrNotExist) {
			err = errors.New("no such directory")
		}
		return badInput(fmt.Errorf("%s: %w", dir, err))
	}
	if err := odtkit.ReadCertificateIndex(dir); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return badInput(fmt.Errorf("%s: no certificate (%s missing)", dir, odtkit.CertificateIndex))
		}
		return badInput(err)
	}
	memCap := memoryCapMB(memLimit, e.stderr)
	setHeapLimit(memCap)
	// A first Ctrl-C or SIGTERM stops the check (exit 130).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	runCtx := ctx
	if timeLimit > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, timeLimit)
		defer cancel()
	}
	s, err := odtkit.CertifyDir(runCtx, dir, data, memCap)
	if err == nil && standard != "" {
		var names []string
		if names, err = odtkit.WriteStandard(runCtx, dir, standard); err == nil {
			for _, n := range names {
				fmt.Fprintf(e.stdout, "standard:    %s.cnf %s.lrat\n", n, n)
			}
		}
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return fmt.Errorf("%w: %w", errInterrupted, err)
	case err != nil && errors.Is(runCtx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("not certified: the check was stopped by the time limit (%v)", timeLimit)
	case err != nil && runCtx.Err() != nil:
		return fmt.Errorf("not certified: the check was stopped: %w", err)
	case err != nil && errors.Is(err, odtkit.ErrNotCertified):
		return fmt.Errorf("not certified: %w", err)
	case err != nil:
		return badInput(err)
	}
	fmt.Fprintf(e.stdout, "certified:   %s\n", s.Statement)
	for _, b := range s.Certified {
		fmt.Fprintf(e.stdout, "refutation:  %s\n", b)
	}
	fmt.Fprintf(e.stdout, "checked:     %d proofs, %d steps, %d bytes in %.3fs\n", s.Proofs, s.Steps, s.ProofBytes, s.Seconds)
	return nil
}
