package executor

// The probe of a spilled Parallel Hash Join, as PostgreSQL's
// (ExecParallelHashJoinPartitionOuter, then each participant choosing a
// batch to work on): every inner partition is built into a table once,
// by one participant, and probed by the outer rows of all of them.
//
// Protocol. After a spilled build every participant writes its whole
// share of the outer side to outer partition files of its own, by the
// same bits of the hash, inside one Next call that returns nothing
// (outer rows with a NULL key, which match nothing anywhere, go to
// partition 0 when the join returns them). Then it hands its files to
// the probeBarrier and waits until every participant attached to it has
// arrived. From then on the partitions are claimed, one at a time, by
// an atomic counter: the claimer builds the partition's table from the
// shared inner files (splitting it further on its own, as the serial
// join does, if it outgrows its hash_mem) and probes it with every
// participant's outer files of that partition. A participant that finds
// no partition left is done; nobody waits after the barrier.
//
// Why it never hangs: a participant attached to the barrier but not yet
// arrived is inside that one Next call, reading its outer side, which
// waits on nothing but scans and the barriers of joins below (reached in
// the same tree order by every participant); it never waits on a tuple
// queue, since it returns no rows until the barrier. One that leaves the
// call early (an error, a cancel, a panic) fails the barrier, which
// wakes the others with its error. A participant that comes to the probe
// after the barrier closed finds its outer side empty (the others read
// the outer scans to their end) and goes straight to claiming.
//
// Without this, each participant joined its own outer rows against every
// partition, building all of them: the inner side was hashed once per
// participant, which made TPC-H Q9 at 2 workers spend nearly three times
// the CPU of its serial plan.

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/pgfed/pgfed/pgerr"
)

// sharedBuildRowsRead counts the rows read back from a spilled Parallel
// Hash's shared build partitions into tables (tests check that each is
// built once, not once per participant).
var sharedBuildRowsRead atomic.Int64

// probeBarrier gathers the participants' outer partition files of a
// spilled Parallel Hash Join and hands out its partitions.
type probeBarrier struct {
	mu       sync.Mutex
	closed   bool // every attached participant arrived, or one failed
	attached int
	arrived  int
	done     chan struct{} // closed with closed
	err      error

	// Final once done is closed.
	files [joinFanout][]*spillFile // outer partition files, by partition
	next  atomic.Int32             // the next partition to claim
}

// attach counts the caller in while the outer side is being partitioned;
// false once the barrier closed.
func (pb *probeBarrier) attach() bool {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	if pb.closed {
		return false
	}
	pb.attached++
	return true
}

// arrive hands in a participant's outer partition files; the last
// attached participant to arrive opens the partitions to claiming.
func (pb *probeBarrier) arrive(files [joinFanout]*spillFile) {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	for p, f := range files {
		if f != nil {
			pb.files[p] = append(pb.files[p], f)
		}
	}
	pb.arrived++
	if pb.arrived == pb.attached && !pb.closed {
		pb.closed = true
		close(pb.done)
	}
}

// fail closes the barrier with err, for a participant that leaves before
// it arrives.
func (pb *probeBarrier) fail(err error) {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	if pb.closed {
		return
	}
	pb.err, pb.closed = err, true
	close(pb.done)
}

// wait waits for the barrier to close; its error is the failure.
func (pb *probeBarrier) wait(ctx context.Context) error {
	select {
	case <-pb.done:
	case <-ctx.Done():
		return CtxError(ctx)
	}
	pb.mu.Lock()
	defer pb.mu.Unlock()
	return pb.err
}

func (pb *probeBarrier) release() { closeParts(&pb.files) }

// closeParts closes and forgets the files of every partition.
func closeParts(parts *[joinFanout][]*spillFile) {
	for p, fs := range parts {
		for _, f := range fs {
			f.close()
		}
		parts[p] = nil
	}
}

// probeSharedSpill partitions this participant's outer side for a spilled
// shared build, hands the files over and waits for the others; then the
// join claims partitions (nextPartition).
func (j *hashJoin) probeSharedSpill(ctx context.Context) (err error) {
	pb := &j.par.probe
	if pb.attach() {
		arrived := false
		defer func() {
			if !arrived {
				pb.fail(leftFailure(ctx, err, "probe"))
			}
		}()
		j.state = hjPartitionProbe
		for j.state == hjPartitionProbe {
			if err := j.partitionProbe(ctx); err != nil {
				return err
			}
		}
		files, err := handOver(&j.spill.probe)
		if err != nil {
			return err
		}
		pb.arrive(files)
		arrived = true
	}
	j.endProbeSource()
	j.spill.shared = [joinFanout][]*spillFile{} // the split is over
	if err := pb.wait(ctx); err != nil {
		return err
	}
	j.state = hjNextPartition
	return nil
}

// claimPartition takes the next partition of a spilled shared build that
// can give rows; false when none is left (or the build did not spill).
func (j *hashJoin) claimPartition() (joinPartition, bool) {
	sh := j.par
	for sh.fanout > 0 {
		p := int(sh.probe.next.Add(1)) - 1
		if p >= sh.fanout {
			break
		}
		build, outer := sh.files[p], sh.probe.files[p]
		typ := j.plan.Type
		if (len(outer) == 0 && (build == nil || !fillInner(typ))) || (build == nil && !fillOuter(typ)) {
			continue
		}
		return joinPartition{shared: build, sharedProbe: outer, level: 1}, true
	}
	return joinPartition{}, false
}

// leftFailure is the error a participant fails a shared build or probe
// with when it leaves it early: its own error, else the context's (a
// cancel's panic).
func leftFailure(ctx context.Context, err error, what string) error {
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return CtxError(ctx)
	}
	return pgerr.Internal("executor: a participant left a Parallel Hash %s", what)
}
