package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// answersData is the data of the sample answers in testdata/answers.
const answersData = "../../testdata/soybean-small-s1.csv"

// answerSamples are the answers of testdata/answers: each solver's answer
// for the export of soybean-small-s1 at depth 1, the format odt decode
// must recognise, and whether the answer claims the optimum.
var answerSamples = []struct {
	file, format string
	flags        []string
	claims       bool
}{
	{"soybean-flowoct-d1.gurobi.sol", "gurobi", flowoctD1, false},
	{"soybean-flowoct-d1.scip.sol", "scip", flowoctD1, true},
	{"soybean-flowoct-d1.cplex.xml", "cplex", flowoctD1, true},
	{"soybean-flowoct-d1.lp_solve.txt", "lp_solve", flowoctD1, true},
	{"soybean-flowoct-d1.symphony.txt", "symphony", flowoctD1, true},
	{"soybean-satodt-d1.wcnf.z3.txt", "", satodtD1, true},
	{"soybean-satodt-d1.opb.z3.txt", "", satodtD1, true},
}

var (
	flowoctD1 = []string{"--backend", "milp-flowoct", "--depth", "1"}
	satodtD1  = []string{"--backend", "sat-odt", "--depth", "1"}
)

// TestDecodeAnswerSamples: every sample answer is recognised, decodes to
// a model whose objective is dl85's proven optimum, and what it claims
// follows the trust rule: a claimed optimum is the claimed bound of a
// feasible result, optimal only with trust-solver=true; Gurobi's .sol
// states no status and claims nothing.
func TestDecodeAnswerSamples(t *testing.T) {
	ref := odtJSON(t, "solve", "-q", "--backend", "dl85", "--depth", "1", "--format", "json", answersData)
	if !ref.Optimal {
		t.Fatalf("dl85 did not prove depth 1: %+v", ref)
	}
	for _, s := range answerSamples {
		file := filepath.Join("../../testdata/answers", s.file)
		args := append(append([]string{"decode", "--format", "json"}, s.flags...), answersData, file)
		r := odtJSONResult(t, args...)
		if r.Status != "feasible" || r.Optimal || r.Objective != ref.Objective {
			t.Errorf("%s: status %s (optimal %v), objective %v; want feasible with dl85's %v", s.file, r.Status, r.Optimal, r.Objective, ref.Objective)
		}
		if got, _ := r.Stats["solution_format"].(string); got != s.format {
			t.Errorf("%s: read as %q, want %q", s.file, got, s.format)
		}
		switch {
		case s.claims && (r.ClaimedBound == nil || *r.ClaimedBound != ref.Objective || !strings.Contains(r.ClaimedBy, s.file)):
			t.Errorf("%s: claimed bound %v by %q, want %v by the file", s.file, r.ClaimedBound, r.ClaimedBy, ref.Objective)
		case !s.claims && r.ClaimedBound != nil:
			t.Errorf("%s: claims %v, but the file states no status", s.file, *r.ClaimedBound)
		}
		trusted := odtJSONResult(t, append(append([]string{"decode", "--format", "json", "--opt", "trust-solver=true"}, s.flags...), answersData, file)...)
		if trusted.Optimal != s.claims || !trusted.TrustedSolver || trusted.Objective != ref.Objective {
			t.Errorf("%s trusted: optimal %v (trusted %v), objective %v; want optimal %v", s.file, trusted.Optimal, trusted.TrustedSolver, trusted.Objective, s.claims)
		}
	}
}

// TestDecodeAnswerSamplesRefused: a sample cut short, with a wrong
// stated objective, without z3's model or given to the wrong backend is
// refused (exit 2) naming the file and the problem.
func TestDecodeAnswerSamplesRefused(t *testing.T) {
	dir := t.TempDir()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("../../testdata/answers", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	gurobi := read("soybean-flowoct-d1.gurobi.sol")
	lpSolve := read("soybean-flowoct-d1.lp_solve.txt")
	symphony := read("soybean-flowoct-d1.symphony.txt")
	scip := read("soybean-flowoct-d1.scip.sol")
	z3 := read("soybean-satodt-d1.wcnf.z3.txt")
	cases := []struct {
		name, text string
		flags      []string
		want       string
	}{
		{"gurobi-cut.sol", gurobi[:strings.LastIndex(strings.TrimSpace(gurobi), "\n")+1], flowoctD1, "no value for column"},
		{"lp_solve-cut.txt", halfLines(lpSolve[:strings.Index(lpSolve, "Actual values of the constraints")]), flowoctD1, "no value for column"},
		{"lp_solve-obj.txt", strings.Replace(lpSolve, "Value of objective function: -40", "Value of objective function: -41", 1), flowoctD1, "states objective -41"},
		{"symphony-obj.txt", strings.Replace(symphony, "Solution Cost: 6.0", "Solution Cost: 5.0", 1), flowoctD1, "states objective 5"},
		{"symphony-cut.txt", symphony[:strings.Index(symphony, "Solution Cost:")], flowoctD1, "is the output cut short?"},
		{"scip-bad.sol", strings.Replace(scip, "solution status: optimal solution found\n", "solution status: optimal solution found\nnosuch 1\n", 1), flowoctD1, `no column "nosuch"`},
		{"z3-nomodel.txt", "sat\n", satodtD1, "run z3 with -model"},
		{"z3-cut.txt", halfLines(z3), satodtD1, "cut short"},
		{"z3-to-milp.txt", z3, flowoctD1, "unknown format (want the output of highs, cbc, glpsol, gurobi, scip, cplex, lp_solve or symphony)"},
		{"lp_solve-to-sat.txt", lpSolve, satodtD1, "no status line"},
		{"gurobi-junk.sol", strings.Replace(gurobi, "b_0_33 1\n", "b_0_33 1 junk\n", 1), flowoctD1, `("junk" after the value)`},
		{"gurobi-hex.sol", strings.Replace(gurobi, "b_0_33 1\n", "b_0_33 0x1p0\n", 1), flowoctD1, `"0x1p0" is not a finite number`},
		{"gurobi-inf.sol", strings.Replace(gurobi, "b_0_33 1\n", "b_0_33 Inf\n", 1), flowoctD1, `"Inf" is not a finite number`},
		{"lp_solve-verdict.txt", lpSolve + "\nTimeout\n", flowoctD1, `lp_solve's verdict "Timeout" after a printed solution`},
		{"cplex-laughs.xml", billionLaughs, flowoctD1, "not a solution file of the model: cplex line 13: not a CPLEX XML solution: invalid character entity &lol9;"},
		{"cplex-oneline.xml", "<?xml version=\"1.0\"?>\n<CPLEXSolution><header " + strings.Repeat("x=\"1\" ", 200_000) + "/></CPLEXSolution>\n", flowoctD1, "line 2 is longer than 1024 KiB"},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		args := append(append([]string{"decode"}, c.flags...), answersData, p)
		_, stderr, code := odt(t, args...)
		if code != 2 || !strings.Contains(stderr, c.name) || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 naming the file and %q", c.name, code, stderr, c.want)
		}
	}
}

// TestMILPRoundTripDL85: the FlowOCT MILP of vote at depth 1 exported as
// MPS goes through lp_solve (-S4) and SYMPHONY (-F), whose printed
// answers odt decode reads; trusted, each is the optimum dl85 proves in
// process. Each solver skips when it is not installed.
func TestMILPRoundTripDL85(t *testing.T) {
	data := "../../testdata/vote.txt"
	ref := odtJSON(t, "solve", "-q", "--backend", "dl85", "--depth", "1", "--format", "json", data)
	if !ref.Optimal {
		t.Fatalf("dl85 did not prove depth 1: %+v", ref)
	}
	dir := t.TempDir()
	mps := filepath.Join(dir, "vote.mps")
	if _, stderr, code := odt(t, append(append([]string{"export", "--to", "mps"}, flowoctD1...), data, "-o", mps)...); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	ran := 0
	for _, s := range []struct {
		bin, pkg, format string
		args             []string
	}{
		{"lp_solve", "lp-solve", "lp_solve", []string{"-fmps", mps, "-S4"}},
		{"symphony", "coinor-symphony", "symphony", []string{"-F", mps}},
	} {
		if _, err := exec.LookPath(s.bin); err != nil {
			t.Logf("%s not installed (apt-get install %s; scripts/setup.sh installs it): skipped", s.bin, s.pkg)
			continue
		}
		ans := filepath.Join(dir, s.bin+".txt")
		runSolver(t, ans, s.bin, s.args...)
		got := odtJSONResult(t, append(append([]string{"decode", "--format", "json", "--opt", "trust-solver=true"}, flowoctD1...), data, ans)...)
		if !got.Optimal || got.Objective != ref.Objective {
			t.Errorf("via %s: decoded %v (optimal %v), dl85 %v", s.bin, got.Objective, got.Optimal, ref.Objective)
		}
		if f, _ := got.Stats["solution_format"].(string); f != s.format {
			t.Errorf("via %s: read as %q", s.bin, f)
		}
		ran++
	}
	if ran == 0 {
		t.Skip("neither lp_solve nor symphony is installed (apt-get install lp-solve coinor-symphony)")
	}
}

// halfLines is the first half of text, cut at the end of a line.
func halfLines(text string) string {
	return text[:strings.LastIndex(text[:len(text)/2], "\n")+1]
}

// billionLaughs is a CPLEX-looking answer whose header's attribute is an
// entity that would expand a thousand million times.
const billionLaughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<CPLEXSolution version="1.2"><header solutionStatusValue="101" objectiveValue="&lol9;"/>
</CPLEXSolution>
`
