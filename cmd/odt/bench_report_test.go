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
	dir := benchGrid(t)
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
	for _, want := range []string{`id="aggregate"`, `id="cells"`, "VBS", "cactus", "profile", "scatter-dl85-blossom", "anytime-"} {
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
