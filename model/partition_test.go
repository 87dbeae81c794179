package model_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/odtkit/odtkit/model"
)

// Partition puts two rows in one part exactly when they agree on every
// test given, on random binary data of many duplicate rows.
func TestPartition(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, rows := range []int{1, 7, 64, 65, 300} {
		d := &model.Dataset{Name: "p", Classes: []string{"a", "b"}, Labels: make([]int, rows)}
		for j := range 5 {
			f := model.Feature{Name: fmt.Sprint("x", j), Values: make([]float64, rows)}
			for r := range rows {
				f.Values[r] = float64(rng.IntN(3))
			}
			d.Features = append(d.Features, f)
		}
		v := model.Binarize(d)
		tests := []int{}
		for t := 0; t < len(v.Tests); t += 2 {
			tests = append(tests, t)
		}
		part, n, err := v.Partition(context.Background(), tests, nil)
		if err != nil {
			t.Fatal(err)
		}
		keys := map[string]int32{}
		for r := range rows {
			key := ""
			for _, t := range tests {
				key += fmt.Sprint(v.Value(t, r))
			}
			if p, ok := keys[key]; ok && p != part[r] {
				t.Fatalf("%d rows: row %d agrees with an earlier row on every test but is in part %d, not %d", rows, r, part[r], p)
			}
			keys[key] = part[r]
		}
		if n != len(keys) {
			t.Fatalf("%d rows: %d parts, %d distinct rows on the tests", rows, n, len(keys))
		}
	}
}

// check's error stops Partition as soon as the parts pass its bound, and
// a cancelled context stops it with the context's cause.
func TestPartitionStops(t *testing.T) {
	d := &model.Dataset{Name: "p", Classes: []string{"a"}, Labels: make([]int, 256)}
	for j := range 8 {
		f := model.Feature{Name: fmt.Sprint("x", j), Values: make([]float64, 256)}
		for r := range 256 {
			f.Values[r] = float64(r >> j & 1)
		}
		d.Features = append(d.Features, f)
	}
	v := model.Binarize(d)
	tests := make([]int, len(v.Tests))
	for i := range tests {
		tests[i] = i
	}
	stop := errors.New("too many parts")
	seen := 0
	_, _, err := v.Partition(context.Background(), tests, func(parts int) error {
		seen = parts
		if parts > 8 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || seen != 16 {
		t.Fatalf("stopped with %v after seeing %d parts, want the check's error at 16", err, seen)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("stop now")
	cancel(cause)
	if _, _, err := v.Partition(ctx, tests, nil); !errors.Is(err, cause) {
		t.Fatalf("cancelled: %v, want the cause", err)
	}
}

// Groups numbers Partition's parts by their first row: a row starts a
// new group exactly when no earlier row agrees with it on every test,
// and that row is the group's representative.
func TestGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rows := 200
	d := &model.Dataset{Name: "g", Classes: []string{"a", "b"}, Labels: make([]int, rows)}
	for j := range 4 {
		f := model.Feature{Name: fmt.Sprint("x", j), Values: make([]float64, rows)}
		for r := range rows {
			f.Values[r] = float64(rng.IntN(2))
		}
		d.Features = append(d.Features, f)
	}
	v := model.Binarize(d)
	tests := []int{0, 1, 2, 3}
	group, reps, err := v.Groups(context.Background(), tests, nil)
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]int{}
	for r := range rows {
		key := ""
		for _, t := range tests {
			key += fmt.Sprint(v.Value(t, r))
		}
		if _, ok := first[key]; !ok {
			first[key] = len(first)
		}
		if g := int(group[r]); g != first[key] {
			t.Fatalf("row %d is in group %d, want %d (groups numbered by first row)", r, g, first[key])
		}
	}
	if len(reps) != len(first) {
		t.Fatalf("%d representatives, %d distinct rows", len(reps), len(first))
	}
	for g, r := range reps {
		if int(group[r]) != g || g > 0 && reps[g-1] >= r {
			t.Fatalf("representative %d of group %d: group %d, previous %v", r, g, group[r], reps[:g])
		}
	}
}
