package main

import "testing"

// cnf2 is x1 ∨ x2, ¬x1 ∨ x2, x1 ∨ ¬x2, ¬x1 ∨ ¬x2; lrat2 refutes it.
const (
	cnf2  = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"
	lrat2 = "5 2 0 1 2 0\n6 0 5 4 3 0\n"
)

// index2 is an index of cnf2 and a proof, with refutation clause id and
// assumptions as.
func index2(proof, id, as string) string {
	return `{"format": "odtkit-lrat-certificate-1", "backend": "sat-depth", "claim": "c", "bound": 1,
 "proofs": [{"formula": "f.cnf", "proof": "` + proof + `", "refutations": [{"certifies": "r", "bound": 1, "assumptions": ` + as + `, "clause": ` + id + `}]}]}`
}

func TestAwkwardCertify(t *testing.T) {
	runAwkward(t, []awkwardCase{
		{name: "certified", args: []string{"certify", "$D/"}, files: map[string]string{"f.cnf": cnf2, "f.lrat": lrat2, "index.json": index2("f.lrat", "6", "[]")},
			code: 0, stdout: []string{"certified:   c", "refutation:  r"}},
		{name: "refutation of assumptions", args: []string{"certify", "$D/"}, files: map[string]string{"f.cnf": cnf2, "f.lrat": lrat2, "index.json": index2("f.lrat", "5", "[-2]")},
			code: 0, stdout: []string{"certified:   c"}},
		{name: "clause outside the assumptions", args: []string{"certify", "$D/"}, files: map[string]string{"f.cnf": cnf2, "f.lrat": lrat2, "index.json": index2("f.lrat", "5", "[2]")},
			code: 1, stderr: []string{"f.lrat: refused: refutation \"r\": clause 5 holds 2, which negates no assumption"}},
		{name: "input clause as refutation", args: []string{"certify", "$D/"}, files: map[string]string{"f.cnf": cnf2, "f.lrat": lrat2, "index.json": index2("f.lrat", "1", "[-1, -2]")},
			code: 1, stderr: []string{"clause 1 is not derived in the proof"}},
		{name: "hint dropped", args: []string{"certify", "$D/"}, files: map[string]string{"f.cnf": cnf2, "f.lrat": "5 2 0 1 2 0\n6 0 5 4 0\n", "index.json": index2("f.lrat", "6", "[]")},
			code: 1, stderr: []string{"f.lrat:2: clause 6: the hints end without a conflict"}},
		{name: "literal changed", args: []string{"certify", "$D/"}, files: map[string]string{"f.cnf": cnf2, "f.lrat": "5 -2 0 1 2 0\n6 0 5 4 3 0\n", "index.json": index2("f.lrat", "6", "[]")},
			code: 1, stderr: []string{"f.lrat:1: clause 5: hint 1 (number 1) is satisfied, not unit"}},
		{name: "no index", args: []string{"certify", "$D/"}, code: 2, stderr: []string{"no certificate (index.json missing)"}},
		{name: "malformed index", args: []string{"certify", "$D/"}, files: map[string]string{"index.json": "{"}, code: 2, stderr: []string{"index.json: unexpected end of JSON input"}},
		{name: "index names a path outside", args: []string{"certify", "$D/"}, files: map[string]string{"index.json": index2("../f.lrat", "6", "[]")},
			code: 2, stderr: []string{`"../f.lrat" is not a file name in the directory`}},
		{name: "proof missing", args: []string{"certify", "$D/"}, files: map[string]string{"f.cnf": cnf2, "index.json": index2("f.lrat", "6", "[]")},
			code: 2, stderr: []string{"f.lrat: no such file or directory"}},
		{name: "certify directory under a file", args: []string{"solve", "--backend", "sat-depth", "--certify", "$D/file/cert", "$T/monk1.csv"}, files: map[string]string{"file": "x"},
			code: 2, stderr: []string{"not a directory"}},
	})
}
