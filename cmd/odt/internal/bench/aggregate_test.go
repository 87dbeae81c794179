package bench

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// generatedGrid is a grid of runs with every kind of outcome: proven,
// proven infeasible, time-outs, memory-outs, failures and killed runs.
func generatedGrid(seed uint64) []Run {
	rng := rand.New(rand.NewPCG(seed, 7))
	backends := []string{"a", "b", "c"}
	var runs []Run
	idx := 0
	for _, ds := range []string{"x", "y", "z", "w"} {
		for _, depth := range []int{2, 3} {
			for _, b := range backends {
				r := Run{Cell: Cell{Dataset: "/data/" + ds + ".txt", Backend: b, Depth: depth, Repeat: 1, Index: idx}, TimeLimit: 20}
				idx++
				r.Seconds = 0.01 + 25*rng.Float64()*rng.Float64()
				switch k := rng.IntN(10); {
				case k < 5:
					r.Status, r.Optimal = "optimal", true
					r.Objective, r.LowerBound = fptr(5), fptr(5)
					r.Certified = rng.IntN(2) == 0
					if rng.IntN(6) == 0 {
						r.Verdict, r.Expected = Incorrect, fptr(4) // as ex.Mark would
					}
				case k == 5:
					r.Status = "infeasible" // proven: no model, so no objective
				case k == 6:
					r.Status, r.Seconds = "time-limit", 20.2
					r.Objective, r.LowerBound = fptr(7), fptr(3)
				case k == 7:
					r.Status, r.Seconds = "memory-limit", 4
				case k == 8:
					r.Status, r.Message = "failed", "bad"
				default:
					r.Status, r.Seconds = "killed", 25
				}
				// CPU time: a fraction of the wall time on a loaded
				// machine, or more with threads.
				r.CPUSeconds = r.Seconds * (0.2 + 1.5*rng.Float64())
				runs = append(runs, r)
			}
		}
	}
	return runs
}

// want recomputes one aggregate row straight from the definitions.
type wantRow struct {
	runs, solved, timeouts, memouts, failures, wins, only, certified, incorrect int
	par2, sgm                                                                   float64
}

// recompute computes the row with each run's time given by secs.
func recompute(runs []Run, series, depth string, shift float64, secs func(Run) float64) wantRow {
	var w wantRow
	var sumPar, sumLog float64
	for _, r := range runs {
		if depth != "all" && strconv.Itoa(r.Depth) != depth {
			continue
		}
		solved := func(x Run) bool {
			return x.Verdict != "incorrect" && (x.Status == "infeasible" || (x.Objective != nil && x.Status == "optimal"))
		}
		inst := func(x Run) bool { return x.Dataset == r.Dataset && x.Depth == r.Depth }
		if series == VBS {
			// The VBS runs each instance once: take the first series.
			if r.Backend != "a" {
				continue
			}
			best := math.Inf(1)
			for _, x := range runs {
				if inst(x) && solved(x) {
					best = math.Min(best, secs(x))
				}
			}
			w.runs++
			if math.IsInf(best, 1) {
				w.timeouts++
				sumPar += 2 * r.TimeLimit
				sumLog += math.Log(r.TimeLimit + shift)
			} else {
				w.solved++
				w.wins++
				sumPar += best
				sumLog += math.Log(best + shift)
			}
			continue
		}
		if r.Backend != series {
			continue
		}
		w.runs++
		if r.Certified {
			w.certified++
		}
		if solved(r) {
			w.solved++
			sumPar += secs(r)
			sumLog += math.Log(secs(r) + shift)
			fastest, others := true, 0
			for _, x := range runs {
				if inst(x) && x.Backend != r.Backend && solved(x) {
					others++
					if secs(x) < secs(r) {
						fastest = false
					}
				}
			}
			if fastest {
				w.wins++
			}
			if others == 0 {
				w.only++
			}
			continue
		}
		sumPar += 2 * r.TimeLimit
		sumLog += math.Log(r.TimeLimit + shift)
		switch {
		case r.Verdict == "incorrect":
			w.incorrect++
		case r.Status == "memory-limit":
			w.memouts++
		case r.Status == "failed":
			w.failures++
		default:
			w.timeouts++
		}
	}
	w.par2 = sumPar / float64(w.runs)
	w.sgm = math.Exp(sumLog/float64(w.runs)) - shift
	return w
}

// TestAggregateMatchesDefinitions writes a generated grid's runs.jsonl,
// reads it back, reports it on each clock, and checks every row of
// aggregate.csv against PAR-2, the shifted geometric mean, the counts,
// wins and the virtual best solver recomputed from the definitions with
// the runs' wall or CPU seconds.
func TestAggregateMatchesDefinitions(t *testing.T) {
	clocks := map[Clock]func(Run) float64{
		Wall: func(r Run) float64 { return r.Seconds },
		CPU:  func(r Run) float64 { return r.CPUSeconds },
	}
	par2Of := map[Clock]float64{}
	for _, clock := range []Clock{Wall, CPU} {
		for _, shift := range []float64{10, 1} {
			dir := t.TempDir()
			var buf bytes.Buffer
			if err := WriteRuns(&buf, generatedGrid(3)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, RunsFile), buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			runs, err := ReadRunFiles([]string{dir})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := Report(dir, runs, io.Discard, ReportOptions{Shift: shift, Time: clock}); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(filepath.Join(dir, "aggregate.csv"))
			if err != nil {
				t.Fatal(err)
			}
			recs, err := csv.NewReader(f).ReadAll()
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(recs[0], ",") != "backend,depth,runs,solved,timeouts,memouts,failures,par2_s,sgm_s,wins,solved_only,certified,correct,incorrect,unknown" {
				t.Fatalf("header %v", recs[0])
			}
			seen := map[string]bool{}
			for _, rec := range recs[1:] {
				seen[rec[0]+"/"+rec[1]] = true
				w := recompute(runs, rec[0], rec[1], shift, clocks[clock])
				got := fmt.Sprint(rec[2:7], rec[9:])
				want := fmt.Sprint([]string{strconv.Itoa(w.runs), strconv.Itoa(w.solved), strconv.Itoa(w.timeouts), strconv.Itoa(w.memouts), strconv.Itoa(w.failures)},
					[]string{strconv.Itoa(w.wins), strconv.Itoa(w.only), strconv.Itoa(w.certified), "0", strconv.Itoa(w.incorrect), "0"})
				if rec[0] == VBS {
					want = fmt.Sprint([]string{strconv.Itoa(w.runs), strconv.Itoa(w.solved), strconv.Itoa(w.timeouts), "0", "0"},
						[]string{strconv.Itoa(w.wins), "0", "-", "-", "-", "-"})
				}
				if got != want {
					t.Errorf("%s, shift %v, %s depth %s: counts %s, want %s", clock, shift, rec[0], rec[1], got, want)
				}
				par2, _ := strconv.ParseFloat(rec[7], 64)
				sgm, _ := strconv.ParseFloat(rec[8], 64)
				if math.Abs(par2-w.par2) > 1e-9*w.par2 || math.Abs(sgm-w.sgm) > 1e-9*math.Max(1, w.sgm) {
					t.Errorf("%s, shift %v, %s depth %s: par2 %v sgm %v, want %v %v", clock, shift, rec[0], rec[1], par2, sgm, w.par2, w.sgm)
				}
				if rec[0] == "a" && rec[1] == "all" {
					par2Of[clock] = par2
				}
			}
			for _, s := range []string{"a", "b", "c", VBS} {
				for _, d := range []string{"2", "3", "all"} {
					if !seen[s+"/"+d] {
						t.Errorf("no row for %s depth %s", s, d)
					}
				}
			}
		}
	}
	if par2Of[Wall] == par2Of[CPU] {
		t.Errorf("PAR-2 of a is %v on both clocks", par2Of[Wall])
	}
}

// TestAggregateOfShardsIsTheWhole: the aggregate of a grid's runs split
// into shard files and read back together is the aggregate of the whole.
func TestAggregateOfShardsIsTheWhole(t *testing.T) {
	runs := generatedGrid(11)
	whole := t.TempDir()
	if _, _, err := Report(whole, runs, io.Discard, ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for i := 1; i <= 3; i++ {
		d := t.TempDir()
		var part []Run
		for _, r := range runs {
			if r.Index%3 == i-1 {
				part = append(part, r)
			}
		}
		var buf bytes.Buffer
		WriteRuns(&buf, part)
		if err := os.WriteFile(filepath.Join(d, RunsFile), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	merged, err := ReadRunFiles(dirs)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, _, err := Report(out, merged, io.Discard, ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"aggregate.csv", "summary.csv"} {
		a, _ := os.ReadFile(filepath.Join(whole, name))
		b, _ := os.ReadFile(filepath.Join(out, name))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s of the merged shards differs from the whole grid's:\n%s\nvs\n%s", name, a, b)
		}
	}
}

func TestRoundSec(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{{0.0004, "0.000"}, {0.1234, "0.123"}, {1.234, "1.23"}, {12.34, "12.3"}, {123.4, "123"}, {math.NaN(), "-"}} {
		if got := roundSec(c.x); got != c.want {
			t.Errorf("roundSec(%v) = %q, want %q", c.x, got, c.want)
		}
	}
}

// TestFormulationTable: sizes read from a result's statistics are
// summarised per series, depth and view (mean and largest), fields nobody
// reported left out, runs that built no formula counted apart, proof
// sizes and check times read by name, exported sizes a view of their own.
func TestFormulationTable(t *testing.T) {
	if f := formulationOf(map[string]any{"read_seconds": 0.1}); f != nil {
		t.Fatalf("a result without sizes gave %+v", f)
	}
	mk := func(b string, depth int, stats map[string]any) Run {
		return Run{Cell: Cell{Dataset: "d.txt", Backend: b, Depth: depth}, Formulation: formulationOf(stats)}
	}
	exported := mk("sat", 3, map[string]any{"variables": 30, "clauses": 300.0, "proof_bytes": 1000, "proof_check_seconds": 0.5})
	exported.Formulation.Exported = &Exported{Format: "wcnf", Variables: fptr(8), Constraints: fptr(90)}
	runs := []Run{
		mk("sat", 3, map[string]any{"variables": 10, "clauses": 100.0}),
		exported,
		mk("sat", 3, map[string]any{"variables": 0, "clauses": 0, "solver_calls": 0}),
		mk("sat", 2, map[string]any{"variables": 5, "clauses": 50.0}),
		mk("milp", 2, map[string]any{"columns": 7, "rows": 9, "nonzeros": 40, "root_bound": 1.5}),
		mk("dp", 2, nil),
	}
	var buf bytes.Buffer
	if err := WriteFormulationCSV(&buf, FormulationTable(runs)); err != nil {
		t.Fatal(err)
	}
	want := "backend,depth,view,runs,trivial,variables_mean,variables_max,clauses_mean,clauses_max,columns_mean,columns_max,rows_mean,rows_max,nonzeros_mean,nonzeros_max,root_bound_mean,root_bound_max,proof_bytes_mean,proof_bytes_max,proof_check_s_mean,proof_check_s_max\n" +
		"sat,2,solved,1,0,5,5,50,50,-,-,-,-,-,-,-,-,-,-,-,-\n" +
		"sat,3,solved,2,1,20,30,200,300,-,-,-,-,-,-,-,-,1000,1000,0.5,0.5\n" +
		"sat,3,exported wcnf,1,0,8,8,90,90,-,-,-,-,-,-,-,-,-,-,-,-\n" +
		"milp,2,solved,1,0,-,-,-,-,7,7,9,9,40,40,1.5,1.5,-,-,-,-\n"
	if buf.String() != want {
		t.Errorf("formulation.csv:\n%s\nwant\n%s", buf.String(), want)
	}
}
