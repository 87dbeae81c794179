package main

import (
	"io"
	"strings"
	"testing"
)

// The memory cap is the --memory-limit given or, without one, 80 % of
// the memory this process may use (a default cap keeps the kernel from
// killing the run).
func TestMemoryCap(t *testing.T) {
	var note strings.Builder
	if got := memoryCapMB(500, &note); got != 500 || note.Len() > 0 {
		t.Fatalf("--memory-limit 500 gives a cap of %d MB (%q)", got, note.String())
	}
	total := machineMemory()
	if total <= 0 {
		t.Skip("the machine's memory cannot be read here")
	}
	// A cap above the machine's memory is lowered to it, and said.
	if got, want := memoryCapMB(100_000_000, &note), int(total>>20); got != want || !strings.Contains(note.String(), "is more than this process may use") {
		t.Fatalf("--memory-limit 100000000 gives a cap of %d MB (%q); want the machine's %d MB, said", got, note.String(), want)
	}
	if got, want := memoryCapMB(0, io.Discard), int(total*8/10>>20); got != want || got <= 0 {
		t.Fatalf("default cap %d MB, want 80%% of %d MB = %d", got, total>>20, want)
	}
}
