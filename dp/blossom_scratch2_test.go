package dp

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

func TestBlossomScratchOne(t *testing.T) {
	name := os.Getenv("ONE")
	if name == "" {
		t.Skip()
	}
	shared := blossomShared(t)
	d, _ := strconv.Atoi(os.Getenv("DEPTH"))
	v := blossomLoad(t, shared, name)
	st := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 900*time.Second)
	defer cancel()
	r := blossomCheck(t, ctx, v, BlossomSettings{MaxDepth: d})
	fmt.Printf("%s d=%d got=%v opt=%v t=%.2fs %v\n", name, d, r.Objective, r.Optimal, time.Since(st).Seconds(), r.Stats)
}
