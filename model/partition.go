package model

import "context"

// Partition tells the rows of the view apart by their values on the
// given tests, one test at a time: part[r] is row r's part (rows with
// equal values on every test share one), n the number of parts, numbered
// in no particular order. check (when not nil) sees the number of parts
// each time it grows — a lower bound on the final number — and an error
// from it stops the partition and is returned as it is. The work is at
// most rows × tests and ends early once every row is apart; ctx is
// polled as it goes (the error is then ctx's cause).
func (v *BinaryView) Partition(ctx context.Context, tests []int, check func(parts int) error) (part []int32, n int, err error) {
	rows := v.N
	part = make([]int32, rows)
	if rows == 0 {
		return part, 0, nil
	}
	n = 1
	next := make([]int32, 0, 2)
	every := max(1, (1<<18)/rows) // poll ctx about every 2^18 rows visited
	for i, t := range tests {
		if i%every == 0 && ctx.Err() != nil {
			return nil, 0, context.Cause(ctx)
		}
		if n == rows {
			break // every row is apart: no test splits a part
		}
		next = next[:0]
		for range 2 * n {
			next = append(next, -1)
		}
		parts := int32(0)
		bits := v.True[t]
		for r := range rows {
			k := part[r]<<1 | int32(bits[r>>6]>>(uint(r)&63)&1)
			if next[k] < 0 {
				next[k] = parts
				parts++
			}
			part[r] = next[k]
		}
		if int(parts) > n {
			n = int(parts)
			if check != nil {
				if err := check(n); err != nil {
					return nil, 0, err
				}
			}
		}
	}
	return part, n, nil
}

// Groups is Partition with the parts numbered by their first row: group[r]
// is row r's group, reps[g] the first row of group g (so reps ascend).
func (v *BinaryView) Groups(ctx context.Context, tests []int, check func(parts int) error) (group []int32, reps []int, err error) {
	part, n, err := v.Partition(ctx, tests, check)
	if err != nil {
		return nil, nil, err
	}
	index := make([]int32, n)
	for i := range index {
		index[i] = -1
	}
	for r := range v.N {
		g := index[part[r]]
		if g < 0 {
			g = int32(len(reps))
			index[part[r]] = g
			reps = append(reps, r)
		}
		part[r] = g
	}
	return part, reps, nil
}
