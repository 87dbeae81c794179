package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// interrupts is the handling of SIGINT and SIGTERM of a command: the
// first cancels its context (the command stops and reports what it has);
// a second quits at once with exit code 130, after running the cleanups
// registered with atQuit (removing a temporary output file).
type interrupts struct {
	mu      sync.Mutex
	cleanup []func()
}

// atQuit registers f to run before a second signal quits the process.
func (in *interrupts) atQuit(f func()) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.cleanup = append(in.cleanup, f)
}

func (in *interrupts) quit() {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, f := range in.cleanup {
		f()
	}
}

// interruptContext returns a context cancelled by the first SIGINT or
// SIGTERM, which prints first (e.g. that a solve stops and prints its
// best model) on stderr; a second signal exits at once with status 130
// (nothing printed), after the cleanups registered with the returned
// interrupts' atQuit. stop ends the handling.
func interruptContext(parent context.Context, stderr io.Writer, first string) (ctx context.Context, in *interrupts, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	in = &interrupts{}
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	var once sync.Once
	end := func() { once.Do(func() { close(done) }) }
	go func() {
		select {
		case <-sig:
		case <-done:
			signal.Stop(sig)
			return
		}
		fmt.Fprintln(stderr, "odt: interrupted: "+first+" (interrupt again to quit at once)")
		cancel()
		// From now on until the process ends, a second signal quits at
		// once, even while the result is being written.
		<-sig
		fmt.Fprintln(stderr, "odt: interrupted twice: quitting")
		in.quit()
		os.Exit(exitInterrupted)
	}()
	return ctx, in, func() {
		end()
		cancel()
	}
}

// memoryCapMB is the memory cap of a solve: the --memory-limit given, or,
// when none is, 80 % of the memory this process may use (the machine's,
// or its cgroup's limit when lower), so that a run ends with status
// memory-limit and its best model before the kernel kills it. 0 when the
// machine's memory cannot be read (no cap). A cap given above the memory
// this process may use is lowered to that memory, with a note on stderr:
// every estimate made against the cap must be one the machine can keep
// (a table the cap admits is allocated at once).
func memoryCapMB(given int, stderr io.Writer) int {
	total := machineMemory()
	if given > 0 {
		if have := int(total >> 20); have > 0 && given > have {
			fmt.Fprintf(stderr, "odt: --memory-limit %d MiB is more than this process may use (%d MiB): the cap is %d MiB\n", given, have, have)
			return have
		}
		return given
	}
	if total <= 0 {
		return 0
	}
	return int(total * 8 / 10 >> 20)
}

// setHeapLimit makes the Go runtime collect harder as the heap nears the
// cap (a soft limit; the solve's own watch enforces the cap).
func setHeapLimit(capMB int) {
	if capMB > 0 {
		debug.SetMemoryLimit(int64(capMB) << 20)
	}
}

// machineMemory is the memory available to this process in bytes: the
// smaller of MemTotal (/proc/meminfo) and the cgroup v2 limit; 0 when
// neither can be read (not Linux).
func machineMemory() int64 {
	var total int64
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				if kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64); err == nil {
					total = kb << 10
				}
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if lim, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && lim > 0 && (total == 0 || lim < total) {
			total = lim
		}
	}
	return total
}
