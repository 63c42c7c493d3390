package executor

// Spilling hash join: PostgreSQL's batches, as a grace hash join. While
// the build rows fit in work_mem x hash_mem_multiplier (and the memory
// pools grant them), the table is built in memory. When they do not, the
// build rows so far and all that follow are written to partition files
// (up to joinFanout) by bits of their key's hash, then the probe rows to
// partition files by the same bits, and the partitions are joined one
// pair at a time: each build partition becomes a table (or, still too
// big, splits again by the next bits of the hash), probed by its probe
// partition. Equal keys hash alike, so every match is within one pair.
//
// Rows that cannot match are never written: NULL-keyed probe rows are
// returned at once when the join returns unmatched outer rows (else
// dropped), NULL-keyed build rows of right and full joins go to a file of
// their own, returned null-extended at the end, and probe rows of an
// empty build partition are dropped unless the join returns them anyway.
//
// Splitting stops after joinMaxDepth levels (24 bits of the hash), and a
// build side whose rows all fall into one partition (one key's rows, or a
// few keys' that share the bits) is not split at all: it stays in memory
// whatever its size, bounded only by the memory pools, as PostgreSQL
// stops growing the batches when a split would move nothing.
//
// The first split makes joinFanout partitions (the build side's size is
// unknown); a partition that splits again knows its size, and makes just
// enough partitions for each to fit, with room to spare. EXPLAIN's
// Batches are PostgreSQL's nbatch: 1, plus fanout - 1 for every split.
//
// DebugSpill splits every join whose rows fall in two partitions, and
// again at the next level, into joinDebugFanout partitions, then stops
// (hash_mem as usual below): the spilling paths run on small data
// without making thousands of files.

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
)

const (
	joinPartitionBits = 4
	joinFanout        = 1 << joinPartitionBits
	joinMaxDepth      = maxSpillDepth
	joinDebugLevels   = 2
	joinDebugFanout   = 4
)

// partOf is the 4-bit slot of hash h at level, from the top (the bucket
// uses the low bits); a split into fanout partitions uses its low bits.
func partOf(h uint64, level int) int {
	return int(h>>(64-joinPartitionBits*(level+1))) & (joinFanout - 1)
}

type joinSpill struct {
	build, probe [joinFanout]*spillFile // the files of the split being written
	level        int                    // that split's level
	fanout       int                    // and its number of partitions
	pending      []joinPartition
	nullBuild    *spillFile // NULL-keyed build rows (right and full joins)
	nullRead     *spillReader
	batches      int // partitions the splits added (EXPLAIN's Batches - 1)
	sel          [joinFanout][]int32
	scratch      keyScratch
	// shared are the build partitions of a spilled Parallel Hash, written
	// by all the participants (parallel_hash.go), while the outer side is
	// partitioned by them: read here, never closed.
	shared [joinFanout][]*spillFile
}

// joinPartition is a pair of spilled partitions to join; level is the
// level by whose bits it splits, if it must. A claimed partition of a
// Parallel Hash has shared files (every participant's) instead of build
// and probe: parallel_hash_probe.go.
type joinPartition struct {
	build, probe *spillFile
	shared       []*spillFile
	sharedProbe  []*spillFile
	level        int
}

func (s *joinSpill) close() {
	for i := range s.build {
		for _, f := range []*spillFile{s.build[i], s.probe[i]} {
			if f != nil {
				f.close()
			}
		}
		s.build[i], s.probe[i] = nil, nil
	}
	for _, p := range s.pending {
		if p.build != nil {
			p.build.close()
		}
		if p.probe != nil {
			p.probe.close()
		}
	}
	s.pending = nil
	if s.nullRead != nil {
		s.nullRead.close()
		s.nullRead = nil
	}
	if s.nullBuild != nil {
		s.nullBuild.close()
		s.nullBuild = nil
	}
	s.scratch.release()
}

// group sorts the rows of a batch into s.sel by partition; it returns the
// rows with a NULL key, which belong to no partition.
func (s *joinSpill) group(hashes []uint64, nulls []bool, level int, nullRows []int32) []int32 {
	for p := range s.sel {
		s.sel[p] = s.sel[p][:0]
	}
	for i, h := range hashes {
		if nulls != nil && nulls[i] {
			nullRows = append(nullRows, int32(i))
			continue
		}
		p := partOf(h, level) & (s.fanout - 1)
		s.sel[p] = append(s.sel[p], int32(i))
	}
	return nullRows
}

// writeGroups writes the rows s.sel of b to files (created on first use),
// except the partitions drop says to drop.
func (j *hashJoin) writeGroups(files *[joinFanout]*spillFile, b arrow.RecordBatch, drop func(p int) bool) error {
	s := &j.spill
	for p, sel := range s.sel {
		if len(sel) == 0 || (drop != nil && drop(p)) {
			continue
		}
		if err := j.writeRows(&files[p], b, sel); err != nil {
			return err
		}
	}
	return nil
}

// writeRows writes the rows sel of b to *f, creating it if need be.
func (j *hashJoin) writeRows(f **spillFile, b arrow.RecordBatch, sel []int32) error {
	if *f == nil {
		nf, err := newSpillFile(j.ec.TempDir, b.Schema())
		if err != nil {
			return err
		}
		nf.coalesce = true
		*f = nf
	}
	part := b
	if len(sel) != int(b.NumRows()) {
		part = takeBatch(b, sel)
		defer part.Release()
		discarded(batchBytes(part))
	}
	return (*f).write(part)
}

// splitBuilt writes the rows the builder holds to the build partitions
// of level, and empties it.
func (j *hashJoin) splitBuilt(level int) error {
	bd := &j.bld
	s := &j.spill
	base := 0
	for _, b := range bd.batches {
		n := int(b.NumRows())
		var nulls []bool
		if bd.anyNull {
			nulls = bd.nullKey[base : base+n]
		}
		nullRows := s.group(bd.hashes[base:base+n], nulls, level, j.sel[:0])
		j.sel = nullRows
		if len(nullRows) > 0 {
			if err := j.writeRows(&s.nullBuild, b, nullRows); err != nil {
				return err
			}
		}
		if err := j.writeGroups(&s.build, b, nil); err != nil {
			return err
		}
		base += n
	}
	discarded(bd.bytes)
	bd.reset()
	return j.mem.resize(0)
}

// writeBuild writes build batch b (after a split) to the partitions of
// level.
func (j *hashJoin) writeBuild(ks *keyScratch, b arrow.RecordBatch, level int) error {
	if err := ks.load(j.innerKeys, j.forms, b); err != nil {
		return err
	}
	defer ks.release()
	s := &j.spill
	nullRows := s.group(ks.hashes, ks.nulls, level, j.sel[:0])
	j.sel = nullRows
	if level == 0 {
		j.buildRows += b.NumRows()
		if !fillInner(j.plan.Type) {
			j.buildRows -= int64(len(nullRows))
		}
		j.innerSeen += b.NumRows()
		j.innerNull = j.innerNull || len(nullRows) > 0
	}
	if len(nullRows) > 0 && fillInner(j.plan.Type) {
		if err := j.writeRows(&s.nullBuild, b, nullRows); err != nil {
			return err
		}
	}
	return j.writeGroups(&s.build, b, nil)
}

// partitionProbe writes the next probe batch to the probe partitions of
// the split just made; at the end of the probe side it queues the pairs.
func (j *hashJoin) partitionProbe(ctx context.Context) error {
	if err := checkCtx(ctx); err != nil {
		return err
	}
	s := &j.spill
	b, err := j.probeSrc(ctx)
	if err == io.EOF {
		j.endProbeSource()
		j.state = hjNextPartition
		if j.sharedSplit() {
			return nil // probeSharedSpill hands the files over
		}
		return j.queuePartitions()
	}
	if err != nil {
		return err
	}
	defer b.Release()
	ks := &s.scratch
	if err := ks.load(j.outerKeys, j.forms, b); err != nil {
		return err
	}
	defer ks.release()
	nullRows := s.group(ks.hashes, ks.nulls, s.level, j.sel[:0])
	j.sel = nullRows
	typ := j.plan.Type
	if len(nullRows) > 0 && fillOuter(typ) && !j.dropNullOuter() {
		if j.sharedSplit() {
			// Returned when partition 0 is joined: they match nothing.
			if err := j.writeRows(&s.probe[0], b, nullRows); err != nil {
				return err
			}
		} else {
			j.ready = j.shape.outerRowsInPieces(j.ready, b, nullRows, j.ec.BatchSize)
		}
	}
	return j.writeGroups(&s.probe, b, func(p int) bool {
		// Nothing in an empty build partition matches.
		return s.build[p] == nil && s.shared[p] == nil && !fillOuter(typ)
	})
}

// sharedSplit reports whether the split being written is a Parallel
// Hash's first, whose outer partitions all the participants share.
func (j *hashJoin) sharedSplit() bool { return j.par != nil && j.spill.level == 0 }

// queuePartitions ends the split's files and queues the pairs that can
// give rows, partition 0 first.
func (j *hashJoin) queuePartitions() error {
	s := &j.spill
	typ := j.plan.Type
	for p := joinFanout - 1; p >= 0; p-- {
		bf, pf := s.build[p], s.probe[p]
		s.build[p], s.probe[p] = nil, nil
		var err error
		for _, f := range []*spillFile{bf, pf} {
			if f != nil && err == nil {
				err = f.finish()
			}
		}
		if err != nil || (bf == nil && !fillOuter(typ)) || (pf == nil && !fillInner(typ)) {
			if bf != nil {
				bf.close()
			}
			if pf != nil {
				pf.close()
			}
			if err != nil {
				return err
			}
			continue
		}
		s.pending = append(s.pending, joinPartition{build: bf, probe: pf, level: s.level + 1})
	}
	return nil
}

// nextPartition builds the table of the next pending pair and starts
// its probe side (or its split); with none left, the spilled NULL-keyed
// build rows, then the end.
func (j *hashJoin) nextPartition(ctx context.Context) error {
	j.releaseTable()
	s := &j.spill
	if len(s.pending) == 0 && j.par != nil {
		if p, ok := j.claimPartition(); ok {
			s.pending = append(s.pending, p)
		}
	}
	if len(s.pending) == 0 {
		j.state = hjDone
		if s.nullBuild != nil {
			r, err := s.nullBuild.reader()
			if err != nil {
				return err
			}
			s.nullRead = r
			j.state = hjNullBuild
		}
		return nil
	}
	p := s.pending[len(s.pending)-1]
	s.pending = s.pending[:len(s.pending)-1]
	// The probe file is the current probe source from now on (closed
	// with it), whatever happens to the build.
	j.endProbeSource()
	if p.probe != nil {
		j.probeFile = p.probe
		r, err := p.probe.reader()
		if err != nil {
			if p.build != nil {
				p.build.close()
			}
			return err
		}
		j.probeRead = r
		j.probeSrc = func(context.Context) (arrow.RecordBatch, error) { return r.next() }
	}
	if p.sharedProbe != nil {
		r := newSharedReader(p.sharedProbe)
		j.probeShared = r
		j.probeSrc = r.next
	}
	src := emptySource
	if p.build != nil {
		defer p.build.close()
		r, err := p.build.reader()
		if err != nil {
			return err
		}
		defer r.close()
		src = func(context.Context) (arrow.RecordBatch, error) { return r.next() }
	}
	var rows, bytes int64
	if p.build != nil {
		rows, bytes = p.build.rows, p.build.bytes
	}
	if p.shared != nil {
		r := newSharedReader(p.shared)
		defer r.close()
		src, rows, bytes = r.next, r.rows, r.bytes
		sharedBuildRowsRead.Add(rows)
	}
	split, err := j.build(ctx, src, p.level, rows, bytes)
	if err != nil {
		return err
	}
	if split {
		j.state = hjPartitionProbe
		return nil
	}
	j.afterBuild()
	return nil
}

// nullBuildStep returns the next spilled NULL-keyed build rows,
// null-extended.
func (j *hashJoin) nullBuildStep(ctx context.Context) error {
	if err := checkCtx(ctx); err != nil {
		return err
	}
	s := &j.spill
	b, err := s.nullRead.next()
	if err == io.EOF {
		s.nullRead.close()
		s.nullRead = nil
		s.nullBuild.close()
		s.nullBuild = nil
		j.state = hjDone
		return nil
	}
	if err != nil {
		return err
	}
	defer b.Release()
	n := int(b.NumRows())
	for lo := 0; lo < n; lo += j.ec.BatchSize {
		hi := min(lo+j.ec.BatchSize, n)
		sel := j.sel[:0]
		for i := lo; i < hi; i++ {
			sel = append(sel, int32(i))
		}
		j.sel = sel
		j.ready = append(j.ready, j.shape.innerRows(b, sel))
	}
	return nil
}
