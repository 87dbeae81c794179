package main

import "testing"

// index2 is a certificate index whose proof names proof.
func index2(proof string) string {
	return `{"format": "odtkit-lrat-certificate-2", "odtkit": "x",
 "data": {"file": "d.txt", "bytes": 1, "sha256": "00", "fingerprint": "00"},
 "problem": {"backend": "sat-depth", "problem": {"objective": "min-depth"}, "options": {}},
 "claim": {"objective": "min-depth", "bound": 1}, "statement": "s",
 "proofs": [{"name": "depth0", "formula": "f.cnf", "proof": "` + proof + `", "refutations": [{"bound": 1, "assumptions": [], "clause": 6}]}]}`
}

func TestAwkwardCertify(t *testing.T) {
	runAwkward(t, []awkwardCase{
		{name: "no index", args: []string{"certify", "$D/"}, code: 2, stderr: []string{"no certificate (index.json missing)"}},
		{name: "no directory", args: []string{"certify", "$D/none"}, code: 2, stderr: []string{"none: no such directory"}},
		{name: "a file, not a directory", args: []string{"certify", "$T/iris.csv"}, code: 2, stderr: []string{"iris.csv: not a directory"}},
		{name: "malformed index", args: []string{"certify", "$D/"}, files: map[string]string{"index.json": "{"}, code: 2, stderr: []string{"index.json: unexpected EOF"}},
		{name: "index of the first format", args: []string{"certify", "$D/"}, files: map[string]string{"index.json": `{"format": "odtkit-lrat-certificate-1"}`},
			code: 2, stderr: []string{`format "odtkit-lrat-certificate-1", want "odtkit-lrat-certificate-2"`}},
		{name: "index with a field it does not know", args: []string{"certify", "$D/"}, files: map[string]string{"index.json": `{"format": "odtkit-lrat-certificate-2", "bound": 3}`},
			code: 2, stderr: []string{`unknown field "bound"`}},
		{name: "index names a path outside", args: []string{"certify", "$D/"}, files: map[string]string{"index.json": index2("../f.lrat")},
			code: 2, stderr: []string{`"../f.lrat" is not a file name in the directory`}},
		{name: "data missing", args: []string{"certify", "$D/"}, files: map[string]string{"index.json": index2("f.lrat")},
			code: 2, stderr: []string{"d.txt: no such file or directory"}},
		{name: "data differs", args: []string{"certify", "$D/", "$T/monk1.csv"}, files: map[string]string{"index.json": index2("f.lrat")},
			code: 1, stderr: []string{"the certificate's data d.txt has 1 bytes with SHA-256 00"}},
		{name: "certify directory under a file", args: []string{"solve", "--backend", "sat-depth", "--certify", "$D/file/cert", "$T/monk1.csv"}, files: map[string]string{"file": "x"},
			code: 2, stderr: []string{"not a directory"}},
		{name: "certify directory not empty", args: []string{"solve", "--backend", "sat-depth", "--certify", "$D/", "$T/monk1.csv"}, files: map[string]string{"notes.txt": "x"},
			code: 2, stderr: []string{"holds 1 files and no certificate (index.json)"}},
		{name: "certify directory holds a certificate", args: []string{"solve", "--backend", "sat-depth", "--certify", "$D/", "$T/monk1.csv"}, files: map[string]string{"index.json": index2("f.lrat")},
			code: 2, stderr: []string{"holds a certificate (replace it with --force"}},
		{name: "certify a split", args: []string{"solve", "--backend", "sat-depth", "--certify", "$D/c", "--holdout", "0.3", "$T/monk1.csv"},
			code: 2, stderr: []string{"the data solved is not a data file as read"}},
	})
}
