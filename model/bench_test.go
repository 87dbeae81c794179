package model

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

// genCSV writes a rows × cols numeric CSV (plus a 0/1 label) whose columns
// hold `distinct` different values each (0 = every value distinct).
func genCSV(rows, cols, distinct int) []byte {
	rng := rand.New(rand.NewPCG(7, 11))
	var b bytes.Buffer
	for j := range cols {
		fmt.Fprintf(&b, "x%d,", j)
	}
	b.WriteString("y\n")
	for range rows {
		for range cols {
			var v float64
			if distinct > 0 {
				v = float64(rng.IntN(distinct)) / 10
			} else {
				v = rng.Float64() * 1000
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(rng.IntN(2)))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// BenchmarkReadBinarize reads and binarizes a 10,000-row, 20-column
// numeric CSV: with continuous columns (about 10,000 distinct values, so
// about 200,000 tests) and with 100 distinct values per column.
func BenchmarkReadBinarize(b *testing.B) {
	for _, distinct := range []int{0, 100} {
		data := genCSV(10000, 20, distinct)
		name := "continuous"
		if distinct > 0 {
			name = fmt.Sprintf("distinct=%d", distinct)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			tests := 0
			for b.Loop() {
				d, err := ReadCSV(bytes.NewReader(data), "bench.csv", ReadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				tests = Binarize(d).NumTests()
			}
			b.ReportMetric(float64(tests), "tests")
		})
	}
}

// BenchmarkSplitCounts measures the DP hot loop: class counts of both
// sides of a test on a row subset (vote-sized data: 435 rows).
func BenchmarkSplitCounts(b *testing.B) {
	d, err := ReadFile("../testdata/vote.txt", ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	v := Binarize(d)
	rows := v.True[0].Clone()
	lo, hi := make([]int, 2), make([]int, 2)
	for b.Loop() {
		for t := range v.NumTests() {
			v.SplitCounts(rows, t, lo, hi)
		}
	}
}
