package executor

// Recursive Union (WITH RECURSIVE), as PostgreSQL's nodeRecursiveunion.c:
// it returns the non-recursive term's rows, keeping them in the
// intermediate table; then, while the intermediate table has rows, it
// makes them the work table (which the recursive term's WorkTable Scans
// read), runs the recursive term once more over it, and returns and
// keeps the new rows. Rows are returned as they are produced, so a
// parent that stops early (LIMIT) ends even an infinite recursion.
//
// With Distinct (UNION) a row equal to one returned before (NULLs equal)
// is dropped, so that a cycle in the data ends the recursion: a set of
// the encoded rows returned so far, counted against the memory pools
// (like PostgreSQL's hash table, it does not spill). The work and
// intermediate tables are tupleStores: in memory within work_mem, then
// in temporary files.
//
// The recursive term's operators are built anew for each iteration (the
// executor has no rescan), so under EXPLAIN ANALYZE its nodes show one
// loop per iteration, as PostgreSQL's.

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// workTable is the rows of a Recursive Union's previous iteration.
type workTable struct {
	rows *tupleStore
}

type recursiveUnionOp struct {
	plan   *nodes.RecursiveUnion
	ec     *ExecContext
	nonRec Operator
	rec    Operator // this iteration's recursive term, nil between iterations
	inRec  bool     // the non-recursive term is done
	work   *workTable
	next   *tupleStore // the intermediate table
	seen   *rowSet     // Distinct only
}

func newRecursiveUnion(p *nodes.RecursiveUnion, ec *ExecContext) (Operator, error) {
	nonRec, err := Build(p.NonRecursive, ec)
	if err != nil {
		return nil, err
	}
	r := &recursiveUnionOp{plan: p, ec: ec, nonRec: nonRec}
	r.work = &workTable{rows: newTupleStore(ec, p.Out)}
	r.next = newTupleStore(ec, p.Out)
	if p.Distinct {
		r.seen = newRowSet(ec, p.Out)
	}
	ec.cteRegistry().work[p.WorkTable] = r.work
	return r, nil
}

func (r *recursiveUnionOp) Open(ctx context.Context) error { return r.nonRec.Open(ctx) }

func (r *recursiveUnionOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if err := checkCtx(ctx); err != nil {
			return nil, err
		}
		b, err := r.nextInput(ctx)
		if err != nil {
			return nil, err
		}
		if b == nil {
			continue
		}
		if r.seen != nil {
			if b, err = r.seen.keepNew(b); err != nil || b == nil {
				if err != nil {
					return nil, err
				}
				continue
			}
		}
		if err := r.next.add(b); err != nil {
			b.Release()
			return nil, err
		}
		return b, nil
	}
}

// nextInput returns the next batch of the current term, nil when a term
// ended (and the next iteration is set up), io.EOF when an iteration
// added nothing.
func (r *recursiveUnionOp) nextInput(ctx context.Context) (arrow.RecordBatch, error) {
	if !r.inRec {
		b, err := r.nonRec.Next(ctx)
		if err == io.EOF {
			r.inRec = true
			return nil, nil
		}
		return b, err
	}
	if r.rec == nil {
		if r.next.batches() == 0 {
			return nil, io.EOF
		}
		if err := r.startIteration(ctx); err != nil {
			return nil, err
		}
	}
	b, err := r.rec.Next(ctx)
	if err == io.EOF {
		err = r.rec.Close()
		r.rec = nil
		return nil, err
	}
	return b, err
}

// startIteration makes the intermediate table the work table and starts
// the recursive term over it.
func (r *recursiveUnionOp) startIteration(ctx context.Context) error {
	r.work.rows.close()
	r.work.rows, r.next = r.next, newTupleStore(r.ec, r.plan.Out)
	rec, err := Build(r.plan.Recursive, r.ec)
	if err != nil {
		return err
	}
	r.rec = rec
	return rec.Open(ctx)
}

func (r *recursiveUnionOp) Close() error {
	err := r.nonRec.Close()
	if r.rec != nil {
		if cerr := r.rec.Close(); err == nil {
			err = cerr
		}
		r.rec = nil
	}
	r.work.rows.close()
	r.next.close()
	if r.seen != nil {
		r.seen.close()
	}
	return err
}

// rowSet is the set of rows a UNION has returned, each encoded so that
// equal rows (NULLs equal, as for grouping) encode equally.
type rowSet struct {
	types []types.T
	keys  map[string]struct{}
	buf   []byte
	bytes int64
	res   reservation
}

// rowSetEntryBytes is a set entry's overhead beyond its key (the map's
// bucket share and the string header), roughly.
const rowSetEntryBytes = 48

func newRowSet(ec *ExecContext, fields []nodes.Field) *rowSet {
	ts := make([]types.T, len(fields))
	for i, f := range fields {
		ts[i] = f.T
	}
	return &rowSet{types: ts, keys: map[string]struct{}{}, res: reservation{pool: ec.Memory}}
}

// keepNew returns the rows of b not in the set (nil if none) and adds
// them; it takes over b.
func (s *rowSet) keepNew(b arrow.RecordBatch) (arrow.RecordBatch, error) {
	n := int(b.NumRows())
	sel := make([]int32, 0, n)
	cols := b.Columns()
	for row := 0; row < n; row++ {
		key := s.buf[:0]
		for c, arr := range cols {
			key = encodeKey(key, s.types[c], types.DatumAt(arr, s.types[c], row))
		}
		s.buf = key
		if _, dup := s.keys[string(key)]; dup {
			continue
		}
		s.keys[string(key)] = struct{}{}
		s.bytes += int64(len(key)) + rowSetEntryBytes
		sel = append(sel, int32(row))
	}
	if err := s.res.resize(s.bytes); err != nil {
		b.Release()
		return nil, err
	}
	switch len(sel) {
	case 0:
		b.Release()
		return nil, nil
	case n:
		return b, nil
	}
	out := takeBatch(b, sel)
	b.Release()
	return out, nil
}

func (s *rowSet) close() {
	s.keys = nil
	s.res.free()
}
