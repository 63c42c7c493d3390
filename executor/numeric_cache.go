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

import (
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/apache/arrow-go/v18/arrow/array"
)

var (
	numericStored     sync.Map // weak.Pointer[array.String] -> struct{}: stored arrays seen
	numericCache      sync.Map // weak.Pointer[array.String] -> *scaledVec
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
	if _, stored := numericStored.Load(weak.Make(arr)); !stored {
		return false
	}
	return numericCacheBytes.Load()+int64(arr.Len())*8 <= numericCacheLimit
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
