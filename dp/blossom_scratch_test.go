package dp

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

func TestBlossomScratch(t *testing.T) {
	if os.Getenv("SCRATCH") == "" {
		t.Skip()
	}
	shared := blossomShared(t)
	maxd, _ := strconv.Atoi(os.Getenv("SCRATCH"))
	for _, c := range blossomReference(t, shared) {
		if c.depth != maxd {
			continue
		}
		v := blossomLoad(t, shared, c.name)
		st := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		r := blossomCheck(t, ctx, v, BlossomSettings{MaxDepth: c.depth})
		cancel()
		fmt.Printf("%-18s d=%d got=%v opt=%v ref=%d dl85=%v t=%.2fs %v\n", c.name, c.depth, r.Objective, r.Optimal, c.optimum, c.dl85, time.Since(st).Seconds(), r.Stats)
	}
}
