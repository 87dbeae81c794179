package avellaneda

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/odtkit/odtkit/internal/shared"
	"github.com/odtkit/odtkit/model"
)

// sideBySideFiles are the inferdt files timed side by side with InferDT
// (docs/benchmarks.md).
var sideBySideFiles = []string{"mouse", "iris", "monk1", "monk2", "monk3", "wine", "lung_cancer_examples", "zoo"}

// sideBySideLong are the hard rows measured by DT_depth alone with
// ODTKIT_LONG=1 (InferDT takes half a minute to four minutes per run,
// balance-scale_bin0 the longest; it does not finish their DT_size in
// minutes).
var sideBySideLong = []string{"balance-scale_bin1", "balance-scale_bin2", "car", "balance-scale_bin0"}

// BenchmarkInferDTSideBySide measures DT_depth and DT_size against the
// reference binary InferDT in one run: per file and phase, InferDT then
// odtkit, alternately, twice, keeping the minimum CPU seconds
// (user+sys) of each; it checks that both find the same depth (and
// number of nodes), and reports peer-cpu-s, odtkit-cpu-s and ratio.
// Without ../shared/peers/bin/InferDT it says so and measures odtkit
// alone. Select rows by name, e.g.
//
//	go test -run '^$' -bench 'InferDTSideBySide/size/monk2' -benchtime 1x ./encode/avellaneda
//
// Each InferDT run is bounded by ODTKIT_PEER_TIMEOUT (a Go duration,
// default 5m). ODTKIT_LONG=1 adds the DT_depth rows of sideBySideLong.
func BenchmarkInferDTSideBySide(b *testing.B) {
	dir := sharedDir(b)
	peer := filepath.Join(dir, "peers", "bin", "InferDT")
	if _, err := os.Stat(peer); err != nil {
		b.Logf("%s not present: odtkit is measured alone", peer)
		peer = ""
	}
	// The long rows' InferDT needs minutes (balance-scale_bin0: 255-274 s,
	// once over 300).
	def := 5 * time.Minute
	if long() {
		def = 15 * time.Minute
	}
	timeout := shared.PeerTimeout(b, def)
	for _, phase := range []string{"depth", "size"} {
		files := sideBySideFiles
		if phase == "depth" && long() {
			files = append(slices.Clone(files), sideBySideLong...)
		}
		for _, name := range files {
			b.Run(phase+"/"+name, func(b *testing.B) {
				path := filepath.Join(dir, "data", "inferdt", name+".csv")
				d, err := model.ReadFile(path, model.ReadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				peerBest, ownBest := -1.0, -1.0
				peerDepth, peerNodes := -1, -1
				for b.Loop() {
					for range 2 {
						if peer != "" {
							s, depth, nodes, err := runInferDT(peer, path, phase == "depth", timeout)
							if err != nil {
								b.Fatal(err)
							}
							peerDepth, peerNodes = depth, nodes
							if peerBest < 0 || s < peerBest {
								peerBest = s
							}
							b.Logf("InferDT %s: depth %d, nodes %d, %.3f s", phase, depth, nodes, s)
						}
						s, o := ownRun(b, d, phase == "depth")
						if ownBest < 0 || s < ownBest {
							ownBest = s
						}
						b.Logf("odtkit %s: depth %d, nodes %d, %.3f s", phase, o.Depth, 2*o.Leaves-1, s)
						if peer != "" && (o.Depth != peerDepth || phase == "size" && 2*o.Leaves-1 != peerNodes) {
							b.Fatalf("odtkit depth %d, nodes %d; InferDT depth %d, nodes %d", o.Depth, 2*o.Leaves-1, peerDepth, peerNodes)
						}
					}
				}
				b.ReportMetric(ownBest, "odtkit-cpu-s")
				if peer != "" {
					b.ReportMetric(peerBest, "peer-cpu-s")
					if peerBest > 0 {
						b.ReportMetric(ownBest/peerBest, "ratio")
					}
				}
			})
		}
	}
}

// ownRun times Prepare plus DT_depth or DT_size in CPU seconds.
func ownRun(b *testing.B, d *model.Dataset, depthOnly bool) (float64, *Outcome) {
	b.Helper()
	start := cpuSeconds()
	p, err := Prepare(d, false)
	if err != nil {
		b.Fatal(err)
	}
	var o *Outcome
	if depthOnly {
		o, err = MinDepth(context.Background(), p, Settings{})
	} else {
		o, err = MinSize(context.Background(), p, Settings{})
	}
	s := cpuSeconds() - start
	if err != nil || !o.Optimal {
		b.Fatalf("%v (optimal %v)", err, o != nil && o.Optimal)
	}
	return s, o
}

var (
	inferDTDepth = regexp.MustCompile(`Depth: (\d+)`)
	inferDTNodes = regexp.MustCompile(`Number of nodes: (\d+)`)
)

// runInferDT runs the peer on one file and returns its CPU seconds and
// the depth and number of nodes it prints.
func runInferDT(bin, data string, depthOnly bool, timeout time.Duration) (float64, int, int, error) {
	args := []string{"-x", "-v", data, "infer"}
	if depthOnly {
		args = append([]string{"-d"}, args...)
	}
	// In the temporary folder: InferDT may write files beside its working directory.
	out, cpu, err := shared.RunPeer(timeout, os.TempDir(), bin, args...)
	if err != nil {
		return 0, 0, 0, err
	}
	num := func(re *regexp.Regexp) int {
		m := re.FindSubmatch(out)
		if m == nil {
			return -1
		}
		n, _ := strconv.Atoi(string(m[1]))
		return n
	}
	return cpu, num(inferDTDepth), num(inferDTNodes), nil
}
