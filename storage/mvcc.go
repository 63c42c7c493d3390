package storage

// Versions of tables and the snapshots that read them.
//
// Every commit that writes local tables gets the next commit sequence
// number and publishes, for each table it wrote, a new version: the
// table's whole batch list as of that commit (batches are immutable and
// shared between versions). A snapshot is a sequence number: it reads,
// of each table, the newest version no newer than itself. The clock
// publishes commits one at a time and advances its published number only
// when a commit's tables all carry their new versions, so a snapshot sees
// all of a commit or none of it.
//
// Versions no snapshot can read any more are dropped when the next one is
// published (the newest version at or below the oldest active snapshot is
// kept, and every newer one).

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// clock is the one commit clock of the process: sequence numbers order
// commits across every catalog, and active snapshots hold versions back.
var clock = &commitClock{active: map[uint64]int{}}

type commitClock struct {
	// publishing serializes commits; mu guards the numbers.
	publishing sync.Mutex
	mu         sync.Mutex
	published  uint64
	active     map[uint64]int // snapshot sequence number -> holders
}

// Snapshot is a point in the commit order that reads see tables as of.
// Release it when done: while it is held, the versions it reads are kept.
type Snapshot struct {
	Seq      uint64
	released bool
}

// TakeSnapshot returns a snapshot of everything committed so far.
func TakeSnapshot() *Snapshot {
	clock.mu.Lock()
	defer clock.mu.Unlock()
	s := &Snapshot{Seq: clock.published}
	clock.active[s.Seq]++
	return s
}

// Release ends the snapshot (releasing twice is harmless).
func (s *Snapshot) Release() {
	if s == nil || s.released {
		return
	}
	s.released = true
	clock.mu.Lock()
	defer clock.mu.Unlock()
	if clock.active[s.Seq]--; clock.active[s.Seq] <= 0 {
		delete(clock.active, s.Seq)
	}
}

// commit publishes one commit: publish runs with the commit's sequence
// number while no other commit publishes, and the commit becomes visible
// to new snapshots when it returns.
func (c *commitClock) commit(publish func(seq uint64)) {
	c.publishing.Lock()
	defer c.publishing.Unlock()
	c.mu.Lock()
	seq := c.published + 1
	c.mu.Unlock()
	publish(seq)
	c.mu.Lock()
	c.published = seq
	c.mu.Unlock()
}

// oldestLocked is the oldest snapshot in use, or def when there is none.
func (c *commitClock) oldestLocked(def uint64) uint64 {
	oldest := def
	for s := range c.active {
		if s < oldest {
			oldest = s
		}
	}
	return oldest
}

// horizon is the oldest sequence number a snapshot may read at: the
// oldest in use, or the last published (new snapshots get no older one).
// Versions older than the newest one at or below it are invisible to all.
func (c *commitClock) horizon() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.oldestLocked(c.published)
}

// tableVersion is a table's contents as of a commit.
type tableVersion struct {
	seq     uint64
	batches []arrow.RecordBatch // one reference each, owned by the version
	rows    int64
}

func newVersion(seq uint64, bs []arrow.RecordBatch) tableVersion {
	v := tableVersion{seq: seq}
	for _, b := range bs {
		if b.NumRows() == 0 {
			continue
		}
		b.Retain()
		v.batches = append(v.batches, b)
		v.rows += b.NumRows()
	}
	return v
}

func (v tableVersion) release() {
	for _, b := range v.batches {
		b.Release()
	}
}
