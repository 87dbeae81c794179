package contree

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/odtkit/odtkit/dp/internal/dptest"
	"github.com/odtkit/odtkit/internal/shared"
	"github.com/odtkit/odtkit/model"
)

// BenchmarkConTreePeer measures the contree backend against the reference
// binary ConTree in one run, single-threaded: per numeric file and depth,
// ConTree then odtkit (1 worker), alternately, for ODTKIT_PEER_ROUNDS
// rounds (default 2), keeping the minimum CPU seconds (user+sys) of
// each; it checks that both report the same number of errors and
// reports peer-s, odtkit-s and ratio (odtkit-s / peer-s). Without
// ../shared/peers/bin/ConTree it says so and skips. Select cells by
// name, one at a time on an otherwise idle machine, e.g.
//
//	go test -run '^$' -bench 'ConTreePeer/fault/d3' -benchtime 1x -timeout 2h ./dp/contree
//
// Depths 2 and 3 cover every file of numeric-optima.tsv; depth 4 rows
// exist for the files where ConTree was measured there. Each ConTree run
// gets ODTKIT_PEER_TIMEOUT (a Go duration, default 10m) as its -time and
// as a hard limit; a cell where it does not finish fails.
func BenchmarkConTreePeer(b *testing.B) {
	dir := contreeShared(b)
	peer := filepath.Join(dir, "peers", "bin", "ConTree")
	if _, err := os.Stat(peer); err != nil {
		b.Skipf("%s not present: nothing to compare with", peer)
	}
	timeout := shared.PeerTimeout(b, 10*time.Minute)
	rounds := 2
	if s := os.Getenv("ODTKIT_PEER_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("ODTKIT_PEER_ROUNDS=%q: want a positive integer", s)
		}
		rounds = n
	}
	for _, ref := range contreeNumericRefs(b) {
		b.Run(ref.dataset+"/d"+strconv.Itoa(ref.depth), func(b *testing.B) {
			path := filepath.Join(dir, "data", "numeric", ref.dataset+".txt")
			d, err := model.ReadFile(path, model.ReadOptions{})
			if err != nil {
				b.Fatal(err)
			}
			peerBest, ownBest := -1.0, -1.0
			for b.Loop() {
				for range rounds {
					ps, perr, err := runConTree(peer, path, ref.depth, timeout)
					if err != nil {
						b.Fatal(err)
					}
					c0 := dptest.CPUSeconds()
					r, err := Solve(context.Background(), d, Config{MaxDepth: ref.depth, Workers: 1}, nil)
					own := dptest.CPUSeconds() - c0
					if err != nil {
						b.Fatal(err)
					}
					if !r.Optimal || r.Tree.Errors(d) != r.Errors || r.Tree.Depth() > ref.depth {
						b.Fatalf("odtkit: %d errors (optimal %v), tree makes %d, depth %d", r.Errors, r.Optimal, r.Tree.Errors(d), r.Tree.Depth())
					}
					// ConTree reads the features as 32-bit floats, which can
					// merge distinct values (float32 files): odtkit may
					// then do better, never worse.
					if r.Errors > perr || (!ref.float32 && r.Errors != perr) {
						b.Fatalf("odtkit %d errors, ConTree %d", r.Errors, perr)
					}
					b.Logf("ConTree %.3f s, odtkit %.3f s (%d errors, %d depth-two calls)", ps, own, r.Errors, r.Stats["d2_calls"])
					if peerBest < 0 || ps < peerBest {
						peerBest = ps
					}
					if ownBest < 0 || own < ownBest {
						ownBest = own
					}
				}
			}
			b.ReportMetric(peerBest, "peer-s")
			b.ReportMetric(ownBest, "odtkit-s")
			if peerBest > 0 {
				b.ReportMetric(ownBest/peerBest, "ratio")
			}
		})
	}
}

var conTreeScore = regexp.MustCompile(`Misclassification score: (\d+)`)

// runConTree runs the peer on one file and returns its CPU seconds
// (user+sys of the child) and the misclassification score it prints.
func runConTree(bin, data string, depth int, timeout time.Duration) (float64, int, error) {
	secs := strconv.Itoa(max(1, int(timeout.Seconds())))
	out, cpu, err := shared.RunPeer(timeout+time.Minute, "", bin, "-file", data, "-max-depth", strconv.Itoa(depth), "-time", secs)
	if err != nil {
		return 0, 0, err
	}
	m := conTreeScore.FindSubmatch(out)
	if m == nil {
		return 0, 0, fmt.Errorf("ConTree on %s depth %d: no score printed (not finished within %v?)", data, depth, timeout)
	}
	n, err := strconv.Atoi(string(m[1]))
	if err != nil {
		return 0, 0, fmt.Errorf("ConTree on %s: score %q: %w", data, m[1], err)
	}
	return cpu, n, nil
}
