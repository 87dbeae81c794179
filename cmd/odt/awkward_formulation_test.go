package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// manyClassesCSV is rows rows of five numeric columns and classes
// classes (no two rows alike).
func manyClassesCSV(rows, classes int) string {
	r := rand.New(rand.NewPCG(uint64(rows), uint64(classes)))
	var b strings.Builder
	b.WriteString("a,b,c,d,e,y\n")
	for i := range rows {
		fmt.Fprintf(&b, "%d,%d,%d,%d,%d,k%d\n", i, r.IntN(1000), r.IntN(1000), r.IntN(1000), r.IntN(1000), i%classes)
	}
	return b.String()
}

// diabetesLikeCSV is 768 rows of 8 numeric columns and two classes, the
// shape of pima-indians-diabetes.
func diabetesLikeCSV() string {
	r := rand.New(rand.NewPCG(768, 8))
	var b strings.Builder
	b.WriteString("f0,f1,f2,f3,f4,f5,f6,f7,y\n")
	for range 768 {
		for j := range 8 {
			fmt.Fprintf(&b, "%d,", r.IntN(50+20*j))
		}
		fmt.Fprintf(&b, "%d\n", r.IntN(2))
	}
	return b.String()
}

// closeCSV: five rows at 1.0 (class a), five at 1.00001 (class b), one at
// 1000 (class a): a depth-2 tree makes no error.
const closeCSV = "x,y\n1.0,a\n1.0,a\n1.0,a\n1.0,a\n1.0,a\n1.00001,b\n1.00001,b\n1.00001,b\n1.00001,b\n1.00001,b\n1000,a\n"

// oneClassCSV has a single class.
const oneClassCSV = "x,z,y\n1,0,a\n2,1,a\n3,0,a\n4,1,a\n"

// TestAwkwardFormulation: the MILP and SAT formulations on awkward data
// and under limits — split margins from the data, one-class data, and
// formulations too large for the memory cap refused before they are built.
func TestAwkwardFormulation(t *testing.T) {
	var cases []awkwardCase
	files := map[string]string{"close.csv": closeCSV, "one.csv": oneClassCSV}
	if e2eTags == "highs" {
		cases = append(cases,
			awkwardCase{name: "milp-odt separates values 1e-5 apart next to 1000",
				args:  []string{"solve", "--backend", "milp-odt", "--depth", "2", "--time-limit", "20s", "$D/close.csv"},
				files: files, code: 0, stdout: []string{"errors:      0 of 11", "optimal (optimal: true)"}, limit: 20},
			awkwardCase{name: "milp-odt oblique splits on values too close to separate are refused",
				args:  []string{"solve", "--backend", "milp-odt", "--depth", "1", "--opt", "splits=multivariate", "$D/close.csv"},
				files: files, code: 2, stderr: []string{"feature x", "1.00001", "epsilon"}},
		)
	}
	for _, b := range []string{"dl85", "cadl85", "blossom", "contree", "cart", "sat-depth", "sat-size", "milp-odd", "milp-odt", "race"} {
		if strings.HasPrefix(b, "milp") && e2eTags != "highs" {
			continue
		}
		args := []string{"solve", "--backend", b, "--time-limit", "10s", "--memory-limit", "300"}
		if b == "milp-odd" {
			args = append(args, "--skeleton", "1,2")
		}
		cases = append(cases, awkwardCase{name: "one class " + b, args: append(args, "$D/one.csv"), files: files,
			code: 0, stdout: []string{"0 internal nodes, 1 leaves", "errors:      0 of 4"}, absent: []string{"panic", "infeasible"},
			limit: 10, limitMB: 300})
		if strings.HasPrefix(b, "milp") {
			cases = append(cases, awkwardCase{name: "one class " + b + " without the heuristic",
				args: append(append([]string{}, args...), "--opt", "warm-start=false", "$D/one.csv"), files: files,
				code: 0, stdout: []string{"0 internal nodes, 1 leaves", "optimal (optimal: true)"}, limit: 10, limitMB: 300})
		}
	}
	// Formulations too large for the cap are refused before they are
	// built (exit 2, naming the estimate and the cap), or can be counted
	// at all; what is built stays within the limits.
	big := map[string]string{"c300.csv": manyClassesCSV(1500, 300), "c30.csv": manyClassesCSV(200, 30), "diab.csv": diabetesLikeCSV()}
	for _, b := range []string{"sat-depth", "sat-size"} {
		cases = append(cases,
			awkwardCase{name: b + " 300 classes under 500 MB", args: []string{"solve", "--backend", b, "--memory-limit", "500", "--time-limit", "5s", "$D/c300.csv"},
				files: big, code: 2, stderr: []string{"would need about", "memory cap of 500.0 MiB", "refused before building"}, limit: 5, limitMB: 500},
			awkwardCase{name: b + " 300 classes --check", args: []string{"solve", "--check", "--backend", b, "--memory-limit", "500", "$D/c300.csv"},
				files: big, code: 2, stderr: []string{"memory cap of 500.0 MiB"}, limit: 5, limitMB: 500},
			awkwardCase{name: b + " 30 classes within the limits", args: []string{"solve", "--backend", b, "--memory-limit", "300", "--time-limit", "3s", "$D/c30.csv"},
				files: big, code: 0, limit: 3, limitMB: 300},
		)
	}
	cases = append(cases,
		awkwardCase{name: "export 300 classes depth 9 under 500 MB", args: []string{"export", "--to", "dimacs", "--backend", "sat-depth", "--depth", "9", "--memory-limit", "500", "$D/c300.csv", "-o", "$D/out.cnf"},
			files: big, code: 2, stderr: []string{"would need about", "memory cap of 500.0 MiB"}, limit: 5, limitMB: 500},
		awkwardCase{name: "export sat-depth depth 20 cannot be indexed", args: []string{"export", "--to", "dimacs", "--backend", "sat-depth", "--depth", "20", "$D/c300.csv", "-o", "$D/out.cnf"},
			files: big, code: 2, stderr: []string{"more than a SAT solver can index"}, limit: 5, limitMB: 500},
		awkwardCase{name: "export milp-odt depth 40 cannot be counted", args: []string{"export", "--to", "mps", "--backend", "milp-odt", "--depth", "40", "$D/diab.csv", "-o", "$D/out.mps"},
			files: big, code: 2, stderr: []string{"the MILP would have", "more than a MILP solver can index"}, limit: 5, limitMB: 500},
		awkwardCase{name: "export milp-odt depth 8 under 100 MB", args: []string{"export", "--to", "mps", "--backend", "milp-odt", "--depth", "8", "--memory-limit", "100", "$D/diab.csv", "-o", "$D/out.mps"},
			files: big, code: 2, stderr: []string{"milp-odt MILP would need about", "memory cap of 100.0 MiB"}, limit: 5, limitMB: 100},
	)
	if e2eTags == "highs" {
		cases = append(cases,
			awkwardCase{name: "milp-odt depth 14 under 300 MB", args: []string{"solve", "--backend", "milp-odt", "--depth", "14", "--time-limit", "5s", "--memory-limit", "300", "$D/diab.csv"},
				files: big, code: 2, stderr: []string{"milp-odt MILP would need about", "memory cap of 300.0 MiB", "refused before building"}, limit: 5, limitMB: 300},
			awkwardCase{name: "milp-odt depth 3 under 50 MB", args: []string{"solve", "--backend", "milp-odt", "--depth", "3", "--memory-limit", "50", "$D/diab.csv"},
				files: big, code: 2, stderr: []string{"memory cap of 50.0 MiB"}, limit: 5, limitMB: 50},
			awkwardCase{name: "milp-odt --check depth 40", args: []string{"solve", "--check", "--backend", "milp-odt", "--depth", "40", "$D/diab.csv"},
				files: big, code: 2, stderr: []string{"too large to be counted"}, limit: 5},
			awkwardCase{name: "milp-odt --check depth 18", args: []string{"solve", "--check", "--backend", "milp-odt", "--depth", "18", "$D/diab.csv"},
				files: big, code: 2, stderr: []string{"more than a MILP solver can index"}, limit: 5},
			awkwardCase{name: "milp-odd skeleton 1,100000", args: []string{"solve", "--backend", "milp-odd", "--skeleton", "1,100000", "--time-limit", "5s", "--memory-limit", "2000", "$D/diab.csv"},
				files: big, code: 2, stderr: []string{"more than a MILP solver can index"}, limit: 5, limitMB: 2000},
			awkwardCase{name: "milp-odt depth 3: HiGHS's own memory within 250 MB", args: []string{"solve", "--backend", "milp-odt", "--depth", "3", "--time-limit", "5s", "--memory-limit", "250", "$D/diab.csv"},
				files: big, code: 0, stdout: []string{"status:"}, limit: 5, limitMB: 250},
			awkwardCase{name: "milp-odt depth 2 within the limits", args: []string{"solve", "--backend", "milp-odt", "--depth", "2", "--time-limit", "3s", "--memory-limit", "300", "$D/diab.csv"},
				files: big, code: 0, stdout: []string{"status:"}, limit: 3, limitMB: 300},
		)
	}
	runAwkward(t, cases)
}
