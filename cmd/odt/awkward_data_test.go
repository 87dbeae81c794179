package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// irisModel is the depth-2 tree odt solve finds on testdata/iris.csv
// (columns 0, 1, 2, 3 and the label y): 2 <= 2.45 → class 0; else
// 3 <= 1.65 → class 1, else class 2. It tests columns 2 and 3 only.
const irisModel = `{"format": "odtkit-graph-1", "kind": "tree", "features": ["0", "1", "2", "3"], "classes": ["0", "1", "2"], "root": 0,
 "nodes": [{"id": 0, "feature": 2, "threshold": 2.45, "low": 1, "high": 2}, {"id": 1, "class": 0, "counts": [50, 0, 0]},
  {"id": 2, "feature": 3, "threshold": 1.65, "low": 3, "high": 4}, {"id": 3, "class": 1, "counts": [0, 48, 4]}, {"id": 4, "class": 2, "counts": [0, 2, 46]}]}`

// colourModel tests a categorical column: colour == blue → yes, else no.
const colourModel = `{"format": "odtkit-graph-1", "kind": "tree", "features": ["size", "colour"], "classes": ["no", "yes"], "root": 0,
 "nodes": [{"id": 0, "feature": 1, "category": "blue", "low": 1, "high": 2}, {"id": 1, "class": 0}, {"id": 2, "class": 1}]}`

// textModel is a model of a text file (features f0, f1): f1 <= 0.5 → a, else b.
const textModel = `{"format": "odtkit-graph-1", "kind": "tree", "features": ["f0", "f1"], "classes": ["a", "b"], "root": 0,
 "nodes": [{"id": 0, "feature": 1, "threshold": 0.5, "low": 1, "high": 2}, {"id": 1, "class": 0}, {"id": 2, "class": 1}]}`

// reorderCSV returns the CSV file at path with its columns in the given
// order (indices into the original header); -1 inserts a row-number
// column named id.
func reorderCSV(t *testing.T, path string, order ...int) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	w := csv.NewWriter(&sb)
	for i, rec := range recs {
		out := make([]string, len(order))
		for j, c := range order {
			switch {
			case c >= 0:
				out[j] = rec[c]
			case i == 0:
				out[j] = "id"
			default:
				out[j] = strings.Repeat("x", i%3) // text: a categorical column
			}
		}
		w.Write(out)
	}
	w.Flush()
	return sb.String()
}

// TestAwkwardData: models applied by feature name, missing values and
// column names, and prediction without labels.
func TestAwkwardData(t *testing.T) {
	iris := filepath.Join("..", "..", "testdata", "iris.csv")
	shuffled := reorderCSV(t, iris, 3, 4, 1, 0, 2)  // 3, y, 1, 0, 2
	extra := reorderCSV(t, iris, -1, 2, 4, 0, 3, 1) // id, 2, y, 0, 3, 1
	// Row 1 of iris is class 0 (petal 1.4, 0.2); row 150 is class 2 (5.1, 1.8).
	twoRows := "3,y,1,0,2\n0.2,0,3.5,5.1,1.4\n1.8,2,3.0,5.9,5.1\n"
	runAwkward(t, []awkwardCase{
		// Models are applied by feature name.
		{name: "eval on columns in another order", args: []string{"eval", "--model", "$D/m.json", "--label", "y", "$D/s.csv"},
			files: map[string]string{"m.json": irisModel, "s.csv": shuffled}, code: 0, stdout: []string{"errors:   6", "accuracy: 0.9600"}},
		{name: "eval with extra columns", args: []string{"eval", "--model", "$D/m.json", "--label", "y", "$D/s.csv"},
			files: map[string]string{"m.json": irisModel, "s.csv": extra}, code: 0, stdout: []string{"errors:   6", "accuracy: 0.9600"}},
		{name: "eval whose default label is a model feature", args: []string{"eval", "--model", "$D/m.json", "$D/s.csv"},
			files: map[string]string{"m.json": irisModel, "s.csv": shuffled}, code: 2, stderr: []string{"s.csv:1", `"2"`, "label column", "--label"}},
		{name: "eval on an unrelated file", args: []string{"eval", "--model", "$D/m.json", "$T/monk1.csv"},
			files: map[string]string{"m.json": irisModel}, code: 2, stderr: []string{"does not fit", "monk1.csv", `"2", "3"`}, absent: []string{"accuracy"}},
		{name: "predict on columns in another order", args: []string{"predict", "--model", "$D/m.json", "$D/two.csv"},
			files: map[string]string{"m.json": irisModel, "two.csv": twoRows}, code: 0, stdout: []string{"0\n2\n"}},
		{name: "predict lacking a tested column", args: []string{"predict", "--model", "$D/m.json", "$D/p.csv"},
			files: map[string]string{"m.json": irisModel, "p.csv": "0,1,2,y\n5.1,3.5,1.4,0\n"}, code: 2, stderr: []string{"p.csv", `"3"`, "does not fit"}},
		{name: "categories matched by name", args: []string{"eval", "--model", "$D/m.json", "$D/c.csv"},
			files: map[string]string{"m.json": colourModel, "c.csv": "colour,size,y\nred,1,no\nblue,2,yes\ngreen,3,no\nblue,4,yes\n"},
			code:  0, stdout: []string{"errors:   0"}},
		{name: "a category that looks numeric is read as the model's category", args: []string{"predict", "--model", "$D/m.json", "$D/c.csv"},
			files: map[string]string{"m.json": colourModel, "c.csv": "colour\n1\n"}, code: 0, stdout: []string{"no\n"}},
		{name: "classes matched by name", args: []string{"eval", "--model", "$D/m.json", "$D/c.csv"},
			files: map[string]string{"m.json": colourModel, "c.csv": "colour,y\nblue,yes\nred,no\nblue,no\n"},
			code:  0, stdout: []string{"errors:   1"}},
		{name: "solve --test with columns in another order", args: []string{"solve", "--depth", "2", "--test", "$D/s.csv", "--label", "y", "$T/iris.csv"},
			files: map[string]string{"s.csv": shuffled}, code: 0, stdout: []string{"test:", "150 rows, 6 errors"}},
		{name: "solve --test lacking a column", args: []string{"solve", "--depth", "2", "--test", "$D/p.csv", "$T/iris.csv"},
			files: map[string]string{"p.csv": "0,1,2,y\n5.1,3.5,1.4,0\n"}, code: 2, stderr: []string{"p.csv", `"3"`}},

		// Missing values and column names.
		{name: "question mark in a numeric column", args: []string{"solve", "$D/q.csv"},
			files: map[string]string{"q.csv": "a,b,y\n1,2,p\n?,3,q\n4,5,p\n"}, code: 2, stderr: []string{"q.csv:3", `"?"`, `column "a"`, "--categorical a"}},
		{name: "empty cell in a numeric column", args: []string{"solve", "$D/q.csv"},
			files: map[string]string{"q.csv": "a,b,y\n1,2,p\n3,,q\n4,5,p\n"}, code: 2, stderr: []string{"q.csv:3", "empty cell", `column "b"`}},
		{name: "missing values in a declared categorical column", args: []string{"solve", "--categorical", "a", "$D/q.csv"},
			files: map[string]string{"q.csv": "a,b,y\n1,2,p\n?,3,q\n4,5,p\n"}, code: 0, stdout: []string{"a == ?"}},
		{name: "empty column name", args: []string{"solve", "$D/q.csv"},
			files: map[string]string{"q.csv": "a,,y\n1,2,p\n3,4,q\n"}, code: 2, stderr: []string{"q.csv:1", "column 2", "no name"}},
		{name: "repeated column name", args: []string{"solve", "$D/q.csv"},
			files: map[string]string{"q.csv": "a,a,y\n1,2,p\n3,4,q\n"}, code: 2, stderr: []string{"q.csv:1", `two columns "a"`}},
		{name: "bad weight names the weight column", args: []string{"solve", "--weight", "w", "$D/q.csv"},
			files: map[string]string{"q.csv": "a,w,y\n1,0,p\n3,1,q\n"}, code: 2, stderr: []string{"q.csv:2", `weight "0" in column "w"`}},
		{name: "categorical on a text file", args: []string{"solve", "--categorical", "0", "$T/vote.txt"}, code: 2, stderr: []string{"CSV files only"}},

		// Prediction without labels, on one row.
		{name: "predict one unlabelled row", args: []string{"predict", "--model", "$D/m.json", "$D/one.csv"},
			files: map[string]string{"m.json": irisModel, "one.csv": "3,2\n0.2,1.4\n"}, code: 0, stdout: []string{"0\n"}},
		{name: "predict rows holding exactly the model's features", args: []string{"predict", "--model", "$D/m.json", "$D/u.csv"},
			files: map[string]string{"m.json": irisModel, "u.csv": "0,1,2,3\n5.1,3.5,1.4,0.2\n5.9,3.0,5.1,1.8\n"}, code: 0, stdout: []string{"0\n2\n"}},
		{name: "predict --proba on one row", args: []string{"predict", "--proba", "--model", "$D/m.json", "$D/one.csv"},
			files: map[string]string{"m.json": irisModel, "one.csv": "2,3\n5.1,1.8\n"}, code: 0, stdout: []string{"0,1,2\n0,0.041666666666666664,0.9583333333333334\n"}},
		{name: "predict with a blank label column", args: []string{"predict", "--model", "$D/m.json", "$D/b.csv"},
			files: map[string]string{"m.json": irisModel, "b.csv": "0,1,2,3,y\n5.1,3.5,1.4,0.2,\n"}, code: 0, stdout: []string{"0\n"}},
		{name: "eval on one row", args: []string{"eval", "--model", "$D/m.json", "$D/one.csv"},
			files: map[string]string{"m.json": irisModel, "one.csv": "2,3,y\n5.1,1.8,2\n"}, code: 0, stdout: []string{"errors:   0", "(1 rows)"}},
		{name: "predict an unlabelled text file", args: []string{"predict", "--model", "$D/m.json", "$D/u.txt"},
			files: map[string]string{"m.json": textModel, "u.txt": "0 1\n1 0\n"}, code: 0, stdout: []string{"b\na\n"}},
		{name: "predict a labelled text file", args: []string{"predict", "--model", "$D/m.json", "$D/l.txt"},
			files: map[string]string{"m.json": textModel, "l.txt": "b 0 1\na 1 0\n"}, code: 0, stdout: []string{"b\na\n"}},
		{name: "predict a text file with too few features", args: []string{"predict", "--model", "$D/m.json", "$D/s.txt"},
			files: map[string]string{"m.json": textModel, "s.txt": "a 1\nb 0\n"}, code: 2, stderr: []string{"s.txt:1", `"f1"`, "does not fit"}},
	})
}

// TestDecodedModelProba: a model decoded from a SAT solver's answer
// records its leaves' class counts from the data, so that predict --proba
// works on it.
func TestDecodedModelProba(t *testing.T) {
	if _, err := exec.LookPath("minisat"); err != nil {
		t.Skip("minisat not installed (apt-get install minisat)")
	}
	data := filepath.Join("..", "..", "testdata", "iris.csv")
	dir := t.TempDir()
	cnf, out, res := filepath.Join(dir, "f.cnf"), filepath.Join(dir, "f.out"), filepath.Join(dir, "res.json")
	flags := []string{"--encoding", "depth", "--depth", "4"} // the minimum depth of a consistent tree on iris
	if _, stderr, code := odt(t, append(append([]string{"export", "--to", "dimacs"}, flags...), data, "-o", cnf)...); code != 0 {
		t.Fatalf("export exit %d: %s", code, stderr)
	}
	if err := exec.Command("minisat", "-verb=0", cnf, out).Run(); err == nil {
		t.Fatal("minisat exit 0; want 10 (satisfiable)")
	} else if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 10 {
		t.Fatalf("minisat: %v", err)
	}
	if _, stderr, code := odt(t, append(append([]string{"decode", "--format", "json", "-o", res}, flags...), data, out)...); code != 0 {
		t.Fatalf("decode exit %d: %s", code, stderr)
	}
	stdout, stderr, code := odt(t, "predict", "--proba", "--model", res, data)
	if code != 0 {
		t.Fatalf("predict --proba on the decoded model: exit %d: %s", code, stderr)
	}
	// The decoded tree classifies every row (a consistent tree), so each
	// row's leaf holds its class only: probability 1 for the row's label.
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 151 || lines[0] != "0,1,2" {
		t.Fatalf("predict --proba printed %d lines, header %q", len(lines), lines[0])
	}
	labels, _, _ := odt(t, "predict", "--model", res, data)
	for i, l := range strings.Split(strings.TrimSpace(labels), "\n") {
		want := map[string]string{"0": "1,0,0", "1": "0,1,0", "2": "0,0,1"}[l]
		if lines[i+1] != want {
			t.Fatalf("row %d predicted %s with probabilities %s, want %s", i+1, l, lines[i+1], want)
		}
	}
	// The counts are in the result's model: they sum to the rows.
	b, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Model struct {
			Nodes []struct {
				Counts []float64 `json:"counts"`
			} `json:"nodes"`
		} `json:"model"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, n := range r.Model.Nodes {
		for _, c := range n.Counts {
			total += c
		}
	}
	if total != 150 {
		t.Errorf("the decoded model's leaf counts sum to %v, want the 150 rows", total)
	}
}
