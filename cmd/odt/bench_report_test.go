package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// benchGrid runs a small real grid over testdata and returns its folder.
func benchGrid(t *testing.T, extra ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "grid")
	args := append([]string{"bench", "--backends", "dl85,blossom,cart", "--depth", "2,3", "--time-limit", "20s", "-q", "--out", dir}, extra...)
	args = append(args, "../../testdata/iris.csv", "../../testdata/vote.txt", "../../testdata/monk1.csv")
	if out, errOut, code := odt(t, args...); code != 0 {
		t.Fatalf("odt bench: exit %d\n%s\n%s", code, out, errOut)
	}
	return dir
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

// TestBenchReportRebuilds: odt bench report on a result folder rebuilds
// the same aggregate and writes LaTeX tables; on shards of it, the same
// aggregate again.
func TestBenchReportRebuilds(t *testing.T) {
	dir := benchGrid(t)
	for _, f := range []string{"aggregate.csv", "aggregate.md", "aggregate.txt", "meta.json", "report.html", "cactus.svg", "profile.svg", "scatter-dl85-blossom.svg", "runs"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("odt bench wrote no %s: %v", f, err)
		}
	}
	first, err := os.ReadFile(filepath.Join(dir, "aggregate.csv"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "again")
	if o, e, code := odt(t, "bench", "report", "--latex", "--out", out, dir); code != 0 {
		t.Fatalf("odt bench report: exit %d\n%s\n%s", code, o, e)
	}
	again, err := os.ReadFile(filepath.Join(out, "aggregate.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, again) {
		t.Errorf("bench report rebuilt another aggregate:\n%s\nvs\n%s", first, again)
	}
	tex, err := os.ReadFile(filepath.Join(out, "aggregate.tex"))
	if err != nil || !bytes.Contains(tex, []byte(`\toprule`)) || !bytes.Contains(tex, []byte("dl85")) {
		t.Errorf("aggregate.tex: %v\n%s", err, tex)
	}
	if _, err := os.Stat(filepath.Join(out, "cells.tex")); err != nil {
		t.Error(err)
	}
	// Every backend has a row per depth and one over all depths, and the
	// virtual best solver closes the table.
	recs := readCSV(t, filepath.Join(dir, "aggregate.csv"))
	rows := map[string]bool{}
	for _, r := range recs[1:] {
		rows[r[0]+"/"+r[1]] = true
	}
	for _, b := range []string{"dl85", "blossom", "cart", "VBS"} {
		for _, d := range []string{"2", "3", "all"} {
			if !rows[b+"/"+d] {
				t.Errorf("aggregate.csv has no row %s depth %s", b, d)
			}
		}
	}
	if o, e, code := odt(t, "bench", "report", filepath.Join(t.TempDir(), "none")); code != 2 || !strings.Contains(e, "none") {
		t.Errorf("report of a missing folder: exit %d\n%s\n%s", code, o, e)
	}
}

// TestBenchReportHTMLInChromium opens report.html in headless Chromium:
// the page renders (a screenshot with content), its tables and every
// picture are in the rendered DOM, and the page makes no request. The
// browser reaches everything through a proxy that serves the page itself
// as http://report.test/report.html and counts every other request made
// for the page (to that host, or with the page as referrer); the
// browser's own background requests are refused and not counted.
func TestBenchReportHTMLInChromium(t *testing.T) {
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no Chromium on the PATH: skipped (apt-get install chromium)")
	}
	// The grid of the picture in the docs: dl85, blossom and sat-depth
	// over inferdt data when ../shared is present, testdata otherwise.
	data := []string{"../../testdata/iris.csv", "../../testdata/monk1.csv"}
	if _, err := os.Stat("../../../shared/data/inferdt/zoo.csv"); err == nil {
		data = []string{"../../../shared/data/inferdt/iris.csv", "../../../shared/data/inferdt/zoo.csv", "../../../shared/data/inferdt/monk1.csv"}
	} else {
		t.Log("../shared is absent: the report is of testdata (iris, monk1)")
	}
	dir := filepath.Join(t.TempDir(), "grid")
	if o, e, code := odt(t, append([]string{"bench", "--backends", "dl85,blossom,sat-depth", "--time-limit", "60s", "-q", "--out", dir}, data...)...); code != 0 {
		t.Fatalf("odt bench: exit %d\n%s\n%s", code, o, e)
	}
	page := filepath.Join(dir, "report.html")
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{`src="http`, `href="http`, `src="//`, `href="//`, "url(http", "@import"} {
		if bytes.Contains(html, []byte(bad)) {
			t.Errorf("report.html refers to the network: %q", bad)
		}
	}
	const origin = "http://report.test"
	var requests atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Host == "report.test" && r.URL.Path == "/report.html" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(html)
			return
		}
		if r.URL.Host == "report.test" || r.Host == "report.test" || strings.HasPrefix(r.Referer(), origin) {
			requests.Add(1)
			t.Logf("the page requested %s %s", r.Method, r.URL)
		}
		http.Error(w, "no network in this test", http.StatusForbidden)
	}))
	defer proxy.Close()
	profile := t.TempDir()
	common := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
		"--user-data-dir=" + profile, "--proxy-server=" + proxy.URL, "--proxy-bypass-list=<-loopback>"}
	run := func(args ...string) []byte {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, browser, append(common, args...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
		}
		return out.Bytes()
	}
	url := origin + "/report.html"
	dom := string(run("--dump-dom", url))
	for _, want := range []string{`id="aggregate"`, `id="cells"`, `id="instances"`, "VBS", "sat-depth", "cactus", "profile", "scatter-dl85-blossom", "scatter-dl85-sat-depth", "anytime-"} {
		if !strings.Contains(dom, want) {
			t.Errorf("rendered page lacks %q", want)
		}
	}
	if n := strings.Count(dom, "<svg"); n < 4 {
		t.Errorf("rendered page has %d inline pictures, want the cactus, profile, scatter and anytime ones", n)
	}
	shot := filepath.Join(t.TempDir(), "report.png")
	run("--window-size=1280,2400", "--screenshot="+shot, url)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// A rendered page is not blank: count pixels that are not white.
	b, dark := img.Bounds(), 0
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r+g+bl < 3*0xc000 {
				dark++
			}
		}
	}
	if total := (b.Dx() / 4) * (b.Dy() / 4); dark < total/100 {
		t.Errorf("screenshot is nearly blank: %d of %d sampled pixels drawn", dark, total)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("the page made %d network request(s)", n)
	}
}

// TestBenchMixedObjectivesAndConfigs: a grid of min-depth, min-size and
// error backends runs without failed runs or cross-check errors (each
// objective is checked within itself; a depth-capped min-depth search
// that proves no consistent tree exists is a proven answer); two named
// configurations of one backend are two rows, which survive a merge of
// shards, and a merge of two folders that ran one cell with different
// options is refused.
func TestBenchMixedObjectivesAndConfigs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mixed")
	data := []string{"../../testdata/iris.csv", "../../testdata/monk1.csv"}
	grid := []string{"bench", "--backends", "sat-depth,sat-size,dl85", "--config", "descend=sat-size:size-search=descend",
		"--config", "bisect=sat-size:size-search=bisect", "--depth", "3", "--time-limit", "60s", "-q"}
	out, errOut, code := odt(t, append(append(grid, "--out", dir), data...)...)
	if code != 0 || strings.Contains(out+errOut, "CROSS-CHECK") || strings.Contains(out, "failed runs") {
		t.Fatalf("mixed grid: exit %d\n%s\n%s", code, out, errOut)
	}
	recs := readCSV(t, filepath.Join(dir, "summary.csv"))
	head := strings.Join(recs[0], ",")
	if !strings.Contains(head, "problem") {
		t.Errorf("a grid mixing objectives has no problem column: %s", head)
	}
	series := map[string]string{}
	for _, r := range recs[1:] {
		series[r[2]] = r[3]
	}
	for name, obj := range map[string]string{"sat-depth": "min-depth", "sat-size": "min-size", "descend": "min-size", "bisect": "min-size", "dl85": "error"} {
		if series[name] != obj {
			t.Errorf("row %s solves %q, want %q (rows %v)", name, series[name], obj, series)
		}
	}
	// The runs record their configuration, options and command.
	runs, err := os.ReadFile(filepath.Join(dir, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"config":"bisect"`, `"options":["size-search=bisect"]`, `"objective_name":"min-depth"`, `"command":["solve"`} {
		if !strings.Contains(string(runs), want) {
			t.Errorf("runs.jsonl lacks %s", want)
		}
	}
	// Shards of the grid, merged, list the same rows.
	var shards []string
	for i := 1; i <= 2; i++ {
		d := filepath.Join(t.TempDir(), "shard")
		if o, e, code := odt(t, append(append(grid, "--shard", strconv.Itoa(i)+"/2", "--out", d), data...)...); code != 0 {
			t.Fatalf("shard %d: exit %d\n%s\n%s", i, code, o, e)
		}
		shards = append(shards, d)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	if o, e, code := odt(t, append([]string{"bench", "merge", "--out", merged}, shards...)...); code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, o, e)
	}
	rows := func(p string) []string {
		var out []string
		for _, r := range readCSV(t, p)[1:] {
			out = append(out, strings.Join(r[:6], ","))
		}
		return out
	}
	if a, b := rows(filepath.Join(dir, "summary.csv")), rows(filepath.Join(merged, "summary.csv")); strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("merged shards list other rows:\n%s\nvs\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	// The same cell run with other options cannot be merged into one row.
	other := filepath.Join(t.TempDir(), "other")
	if o, e, code := odt(t, "bench", "--backends", "sat-size", "--depth", "3", "--opt", "size-search=bisect", "-q", "--out", other, data[0]); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, o, e)
	}
	plain := filepath.Join(t.TempDir(), "plain")
	if o, e, code := odt(t, "bench", "--backends", "sat-size", "--depth", "3", "-q", "--out", plain, data[0]); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, o, e)
	}
	_, e, code := odt(t, "bench", "merge", "--out", filepath.Join(t.TempDir(), "m"), plain, other)
	if code != 2 || !strings.Contains(e, "different options") || !strings.Contains(e, "--config") {
		t.Errorf("merging two variants of one cell: exit %d\n%s", code, e)
	}
}

// TestExportInstanceFamily: several data files and depths write one file
// each, with deterministic names, and index.csv whose sizes match the
// files' own headers and whose decode commands name the data; a failure
// part way leaves no file of the family.
func TestExportInstanceFamily(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "family")
	data := []string{"../../testdata/iris.csv", "../../testdata/monk1.csv"}
	if o, e, code := odt(t, append([]string{"export", "--to", "dimacs", "--backend", "sat-depth", "--depth", "2,3", "-o", dir}, data...)...); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, o, e)
	}
	recs := readCSV(t, filepath.Join(dir, "index.csv"))
	if len(recs) != 5 {
		t.Fatalf("index.csv has %d rows, want a header and 4:\n%v", len(recs), recs)
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 5 {
		t.Errorf("folder holds %d files, want 4 and index.csv", len(files))
	}
	for _, r := range recs[1:] {
		ds, depth, file := r[0], r[1], r[4]
		if want := strings.TrimSuffix(filepath.Base(ds), ".csv") + "-sat-depth-d" + depth + ".cnf"; file != want {
			t.Errorf("file %s, want %s", file, want)
		}
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		var header string
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "p cnf ") {
				header = line
				break
			}
		}
		if header != "p cnf "+r[5]+" "+r[6] {
			t.Errorf("%s: index sizes %s %s, header %q", file, r[5], r[6], header)
		}
		if !strings.HasPrefix(r[8], "odt decode --backend sat-depth --depth "+depth+" ") || !strings.Contains(r[8], " "+ds+" ") {
			t.Errorf("%s: decode command %q", file, r[8])
		}
	}
	// The second file's rows conflict (one test vector, two labels), which
	// sat-depth refuses after the first file's instances are written.
	bad := filepath.Join(t.TempDir(), "conflict.csv")
	if err := os.WriteFile(bad, []byte("a,b,y\n0,1,x\n0,1,z\n1,0,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "failed")
	_, e, code := odt(t, "export", "--to", "dimacs", "--backend", "sat-depth", "--depth", "2,3", "-o", out, data[0], bad)
	if code == 0 {
		t.Fatalf("an export of conflicting rows succeeded:\n%s", e)
	}
	left, _ := os.ReadDir(out)
	for _, f := range left {
		t.Errorf("a failed export left %s", f.Name())
	}
}

// TestBenchOneFormulationOnMILPSolvers: named configurations run
// milp-flowoct on CBC and GLPK by command line beside dl85, trusting
// their optimality claims; the proven optima agree (no cross-check error), each configuration is a row, and
// meta.json names the solvers' versions.
func TestBenchOneFormulationOnMILPSolvers(t *testing.T) {
	for _, p := range []string{"cbc", "glpsol"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed: skipped (apt-get install coinor-cbc glpk-utils)", p)
		}
	}
	dir := filepath.Join(t.TempDir(), "milp")
	out, errOut, code := odt(t, "bench", "-q", "--depth", "2", "--time-limit", "60s", "--backends", "dl85",
		"--config", "cbc=milp-flowoct:trust-solver=true,milp-solver=external:cbc {in} solve solution {out}",
		"--config", "glpk=milp-flowoct:trust-solver=true,milp-solver=external:glpsol --lp {in.lp} -w {out}",
		"--out", dir, "../../testdata/iris.csv")
	if code != 0 || strings.Contains(out+errOut, "CROSS-CHECK") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	proven := map[string]string{}
	for _, r := range readCSV(t, filepath.Join(dir, "summary.csv"))[1:] {
		if r[5] == "1/1" {
			proven[r[2]] = r[3]
		}
	}
	if len(proven) != 3 || proven["cbc"] != proven["dl85"] || proven["glpk"] != proven["dl85"] {
		t.Errorf("proven objectives %v: want dl85, cbc and glpk, all equal", proven)
	}
	meta, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil || !strings.Contains(string(meta), `"cbc": "Version`) || !strings.Contains(string(meta), `"glpsol": "GLPSOL`) {
		t.Errorf("meta.json does not name the solvers' versions: %v\n%s", err, meta)
	}
}

// TestBenchReportLaTeX: odt bench report --latex writes the wide
// per-instance table, the aggregate and the per-cell table as LaTeX with
// readable headers and every picture also as PDF; where pdflatex is
// installed, a document holding them compiles.
func TestBenchReportLaTeX(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "grid")
	if o, e, code := odt(t, "bench", "-q", "--backends", "dl85,cart,blossom", "--depth", "1,2", "--time-limit", "20s", "-o", dir,
		"../../testdata/iris.csv", "../../testdata/vote.txt"); code != 0 {
		t.Fatalf("bench: exit %d\n%s\n%s", code, o, e)
	}
	out := filepath.Join(t.TempDir(), "paper")
	if o, e, code := odt(t, "bench", "report", "--latex", "-o", out, dir); code != 0 {
		t.Fatalf("report --latex: exit %d\n%s\n%s", code, o, e)
	}
	wide, err := os.ReadFile(filepath.Join(out, "instances.tex"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`\multicolumn{4}{c}{dl85}`, `\cmidrule(lr){3-6}`, "{Obj.}", "{Bound}", "{Time (s)}", "S[table-format=", "\nvote & 2 & "} {
		if !strings.Contains(string(wide), want) {
			t.Errorf("instances.tex lacks %q:\n%s", want, wide)
		}
	}
	for _, f := range []string{"aggregate.tex", "cells.tex", "instances.tex"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range []string{`par2\_s`, `sgm\_s`, `primal\_integral`, `solved\_only`, `peak\_mb`, `wall\_s`} {
			if strings.Contains(string(b), raw) {
				t.Errorf("%s has the raw identifier %s", f, raw)
			}
		}
	}
	recs := readCSV(t, filepath.Join(out, "instances.csv"))
	if len(recs) != 5 || len(recs[0]) != 2+3*4 {
		t.Errorf("instances.csv: %d rows of %d columns, want a header and 4 instances, 14 columns", len(recs), len(recs[0]))
	}
	pdfs, _ := filepath.Glob(filepath.Join(out, "*.pdf"))
	var names []string
	for _, p := range pdfs {
		names = append(names, filepath.Base(p))
		b, err := os.ReadFile(p)
		if err != nil || !bytes.HasPrefix(b, []byte("%PDF-")) {
			t.Errorf("%s is not a PDF file (%v)", p, err)
		}
	}
	for _, want := range []string{"cactus.pdf", "profile.pdf", "scatter-dl85-cart.pdf", "anytime-vote-d2.pdf"} {
		if !slices.Contains(names, want) {
			t.Errorf("report --latex wrote no %s (PDFs: %v)", want, names)
		}
	}
	pdflatex, err := exec.LookPath("pdflatex")
	if err != nil {
		t.Skip("pdflatex is not installed: the LaTeX was not compiled (apt-get install texlive-latex-recommended texlive-science)")
	}
	doc := "\\documentclass{article}\n\\usepackage[margin=1cm,landscape]{geometry}\n\\usepackage{booktabs,siunitx,graphicx}\n\\begin{document}\n" +
		"\\input{aggregate.tex}\n\\input{cells.tex}\n\\input{instances.tex}\n" +
		"\\includegraphics[width=0.45\\textwidth]{cactus.pdf}\n\\includegraphics[width=0.45\\textwidth]{scatter-dl85-cart.pdf}\n\\end{document}\n"
	if err := os.WriteFile(filepath.Join(out, "paper.tex"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, pdflatex, "-interaction=nonstopmode", "-halt-on-error", "paper.tex")
	cmd.Dir = out
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pdflatex: %v\n%s", err, b)
	}
	if st, err := os.Stat(filepath.Join(out, "paper.pdf")); err != nil || st.Size() == 0 {
		t.Errorf("pdflatex wrote no paper.pdf: %v", err)
	}
}
