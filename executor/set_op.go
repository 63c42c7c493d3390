package executor

// SetOp runs INTERSECT [ALL] and EXCEPT [ALL] as PostgreSQL 15's
// nodeSetOp.c does. Its child returns the rows of both inputs, each row
// ending in a flag column (0: left input, 1: right input); the columns
// before the flag are compared, NULLs as equal. Per group of equal rows
// it counts the rows of each input (l, r) and returns the group's first
// row Copies(l, r) times: INTERSECT 1 if both are > 0, INTERSECT ALL
// min(l, r), EXCEPT 1 if l > 0 and r = 0, EXCEPT ALL max(l - r, 0).
//
// Hashed: on the first Next it reads its whole input. Rows of the input
// the Append returns first (plan.FirstFlag) find or create their group
// in a hash table; rows of the other input only count into a group that
// exists. Keys are normalized and hashed a batch at a time with the hash
// join's helpers (hash_table.go: keyVec, hashKeys), a NULL column being
// a value of its own. The groups' memory (their first rows, keys,
// counts) counts against work_mem x hash_mem_multiplier as a hashed
// Agg's does; when a new group would pass it, the table is full: rows
// of new groups go to one of aggPartitions spill files chosen by bits of
// their hash, and so do the other input's rows that miss the table and
// hash to a partition that holds first-input rows. Every group is thus
// wholly in memory or wholly in one partition; after the groups in
// memory are returned, each partition is processed the same way with a
// fresh table and the next bits of the hash (agg_spill.go's scheme).
//
// Sorted: the child is sorted on the compared columns; a group is a run
// of equal rows, which may span batches (its first row is kept across
// them), and is returned when the run ends.
//
// Output comes in batches of at most BatchSize rows, in group order
// (the order groups were created, partition by partition, for hashed).
// Errors are the child's and the spill files'; cancellation is checked
// by the child and between spilled batches.

import (
	"bytes"
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// setOpGroupBytes estimates a group's memory besides its key and row
// bytes: two counts, its hash, two hash slots and slice headers.
const setOpGroupBytes = 64

type setOpOp struct {
	plan   *nodes.SetOp
	ec     *ExecContext
	child  Operator
	ncols  int
	forms  []keyForm
	schema *arrow.Schema // the output: the compared columns
	in     setOpBatch    // the keys of the batch being read

	// hashed
	table   *setOpTable
	emit    setOpEmitter
	read    bool // the child was read to its end (both strategies)
	parts   [aggPartitions]*spillFile
	pending []aggPartition
	depth   int
	mem     reservation

	// sorted: the group whose run is still open
	run      groupKeys
	runRow   arrow.RecordBatch // its first row
	runCount [2]int64
	out      []arrow.RecordBatch // results not yet returned
}

func newSetOp(p *nodes.SetOp, ec *ExecContext) (Operator, error) {
	child, err := Build(p.Child, ec)
	if err != nil {
		return nil, err
	}
	s := &setOpOp{plan: p, ec: ec, child: child, ncols: p.FlagCol, schema: schemaOf(p.Out)}
	for _, f := range p.Child.Base().Out[:p.FlagCol] {
		s.forms = append(s.forms, setOpKeyForm(f.T))
	}
	return s, nil
}

// setOpKeyForm is how a column is normalized: as the hash join's keys,
// every type stored as text by its bytes.
func setOpKeyForm(t types.T) keyForm {
	if _, isText := t.ArrowType().(*arrow.StringType); isText {
		return keyForm{kind: keyBytes, t: t}
	}
	return keyFormOf(t)
}

func (s *setOpOp) Open(ctx context.Context) error {
	s.reset()
	s.mem = reservation{pool: s.ec.Memory}
	return s.child.Open(ctx)
}

// reset drops every group, spill file and pending result.
func (s *setOpOp) reset() {
	if s.table != nil {
		s.table.release()
	}
	s.table, s.emit, s.read, s.depth = nil, setOpEmitter{}, false, 0
	for i, f := range s.parts {
		if f != nil {
			f.close()
			s.parts[i] = nil
		}
	}
	for _, p := range s.pending {
		p.file.close()
	}
	s.pending = nil
	s.mem.free()
	s.endRun()
	releaseBatches(s.out)
	s.out = nil
}

func (s *setOpOp) Close() error {
	s.reset()
	return s.child.Close()
}

func (s *setOpOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if s.plan.Strategy == nodes.SetOpSorted {
		return s.nextSorted(ctx)
	}
	return s.nextHashed(ctx)
}

// setOpBatch is one input batch's compared columns in normalized form.
type setOpBatch struct {
	keys   []keyVec
	nulls  [][]bool // per column, per row (nil: no NULLs in the column)
	hashes []uint64
	flags  []int32
	rows   int
}

// load normalizes the compared columns of b (and hashes them when
// hashed): a NULL's slot holds zero, so that NULLs hash alike.
func (k *setOpBatch) load(b arrow.RecordBatch, forms []keyForm, flagCol int, hash bool) {
	n := int(b.NumRows())
	k.rows = n
	if k.keys == nil {
		k.keys = make([]keyVec, len(forms))
		k.nulls = make([][]bool, len(forms))
	}
	for c, f := range forms {
		arr := b.Column(c)
		k.keys[c].load(arr, f)
		k.nulls[c] = keyNulls([]arrow.Array{arr}, k.nulls[c][:0])
		if k.nulls[c] != nil && f.kind == keyWords {
			if k.keys[c].aliased {
				k.keys[c].words = append([]int64(nil), k.keys[c].words...)
				k.keys[c].aliased = false
			}
			for r, null := range k.nulls[c] {
				if null {
					k.keys[c].words[r] = 0
				}
			}
		}
	}
	k.flags = valuesOf[int32](b.Column(flagCol))
	if !hash {
		return
	}
	if cap(k.hashes) < n {
		k.hashes = make([]uint64, n)
	}
	k.hashes = k.hashes[:n]
	if len(forms) == 0 {
		clear(k.hashes)
	} else {
		hashKeys(k.keys, forms, 0, n, k.hashes)
	}
	for c, nulls := range k.nulls {
		for r, null := range nulls {
			if null {
				k.hashes[r] = mix64(k.hashes[r] ^ uint64(c+1)*0x9e3779b97f4a7c15)
			}
		}
	}
}

func (k *setOpBatch) null(c, r int) bool { return k.nulls[c] != nil && k.nulls[c][r] }

// sameRows reports whether rows r and q of the batch are equal.
func (k *setOpBatch) sameRows(forms []keyForm, r, q int) bool {
	for c, f := range forms {
		if k.null(c, r) != k.null(c, q) {
			return false
		}
		if k.null(c, r) {
			continue
		}
		kv := &k.keys[c]
		if f.kind == keyWords {
			if kv.words[r] != kv.words[q] {
				return false
			}
		} else if !bytes.Equal(kv.data[kv.offs[r]:kv.offs[r+1]], kv.data[kv.offs[q]:kv.offs[q+1]]) {
			return false
		}
	}
	return true
}

// groupKeys holds the normalized keys of groups, one row per group.
type groupKeys struct {
	keys  []keyVec
	nulls []bool // group g, column c: nulls[g*ncols+c]
	n     int
	bytes int64
}

func (g *groupKeys) init(ncols int) {
	g.keys = make([]keyVec, ncols)
	for c := range g.keys {
		g.keys[c].reset()
	}
	g.nulls, g.n, g.bytes = nil, 0, 0
}

// add appends row r of the batch as a new group.
func (g *groupKeys) add(forms []keyForm, in *setOpBatch, r int) {
	for c, f := range forms {
		kv, src := &g.keys[c], &in.keys[c]
		g.nulls = append(g.nulls, in.null(c, r))
		if f.kind == keyWords {
			kv.words = append(kv.words, src.words[r])
			g.bytes += 8
			continue
		}
		kv.data = append(kv.data, src.data[src.offs[r]:src.offs[r+1]]...)
		kv.offs = append(kv.offs, len(kv.data))
		g.bytes += int64(src.offs[r+1]-src.offs[r]) + 8
	}
	g.n++
}

// equal reports whether group i has the key of row r of the batch.
func (g *groupKeys) equal(forms []keyForm, i int, in *setOpBatch, r int) bool {
	nc := len(forms)
	for c, f := range forms {
		null := in.null(c, r)
		if g.nulls[i*nc+c] != null {
			return false
		}
		if null {
			continue
		}
		kv, src := &g.keys[c], &in.keys[c]
		if f.kind == keyWords {
			if kv.words[i] != src.words[r] {
				return false
			}
		} else if !bytes.Equal(kv.data[kv.offs[i]:kv.offs[i+1]], src.data[src.offs[r]:src.offs[r+1]]) {
			return false
		}
	}
	return true
}

// rowsWithCopies appends to sel row (repeated) for each copy, stopping at
// limit entries; it returns sel and the copies left.
func rowsWithCopies(sel []int32, row int32, copies int64, limit int) ([]int32, int64) {
	for copies > 0 && len(sel) < limit {
		sel = append(sel, row)
		copies--
	}
	return sel, copies
}

// compared returns the batch of b's compared columns at rows sel.
func (s *setOpOp) compared(b arrow.RecordBatch, sel []int32) arrow.RecordBatch {
	cols := make([]arrow.Array, s.ncols)
	for c := range cols {
		cols[c] = takeArray(b.Column(c), sel)
	}
	return makeBatch(s.schema, cols, len(sel))
}

// ---- sorted ----

func (s *setOpOp) nextSorted(ctx context.Context) (arrow.RecordBatch, error) {
	for len(s.out) == 0 {
		if s.read {
			return nil, io.EOF
		}
		b, err := s.child.Next(ctx)
		if err == io.EOF {
			s.read = true
			s.closeRun()
			s.endRun()
			continue
		}
		if err != nil {
			return nil, err
		}
		s.sortedBatch(b)
		b.Release()
	}
	b := s.out[0]
	s.out = s.out[1:]
	return b, nil
}

// sortedBatch counts the runs of b: each run ending here is returned
// from its first row, the run still open at the end is kept.
func (s *setOpOp) sortedBatch(b arrow.RecordBatch) {
	in := &s.in
	in.load(b, s.forms, s.ncols, false)
	limit := s.ec.BatchSize
	var sel []int32
	flush := func() {
		if len(sel) > 0 {
			s.out = append(s.out, s.compared(b, sel))
			sel = sel[:0]
		}
	}
	start := 0 // the first row of the open run; -1: s.runRow, of a batch before
	counts := s.runCount
	if s.runRow != nil {
		start = -1
	}
	for r := 0; r < in.rows; r++ {
		same := true
		switch {
		case r > 0:
			same = in.sameRows(s.forms, r, r-1)
		case start < 0:
			same = s.run.equal(s.forms, 0, in, 0)
		}
		if !same {
			if start < 0 {
				s.runCount = counts
				s.closeRun()
				s.endRun()
			} else {
				copies := s.plan.Cmd.Copies(counts[0], counts[1])
				for copies > 0 {
					if sel, copies = rowsWithCopies(sel, int32(start), copies, limit); len(sel) == limit {
						flush()
					}
				}
			}
			start, counts = r, [2]int64{}
		}
		counts[in.flags[r]&1]++
	}
	flush()
	if start >= 0 && in.rows > 0 {
		s.endRun()
		s.run.init(s.ncols)
		s.run.add(s.forms, in, start)
		s.runRow = s.compared(b, []int32{int32(start)})
	}
	s.runCount = counts
}

// closeRun returns the copies of the open run's first row.
func (s *setOpOp) closeRun() {
	if s.runRow == nil {
		return
	}
	left := s.plan.Cmd.Copies(s.runCount[0], s.runCount[1])
	var sel []int32
	for left > 0 {
		sel, left = rowsWithCopies(sel[:0], 0, left, s.ec.BatchSize)
		s.out = append(s.out, takeBatch(s.runRow, sel))
	}
}

// endRun forgets the open run.
func (s *setOpOp) endRun() {
	if s.runRow != nil {
		s.runRow.Release()
		s.runRow = nil
	}
	s.runCount = [2]int64{}
}

// ---- hashed ----

// setOpTable is the hash table of one pass's groups.
type setOpTable struct {
	groupKeys
	hashes []uint64
	counts [][2]int64          // per group: left, right rows
	rows   []arrow.RecordBatch // the groups' first rows, in group order
	slots  []int32             // group + 1; 0: empty
	mask   uint64
	full   bool
	// rowBytes are the bytes of rows; pending estimates those of the
	// batch's new groups, not yet taken into rows.
	rowBytes, pending int64
}

func newSetOpTable(ncols int) *setOpTable {
	t := &setOpTable{slots: make([]int32, 256), mask: 255}
	t.init(ncols)
	return t
}

// find returns the group of row r of the batch, or -1.
func (t *setOpTable) find(forms []keyForm, in *setOpBatch, r int) int32 {
	h := in.hashes[r]
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		g := t.slots[i] - 1
		if g < 0 {
			return -1
		}
		if t.hashes[g] == h && t.equal(forms, int(g), in, r) {
			return g
		}
	}
}

// insert makes row r of the batch a new group.
func (t *setOpTable) insert(forms []keyForm, in *setOpBatch, r int) int32 {
	g := int32(t.n)
	t.add(forms, in, r)
	t.hashes = append(t.hashes, in.hashes[r])
	t.counts = append(t.counts, [2]int64{})
	if 2*t.n > len(t.slots) {
		t.grow()
	} else {
		t.place(g)
	}
	return g
}

func (t *setOpTable) place(g int32) {
	i := t.hashes[g] & t.mask
	for t.slots[i] != 0 {
		i = (i + 1) & t.mask
	}
	t.slots[i] = g + 1
}

func (t *setOpTable) grow() {
	t.slots = make([]int32, 2*len(t.slots))
	t.mask = uint64(len(t.slots) - 1)
	for g := range t.n {
		t.place(int32(g))
	}
}

// memory estimates the table's bytes.
func (t *setOpTable) memory() int64 {
	return t.bytes + int64(t.n)*setOpGroupBytes + int64(len(t.slots))*4 + t.rowBytes + t.pending
}

func (t *setOpTable) release() {
	releaseBatches(t.rows)
	t.rows = nil
}

func (s *setOpOp) nextHashed(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if b := s.emit.next(s); b != nil {
			return b, nil
		}
		if !s.read {
			s.read = true
			if err := s.pass(ctx, s.child.Next); err != nil {
				return nil, err
			}
			continue
		}
		if len(s.pending) == 0 {
			return nil, io.EOF
		}
		if err := s.nextPartition(ctx); err != nil {
			return nil, err
		}
	}
}

// pass reads a whole input (the child or a partition) into a fresh
// table, spilling what does not fit, and starts returning its groups.
func (s *setOpOp) pass(ctx context.Context, next func(context.Context) (arrow.RecordBatch, error)) error {
	if s.table != nil {
		discarded(s.table.memory())
		s.table.release()
	}
	s.table = newSetOpTable(s.ncols)
	if err := s.mem.resize(0); err != nil {
		return err
	}
	for {
		b, err := next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		err = s.hashBatch(b)
		b.Release()
		if err != nil {
			return err
		}
	}
	for i, f := range s.parts {
		if f == nil {
			continue
		}
		if err := f.finish(); err != nil {
			return err
		}
		s.pending = append(s.pending, aggPartition{file: f, depth: s.depth + 1})
		s.parts[i] = nil
	}
	s.emit = setOpEmitter{table: s.table}
	return nil
}

// hashBatch counts the rows of b into the table; rows it cannot hold go
// to the partitions.
func (s *setOpOp) hashBatch(b arrow.RecordBatch) error {
	in, t := &s.in, s.table
	in.load(b, s.forms, s.ncols, true)
	first := int32(s.plan.FirstFlag)
	limit := s.ec.hashMem()
	var fresh []int32
	var spill [aggPartitions][]int32
	spilling := false
	shift := 64 - aggPartitionBits*(s.depth+1)
	for r := 0; r < in.rows; r++ {
		flag := in.flags[r]
		g := t.find(s.forms, in, r)
		if g < 0 {
			p := uint8(in.hashes[r]>>shift) & (aggPartitions - 1)
			switch {
			case flag != first:
				if s.parts[p] != nil || len(spill[p]) > 0 {
					spill[p] = append(spill[p], int32(r))
					spilling = true
				}
				continue
			case !t.full && t.n > 0 && s.depth < splitDepth(s.ec) && t.memory() > limit:
				t.full = true
				fallthrough
			case t.full:
				spill[p] = append(spill[p], int32(r))
				spilling = true
				continue
			}
			before := t.bytes
			g = t.insert(s.forms, in, r)
			t.pending += t.bytes - before
			fresh = append(fresh, int32(r))
		}
		t.counts[g][flag&1]++
	}
	if len(fresh) > 0 {
		rows := s.compared(b, fresh)
		t.rows = append(t.rows, rows)
		t.rowBytes += batchBytes(rows)
		t.pending = 0
	}
	if spilling {
		if err := s.spillRows(b, &spill); err != nil {
			return err
		}
	}
	return s.countMemory()
}

// countMemory reserves the table's memory; a memory pool that refuses
// it makes the table full.
func (s *setOpOp) countMemory() error {
	err := s.mem.resize(s.table.memory())
	if err != nil && s.depth < maxSpillDepth && pgerr.Code(err) == pgerr.OutOfMemory {
		s.table.full = true
		return nil
	}
	return err
}

// spillRows writes the rows of b listed per partition to their files.
func (s *setOpOp) spillRows(b arrow.RecordBatch, spill *[aggPartitions][]int32) error {
	for p, rows := range spill {
		if len(rows) == 0 {
			continue
		}
		if s.parts[p] == nil {
			f, err := newSpillFile(s.ec.TempDir, b.Schema())
			if err != nil {
				return err
			}
			s.parts[p] = f
		}
		part := takeBatch(b, rows)
		err := s.parts[p].write(part)
		discarded(batchBytes(part))
		part.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// nextPartition processes the last spilled partition.
func (s *setOpOp) nextPartition(ctx context.Context) error {
	p := s.pending[len(s.pending)-1]
	s.pending = s.pending[:len(s.pending)-1]
	defer p.file.close()
	s.depth = p.depth
	r, err := p.file.reader()
	if err != nil {
		return err
	}
	defer r.close()
	return s.pass(ctx, func(ctx context.Context) (arrow.RecordBatch, error) {
		if err := checkCtx(ctx); err != nil {
			return nil, err
		}
		return r.next()
	})
}

// setOpEmitter returns a table's groups, each as many times as the
// command says, in batches of at most BatchSize rows.
type setOpEmitter struct {
	table   *setOpTable
	batch   int   // the stored batch of first rows being returned
	row     int   // its next row
	group   int   // the group of that row
	copies  int64 // copies of it still to return
	started bool  // copies is that group's
}

func (e *setOpEmitter) next(s *setOpOp) arrow.RecordBatch {
	t := e.table
	if t == nil {
		return nil
	}
	limit := s.ec.BatchSize
	for e.batch < len(t.rows) {
		b := t.rows[e.batch]
		var sel []int32
		for e.row < int(b.NumRows()) && len(sel) < limit {
			if !e.started {
				e.copies, e.started = s.plan.Cmd.Copies(t.counts[e.group][0], t.counts[e.group][1]), true
			}
			if sel, e.copies = rowsWithCopies(sel, int32(e.row), e.copies, limit); e.copies > 0 {
				break
			}
			e.row, e.group, e.started = e.row+1, e.group+1, false
		}
		if e.row >= int(b.NumRows()) {
			e.batch, e.row = e.batch+1, 0
		}
		if len(sel) > 0 {
			return takeBatch(b, sel)
		}
	}
	return nil
}

// newResultProject builds a Result over a child plan: its Targets
// project the child's rows, as a subquery scan's do.
func newResultProject(p *nodes.ResultProject, ec *ExecContext) (Operator, error) {
	q, err := newQual(&p.PlanBase, ec)
	if err != nil {
		return nil, err
	}
	c, err := Build(p.Child, ec)
	if err != nil {
		q.close()
		return nil, err
	}
	return &subqueryScan{child: c, qual: q}, nil
}
