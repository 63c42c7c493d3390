package executor

// Spilling hash aggregation, as PostgreSQL 13+ does it. A hashed Agg
// counts its groups' memory (keys and per-group states) against
// work_mem x hash_mem_multiplier. When the next new group would pass it,
// the table is full: rows of groups already in it go on being
// aggregated, rows of new groups are written to one of aggPartitions
// partition files chosen by bits of their key's hash. Every group thus
// lives wholly in memory or wholly in one partition. After the input,
// the groups in memory are returned, then each partition is aggregated
// the same way, with a fresh table, using the next bits of the hash, so
// a partition that is still too big splits again. Past maxSpillDepth
// levels the table grows without limit (PostgreSQL does the same when
// the hash bits run out), bounded only by the memory pools.
//
// EXPLAIN ANALYZE shows "Batches: N  Memory Usage: NkB" and, when it
// spilled, "Disk Usage: NkB": the passes, the peak memory of one pass,
// and the bytes written to partitions.

import (
	"context"
	"hash/maphash"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
)

const (
	aggPartitionBits = 4
	aggPartitions    = 1 << aggPartitionBits
	maxSpillDepth    = 6
	// debugSpillDepth is maxSpillDepth under DebugSpill: two levels of
	// partitions test the splits of a split; more would make a pass and a
	// file per group of a test's few thousand.
	debugSpillDepth = 2
	// aggGroupBytes estimates a group found by encoded key (its key
	// datums boxed in a slice, the Go map's entry); aggStateBytes the state
	// of an aggregate that does not count its own (sizedState).
	aggGroupBytes = 128
	aggStateBytes = 32
	noPartition   = 0xff
)

var spillSeed = maphash.MakeSeed()

func hashBytes(b []byte) uint64 { return maphash.Bytes(spillSeed, b) }

type aggSpill struct {
	ec         *ExecContext
	full       bool
	depth      int // of the pass running: 0 reads the child
	groupLimit int // groups the table may hold in this batch
	keyBytes   int64
	partOf     []uint8 // per row of the batch: its partition, or noPartition
	parts      [aggPartitions]*spillFile
	pending    []aggPartition
	mem        reservation
	batches    int // passes run
	disk       int64
	// streaming: the Agg returns its groups instead of spilling
	// (agg_stream.go); flushDue says its memory asks it to.
	streaming bool
	flushDue  bool
}

type aggPartition struct {
	file  *spillFile
	depth int
}

// reset drops everything spilled (ec nil: for Close).
func (s *aggSpill) reset(ec *ExecContext) {
	for i, f := range s.parts {
		if f != nil {
			f.close()
			s.parts[i] = nil
		}
	}
	for _, p := range s.pending {
		p.file.close()
	}
	s.mem.free()
	*s = aggSpill{ec: ec, batches: 1}
	if ec != nil {
		s.mem = reservation{pool: ec.Memory}
	}
}

// estimate is the memory of the groups: what the groupTable and the
// sized states hold (their vectors' capacities), aggStateBytes per group
// of other states, and for groups found by encoded key aggGroupBytes and
// the keys' bytes.
func (s *aggSpill) estimate(a *aggOp) int64 {
	n := int64(a.ngroups)
	var b int64
	if a.table != nil {
		b = a.table.bytes()
	} else {
		b = n*aggGroupBytes + s.keyBytes
	}
	for _, st := range a.states {
		if sz, ok := st.(sizedState); ok {
			b += sz.memBytes()
		} else {
			b += n * aggStateBytes
		}
	}
	return b
}

// perGroupBytes is the memory one more group adds, a groupTable's slots
// aside.
func perGroupBytes(a *aggOp) int64 {
	var g int64
	switch {
	case a.table != nil:
		g = a.table.groupBytes()
	case a.useTable:
		g = 16 * int64(len(a.plan.GroupKeys))
	default:
		g = aggGroupBytes
		if a.ngroups > 0 {
			g += a.spill.keyBytes / int64(a.ngroups)
		}
	}
	for _, st := range a.states {
		if sz, ok := st.(sizedState); ok {
			g += sz.groupBytes()
		} else {
			g += aggStateBytes
		}
	}
	return g
}

// splitDepth is the depth from which a pass no longer splits when its
// table passes hash_mem (it still does when a memory pool refuses it).
func splitDepth(ec *ExecContext) int {
	if ec.DebugSpill {
		return debugSpillDepth
	}
	return maxSpillDepth
}

// sizedState is an aggState that knows its memory.
type sizedState interface {
	memBytes() int64   // held for the groups so far
	groupBytes() int64 // added by one more group
}

// startBatch sets how many groups the table may reach within the batch:
// as many as fit in what is left of hash_mem, counting the larger slot
// array that a groupTable grows into on the way.
func (s *aggSpill) startBatch(a *aggOp, rows int) {
	if cap(s.partOf) < rows {
		s.partOf = make([]uint8, rows)
	}
	s.partOf = s.partOf[:rows]
	if s.full {
		return
	}
	if s.depth >= splitDepth(a.ec) || s.streaming {
		s.groupLimit = math.MaxInt
		return
	}
	perGroup := perGroupBytes(a)
	room := a.ec.hashMem() - s.estimate(a) - a.otherSetsMem()
	more := room / perGroup
	if a.table != nil {
		more = a.table.groupsThatFit(room, perGroup)
	}
	s.groupLimit = a.ngroups + int(max(more, 1))
}

// admit reports whether a new group may be added; once it may not, the
// table is full for the rest of the pass.
func (s *aggSpill) admit(a *aggOp) bool {
	if !s.full && a.ngroups >= s.groupLimit {
		s.full = true
	}
	return !s.full
}

// markRow records the partition of a row refused by a full table.
func (s *aggSpill) markRow(r int, hash uint64) {
	shift := 64 - aggPartitionBits*(s.depth+1)
	s.partOf[r] = uint8(hash>>shift) & (aggPartitions - 1)
}

// spillNewGroups writes the rows of b that found no group (groups[r] <
// 0) to their partitions and returns the other rows, with their groups
// (nil when none remain). The caller releases the batch returned.
func (s *aggSpill) spillNewGroups(a *aggOp, b arrow.RecordBatch, groups []int32) (arrow.RecordBatch, []int32, error) {
	var keep []int32
	var perPart [aggPartitions][]int32
	spilled := false
	for r, g := range groups {
		if g >= 0 {
			keep = append(keep, int32(r))
			continue
		}
		p := s.partOf[r]
		perPart[p] = append(perPart[p], int32(r))
		spilled = true
	}
	if !spilled {
		b.Retain()
		return b, groups, nil
	}
	if err := s.writeParts(b, &perPart); err != nil {
		return nil, nil, err
	}
	if len(keep) == 0 {
		return nil, nil, nil
	}
	kept := make([]int32, len(keep))
	for i, r := range keep {
		kept[i] = groups[r]
	}
	return takeBatch(b, keep), kept, nil
}

// writeParts writes the rows perPart[p] of b to partition p's file
// (created on first use).
func (s *aggSpill) writeParts(b arrow.RecordBatch, perPart *[aggPartitions][]int32) error {
	for p, rows := range perPart {
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

// endBatch counts the table's memory; when it passes hash_mem (the
// states' vectors grow by more than a group at a time) or a memory pool
// refuses it, the table becomes full (or, past maxSpillDepth, the
// statement fails).
func (s *aggSpill) endBatch(a *aggOp) error {
	est := s.estimate(a)
	over := est+a.otherSetsMem() >= a.ec.hashMem()
	if s.streaming {
		s.flushDue = s.flushDue || over
	} else if s.depth < splitDepth(a.ec) && over {
		s.full = true
	}
	err := s.mem.resize(est)
	if err != nil && pgerr.Code(err) == pgerr.OutOfMemory && s.depth < maxSpillDepth {
		s.flushDue = s.streaming
		s.full = !s.streaming
		return nil
	}
	return err
}

// endPass queues the partitions written in the pass just ended.
func (s *aggSpill) endPass() error {
	for i, f := range s.parts {
		if f != nil {
			if err := f.finish(); err != nil {
				return err
			}
			s.disk += f.bytes
			s.pending = append(s.pending, aggPartition{file: f, depth: s.depth + 1})
			s.parts[i] = nil
		}
	}
	return nil
}

// nextPartition aggregates the next spilled partition into a.out; false
// when none is left.
func (a *aggOp) nextPartition(ctx context.Context) (bool, error) {
	s := &a.spill
	if len(s.pending) == 0 {
		return false, nil
	}
	p := s.pending[len(s.pending)-1]
	s.pending = s.pending[:len(s.pending)-1]
	defer p.file.close()
	discarded(s.estimate(a)) // the groups of the pass before
	a.resetGroups()
	s.full, s.depth, s.keyBytes = false, p.depth, 0
	s.batches++
	if err := s.mem.resize(0); err != nil {
		return false, err
	}
	r, err := p.file.reader()
	if err != nil {
		return false, err
	}
	defer r.close()
	err = a.consume(ctx, func(ctx context.Context) (arrow.RecordBatch, error) {
		if err := checkCtx(ctx); err != nil {
			return nil, err
		}
		return r.next()
	})
	return true, err
}

// explainSpill records the HashAggregate line of EXPLAIN ANALYZE.
func (a *aggOp) explainSpill() {
	s := &a.spill
	if a.ec.Stats == nil || a.plan.Strategy != nodes.AggHashed || a.gsets != nil || a.combining {
		return
	}
	batches, peak, disk := s.batches, s.mem.peak, s.disk
	if c := a.combiner; c != nil {
		batches += c.spill.batches - 1
		peak = max(peak, c.spill.mem.peak)
		disk += c.spill.disk
	}
	line := "Batches: " + itoa(batches) + "  Memory Usage: " + kB(peak)
	if disk > 0 {
		line += "  Disk Usage: " + kB(disk)
	}
	extra := []string{line}
	if st := a.stream; st != nil {
		line := "Presorted Key: " + st.name + "  Flushes: " + itoa(st.flushes)
		if st.hashing {
			line += "  Then Hashed"
		}
		extra = append(extra, line)
	}
	a.ec.Stats.Node(a.plan.ID).Extra = extra
}

// cmpEOF is err, or io.EOF when there is none.
func cmpEOF(err error) error {
	if err == nil {
		return io.EOF
	}
	return err
}
