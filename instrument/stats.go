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
