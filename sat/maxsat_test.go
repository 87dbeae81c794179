package sat

import (
	"errors"

	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestParseAnswerForms reads one model written in each form a MaxSAT or
// PB solver prints, and the blocks of a solver that prints every
// improving model.
func TestParseAnswerForms(t *testing.T) {
	want := []bool{false, true, false, true, true} // variables 1..4: 1 -2 3 4
	cases := map[string]string{
		"integers with 0":       "c hello\ns OPTIMUM FOUND\no 3\nv 1 -2 3 4 0\n",
		"integers without 0":    "s OPTIMUM FOUND\nv 1 -2\nv 3 4\no 3\n",
		"0/1 string":            "o 3\ns OPTIMUM FOUND\nv 1011\n",
		"named (minisat+)":      "s OPTIMUM FOUND\nv x1 -x2 x3 x4\n",
		"named with ~":          "s OPTIMUM FOUND\nv x1 ~x2 x3 x4\n",
		"clasp blocks, last":    "c Answer: 1\nv -1 2 -3 -4 0\no 7\nc Answer: 2\nv 1 -2 3 4 0\no 3\ns OPTIMUM FOUND\n",
		"blocks, cost before v": "o 7\nv -1 -2 -3 4 0\no 3\nv 1 -2\nv 3 4 0\ns SATISFIABLE\n",
		"z3 4.8":                "sat\n(define-fun k!1 () Bool\n  true)\n(define-fun k!3 () Bool\n  true)\n(define-fun k!2 () Bool\n  false)\n(define-fun k!4 () Bool\n  true)\n   3\n",
		"z3 model wrapper":      "sat\n(\n  (define-fun x4 () Bool true)\n  (define-fun x2 () Bool false)\n  (define-fun x1 () Bool true) (define-fun x3 () Bool true)\n)\n3\n",
	}
	for name, text := range cases {
		a, err := ParseAnswer(strings.NewReader(text), 4)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for v := 1; v <= 4; v++ {
			if got := v < len(a.Model) && a.Model[v]; got != want[v] {
				t.Errorf("%s: variable %d is %v, want %v", name, v, got, want[v])
			}
		}
		if (strings.Contains(text, "o 3") || strings.HasSuffix(text, "3\n")) && (!a.HasCost || a.Cost != 3) {
			t.Errorf("%s: cost %d (%v), want the last o line's 3", name, a.Cost, a.HasCost)
		}
	}
	// "v 10" is variable 10 when the formula has more than two variables.
	a, err := ParseAnswer(strings.NewReader("s SATISFIABLE\nv -1 -2 -3 -4 -5 -6 -7 -8 -9\nv 10\nv -11 -12\n"), 12)
	if err != nil || len(a.Model) != 13 || !a.Model[10] || a.Model[1] {
		t.Errorf("v 10 with 12 variables: %v, %v", a, err)
	}
}

func TestParseAnswerStatus(t *testing.T) {
	for text, want := range map[string]OptStatus{
		"s UNSATISFIABLE\n": OptUnsatisfiable,
		"s UNKNOWN\n":       OptUnknown,
		"o 4\ns UNKNOWN\n":  OptUnknown,
		"unsat\n":           OptUnsatisfiable,
		"timeout\n":         OptUnknown,
		"\nunknown\n":       OptUnknown,
	} {
		a, err := ParseAnswer(strings.NewReader(text), 3)
		if err != nil || a.Status != want || a.Model != nil {
			t.Errorf("%q: %+v, %v", text, a, err)
		}
	}
}

func TestParseAnswerBad(t *testing.T) {
	for text, frag := range map[string]string{
		"v 1 2 0\n":                            "no status line",
		"s OPTIMUM FOUND\n":                    "no model",
		"s SATISFIABLE\ns SATISFIABLE\n":       "line 2: second status",
		"s OPTIMUM FOUND\nv 1 y2 0\n":          `line 2: "y2" is not a literal`,
		"s OPTIMUM FOUND\nv 1 --2 0\n":         `line 2: "--2" is not a literal`,
		"s SOLVED\n":                           "unknown status",
		"s OPTIMUM FOUND\no many\nv 1 0\n":     `line 2: cost "many"`,
		"s OPTIMUM FOUND\nv 1 -0\n":            `"-0" is not a literal`,
		"s OPTIMUM FOUND\no 1\nv 1 -2\n":       "no value to variable 3 of 3",
		"s OPTIMUM FOUND\nv 1 -2 3\nc\nv 1\n":  "no value to variable 2 of 3",
		"s OPTIMUM FOUND\nv 011\nc\nv 01\n":    "no value to variable",
		"sat\n":                                "printed no model (run z3 with -model)",
		"sat\n(define-fun k!1 () Bool\n":       "cut short",
		"sat\n(define-fun y1 () Bool true)\n":  `names a variable "y1"`,
		"sat\n(define-fun k!0 () Bool true)\n": `names a variable "k!0"`,
		"sat\n(define-fun k!1 () Int 3)\n":     `want "Bool"`,
		"sat\n(define-fun k!1 () Bool 1)\n":    `value "1"`,
		"sat\n(define-fun k!1 () Bool true)\n": "no value to variable 2 of 3",
		"sat\n(define-fun k!1 () Bool true)\n(define-fun k!2 () Bool true)\n(define-fun k!3 () Bool true)\n4\n5\n": "a second objective value",
		"sat\n(assert k!1)\n": `unexpected "assert"`,
	} {
		_, err := ParseAnswer(strings.NewReader(text), 3)
		if err == nil || !errors.Is(err, ErrOutput) || !strings.Contains(err.Error(), frag) {
			t.Errorf("%q: error %v, want ErrOutput with %q", text, err, frag)
		}
	}
}

// TestWCNFAndOPBMeanTheClauses writes random clauses and soft literals
// in both classic and 2022 WCNF and in OPB, reads the lines back with a
// small evaluator, and checks on every assignment that the hard part
// holds exactly when the clauses do and that the cost is the same (OPB
// up to the constant of negated soft literals).
func TestWCNFAndOPBMeanTheClauses(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 5
	c := &CNF{NumVars: n}
	for range 8 {
		var cl []Lit
		for range 1 + rng.IntN(3) {
			l := Lit(1 + rng.IntN(n))
			if rng.IntN(2) == 0 {
				l = -l
			}
			cl = append(cl, l)
		}
		c.Add(cl...)
	}
	soft := []WeightedLit{{3, 2}, {-4, 5}, {1, 1}}
	var classic, h22, opb strings.Builder
	if err := c.WriteWCNF(&classic, soft, true); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteWCNF(&h22, soft, false); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteOPB(&opb, soft); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(classic.String(), "p wcnf 5 11 9\n") || strings.Contains(h22.String(), "p wcnf") {
		t.Fatalf("headers:\n%s\n%s", classic.String(), h22.String())
	}
	for mask := range 1 << n {
		m := make([]bool, n+1)
		for v := 1; v <= n; v++ {
			m[v] = mask>>(v-1)&1 == 1
		}
		ok, _ := c.Satisfies(m)
		wantCost := 0
		for _, s := range soft {
			if (m[s.Lit.Var()]) == s.Lit.Sign() {
				wantCost += int(s.Weight)
			}
		}
		for name, text := range map[string]string{"classic": classic.String(), "2022": h22.String()} {
			hard, cost := evalWCNF(t, text, m)
			if hard != ok || (ok && cost != wantCost) {
				t.Errorf("%s, model %v: hard %v cost %d, want %v %d", name, m, hard, cost, ok, wantCost)
			}
		}
		hard, obj := evalOPB(t, opb.String(), m)
		if hard != ok || (ok && obj+5 != wantCost) { // -5·x4 for the soft ¬x4: constant 5
			t.Errorf("opb, model %v: hard %v objective %d, want %v %d", m, hard, obj, ok, wantCost-5)
		}
	}
}

func evalWCNF(t *testing.T, text string, m []bool) (bool, int) {
	top := -1
	hard, cost := true, 0
	for line := range strings.SplitSeq(strings.TrimSpace(text), "\n") {
		f := strings.Fields(line)
		switch {
		case f[0] == "c":
			continue
		case f[0] == "p":
			top, _ = strconv.Atoi(f[4])
			continue
		}
		w := top
		if f[0] != "h" {
			w, _ = strconv.Atoi(f[0])
		}
		sat := false
		for _, s := range f[1 : len(f)-1] {
			x, _ := strconv.Atoi(s)
			if m[abs(x)] == (x > 0) {
				sat = true
			}
		}
		if f[len(f)-1] != "0" {
			t.Fatalf("clause without 0: %q", line)
		}
		if f[0] == "h" || w == top {
			hard = hard && sat
		} else if !sat {
			cost += w
		}
	}
	return hard, cost
}

func evalOPB(t *testing.T, text string, m []bool) (bool, int) {
	hard, obj := true, 0
	for line := range strings.SplitSeq(strings.TrimSpace(text), "\n") {
		if strings.HasPrefix(line, "*") {
			continue
		}
		f := strings.Fields(strings.TrimSuffix(line, ";"))
		sum := func(terms []string) int {
			s := 0
			for i := 0; i+1 < len(terms); i += 2 {
				k, err := strconv.Atoi(terms[i])
				if err != nil || !strings.HasPrefix(terms[i+1], "x") {
					t.Fatalf("bad term %q %q in %q", terms[i], terms[i+1], line)
				}
				v, _ := strconv.Atoi(terms[i+1][1:])
				if m[v] {
					s += k
				}
			}
			return s
		}
		if f[0] == "min:" {
			obj = sum(f[1:])
			continue
		}
		rhs, _ := strconv.Atoi(f[len(f)-1])
		if f[len(f)-2] != ">=" {
			t.Fatalf("not a >= constraint: %q", line)
		}
		hard = hard && sum(f[:len(f)-2]) >= rhs
	}
	return hard, obj
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// FuzzParseAnswer: any text is read or refused with ErrOutput, never a
// panic; a model read gives every variable of the formula a value.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{
		"s OPTIMUM FOUND\no 3\nv 1 -2 3 0\n",
		"s SATISFIABLE\nv 101\n",
		"s OPTIMUM FOUND\nv x1 -x2 ~x3\n",
		"sat\n(define-fun k!1 () Bool\n  true)\n(define-fun k!2 () Bool\n  false)\n(define-fun k!3 () Bool\n  true)\n   3\n",
		"sat\n(model (define-fun x1 () Bool true) (define-fun x2 () Bool false) (define-fun x3 () Bool false))\n0\n",
		"timeout\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		a, err := ParseAnswer(strings.NewReader(text), 3)
		if err != nil {
			if !errors.Is(err, ErrOutput) {
				t.Fatalf("error without ErrOutput: %v", err)
			}
			return
		}
		if a.Model != nil && len(a.Model) < 4 {
			t.Fatalf("a model of %d entries for 3 variables", len(a.Model))
		}
	})
}

// TestParseAnswerFarVariable: a variable the formula does not have is
// passed over, not stored: a model naming variable 2^30 allocates
// nothing (it used to size the model by it), and the formula's own
// variables keep their values.
func TestParseAnswerFarVariable(t *testing.T) {
	a, err := ParseAnswer(strings.NewReader("s OPTIMUM FOUND\no 0\nv 1 -2 1073741824 0\n"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Model) != 3 || !a.Model[1] || a.Model[2] {
		t.Fatalf("model %v, want variables 1 true and 2 false only", a.Model)
	}
}
