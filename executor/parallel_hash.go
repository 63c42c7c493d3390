package executor

// Parallel Hash Join: the copies of one hash join under a Gather build
// one table together and share it, as PostgreSQL's parallel-aware hash
// join (nodeHashjoin.c, nodeHash.c's shared table) does, instead of each
// building its own from the whole inner side.
//
// Protocol. The copies meet at a sharedHash (one per join, kept in the
// Gather's parallelShared). Its build goes through phases, as
// PostgreSQL's build barrier does:
//
//	building    participants attach; each reads its share of the inner
//	            side (morsels of the Parallel Seq Scans below the Parallel
//	            Hash) into a builder of its own: rows, normalized keys,
//	            hashes, so the expensive part runs in parallel;
//	finalizing  the last attached participant to arrive merges the
//	            builders into one table (or, spilled, finishes the files);
//	done        every participant probes the one table, read-only, with
//	            its own share of the outer side; the Gather frees the
//	            table once the last participant is closed.
//
// A participant that finishes its share waits for the others attached;
// one that arrives after the building phase has ended (a worker started
// late) builds nothing and waits for done, or finds it. Nobody waits for
// a participant that has not attached: the morsels it would have read
// are read by those that run, since the scans below a Parallel Hash let
// any participant take any morsel, even under a Gather Merge (stealAll).
// Waiting never holds up a Gather: a participant waits only at the end of
// its build share, when it has no batch for its parent, and those it
// waits for are reading their inner sides, never blocked on a queue. The
// whole build of a participant happens inside one Next call, and an
// attached participant that leaves it without arriving (an error, a
// cancel, a panic) fails the build, which wakes the others with its error:
// no participant waits forever, whatever the others do.
//
// NULL keys: the inner side's NULL-keyed rows are dropped, except by
// joins that return unmatched inner rows, but whether there were any,
// and whether there were rows at all, is summed over the participants:
// NOT IN's rules depend on the whole inner side.
//
// Right, full, right semi and right anti joins (PostgreSQL 16's parallel
// right and full hash joins): the participants set the shared table's
// match flags atomically, and the last of them to finish its probe
// returns the inner rows by the flags, alone, so that nobody waits for
// anybody after the build; their outer sides' scans are stealable, so
// that when the last prober finishes, the outer side has been read.
// Spilled, each partition is joined by one participant, which returns its
// inner rows by its own table's flags.
//
// Memory: the builders count together against hash_mem x (planned workers
// + 1), PostgreSQL's combined hash_mem for a Parallel Hash. Past it, the
// join spills by batches shared among the participants: every participant
// writes its rows from then on (and those it holds) to partition files by
// the top bits of the hash, as the serial join's first split; the last to
// arrive writes the rows of builders still in memory. Then the
// participants partition their outer rows alike and share the partition
// pairs out, each inner partition built into a table once, by the
// participant that claims it (parallel_hash_probe.go). Every match is
// within one partition pair.

import (
	"bufio"
	"context"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
)

type buildPhase uint8

const (
	phBuilding buildPhase = iota
	phFinalizing
	phDone
)

// sharedHash is the build the participants of a Parallel Hash Join share.
type sharedHash struct {
	budget   int64        // the combined hash_mem
	total    atomic.Int64 // bytes the builders hold together
	spilling atomic.Bool  // past budget: the builders write partition files
	failed   atomic.Bool

	mu       sync.Mutex
	phase    buildPhase
	attached int
	arrived  int
	parts    []*tableBuilder // builders in memory, until merged
	done     chan struct{}   // closed when the build is done or failed
	err      error           // the build's failure

	// Final once done is closed; read-only from then on.
	table     *hashTable
	buckets   int
	files     [joinFanout][]*spillFile // spilled: the build partitions
	fanout    int                      // spilled: their number; else 0
	innerSeen int64
	innerNull bool
	peak      int64
	mem       reservation

	// filter is the runtime filter of the table, made once (filterOnce)
	// by the first participant to publish and published by each in its
	// own slot; nil when overloaded.
	filterOnce sync.Once
	filter     *bloomFilter
	filterErr  error

	// probe is the spilled join's outer partitioning and the claiming of
	// its partitions.
	probe probeBarrier

	// A join that returns inner rows by their matches (right, full,
	// right semi, right anti) sets the shared table's match flags from
	// every participant; the last of the probers (those attached to the
	// probe, under mu) returns the rows by them, so that nobody waits.
	// innerMatched counts the flags set, against the table's matchable
	// rows, to end the probe of a right semi or anti join early.
	probers       int
	probersClosed bool
	innerMatched  atomic.Int64
	matchable     int64
}

// attachProber counts the caller among the probers of the shared table;
// false once the last has finished (the outer side is read).
func (sh *sharedHash) attachProber() bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.probersClosed {
		return false
	}
	sh.probers++
	return true
}

// lastProber counts the caller's probe finished; true for the last.
func (sh *sharedHash) lastProber() bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.probers--
	if sh.probers > 0 {
		return false
	}
	sh.probersClosed = true
	return true
}

// sharedHash returns the shared build of the Parallel Hash Join id.
func (ps *parallelShared) sharedHash(id int, budget int64, pool *MemoryPool) *sharedHash {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.hashes == nil {
		ps.hashes = map[int]*sharedHash{}
	}
	sh := ps.hashes[id]
	if sh == nil {
		sh = &sharedHash{budget: budget, done: make(chan struct{}), mem: reservation{pool: pool}}
		sh.probe.done = make(chan struct{})
		ps.hashes[id] = sh
	}
	return sh
}

// stealFrom lets any participant take any morsel of the Parallel Seq
// Scans in p, from now on.
func (ps *parallelShared) stealFrom(p nodes.Plan) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.stealAll == nil {
		ps.stealAll = map[int]bool{}
	}
	nodes.Walk(p, func(q nodes.Plan) {
		if s, ok := q.(*nodes.SeqScan); ok && s.Parallel {
			ps.stealAll[s.ID] = true
			if sc := ps.scans[s.ID]; sc != nil {
				sc.ownedShares.Store(false)
			}
		}
	})
}

// joinShared makes j a participant of its join's shared build.
func (j *hashJoin) joinShared(ps *parallelShared) {
	p, ec := j.plan, j.ec
	shares := int64(ps.planned + 1)
	rows := p.Inner.RowsTotal
	if rows == 0 {
		rows = p.Inner.Rows
	}
	j.origBuckets = plannedBuckets(rows, usualHashMem(ec)*shares)
	j.par = ps.sharedHash(p.ID, j.budget(0)*shares, ec.Memory)
	j.parShared = ps
	ps.stealFrom(p.Inner.Child)
	if innerMatches(p.Type) {
		// The inner rows come out once the outer side is read to its
		// end: nobody keeps a share for a late owner.
		ps.stealFrom(p.Outer)
	}
}

// attach reports whether the build is still under way, counting the
// caller in if so.
func (sh *sharedHash) attach() bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.phase != phBuilding {
		return false
	}
	sh.attached++
	return true
}

// buildShare is a participant's contribution at the barrier: its rows in
// memory (bd) or in partition files, and what it saw of the inner side.
type buildShare struct {
	bd        *tableBuilder
	files     [joinFanout]*spillFile
	innerSeen int64
	innerNull bool
}

// arrive hands in a share; it reports whether the caller was the last
// attached participant to arrive, and so must finalize.
func (sh *sharedHash) arrive(s buildShare) bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.arrived++
	sh.innerSeen += s.innerSeen
	sh.innerNull = sh.innerNull || s.innerNull
	if s.bd != nil {
		sh.parts = append(sh.parts, s.bd)
	}
	for p, f := range s.files {
		if f != nil {
			sh.files[p] = append(sh.files[p], f)
		}
	}
	if sh.arrived < sh.attached || sh.phase != phBuilding {
		return false
	}
	sh.phase = phFinalizing
	return true
}

// finish ends the build: done, or failed with err.
func (sh *sharedHash) finish(err error) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.phase == phDone {
		return
	}
	if err != nil {
		sh.err = err
		sh.failed.Store(true)
	}
	sh.phase = phDone
	close(sh.done)
}

// failure is the build's error, once it failed.
func (sh *sharedHash) failure() error {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.err
}

// wait waits for the end of the build; its error is the build's failure.
func (sh *sharedHash) wait(ctx context.Context) error {
	select {
	case <-sh.done:
	case <-ctx.Done():
		return CtxError(ctx)
	}
	return sh.failure()
}

// release frees the table, the files and any builder left over; every
// participant must be closed.
func (sh *sharedHash) release() {
	if sh.table != nil {
		sh.table.release()
		sh.table = nil
	}
	closeParts(&sh.files)
	for _, bd := range sh.parts {
		bd.reset()
	}
	sh.parts = nil
	sh.probe.release()
	sh.mem.free()
}

// startShared is start for a Parallel Hash Join: the participant's part
// of the shared build, then the probe of the shared table (or, when the
// build spilled, the partitioning of its outer rows: probeSharedSpill). The empty-outer
// shortcut is not taken: no one participant knows the outer side empty.
func (j *hashJoin) startShared(ctx context.Context) error {
	var began time.Time
	if j.hashStats != nil {
		j.hashStats.StartLoop()
		if j.ec.Stats.Timing {
			began = time.Now()
		}
	}
	err := j.buildShared(ctx)
	j.mem.free() // what this participant built is the shared build's now
	if j.hashStats != nil {
		if j.ec.Stats.Timing {
			j.hashStats.AddTime(time.Since(began))
		}
		j.hashStats.Rows = j.buildRows // its own share, as PostgreSQL counts
	}
	if err != nil {
		return err
	}
	sh := j.par
	j.innerSeen, j.innerNull, j.sharedPeak = sh.innerSeen, sh.innerNull, sh.peak
	j.probeSrc = j.outerNext
	if sh.fanout > 0 {
		j.spill.level, j.spill.fanout = 0, sh.fanout
		j.spill.shared = sh.files
		j.spill.batches += sh.fanout - 1
	} else {
		j.table, j.tableShared = sh.table, true
		j.buckets = max(j.buckets, sh.buckets)
		j.state = hjProbe
		if err := j.publishShared(); err != nil {
			return err
		}
	}
	j.recordHash()
	if j.plan.NullAware && j.innerNull {
		j.endProbeSource()
		j.state = hjDone // x NOT IN (... NULL ...) is never true
		return nil
	}
	if sh.fanout > 0 {
		// Whoever runs reads the outer side to its end before the
		// partitions are joined: nobody keeps a share for a late owner.
		j.parShared.stealFrom(j.plan.Outer)
		return j.probeSharedSpill(ctx)
	}
	if innerMatches(j.plan.Type) && !sh.attachProber() {
		// The others have read the outer side and returned the inner
		// rows by their matches.
		j.endProbeSource()
		j.state = hjDone
		return nil
	}
	j.afterBuild()
	return nil
}

// publishShared publishes the runtime filter of the shared table, which
// holds every build row, in this participant's slot: the first
// participant to get here hashes the table, the others wait for it and
// publish the same filter (read-only once made). A spilled build
// publishes none.
func (j *hashJoin) publishShared() error {
	if j.rf == nil {
		return nil
	}
	sh := j.par
	sh.filterOnce.Do(func() {
		j.rf.begin()
		if b := j.table.batch; b != nil {
			if sh.filterErr = j.rf.add(b); sh.filterErr != nil {
				return
			}
		}
		sh.filter = j.rf.finish()
	})
	if sh.filterErr != nil {
		return sh.filterErr
	}
	j.rf.begin()
	if sh.filter != nil {
		j.rf.slot.f.Store(sh.filter)
	}
	return nil
}

// buildShared attaches to the build while it is under way, reads this
// participant's share, arrives (finalizing if it is the last), and waits
// for the end of the build.
func (j *hashJoin) buildShared(ctx context.Context) (err error) {
	sh := j.par
	if !sh.attach() {
		return sh.wait(ctx)
	}
	left := true // it left without arriving or without finalizing
	defer func() {
		if left {
			sh.finish(leftFailure(ctx, err, "build"))
		}
	}()
	spilled, err := j.readShare(ctx)
	if err != nil {
		return err
	}
	share := buildShare{innerSeen: j.innerSeen, innerNull: j.innerNull}
	if spilled {
		if share.files, err = handOver(&j.spill.build); err != nil {
			return err
		}
	} else {
		bd := j.bld
		j.bld = tableBuilder{}
		share.bd = &bd
	}
	if !sh.arrive(share) {
		left = false
		return sh.wait(ctx)
	}
	err = j.finalizeShared()
	left = false
	sh.finish(err)
	if err != nil {
		return err
	}
	return sh.failure()
}

// readShare reads this participant's share of the inner side into j.bld,
// or, once the shared build is past its budget, into partition files
// (j.spill.build); it reports whether it did the latter.
func (j *hashJoin) readShare(ctx context.Context) (bool, error) {
	sh := j.par
	j.releaseTable()
	j.level = 0
	bd := &j.bld
	bd.reset()
	bd.keys = make([]keyVec, len(j.forms))
	fanout := j.fanoutFor(0, 0, 0)
	var counted int64 // this builder's bytes in sh.total
	var scratch keyScratch
	defer scratch.release()
	split := false
	for {
		if err := checkCtx(ctx); err != nil {
			return false, err
		}
		if sh.failed.Load() {
			return false, sh.failure()
		}
		b, err := j.innerNext(ctx)
		if err == io.EOF {
			return split, nil
		}
		if err != nil {
			return false, err
		}
		if split {
			err = j.writeBuild(&scratch, b, 0)
			b.Release()
			if err != nil {
				return false, err
			}
			continue
		}
		if b, err = j.addBuild(b, fillInner(j.plan.Type), 0); err != nil {
			return false, err
		}
		if b == nil {
			continue
		}
		// The builders' rows and keys, and the one bucket array of the
		// table they will make.
		est := bd.bytes + tableBytes(bd.rows, 0, bd.keys, false)
		total := sh.total.Add(est-counted) + int64(j.origBuckets)*4
		counted = est
		sh.notePeak(total)
		refused := j.mem.resize(est)
		if refused != nil && pgerr.Code(refused) != pgerr.OutOfMemory {
			return false, refused
		}
		if refused != nil || total > sh.budget || sh.spilling.Load() {
			sh.spilling.Store(true)
			j.spill.level, j.spill.fanout = 0, fanout
			if err := j.splitBuilt(0); err != nil {
				return false, err
			}
			sh.total.Add(-counted)
			counted, split = 0, true
		}
	}
}

// notePeak records the builders' bytes for EXPLAIN's Memory Usage.
func (sh *sharedHash) notePeak(n int64) {
	sh.mu.Lock()
	sh.peak = max(sh.peak, n)
	sh.mu.Unlock()
}

// handOver finishes the partition files *from of this participant and
// takes them out of its hands (the shared build closes them).
func handOver(from *[joinFanout]*spillFile) ([joinFanout]*spillFile, error) {
	files := *from
	*from = [joinFanout]*spillFile{}
	for _, f := range files {
		if f == nil {
			continue
		}
		if err := f.finish(); err != nil {
			for _, g := range files {
				if g != nil {
					g.close()
				}
			}
			return [joinFanout]*spillFile{}, err
		}
	}
	return files, nil
}

// finalizeShared is the last arriving participant's work: it merges the
// builders into the shared table, or, when the build spilled, writes the
// builders still in memory to partition files of its own and adds them to
// the shared ones.
func (j *hashJoin) finalizeShared() error {
	sh := j.par
	sh.mu.Lock()
	parts := sh.parts
	sh.parts = nil
	sh.mu.Unlock()
	if sh.spilling.Load() {
		return j.spillParts(parts)
	}
	merged := mergeBuilders(parts, len(j.forms))
	sh.matchable = int64(merged.rows - merged.nullKeys())
	t, buckets, err := j.tableOf(&merged, j.minBuckets())
	if err != nil {
		merged.reset()
		return err
	}
	sh.table, sh.buckets = t, buckets
	var n int64
	if t.batch != nil {
		n = batchBytes(t.batch)
	}
	n += tableBytes(t.rows, buckets, t.keys, false)
	sh.notePeak(n)
	return sh.mem.resize(n)
}

// spillParts writes the builders parts to the partitions of the shared
// build.
func (j *hashJoin) spillParts(parts []*tableBuilder) error {
	sh := j.par
	j.spill.level, j.spill.fanout = 0, j.fanoutFor(0, 0, 0)
	for i, bd := range parts {
		j.bld = *bd
		parts[i] = nil
		if err := j.splitBuilt(0); err != nil {
			for _, rest := range parts[i+1:] {
				rest.reset()
			}
			return err
		}
	}
	files, err := handOver(&j.spill.build)
	if err != nil {
		return err
	}
	sh.mu.Lock()
	for p, f := range files {
		if f != nil {
			sh.files[p] = append(sh.files[p], f)
		}
	}
	sh.mu.Unlock()
	sh.fanout = j.spill.fanout
	return nil
}

// mergeBuilders makes one builder of the rows of parts, taking them over.
func mergeBuilders(parts []*tableBuilder, nkeys int) tableBuilder {
	if len(parts) == 1 {
		out := *parts[0]
		*parts[0] = tableBuilder{}
		return out
	}
	out := tableBuilder{keys: make([]keyVec, nkeys)}
	for _, bd := range parts {
		out.batches = append(out.batches, bd.batches...)
		out.hashes = append(out.hashes, bd.hashes...)
		// Joins that return unmatched inner rows keep NULL-keyed ones,
		// and a flag per row in every builder.
		out.nullKey = append(out.nullKey, bd.nullKey...)
		out.anyNull = out.anyNull || bd.anyNull
		out.rows += bd.rows
		out.bytes += bd.bytes
		for c := range out.keys {
			if c < len(bd.keys) {
				out.keys[c].appendVec(&bd.keys[c])
			}
		}
		*bd = tableBuilder{}
	}
	return out
}

// appendVec appends the rows of o.
func (k *keyVec) appendVec(o *keyVec) {
	k.words = append(k.words, o.words...)
	if len(k.offs) == 0 {
		k.offs = append(k.offs, 0)
	}
	if len(o.offs) > 1 {
		base := len(k.data)
		for _, off := range o.offs[1:] {
			k.offs = append(k.offs, base+off)
		}
		k.data = append(k.data, o.data...)
	}
}

// sharedReader reads a shared build partition's files in turn. Each
// reader reads the files through a section of its own, so that the
// participants read them at once.
type sharedReader struct {
	files       []*spillFile
	i           int
	cur         *spillReader
	rows, bytes int64
}

func newSharedReader(files []*spillFile) *sharedReader {
	r := &sharedReader{files: files}
	for _, f := range files {
		r.rows += f.rows
		r.bytes += f.bytes
	}
	return r
}

func (r *sharedReader) next(context.Context) (arrow.RecordBatch, error) {
	for {
		if r.cur == nil {
			if r.i == len(r.files) {
				return nil, io.EOF
			}
			f := r.files[r.i]
			r.i++
			in := bufio.NewReaderSize(io.NewSectionReader(f.f, 0, f.bytes), 1<<16)
			ir, err := ipc.NewReader(in, ipc.WithAllocator(alloc), ipc.WithSchema(f.schema))
			if err != nil {
				return nil, tempFileError("read", err)
			}
			r.cur = &spillReader{r: ir}
		}
		b, err := r.cur.next()
		if err == io.EOF {
			r.cur.close()
			r.cur = nil
			continue
		}
		return b, err
	}
}

func (r *sharedReader) close() {
	if r.cur != nil {
		r.cur.close()
		r.cur = nil
	}
}
