package backend

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestCounterSaturates(t *testing.T) {
	var c Counter
	if got := c.Mul(1<<20, 1<<20); got != 1<<40 || c.Over {
		t.Fatalf("2^20·2^20 = %d (over %v)", got, c.Over)
	}
	if got := c.Add(math.MaxInt64-1, 1); got != math.MaxInt64 || c.Over {
		t.Fatalf("MaxInt64-1 + 1 = %d (over %v)", got, c.Over)
	}
	if got := c.Mul(1<<40, 1<<40); got != math.MaxInt64 || !c.Over {
		t.Fatalf("2^40·2^40 = %d (over %v), want saturated", got, c.Over)
	}
	var d Counter
	if got := d.Add(math.MaxInt64, 1); got != math.MaxInt64 || !d.Over {
		t.Fatalf("MaxInt64 + 1 = %d (over %v), want saturated", got, d.Over)
	}
}

func TestAdmit(t *testing.T) {
	s := Size{Variables: 10, Constraints: 20, NonZeros: 30, Bytes: 200 << 20}
	if err := (*Budget)(nil).Admit(s, "x"); err != nil {
		t.Fatalf("no budget: %v", err)
	}
	if err := NewBudget(0).Admit(s, "x"); err != nil {
		t.Fatalf("no cap: %v", err)
	}
	if err := NewBudget(300<<20).Admit(s, "x"); err != nil {
		t.Fatalf("under the cap: %v", err)
	}
	err := NewBudget(100<<20).Admit(s, "the formula")
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("over the cap: %v, want ErrInvalid", err)
	}
	for _, want := range []string{"the formula", "200.0 MiB", "100.0 MiB", "10 variables, 20 constraints, 30 non-zeros"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}
