package dp

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/odtkit/odtkit/model"
)

// blossomShared returns the path of the shared folder (../shared beside
// the repository root), or skips the test when it is absent.
func blossomShared(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Skip("blossom: repository root not found")
		}
		dir = up
	}
	shared := filepath.Join(dir, "..", "shared")
	if _, err := os.Stat(filepath.Join(shared, "reference", "cp4im-optima.tsv")); err != nil {
		t.Skip("blossom: ../shared not present")
	}
	return shared
}

// blossomRefCell is one row of cp4im-optima.tsv.
type blossomRefCell struct {
	name    string
	depth   int
	optimum int
	dl85    float64 // -1 when not numeric
}

func blossomReference(t testing.TB, shared string) []blossomRefCell {
	t.Helper()
	f, err := os.Open(filepath.Join(shared, "reference", "cp4im-optima.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []blossomRefCell
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "dataset") || line == "" {
			continue
		}
		col := strings.Split(line, "\t")
		if len(col) < 8 {
			t.Fatalf("bad reference line %q", line)
		}
		depth, err1 := strconv.Atoi(col[4])
		opt, err2 := strconv.Atoi(col[5])
		if err1 != nil || err2 != nil {
			continue // unknown optimum
		}
		dl, err := strconv.ParseFloat(col[6], 64)
		if err != nil {
			dl = -1
		}
		out = append(out, blossomRefCell{name: col[0], depth: depth, optimum: opt, dl85: dl})
	}
	return out
}

func blossomLoad(t testing.TB, shared, name string) *model.BinaryView {
	t.Helper()
	d, err := model.ReadFile(filepath.Join(shared, "data", "cp4im", name+".txt"), model.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return model.Binarize(d)
}

// blossomCheck runs Blossom and checks its claims against the data.
func blossomCheck(t testing.TB, ctx context.Context, v *model.BinaryView, s BlossomSettings) *BlossomResult {
	t.Helper()
	r, err := Blossom(ctx, v, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Model.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := r.Model.Errors(v.Data); got != r.Errors {
		t.Fatalf("model makes %d errors, claims %d", got, r.Errors)
	}
	if dep := r.Model.Depth(); dep > s.MaxDepth {
		t.Fatalf("model depth %d > %d", dep, s.MaxDepth)
	}
	if r.LowerBound > r.Objective {
		t.Fatalf("lower bound %v above objective %v", r.LowerBound, r.Objective)
	}
	return r
}
