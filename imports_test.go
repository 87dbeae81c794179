package odtkit_test

import (
	"go/build"
	"os"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/odtkit/odtkit"

// families groups the formulation packages under encode/: a package of
// one family imports no package of another (they share only model,
// backend, the solver layers and dp/cart's greedy incumbent).
var families = map[string]string{
	"encode/avellaneda": "sat",
	"encode/dt1":        "sat",
	"encode/satodt":     "sat",
	"encode/satodd":     "sat",
	"encode/maxsat":     "sat",
	"encode/satjob":     "sat",
	"encode/odd":        "milp",
	"encode/flowoct":    "milp",
	"encode/milpjob":    "milp",
	"encode/oct":        "milp",
	"encode/binoct":     "milp",
	"encode/cpodt":      "cp",
}

// jobLayers are the packages of a family that its formulations share.
var jobLayers = map[string]bool{"encode/satjob": true, "encode/maxsat": true, "encode/milpjob": true}

// moduleImports are the packages of this module that the package rel
// (a path relative to the module) imports directly, in the default
// build and with -tags highs, tests left out.
func moduleImports(t *testing.T, rel string) []string {
	t.Helper()
	var out []string
	for _, tags := range [][]string{nil, {"highs"}} {
		ctx := build.Default
		ctx.BuildTags = tags
		p, err := ctx.ImportDir(rel, 0)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		for _, imp := range p.Imports {
			if r, ok := strings.CutPrefix(imp, module+"/"); ok && !slices.Contains(out, r) {
				out = append(out, r)
			} else if imp == module && !slices.Contains(out, ".") {
				out = append(out, ".")
			}
		}
	}
	return out
}

// deps are the packages of this module that rel depends on, directly or
// not.
func deps(t *testing.T, rel string) []string {
	t.Helper()
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		for _, q := range moduleImports(t, p) {
			if !seen[q] {
				seen[q] = true
				walk(q)
			}
		}
	}
	walk(rel)
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// under reports whether the package p is dir or below it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// TestImportRules keeps the dependency rules of docs/architecture.md true.
func TestImportRules(t *testing.T) {
	// milp and sat are generic solver layers: no models, no backends.
	for _, layer := range []string{"milp", "sat"} {
		for _, d := range deps(t, layer) {
			if d == "model" || d == "backend" {
				t.Errorf("%s depends on %s", layer, d)
			}
		}
	}
	// The formulation families are kept apart.
	dirs, err := os.ReadDir("encode")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range dirs {
		if _, ok := families["encode/"+e.Name()]; e.IsDir() && !ok {
			t.Errorf("encode/%s has no family in the test's table", e.Name())
		}
	}
	for pkg, fam := range families {
		for _, d := range deps(t, pkg) {
			if !under(d, "encode") {
				continue
			}
			if f, ok := families[d]; !ok {
				t.Errorf("%s depends on %s, which has no family in the test's table", pkg, d)
			} else if f != fam {
				t.Errorf("%s (%s family) depends on %s (%s family)", pkg, fam, d, f)
			}
		}
	}
	// Within a family the formulation packages are siblings: each stands
	// on its family's job layer and imports no other formulation.
	for pkg := range families {
		if jobLayers[pkg] {
			continue
		}
		for _, d := range deps(t, pkg) {
			if _, ok := families[d]; ok && !jobLayers[d] {
				t.Errorf("formulation %s depends on formulation %s; what siblings share belongs in their job layer", pkg, d)
			}
		}
	}
	// The command goes through the registry (the module root), never a
	// solver package.
	for _, d := range moduleImports(t, "cmd/odt") {
		if under(d, "sat") || under(d, "milp") {
			t.Errorf("cmd/odt imports %s", d)
		}
	}
	// learn is built on the model layer only.
	if got := moduleImports(t, "learn"); !slices.Equal(got, []string{"model"}) {
		t.Errorf("learn imports %v of this module, want [model]", got)
	}
	for _, d := range deps(t, "learn") {
		if d != "model" && !under(d, "internal") {
			t.Errorf("learn depends on %s", d)
		}
	}
}
