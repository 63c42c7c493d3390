package executor

// Radix sort for Sort's leading key when it is an integer, date or
// timestamp column: an LSD radix sort of (key, row) pairs, which is
// stable, so its result is exactly that of the comparison sort it
// replaces (ties keep input order), at a few linear passes instead of
// n log n comparisons through closures. Bytes on which all keys agree
// cost no pass, so keys of a small range (a GROUP BY key, a date) sort in
// one or two passes. NULLs are placed first or last as the key says,
// also in input order. Further keys break ties within each run of equal
// leading keys with the comparison sort.

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// radixSortable reports whether the key can be radix sorted.
func radixSortable(t types.T) bool {
	switch t.ID {
	case types.Int2, types.Int4, types.Int8, types.Date, types.Timestamp, types.TimestampTZ:
		return true
	}
	return false
}

// radixOrder returns the rows of arr in the order of key k, stably, and
// the sortable form of each row's key in that order (nil for a NULL row),
// which lets the caller find runs of equal keys.
func radixOrder(arr arrow.Array, k nodes.SortKey, in *interrupter) (order []int32, sorted []uint64, nullAt int, nulls int) {
	n := arr.Len()
	keys := make([]uint64, 0, n)
	rows := make([]int32, 0, n)
	valid := validity(arr)
	var nullRows []int32
	add := func(i int, v int64) {
		if !isValid(valid, i) {
			nullRows = append(nullRows, int32(i))
			return
		}
		u := uint64(v) ^ (1 << 63) // signed order as unsigned order
		if k.Desc {
			u = ^u
		}
		keys = append(keys, u)
		rows = append(rows, int32(i))
	}
	switch k.Expr.Type().ID {
	case types.Int2:
		vals := valuesOf[int16](arr)
		in.chunks(len(vals), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				add(i, int64(vals[i]))
			}
		})
	case types.Int4, types.Date:
		vals := valuesOf[int32](arr)
		in.chunks(len(vals), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				add(i, int64(vals[i]))
			}
		})
	default:
		vals := valuesOf[int64](arr)
		in.chunks(len(vals), func(lo, hi int) {
			for i := lo; i < hi; i++ {
				add(i, vals[i])
			}
		})
	}
	keys, rows = radixSortPairs(keys, rows, in)
	// NULLs sort after every value for ASC unless NULLS FIRST, before
	// them for DESC unless NULLS LAST: k.NullsFirst says which.
	if k.NullsFirst {
		order = append(nullRows, rows...)
		return order, keys, 0, len(nullRows)
	}
	order = append(rows, nullRows...)
	return order, keys, len(rows), len(nullRows)
}

// radixSortPairs sorts keys ascending, moving rows along, stably: one
// counting pass and one scatter pass per byte on which the keys differ.
func radixSortPairs(keys []uint64, rows []int32, in *interrupter) ([]uint64, []int32) {
	n := len(keys)
	if n < 2 {
		return keys, rows
	}
	var differ uint64
	for _, k := range keys {
		differ |= k ^ keys[0]
	}
	var tmpKeys []uint64
	var tmpRows []int32
	for shift := uint(0); shift < 64; shift += 8 {
		if byte(differ>>shift) == 0 {
			continue // every key has the same byte here
		}
		if tmpKeys == nil {
			tmpKeys, tmpRows = make([]uint64, n), make([]int32, n)
		}
		var offsets [256]int
		in.chunks(n, func(lo, hi int) {
			for _, k := range keys[lo:hi] {
				offsets[byte(k>>shift)]++
			}
		})
		sum := 0
		for d, c := range offsets {
			offsets[d] = sum
			sum += c
		}
		in.chunks(n, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				k := keys[i]
				d := byte(k >> shift)
				o := offsets[d]
				tmpKeys[o] = k
				tmpRows[o] = rows[i]
				offsets[d] = o + 1
			}
		})
		keys, tmpKeys = tmpKeys, keys
		rows, tmpRows = tmpRows, rows
	}
	return keys, rows
}

// radixSortedOrder sorts with the radix sort on the first key, then, if
// there are more keys, sorts each run of equal first keys (and the NULL
// run) by the rest with cmpRest.
func radixSortedOrder(first arrow.Array, k nodes.SortKey, cmpRest func(a, b int32) int, in *interrupter) []int32 {
	order, sorted, at, nulls := radixOrder(first, k, in)
	if cmpRest == nil {
		return order
	}
	valueStart := 0
	if k.NullsFirst {
		valueStart = nulls
	}
	values := order[valueStart : valueStart+len(sorted)]
	for i := 0; i < len(sorted); {
		j := i + 1
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		if j-i > 1 {
			slices.SortStableFunc(values[i:j], cmpRest)
		}
		i = j
	}
	if nulls > 1 {
		nullRun := order[at : at+nulls]
		slices.SortStableFunc(nullRun, cmpRest)
	}
	return order
}
