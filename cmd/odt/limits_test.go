package main

import "testing"

// The memory cap is the --memory-limit given or, without one, 80 % of
// the memory this process may use (a default cap keeps the kernel from
// killing the run).
func TestMemoryCap(t *testing.T) {
	if got := memoryCapMB(500); got != 500 {
		t.Fatalf("--memory-limit 500 gives a cap of %d MB", got)
	}
	total := machineMemory()
	if total <= 0 {
		t.Skip("the machine's memory cannot be read here")
	}
	if got, want := memoryCapMB(0), int(total*8/10>>20); got != want || got <= 0 {
		t.Fatalf("default cap %d MB, want 80%% of %d MB = %d", got, total>>20, want)
	}
}
