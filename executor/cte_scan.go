package executor

// CTEs computed once (nodes.CTE) and the CTE Scans that read them, as
// PostgreSQL's nodeCtescan.c over one tuplestore with a read pointer per
// scan.
//
// The node holding a statement level's CTEs (PlanBase.CTEs) builds each
// CTE's operator and registers its store in the statement's cteRegistry
// when it is built (cteHolder); the CTE Scans below it find their store
// when they open. Nothing runs the CTE before a scan reads: a scan that
// has read everything stored pulls the CTE's next batch into the store
// (opening the CTE's operator at the first pull), so a reader that stops
// early (LIMIT) leaves the rest of the CTE uncomputed, and a CTE never
// read is never executed. Every scan reads every row the store holds,
// from its own position, whenever it opens; an error of the CTE is
// every reader's.
//
// The store (tupleStore) keeps batches in memory up to work_mem, counted
// against the memory pools, and the rest in a temporary file (spill.go's
// Arrow IPC stream), flushed batch by batch so that each reader can read
// it through its own view of the file while more is written.
//
// A CTE's store belongs to the statement's leader: the planner never
// puts a CTE Scan under a Gather (CTE Scans are parallel-restricted), so
// one goroutine uses a store.

import (
	"context"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
)

// cteRegistry finds the stores of a statement's CTEs and the work tables
// of its Recursive Unions by ID.
type cteRegistry struct {
	stores map[int]*cteStore
	work   map[int]*workTable
}

func (ec *ExecContext) cteRegistry() *cteRegistry {
	if ec.ctes == nil {
		ec.ctes = &cteRegistry{stores: map[int]*cteStore{}, work: map[int]*workTable{}}
	}
	return ec.ctes
}

// tupleStore holds batches in arrival order: the first in memory, within
// work_mem, the rest in a spill file once the memory is full.
type tupleStore struct {
	ec       *ExecContext
	schema   *arrow.Schema
	mem      []arrow.RecordBatch
	memBytes int64
	res      reservation
	file     *spillFile
	filed    int // batches in the file
}

func newTupleStore(ec *ExecContext, fields []nodes.Field) *tupleStore {
	return &tupleStore{ec: ec, schema: schemaOf(fields), res: reservation{pool: ec.Memory}}
}

// add stores b (the store takes its own reference).
func (s *tupleStore) add(b arrow.RecordBatch) error {
	bytes := batchBytes(b)
	if s.file == nil && s.memBytes+bytes <= s.ec.workMem() {
		if err := s.res.resize(s.memBytes + bytes); err == nil {
			b.Retain()
			s.mem = append(s.mem, b)
			s.memBytes += bytes
			return nil
		}
	}
	if s.file == nil {
		f, err := newSpillFile(s.ec.TempDir, s.schema)
		if err != nil {
			return err
		}
		s.file = f
	}
	if err := s.file.write(b); err != nil {
		return err
	}
	// Flushed, so that readers see the whole batch.
	if err := s.file.buf.Flush(); err != nil {
		return tempFileError("write to", err)
	}
	s.filed++
	return nil
}

// batches is the number of batches stored.
func (s *tupleStore) batches() int { return len(s.mem) + s.filed }

// reader returns a new read position at the store's first batch.
func (s *tupleStore) reader() *storeReader { return &storeReader{s: s} }

// close releases the stored batches and the file.
func (s *tupleStore) close() {
	releaseBatches(s.mem)
	s.mem = nil
	s.res.free()
	if s.file != nil {
		s.file.close()
		s.file = nil
	}
}

// storeReader is one read position in a tupleStore.
type storeReader struct {
	s    *tupleStore
	pos  int
	file *ipc.Reader // its own view of the spill file, once it reads there
}

// next returns the batch at the reader's position (the caller owns it),
// or false when the reader has read all the store holds now.
func (r *storeReader) next() (arrow.RecordBatch, bool, error) {
	s := r.s
	if r.pos >= s.batches() {
		return nil, false, nil
	}
	if r.pos < len(s.mem) {
		b := s.mem[r.pos]
		r.pos++
		b.Retain()
		return b, true, nil
	}
	if r.file == nil {
		view := io.NewSectionReader(s.file.f, 0, math.MaxInt64)
		fr, err := ipc.NewReader(view, ipc.WithAllocator(alloc), ipc.WithSchema(s.schema))
		if err != nil {
			return nil, false, tempFileError("read", err)
		}
		r.file = fr
	}
	if !r.file.Next() {
		if err := r.file.Err(); err != nil && err != io.EOF {
			return nil, false, tempFileError("read", err)
		}
		return nil, false, pgerr.Internal("executor: a CTE's temporary file ended early")
	}
	b := r.file.RecordBatch()
	b.Retain()
	r.pos++
	return b, true, nil
}

func (r *storeReader) close() {
	if r.file != nil {
		r.file.Release()
		r.file = nil
	}
}

// cteStore is one CTE's rows, computed as its readers need them.
type cteStore struct {
	op     Operator
	rows   *tupleStore
	opened bool
	done   bool
	err    error
}

// fetch returns the batch at r's position, pulling the CTE's next batch
// into the store when r has read all of it.
func (s *cteStore) fetch(ctx context.Context, r *storeReader) (arrow.RecordBatch, error) {
	for {
		b, ok, err := r.next()
		if err != nil || ok {
			return b, err
		}
		if s.err != nil {
			return nil, s.err
		}
		if s.done {
			return nil, io.EOF
		}
		if err := s.pull(ctx); err != nil {
			s.err = err
			return nil, err
		}
	}
}

// pull adds the CTE's next batch to the store, or marks it complete.
func (s *cteStore) pull(ctx context.Context) error {
	if err := checkCtx(ctx); err != nil {
		return err
	}
	if !s.opened {
		s.opened = true
		if err := s.op.Open(ctx); err != nil {
			return err
		}
	}
	b, err := s.op.Next(ctx)
	if err == io.EOF {
		s.done = true
		return nil
	}
	if err != nil {
		return err
	}
	defer b.Release()
	return s.rows.add(b)
}

func (s *cteStore) close() error {
	s.rows.close()
	return s.op.Close()
}

// cteHolder is the node that holds a query level's CTEs: it owns their
// stores, which live as long as it does.
type cteHolder struct {
	Operator
	stores []*cteStore
	ids    []int
	ec     *ExecContext
}

// newCTEHolder builds the CTEs of the node op and registers their stores.
func newCTEHolder(op Operator, ctes []*nodes.CTE, ec *ExecContext) (Operator, error) {
	h := &cteHolder{Operator: op, ec: ec}
	reg := ec.cteRegistry()
	for _, c := range ctes {
		sub, err := Build(c.Plan, ec)
		if err != nil {
			h.Close()
			return nil, err
		}
		s := &cteStore{op: sub, rows: newTupleStore(ec, c.Plan.Base().Out)}
		h.stores = append(h.stores, s)
		h.ids = append(h.ids, c.ID)
		reg.stores[c.ID] = s
	}
	return h, nil
}

func (h *cteHolder) Close() error {
	err := h.Operator.Close()
	for i, s := range h.stores {
		if cerr := s.close(); err == nil {
			err = cerr
		}
		delete(h.ec.cteRegistry().stores, h.ids[i])
	}
	h.stores = nil
	return err
}

// cteScanOp is a CTE Scan: one reader of its CTE's store.
type cteScanOp struct {
	plan   *nodes.CTEScan
	ec     *ExecContext
	qual   *qual
	store  *cteStore
	reader *storeReader
}

func (*cteScanOp) ownsQual() {}

func newCTEScan(p *nodes.CTEScan, ec *ExecContext) (Operator, error) {
	q, err := newQual(&p.PlanBase, ec)
	if err != nil {
		return nil, err
	}
	return &cteScanOp{plan: p, ec: ec, qual: q}, nil
}

func (c *cteScanOp) Open(ctx context.Context) error {
	s := c.ec.cteRegistry().stores[c.plan.CTE.ID]
	if s == nil {
		return pgerr.Internal("executor: CTE %q has no store", c.plan.CTE.Name)
	}
	if c.reader != nil {
		c.reader.close() // opened again: read from the start
	}
	c.store, c.reader = s, s.rows.reader()
	return nil
}

func (c *cteScanOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if c.reader == nil {
		return nil, io.EOF
	}
	return c.qual.next(func() (arrow.RecordBatch, error) { return c.store.fetch(ctx, c.reader) })
}

func (c *cteScanOp) Close() error {
	if c.reader != nil {
		c.reader.close()
		c.reader = nil
	}
	c.qual.close()
	return nil
}
