// Package modeltest makes seeded synthetic datasets for tests and
// benchmarks of odtkit's scale limits: many rows of random numeric
// columns (nearly every value distinct, so the exact binary view has a
// test per row and column) and wide binary tables.
package modeltest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"sync/atomic"

	"github.com/odtkit/odtkit/model"
)

// Numeric returns rows × cols uniform random values in [0, 1) with two
// classes: class 1 when (x0 > 0.5) differs from (x1 > 0.3), flipped on
// one row in ten, so that a depth-2 tree explains most of it. The same
// seed gives the same data.
func Numeric(rows, cols int, seed uint64) *model.Dataset {
	rng := rand.New(rand.NewPCG(seed, 0x6f6474))
	d := &model.Dataset{Name: fmt.Sprintf("numeric-%dx%d-seed%d", rows, cols, seed),
		Classes: []string{"0", "1"}, Labels: make([]int, rows)}
	for c := range cols {
		f := model.Feature{Name: "x" + strconv.Itoa(c), Values: make([]float64, rows)}
		for r := range f.Values {
			// 1e-6 steps: values repeat on large files, as rounded data do.
			f.Values[r] = float64(rng.IntN(1_000_000)) / 1e6
		}
		d.Features = append(d.Features, f)
	}
	for r := range d.Labels {
		a := cols > 0 && d.Features[0].Values[r] > 0.5
		b := cols > 1 && d.Features[1].Values[r] > 0.3
		if a != b {
			d.Labels[r] = 1
		}
		if rng.IntN(10) == 0 {
			d.Labels[r] ^= 1
		}
	}
	return d
}

// Binary returns rows × cols random 0/1 columns with two random classes.
func Binary(rows, cols int, seed uint64) *model.Dataset {
	rng := rand.New(rand.NewPCG(seed, 0x62696e))
	d := &model.Dataset{Name: fmt.Sprintf("binary-%dx%d-seed%d", rows, cols, seed),
		Classes: []string{"0", "1"}, Labels: make([]int, rows)}
	for c := range cols {
		f := model.Feature{Name: "b" + strconv.Itoa(c), Values: make([]float64, rows)}
		for r := range f.Values {
			f.Values[r] = float64(rng.IntN(2))
		}
		d.Features = append(d.Features, f)
	}
	for r := range d.Labels {
		d.Labels[r] = rng.IntN(2)
	}
	return d
}

// WriteCSV writes d as a CSV file with a header and the label last, the
// form odt reads by default.
func WriteCSV(w io.Writer, d *model.Dataset) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	for _, f := range d.Features {
		bw.WriteString(f.Name)
		bw.WriteByte(',')
	}
	bw.WriteString("label\n")
	buf := make([]byte, 0, 32)
	for r := range d.Rows() {
		for _, f := range d.Features {
			buf = strconv.AppendFloat(buf[:0], f.Values[r], 'g', -1, 64)
			bw.Write(buf)
			bw.WriteByte(',')
		}
		bw.WriteString(d.Classes[d.Labels[r]])
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("modeltest: writing %s: %w", d.Name, err)
	}
	return nil
}

// Columns returns the bitsets of v's tests as plain word slices, the
// form the engines take.
func Columns(v *model.BinaryView) [][]uint64 {
	cols := make([][]uint64, len(v.True))
	for k, b := range v.True {
		cols[k] = b
	}
	return cols
}

// StopAfter returns a context whose Err reports context.Canceled from
// its (n+1)-th call on: a deterministic way to stop a search at every
// point where it looks at its context. It is safe for concurrent use
// (parallel searches stop after n looks by all their workers together).
func StopAfter(n int) context.Context {
	c := &countdown{Context: context.Background()}
	c.left.Store(int64(n))
	return c
}

type countdown struct {
	context.Context
	left atomic.Int64
}

func (c *countdown) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}
