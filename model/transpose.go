package model

import "context"

// Transpose64 transposes a 64×64 bit matrix in place: bit c of word r
// becomes bit r of word c.
func Transpose64(a *[64]uint64) {
	m := uint64(0x00000000FFFFFFFF)
	for j := 32; j != 0; j >>= 1 {
		for k := 0; k < 64; k = (k + j + 1) &^ j {
			t := ((a[k] >> uint(j)) ^ a[k+j]) & m
			a[k] ^= t << uint(j)
			a[k+j] ^= t
		}
		m ^= m << uint(j>>1)
	}
}

// RowMajor turns column bitsets over n rows (cols[t] holds the rows where
// column t is set, (n+63)/64 words each) into one bit row per row:
// rows[r*stride : (r+1)*stride] holds the columns set on row r, with
// stride = (len(cols)+63)/64. It works by 64×64 block transposes, so its
// cost is that of copying the bits, not of visiting them one by one.
func RowMajor(cols [][]uint64, n int) (rows []uint64, stride int) {
	rows, stride, _ = RowMajorContext(context.Background(), cols, n)
	return rows, stride
}

// RowMajorContext is RowMajor under ctx, checked before each block of 64
// columns: on many columns and rows (a numeric file's thresholds) the
// transpose takes seconds. It returns ctx's cause when stopped.
func RowMajorContext(ctx context.Context, cols [][]uint64, n int) (rows []uint64, stride int, err error) {
	stride = (len(cols) + 63) / 64
	rows = make([]uint64, n*stride)
	var blk [64]uint64
	for j := range stride {
		if ctx.Err() != nil {
			return nil, stride, context.Cause(ctx)
		}
		for wi := range (n + 63) / 64 {
			for q := range 64 {
				if t := j*64 + q; t < len(cols) {
					blk[q] = cols[t][wi]
				} else {
					blk[q] = 0
				}
			}
			Transpose64(&blk)
			for q := range min(64, n-wi*64) {
				rows[(wi*64+q)*stride+j] = blk[q]
			}
		}
	}
	return rows, stride, nil
}

// ColumnMajor is the inverse of RowMajor for m columns: it returns m
// column bitsets of (n+63)/64 words from n bit rows of stride words.
func ColumnMajor(rows []uint64, stride, n, m int) [][]uint64 {
	words := (n + 63) / 64
	flat := make([]uint64, m*words)
	cols := make([][]uint64, m)
	for t := range cols {
		cols[t] = flat[t*words : (t+1)*words : (t+1)*words]
	}
	var blk [64]uint64
	for j := range stride {
		for wi := range words {
			for q := range 64 {
				if r := wi*64 + q; r < n {
					blk[q] = rows[r*stride+j]
				} else {
					blk[q] = 0
				}
			}
			Transpose64(&blk)
			for q := range min(64, m-j*64) {
				cols[j*64+q][wi] = blk[q]
			}
		}
	}
	return cols
}
