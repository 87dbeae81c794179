package model

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"io"
	"math"
)

// Source records the file a dataset was read from: its path, size and
// SHA-256, the options it was read with, and the dataset's Fingerprint
// as read. A certificate names its data by it; a dataset derived from
// the one read (a split, reweighted rows) keeps the pointer but no
// longer has the recorded fingerprint.
type Source struct {
	Path        string
	Bytes       int64
	SHA256      string
	Options     ReadOptions
	Fingerprint string
}

// Fingerprint is the SHA-256 (hex) of the dataset's content: the
// features (names, kinds, values, levels), the classes, the labels and
// the weights, in order. Two datasets with the same fingerprint are
// solved alike by every backend. Name, Lines and Source are left out.
func (d *Dataset) Fingerprint() string {
	h := sha256.New()
	var buf [8]byte
	num := func(x uint64) {
		binary.LittleEndian.PutUint64(buf[:], x)
		h.Write(buf[:])
	}
	str := func(s string) {
		num(uint64(len(s)))
		io.WriteString(h, s)
	}
	num(uint64(len(d.Features)))
	for _, f := range d.Features {
		str(f.Name)
		num(uint64(f.Kind))
		num(uint64(len(f.Values)))
		for _, v := range f.Values {
			num(math.Float64bits(v))
		}
		num(uint64(len(f.Levels)))
		for _, l := range f.Levels {
			str(l)
		}
	}
	num(uint64(len(d.Classes)))
	for _, c := range d.Classes {
		str(c)
	}
	num(uint64(len(d.Labels)))
	for _, l := range d.Labels {
		num(uint64(l))
	}
	num(uint64(len(d.Weights)))
	for _, w := range d.Weights {
		num(math.Float64bits(w))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// hashReader hashes and counts the bytes read through it.
type hashReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (r *hashReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.h.Write(p[:n])
	r.n += int64(n)
	return n, err
}
