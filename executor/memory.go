package executor

// Memory accounting. Operators that hold their input (Sort, hashed Agg)
// count what they hold in a reservation against two budgets:
//
//   - work_mem (hash tables: work_mem x hash_mem_multiplier), the
//     operator's own budget: beyond it the operator spills to temporary
//     files (external merge sort, hash partitions), as PostgreSQL's do;
//   - the memory pools above it: the statement's (the session setting
//     pgfed.memory_limit) and the engine's (pgfed.WithMemoryLimit). A
//     reservation that would take a pool past its limit first asks its
//     operator to spill; what cannot be spilled fails the statement with
//     53200 "out of memory" instead of letting the process be killed.
//
// The counts are of the bytes of the Arrow buffers an operator holds and
// of its per-group state, estimated as PostgreSQL's are: close, not exact.

import (
	"runtime"
	"strconv"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/pgerr"
)

// MemoryPool is a budget shared by the reservations under it: the
// engine's, or one statement's (whose parent is the engine's). A nil
// pool has no limit. Safe for concurrent use (parallel workers).
type MemoryPool struct {
	parent *MemoryPool
	limit  int64 // bytes; 0: no limit of its own
	used   atomic.Int64
	peak   atomic.Int64
}

// NewMemoryPool returns a pool of limit bytes (0: unlimited) under parent
// (nil: none).
func NewMemoryPool(limit int64, parent *MemoryPool) *MemoryPool {
	return &MemoryPool{parent: parent, limit: limit}
}

// Used returns the bytes reserved now; Peak the most ever reserved.
func (p *MemoryPool) Used() int64 { return p.used.Load() }
func (p *MemoryPool) Peak() int64 { return p.peak.Load() }

// grow reserves n more bytes here and in every pool above, or none of
// them when one would pass its limit.
func (p *MemoryPool) grow(n int64) error {
	if p == nil || n == 0 {
		return nil
	}
	now := p.used.Add(n)
	if p.limit > 0 && now > p.limit && n > 0 {
		p.used.Add(-n)
		return outOfMemory(now-n, n, p.limit)
	}
	if err := p.parent.grow(n); err != nil {
		p.used.Add(-n)
		return err
	}
	for {
		peak := p.peak.Load()
		if now <= peak || p.peak.CompareAndSwap(peak, now) {
			return nil
		}
	}
}

func (p *MemoryPool) shrink(n int64) {
	for ; p != nil; p = p.parent {
		p.used.Add(-n)
	}
}

func outOfMemory(used, more, limit int64) error {
	return pgerr.New(pgerr.OutOfMemory, "out of memory").
		WithDetail("Failed on request of size %d bytes with %d bytes of %d in use (pgfed.memory_limit).", more, used, limit)
}

// reservation is one operator's share of a pool.
type reservation struct {
	pool  *MemoryPool
	bytes int64
	peak  int64
}

// resize sets the reservation to n bytes.
func (r *reservation) resize(n int64) error {
	if err := r.pool.grow(n - r.bytes); err != nil {
		return err
	}
	r.bytes = n
	r.peak = max(r.peak, n)
	return nil
}

// free returns the whole reservation.
func (r *reservation) free() {
	r.pool.shrink(r.bytes)
	r.bytes = 0
}

// batchBytes is the memory a batch's rows take: its values and offsets,
// counted for the rows the batch holds (a slice of a larger batch counts
// only its rows).
func batchBytes(b arrow.RecordBatch) int64 {
	var n int64
	for _, c := range b.Columns() {
		n += arrayBytes(c)
	}
	return n
}

func arrayBytes(a arrow.Array) int64 {
	rows := int64(a.Len())
	n := (rows + 7) / 8 // validity
	switch a := a.(type) {
	case *array.String:
		if rows > 0 {
			n += int64(a.ValueOffset(int(rows)-1)+len(a.Value(int(rows)-1))-a.ValueOffset(0)) + 4*(rows+1)
		}
	case *array.Boolean:
	default:
		if fw, ok := a.DataType().(arrow.FixedWidthDataType); ok {
			n += rows * int64(fw.BitWidth()/8)
		}
	}
	return n
}

// kB formats bytes as EXPLAIN's kilobytes, rounded up as PostgreSQL's.
func kB(bytes int64) string { return strconv.FormatInt((bytes+1023)/1024, 10) + "kB" }

// Spilling operators turn over far more memory than they hold: every run
// is concatenated, sorted, cut and written, every merged batch gathered,
// and all of it is garbage right after. Go collects garbage when the heap
// has grown by GOGC percent of the live heap, and the live heap is
// mostly table data, so a spilling sort over a large table could use as
// much again before a collection, whatever work_mem says. So spilling
// operators count the bytes they discard, and every garbageEvery bytes a
// collection is started in the background (one at a time). Arrow's
// buffers hold no pointers, so a collection costs little even with
// gigabytes of tables: a 20M-row sort at work_mem 4MB over a 320 MB
// table took the same 3.25 s with it, and peaked 14 MB above the table
// instead of 225 MB.
const garbageEvery = 16 << 20

var (
	garbage    atomic.Int64
	collecting atomic.Bool
)

// discarded counts n bytes that a spilling operator dropped.
func discarded(n int64) {
	if garbage.Add(n) < garbageEvery {
		return
	}
	garbage.Store(0)
	if collecting.CompareAndSwap(false, true) {
		go func() {
			runtime.GC()
			collecting.Store(false)
		}()
	}
}
