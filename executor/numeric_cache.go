package executor

// The parsed numeric columns of stored batches. Numeric values are
// stored as their text (storage keeps one form of every value), and
// every statement that computes with a numeric column parses it into a
// scaled vector (numeric_vector.go). A stored batch's arrays are
// immutable and shared by every statement that scans them, so their
// vectors are kept here, keyed by the array (a weak pointer: an entry
// does not keep its array alive, and goes when the array does), for the
// next statement: sum(l_quantity) over lineitem parses l_quantity once
// per version of the table, not once per query.
//
// The vectors are read-only to everyone (as the statement's own cache's
// are). The cache holds at most numericCacheLimit bytes; past that, new
// vectors are parsed per statement as before. Only stored arrays are
// kept (a Seq Scan marks the numeric arrays it hands out, markStored),
// not those a statement makes (a filter's copy, a join's output), which
// no other statement reads; and only of numericCacheMinRows rows or more.
//
// An array an operator wrote from a scaled vector (sum's results,
// noteProduced) keeps that vector for as long as it lives, so that what
// reads the array next (HAVING sum(x) > 300) does not parse the text the
// operator just formatted.
//
// An operator that cuts a stored batch in two (a streaming Agg,
// agg_stream.go) registers the pieces (noteSlices): a piece reads its
// stored array's vector, sliced, rather than parse its own text.

import (
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

var (
	numericStored     sync.Map // weak.Pointer[array.String] -> struct{}: stored arrays seen
	numericCache      sync.Map // weak.Pointer[array.String] -> *scaledVec
	numericSlices     sync.Map // weak.Pointer[array.String] -> storedSlice: pieces of stored arrays
	numericProduced   sync.Map // weak.Pointer[array.String] -> *scaledVec: arrays written from vectors
	numericCacheBytes atomic.Int64
	// numericCacheLimit bounds the vectors kept (a variable for tests).
	numericCacheLimit int64 = 1 << 30
)

const numericCacheMinRows = 4096

// cachedScaled is the kept vector of arr, if any.
func cachedScaled(arr *array.String) (*scaledVec, bool) {
	v, ok := numericCache.Load(weak.Make(arr))
	if !ok {
		return nil, false
	}
	return v.(*scaledVec), true
}

// markStored records arr as a stored array, whose vector may be kept.
func markStored(arr *array.String) {
	if arr.Len() < numericCacheMinRows {
		return
	}
	key := weak.Make(arr)
	if _, loaded := numericStored.LoadOrStore(key, struct{}{}); !loaded {
		runtime.AddCleanup(arr, func(k weak.Pointer[array.String]) { numericStored.Delete(k) }, key)
	}
}

// keepScaled keeps v as arr's vector while arr lives and the cache has
// room, if arr is stored.
func keepScaled(arr *array.String, v *scaledVec) {
	if arr.Len() < numericCacheMinRows {
		return
	}
	if _, stored := numericStored.Load(weak.Make(arr)); !stored {
		return
	}
	size := v.bytes()
	if numericCacheBytes.Add(size) > numericCacheLimit {
		numericCacheBytes.Add(-size)
		return
	}
	key := weak.Make(arr)
	if _, loaded := numericCache.LoadOrStore(key, v); loaded {
		numericCacheBytes.Add(-size) // another statement kept it first
		return
	}
	runtime.AddCleanup(arr, func(k weak.Pointer[array.String]) {
		numericCache.Delete(k)
		numericCacheBytes.Add(-size)
	}, key)
}

// keptOrKeepable is whether arr's vector is kept, or would be once
// parsed (arr is stored and the cache has room for it): parsing all of
// such an array is paid once, not per statement.
func keptOrKeepable(arr *array.String) bool {
	if _, ok := cachedScaled(arr); ok {
		return true
	}
	if e, ok := numericSlices.Load(weak.Make(arr)); ok {
		return keptOrKeepable(e.(storedSlice).stored)
	}
	if _, stored := numericStored.Load(weak.Make(arr)); !stored {
		return false
	}
	return numericCacheBytes.Load()+int64(arr.Len())*8 <= numericCacheLimit
}

// storedSlice is a registered piece of a stored array: its rows from
// from on. The piece's entry holds the stored array alive as long as the
// piece lives (they share their buffers anyway).
type storedSlice struct {
	stored *array.String
	from   int
}

// noteProduced records v as the vector arr was written from (arrays of
// numericCacheMinRows rows or more: below, parsing costs less).
func noteProduced(arr *array.String, v *scaledVec) {
	if arr.Len() < numericCacheMinRows {
		return
	}
	key := weak.Make(arr)
	if _, loaded := numericProduced.LoadOrStore(key, v); !loaded {
		runtime.AddCleanup(arr, func(k weak.Pointer[array.String]) { numericProduced.Delete(k) }, key)
	}
}

// producedVector is the vector arr was written from, if recorded.
func producedVector(arr *array.String) (*scaledVec, bool) {
	v, ok := numericProduced.Load(weak.Make(arr))
	if !ok {
		return nil, false
	}
	return v.(*scaledVec), true
}

// noteSlices registers the numeric columns of piece, rows from on of the
// batch b, as pieces of b's stored (or produced) arrays.
func noteSlices(b, piece arrow.RecordBatch, from int) {
	for i, col := range b.Columns() {
		strs, ok := col.(*array.String)
		if !ok {
			continue
		}
		at := storedSlice{stored: strs, from: from}
		if e, ok := numericSlices.Load(weak.Make(strs)); ok { // a piece of a piece
			at = storedSlice{stored: e.(storedSlice).stored, from: e.(storedSlice).from + from}
		} else if _, stored := numericStored.Load(weak.Make(strs)); !stored {
			if _, produced := producedVector(strs); !produced {
				continue
			}
		}
		p := piece.Column(i).(*array.String)
		key := weak.Make(p)
		if _, loaded := numericSlices.LoadOrStore(key, at); !loaded {
			runtime.AddCleanup(p, func(k weak.Pointer[array.String]) { numericSlices.Delete(k) }, key)
		}
	}
}

// storedVector is arr's kept vector, or, for a piece of a stored array,
// the piece of the stored array's vector (parsing and keeping it when the
// cache has room): ok false when arr has none.
func storedVector(arr *array.String) (v *scaledVec, ok bool, err error) {
	if v, ok := cachedScaled(arr); ok {
		return v, true, nil
	}
	if v, ok := producedVector(arr); ok {
		return v, true, nil
	}
	e, ok := numericSlices.Load(weak.Make(arr))
	if !ok {
		return nil, false, nil
	}
	sl := e.(storedSlice)
	whole, ok := cachedScaled(sl.stored)
	if !ok {
		whole, ok = producedVector(sl.stored)
	}
	if !ok {
		if !keptOrKeepable(sl.stored) {
			return nil, false, nil
		}
		if whole, err = parseScaledArray(sl.stored); err != nil {
			return nil, false, err
		}
		keepScaled(sl.stored, whole)
	}
	return whole.slice(sl.from, arr.Len()), true, nil
}

// bytes is the memory v holds.
func (v *scaledVec) bytes() int64 {
	n := int64(cap(v.vals))*8 + int64(cap(v.scales))*4 + int64(cap(v.valid)) + int64(cap(v.exact))*8
	for _, d := range v.exact {
		if d != nil {
			n += 64
		}
	}
	return n
}
