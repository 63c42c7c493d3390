package instrument

import (
	"time"
)

// NodeStats are the runtime counters of one plan node.
type NodeStats struct {
	Loops   int64
	Rows    int64 // all rows the node produced, async ones included
	Batches int64
	// AsyncRows are the rows that reached the parent out of band, through
	// the async event channel instead of Next.
	AsyncRows int64
	// RowsRemovedByFilter counts rows the node's Filter rejected.
	RowsRemovedByFilter int64
	// RowsRemovedByRuntimeFilter counts rows a scan's runtime filters
	// (hash joins' build keys) rejected.
	RowsRemovedByRuntimeFilter int64
	// RowsRemovedByJoinFilter counts the pairs a join's JoinFilter
	// rejected (PostgreSQL's nfiltered1 of a join).
	RowsRemovedByJoinFilter int64
	// Startup is the time until the first batch (or end of data) of the
	// first loop; Total the time spent in the node over all loops.
	Startup, Total time.Duration
	started        bool
	// Requests counts remote round trips (ForeignScan); Waited is time the
	// driver spent blocked waiting for this node's async delivery.
	Requests int64
	Waited   time.Duration
	// Extra are node-specific lines ("Sort Method: top-N heapsort ...").
	Extra []string
	// Hash is a Hash node's table, set once it was built (nil otherwise).
	Hash *HashInfo
	// WorkersLaunched is the number of parallel workers a Gather or
	// Gather Merge started (summed over its loops).
	WorkersLaunched int64
	// Workers are the shares of parallel workers in the counters above,
	// which add up the leader's and every worker's (PostgreSQL's loops =
	// participants x executions).
	Workers []WorkerStats
}

// HashInfo describes a hash join's table, as PostgreSQL's
// HashInstrumentation: "Buckets: 1024  Batches: 1  Memory Usage: 9kB".
type HashInfo struct {
	Buckets, OriginalBuckets int64
	Batches, OriginalBatches int64
	PeakMemory               int64 // bytes
}

// merge keeps the largest of each count, as PostgreSQL's
// ExecHashAccumInstrumentation does for parallel workers.
func (h *HashInfo) merge(w *HashInfo) {
	h.Buckets = max(h.Buckets, w.Buckets)
	h.OriginalBuckets = max(h.OriginalBuckets, w.OriginalBuckets)
	h.Batches = max(h.Batches, w.Batches)
	h.OriginalBatches = max(h.OriginalBatches, w.OriginalBatches)
	h.PeakMemory = max(h.PeakMemory, w.PeakMemory)
}

// WorkerStats are one parallel worker's counters of a node.
type WorkerStats struct {
	Number         int
	Loops, Rows    int64
	Startup, Total time.Duration
	// Extra are the worker's own node-specific lines (its Sort Method).
	Extra []string
}

// MergeWorker adds the counters of a worker's copy of a node (w) to n,
// the node's counters, and records them as worker number's share.
func (n *NodeStats) MergeWorker(number int, w *NodeStats) {
	if w.Loops == 0 {
		return
	}
	n.Loops += w.Loops
	n.Rows += w.Rows
	n.Batches += w.Batches
	n.AsyncRows += w.AsyncRows
	n.RowsRemovedByFilter += w.RowsRemovedByFilter
	n.RowsRemovedByRuntimeFilter += w.RowsRemovedByRuntimeFilter
	n.RowsRemovedByJoinFilter += w.RowsRemovedByJoinFilter
	if w.Hash != nil {
		if n.Hash == nil {
			n.Hash = &HashInfo{}
		}
		n.Hash.merge(w.Hash)
	}
	n.Total += w.Total
	n.Requests += w.Requests
	n.Waited += w.Waited
	n.WorkersLaunched += w.WorkersLaunched
	if !n.started || w.Startup < n.Startup {
		n.Startup, n.started = w.Startup, true
	}
	n.Workers = append(n.Workers, WorkerStats{Number: number, Loops: w.Loops, Rows: w.Rows, Startup: w.Startup, Total: w.Total, Extra: w.Extra})
}

// Stats are the counters of a whole plan, indexed by node ID.
type Stats struct {
	Nodes  []NodeStats
	Timing bool // measure time (EXPLAIN's TIMING option)
}

// NewStats allocates counters for a plan of n nodes.
func NewStats(n int, timing bool) *Stats {
	return &Stats{Nodes: make([]NodeStats, n), Timing: timing}
}

// Node returns the counters of node id.
func (s *Stats) Node(id int) *NodeStats { return &s.Nodes[id] }

// StartLoop records the start of a loop.
func (n *NodeStats) StartLoop() { n.Loops++ }

// AddTime records time spent in one call; first marks the first batch of
// the node's first loop (for Startup).
func (n *NodeStats) AddTime(d time.Duration) {
	n.Total += d
	if !n.started {
		n.started = true
		n.Startup = n.Total
	}
}
