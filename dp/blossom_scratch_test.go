package dp

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

func TestBlossomScratchFirst(t *testing.T) {
	if os.Getenv("FIRST") == "" {
		t.Skip()
	}
	shared := blossomShared(t)
	depth, _ := strconv.Atoi(os.Getenv("FIRST"))
	names, _ := blossomIrreducible(t, shared)
	for _, n := range names {
		v := blossomLoad(t, shared, n)
		_, ce := CART(v, depth, CARTSettings{})
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		r := blossomCheck(t, ctx, v, BlossomSettings{MaxDepth: depth})
		cancel()
		fmt.Printf("%-18s cart=%v first=%v final=%v\n", n, ce, r.Stats["first_complete"], r.Objective)
	}
}
