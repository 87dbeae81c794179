//go:build unix

package blossom

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/odtkit/odtkit/dp/cart"
)

// The measurements of the Blossom issue run as tests behind an
// environment variable, each solve in a child process so that its peak
// memory (max RSS) and CPU time are its own:
//
//	ODTKIT_BLOSSOM_BENCH=table go test -run TestBlossomBenchTable -v -timeout 0 ./dp/blossom/
//	ODTKIT_BLOSSOM_BENCH=speed go test -run TestBlossomBenchSpeed -v -timeout 0 ./dp/blossom/
//	ODTKIT_BLOSSOM_BENCH=factor go test -run TestBlossomBenchFactor -v -timeout 0 ./dp/blossom/
//
// table: depth 7 and 10 with a 10 s limit on every cp4im file: Blossom's
// error beside the greedy tree's (cart.Grow) and the irreducible error.
// factor: the CPU time of each variant that switches one part off
// (blossomVariants) on a few depth-3/4 cells, with a 60 s limit.
// speed: CPU time to the proven optimum at depths 3 and 4 on the cells of
// cp4im-optima.tsv with a numeric dl85_cpu_s, beside that column.

type blossomChildOut struct {
	Objective, LowerBound float64
	First                 int64
	Optimal, FromCART     bool
	Seconds               float64
	// PeakKB is the child's own peak resident set (VmHWM), read at its end.
	PeakKB int
}

// blossomPeakKB reads VmHWM from /proc/self/status (0 when unavailable).
// The max RSS that wait4 reports for a child started with os/exec also
// counts the parent's pages at the time of the fork, so it is not used.
func blossomPeakKB() int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return kb
		}
	}
	return 0
}

// TestBlossomBenchChild is the child process: it solves one cell given
// by BLOSSOM_CHILD=name,depth,limit and prints its result.
func TestBlossomBenchChild(t *testing.T) {
	spec := os.Getenv("BLOSSOM_CHILD")
	if spec == "" {
		t.Skip("child process of the Blossom benchmarks")
	}
	parts := strings.Split(spec, ",")
	depth, _ := strconv.Atoi(parts[1])
	limit, _ := time.ParseDuration(parts[2])
	v := blossomLoad(t, blossomShared(t), parts[0])
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	s := Config{}
	if len(parts) > 3 {
		s = blossomVariants[parts[3]]
	}
	s.MaxDepth = depth
	r := blossomCheck(t, ctx, v, s)
	out, _ := json.Marshal(blossomChildOut{Objective: r.Objective, LowerBound: r.LowerBound,
		First: r.Stats["first_complete"].(int64), Optimal: r.Optimal, FromCART: r.Stats["returned_cart"].(bool), PeakKB: blossomPeakKB(), Seconds: time.Since(start).Seconds()})
	fmt.Printf("BLOSSOM_RESULT %s\n", out)
}

type blossomChildRun struct {
	out    blossomChildOut
	cpu    float64 // user+sys seconds
	rssMB  float64
	wallS  float64
	failed error
}

func blossomRunChild(name string, depth int, limit time.Duration, variant ...string) blossomChildRun {
	cmd := exec.Command(os.Args[0], "-test.run", "^TestBlossomBenchChild$", "-test.timeout", "0")
	spec := fmt.Sprintf("BLOSSOM_CHILD=%s,%d,%s", name, depth, limit)
	if len(variant) > 0 {
		spec += "," + variant[0]
	}
	cmd.Env = append(os.Environ(), spec)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	start := time.Now()
	err := cmd.Run()
	run := blossomChildRun{wallS: time.Since(start).Seconds()}
	if err != nil {
		run.failed = fmt.Errorf("%v: %s", err, buf.String())
		return run
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		run.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		if s, ok := strings.CutPrefix(sc.Text(), "BLOSSOM_RESULT "); ok {
			if err := json.Unmarshal([]byte(s), &run.out); err != nil {
				run.failed = err
			}
			run.rssMB = float64(run.out.PeakKB) / 1024
			return run
		}
	}
	run.failed = fmt.Errorf("no result: %s", buf.String())
	return run
}

// blossomIrreducible reads the irreducible errors of the cp4im README.
func blossomIrreducible(t *testing.T, shared string) (names []string, irr map[string]int) {
	data, err := os.ReadFile(filepath.Join(shared, "data", "cp4im", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	irr = map[string]int{}
	for _, line := range strings.Split(string(data), "\n") {
		col := strings.Split(line, "|")
		if len(col) < 9 || !strings.HasSuffix(strings.TrimSpace(col[1]), ".txt") {
			continue
		}
		name := strings.TrimSuffix(strings.TrimSpace(col[1]), ".txt")
		v, err := strconv.Atoi(strings.TrimSpace(col[7]))
		if err != nil {
			t.Fatalf("README line %q: %v", line, err)
		}
		names = append(names, name)
		irr[name] = v
	}
	return names, irr
}

func TestBlossomBenchTable(t *testing.T) {
	if os.Getenv("ODTKIT_BLOSSOM_BENCH") != "table" {
		t.Skip("set ODTKIT_BLOSSOM_BENCH=table to run")
	}
	shared := blossomShared(t)
	names, irr := blossomIrreducible(t, shared)
	fmt.Println("| file | depth | irreducible | cart | blossom first tree | blossom 10 s | lower bound | optimal | vs cart | peak RSS MB |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	worse, better, room := 0, 0, 0
	maxRSS := 0.0
	for _, depth := range []int{7, 10} {
		for _, name := range names {
			v := blossomLoad(t, shared, name)
			_, cartErr := cart.Grow(context.Background(), v, depth, cart.Config{})
			run := blossomRunChild(name, depth, 10*time.Second)
			if run.failed != nil {
				t.Errorf("%s depth %d: %v", name, depth, run.failed)
				continue
			}
			cmp := "equal"
			if run.out.FromCART {
				cmp = "equal (greedy seed returned)"
			}
			switch {
			case run.out.Objective > cartErr:
				cmp = "WORSE"
				worse++
			case run.out.Objective < cartErr:
				cmp = "better"
			}
			if cartErr > float64(irr[name]) {
				room++
				if run.out.Objective < cartErr {
					better++
				}
			}
			maxRSS = max(maxRSS, run.rssMB)
			fmt.Printf("| %s | %d | %d | %v | %d | %v | %v | %v | %s | %.1f |\n", name, depth, irr[name], cartErr,
				run.out.First, run.out.Objective, run.out.LowerBound, run.out.Optimal, cmp, run.rssMB)
		}
	}
	fmt.Printf("\nworse than cart: %d; strictly better on %d of the %d runs where cart is above the irreducible error; max peak RSS %.1f MB\n",
		worse, better, room, maxRSS)
	if worse > 0 || maxRSS >= 100 {
		t.Errorf("%d runs worse than cart, peak RSS %.1f MB", worse, maxRSS)
	}
}

func TestBlossomBenchSpeed(t *testing.T) {
	if os.Getenv("ODTKIT_BLOSSOM_BENCH") != "speed" {
		t.Skip("set ODTKIT_BLOSSOM_BENCH=speed to run")
	}
	shared := blossomShared(t)
	var sumDL, sumCPU, sumWall float64
	fmt.Println("| dataset | depth | optimum | blossom | optimal | blossom CPU s | wall s | dl85_cpu_s |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, c := range blossomReference(t, shared) {
		if (c.depth != 3 && c.depth != 4) || c.dl85 < 0 {
			continue
		}
		run := blossomRunChild(c.name, c.depth, 30*time.Minute)
		if run.failed != nil {
			t.Errorf("%s depth %d: %v", c.name, c.depth, run.failed)
			continue
		}
		if !run.out.Optimal || run.out.Objective != float64(c.optimum) {
			t.Errorf("%s depth %d: %v (optimal=%v), reference %d", c.name, c.depth, run.out.Objective, run.out.Optimal, c.optimum)
		}
		sumDL += c.dl85
		sumCPU += run.cpu
		sumWall += run.wallS
		fmt.Printf("| %s | %d | %d | %v | %v | %.2f | %.2f | %.2f |\n", c.name, c.depth, c.optimum, run.out.Objective,
			run.out.Optimal, run.cpu, run.wallS, c.dl85)
	}
	fmt.Printf("\nsum: blossom %.2f CPU s (%.2f wall s, including loading the data), dl85_cpu_s %.2f; ratio %.2f\n",
		sumCPU, sumWall, sumDL, sumCPU/sumDL)
}

func TestBlossomBenchFactor(t *testing.T) {
	if os.Getenv("ODTKIT_BLOSSOM_BENCH") != "factor" {
		t.Skip("set ODTKIT_BLOSSOM_BENCH=factor to run")
	}
	shared := blossomShared(t)
	ref := map[string]int{}
	for _, c := range blossomReference(t, shared) {
		ref[c.name+"/"+strconv.Itoa(c.depth)] = c.optimum
	}
	variants := []string{"", "no-lower-bound", "no-depth2", "order-error", "no-merge-rows", "no-drop-redundant", "no-drop-uninformative"}
	fmt.Print("| cell |")
	for _, v := range variants {
		if v == "" {
			v = "default"
		}
		fmt.Printf(" %s |", v)
	}
	fmt.Println("\n|---|---|---|---|---|---|---|---|")
	cells := []struct {
		name  string
		depth int
	}{{"anneal", 4}, {"hypothyroid", 4}, {"yeast", 4}, {"heart-cleveland", 4}, {"vote", 4}, {"splice-1", 3}}
	for _, c := range cells {
		fmt.Printf("| %s d%d |", c.name, c.depth)
		for _, vn := range variants {
			run := blossomRunChild(c.name, c.depth, 60*time.Second, vn)
			if run.failed != nil {
				t.Errorf("%s d%d %s: %v", c.name, c.depth, vn, run.failed)
				fmt.Print(" fail |")
				continue
			}
			mark := ""
			if !run.out.Optimal {
				mark = " (limit, " + strconv.FormatFloat(run.out.Objective, 'g', -1, 64) + ")"
			} else if run.out.Objective != float64(ref[c.name+"/"+strconv.Itoa(c.depth)]) {
				t.Errorf("%s d%d %s: %v, reference %d", c.name, c.depth, vn, run.out.Objective, ref[c.name+"/"+strconv.Itoa(c.depth)])
			}
			fmt.Printf(" %.2f%s |", run.cpu, mark)
		}
		fmt.Println()
	}
}
