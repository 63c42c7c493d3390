package executor

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
)

// Operator is the runtime form of a plan node. See the package doc for
// the lifecycle and ownership rules.
type Operator interface {
	Open(ctx context.Context) error
	Next(ctx context.Context) (arrow.RecordBatch, error)
	Close() error
}

// ExecContext is what every operator of one statement shares.
type ExecContext struct {
	// Stats receives per-node counters; nil unless EXPLAIN ANALYZE.
	Stats *instrument.Stats
	// Now is the statement's start time in microseconds since the Unix
	// epoch: now() and CURRENT_TIMESTAMP return it for the whole statement.
	Now int64
	// BatchSize bounds the rows per batch that nodes which build batches
	// produce (scans pass stored batches through).
	BatchSize int
	// RowsAffected counts the rows that INSERT, UPDATE or DELETE changed,
	// for the command tag.
	RowsAffected int64

	// Remote gives foreign scans their connections (nil: no foreign
	// tables in this statement's session).
	Remote RemoteConnector

	// View is what the statement reads of local tables (its snapshot and
	// its transaction's own writes) and, through its write set, where
	// INSERT, UPDATE and DELETE put their changes (published at commit).
	// nil: scans read the newest versions and nothing can be written.
	View *storage.View
	// LockTimeout is lock_timeout (0: wait for table locks without limit).
	LockTimeout time.Duration

	// Workers is the database's pool of parallel workers and
	// MaxParallelWorkers the session's max_parallel_workers: a Gather
	// starts only the workers the pool can give (nil: no limit).
	Workers            *WorkerPool
	MaxParallelWorkers int

	// WorkMem is work_mem in bytes (0: PostgreSQL's default 4MB) and
	// HashMemMultiplier hash_mem_multiplier (0: 2): what a sort or a hash
	// table may hold before it spills to temporary files in TempDir (""
	// for the system's). Memory is the statement's memory pool (nil: no
	// limit); see memory.go.
	WorkMem           int64
	HashMemMultiplier float64
	// DebugSpill (pgfed.debug_spill) makes every sort and hash table
	// spill as soon as it can, to test the spilling paths on small data.
	DebugSpill bool
	TempDir    string
	Memory     *MemoryPool

	// parallel is set in the copies of a Gather's subplan: the state the
	// participants share, and which participant (0 = the leader) this
	// copy belongs to.
	parallel    *parallelShared
	participant int

	// noFold compiles expressions as written (constant folding's own
	// evaluation, fold.go).
	noFold bool
	// paramsVary is set while compiling an expression whose Params change
	// between evaluations (a SubPlan's test over its rows), which are
	// then not bound to their first values (param_bind.go).
	paramsVary bool

	// params are the values the statement's InitPlans computed
	// (init_plan.go), shared with its parallel participants.
	params *paramValues

	// filters are the participant's runtime filter slots
	// (runtime_filter.go); not shared with other participants.
	filters *runtimeFilters

	// consts are the constant evaluators of the statement, whose cached
	// arrays Release frees.
	consts []*constEval

	// scaledCols shares numeric columns parsed to int64 among the
	// statement's evaluators that read the same batch (numeric_vector.go).
	scaledCols *scaledColumns

	// subPlans are the SubPlan evaluators compiled by the node being
	// built, which Build hands to its subPlanHost (subplan.go).
	subPlans []*subPlanEval

	// ctes are the stores of the statement's CTEs and the work tables of
	// its Recursive Unions (cte_scan.go).
	ctes *cteRegistry

	// foreignReturned receives the rows a ForeignModify's remote
	// RETURNING gave back (full rows of its table), for the statement's
	// RETURNING; nil without one.
	foreignReturned func(arrow.RecordBatch) error
}

// tableBatches returns the batches a scan of t reads in this statement.
func (ec *ExecContext) tableBatches(t *storage.Table) []arrow.RecordBatch {
	if ec.View != nil {
		return ec.View.Batches(t)
	}
	return t.Snapshot()
}

// Release frees what the statement's expressions cached (constant
// arrays). Call it once the root operator is closed.
func (ec *ExecContext) Release() {
	for _, c := range ec.consts {
		if c.cache != nil {
			c.cache.Release()
			c.cache = nil
		}
	}
	ec.consts = nil
}

// workMem is the bytes a sort may hold; hashMem those of a hash table.
func (ec *ExecContext) workMem() int64 {
	if ec.DebugSpill {
		return 1
	}
	if ec.WorkMem <= 0 {
		return 4 << 20
	}
	return ec.WorkMem
}

func (ec *ExecContext) hashMem() int64 {
	m := ec.HashMemMultiplier
	if m <= 0 {
		m = 2
	}
	return int64(float64(ec.workMem()) * m)
}

// DefaultBatchSize is the batch size of built batches.
const DefaultBatchSize = 64 * 1024

// checkCtx turns a done context into PostgreSQL's cancel error; the cause
// distinguishes statement_timeout from a user cancel.
func checkCtx(ctx context.Context) error {
	if ctx.Err() == nil {
		return nil
	}
	return CtxError(ctx)
}

// CtxError returns the *pgerr.Error for a done context.
func CtxError(ctx context.Context) error {
	if pe, ok := pgerr.As(context.Cause(ctx)); ok {
		return pe
	}
	return pgerr.Canceled()
}

// Build makes the operator tree of plan p.
func Build(p nodes.Plan, ec *ExecContext) (Operator, error) {
	if ec.BatchSize <= 0 {
		ec.BatchSize = DefaultBatchSize
	}
	if ec.params == nil {
		ec.params = &paramValues{}
	}
	if ec.filters == nil {
		ec.filters = &runtimeFilters{}
	}
	ec.cteRegistry() // before any copy of ec is made (SubPlans)
	mark := len(ec.subPlans)
	var op Operator
	var err error
	switch n := p.(type) {
	case *nodes.SeqScan:
		op, err = newSeqScan(n, ec)
	case *nodes.Result:
		op = &resultOp{plan: n}
	case *nodes.ValuesScan:
		op, err = newValuesScan(n, ec)
	case *nodes.FunctionScan:
		op, err = newFunctionScan(n, ec)
	case *nodes.SubqueryScan:
		op, err = newSubqueryScan(n, ec)
	case *nodes.Append:
		op, err = newAppend(n, ec)
	case *nodes.Agg:
		if n.GroupingSets != nil {
			op, err = newGroupingSetsAgg(n, ec)
			break
		}
		op, err = newAgg(n, ec)
	case *nodes.Sort:
		op, err = newSort(n, ec)
	case *nodes.Limit:
		op, err = newLimit(n, ec)
	case *nodes.Unique:
		op, err = newUnique(n, ec)
	case *nodes.ForeignScan:
		op, err = newForeignScan(n, ec)
	case *nodes.ForeignModify:
		op, err = newForeignModify(n, ec)
	case *nodes.ModifyTable:
		op, err = newModifyTable(n, ec)
	case *nodes.Gather:
		op, err = newGather(n, ec)
	case *nodes.GatherMerge:
		op, err = newGatherMerge(n, ec)
	case *nodes.HashJoin:
		op, err = newHashJoin(n, ec)
	case *nodes.Hash:
		return nil, pgerr.Internal("executor: a Hash node runs only as the inner side of its Hash Join")
	case *nodes.NestedLoop:
		if len(n.Params) > 0 {
			op, err = newParamLoop(n, ec)
		} else {
			op, err = newNestedLoop(n, ec)
		}
	case *nodes.MergeJoin:
		op, err = newMergeJoin(n, ec)
	case *nodes.Material:
		op, err = newMaterial(n, ec)
	case *nodes.WindowAgg:
		op, err = newWindowAgg(n, ec)
	case *nodes.SetOp:
		op, err = newSetOp(n, ec)
	case *nodes.ResultProject:
		op, err = newResultProject(n, ec)
	case *nodes.CTEScan:
		op, err = newCTEScan(n, ec)
	case *nodes.RecursiveUnion:
		op, err = newRecursiveUnion(n, ec)
	case *nodes.WorkTableScan:
		op, err = newWorkTableScan(n, ec)
	default:
		return nil, pgerr.Internal("executor: no operator for plan node %T", p)
	}
	if err != nil {
		return nil, err
	}
	b := p.Base()
	if _, owned := op.(qualOwner); !owned && (b.Filter != nil || b.Targets != nil) {
		q, err := newQual(b, ec)
		if err != nil {
			op.Close()
			return nil, err
		}
		op = &filterProject{child: op, qual: q}
	}
	if len(ec.subPlans) > mark {
		op = &subPlanHost{Operator: op, evals: append([]*subPlanEval(nil), ec.subPlans[mark:]...)}
		ec.subPlans = ec.subPlans[:mark]
	}
	if ec.Stats != nil {
		op = &instrumented{Operator: op, stats: ec.Stats.Node(b.ID), timing: ec.Stats.Timing}
	}
	if len(b.CTEs) > 0 {
		if op, err = newCTEHolder(op, b.CTEs, ec); err != nil {
			return nil, err
		}
	}
	if len(b.InitPlans) > 0 {
		return newInitPlanRunner(op, b.InitPlans, ec)
	}
	return op, nil
}

// buildChild builds a child and, on failure, nothing is left open.
func buildChildren(ps []nodes.Plan, ec *ExecContext) ([]Operator, error) {
	ops := make([]Operator, 0, len(ps))
	for _, p := range ps {
		op, err := Build(p, ec)
		if err != nil {
			for _, o := range ops {
				o.Close()
			}
			return nil, err
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// instrumented counts loops, rows and time of the operator it wraps.
type instrumented struct {
	Operator
	stats  *instrument.NodeStats
	timing bool
}

func (w *instrumented) Open(ctx context.Context) error {
	w.stats.StartLoop()
	if !w.timing {
		return w.Operator.Open(ctx)
	}
	start := time.Now()
	err := w.Operator.Open(ctx)
	w.stats.Total += time.Since(start)
	return err
}

func (w *instrumented) Next(ctx context.Context) (arrow.RecordBatch, error) {
	var start time.Time
	if w.timing {
		start = time.Now()
	}
	b, err := w.Operator.Next(ctx)
	if w.timing {
		w.stats.AddTime(time.Since(start))
	}
	if b != nil {
		w.stats.Rows += b.NumRows()
		w.stats.Batches++
	}
	return b, err
}

// Stats returns the counters of the wrapped node (for nodes that count
// rows delivered out of band).
func (w *instrumented) Unwrap() Operator { return w.Operator }

// project evaluates targets over b (taking over b) into a new batch.
// maxArrayBytes bounds the values of one computed string array: Arrow's
// string arrays address their bytes with 32-bit offsets, so a batch of
// wide values (repeat(), string_agg results) is split by rows instead
// (projectSplit) long before it could reach 2 GB.
var maxArrayBytes = 256 << 20 // a variable so that tests can lower it

// errBatchTooWide is what an evaluator returns when a batch's values
// would pass maxArrayBytes; projections split the batch and retry, and
// where no caller splits, the statement fails with PostgreSQL's 54000.
func errBatchTooWide(rows, fit, bytes int) error {
	return tooWideError{pgerr.New(pgerr.ProgramLimitExceeded, "out of memory").
		WithDetail("A batch of %d rows would hold more than %d bytes of values.", rows, bytes), fit}
}

// tooWideError marks errBatchTooWide's error for projectSplit; fit is
// how many rows were within the limit.
type tooWideError struct {
	pe  *pgerr.Error
	fit int
}

func (e tooWideError) Error() string { return e.pe.Error() }
func (e tooWideError) Unwrap() error { return e.pe }

// projectSplit projects b, splitting it by rows into batches that each
// stay within maxArrayBytes per column; it takes over b.
func projectSplit(b arrow.RecordBatch, targets []evaluator, schema *arrow.Schema) ([]arrow.RecordBatch, error) {
	b.Retain()
	out, err := project(b, targets, schema)
	var wide tooWideError
	if err == nil || !errors.As(err, &wide) || b.NumRows() < 2 {
		b.Release()
		if err != nil {
			return nil, err
		}
		return []arrow.RecordBatch{out}, nil
	}
	// Pieces of about half what fitted, so that each is likely to fit at
	// the first try; a piece that does not is split again.
	defer b.Release()
	step := int64(max(1, wide.fit/2))
	var outs []arrow.RecordBatch
	for lo := int64(0); lo < b.NumRows(); lo += step {
		part, err := projectSplit(b.NewSlice(lo, min(lo+step, b.NumRows())), targets, schema)
		if err != nil {
			releaseBatches(outs)
			return nil, err
		}
		outs = append(outs, part...)
	}
	return outs, nil
}

func project(b arrow.RecordBatch, targets []evaluator, schema *arrow.Schema) (arrow.RecordBatch, error) {
	defer b.Release()
	cols := make([]arrow.Array, len(targets))
	for i, t := range targets {
		c, err := t.eval(b)
		if err != nil {
			for _, x := range cols[:i] {
				x.Release()
			}
			return nil, err
		}
		cols[i] = c
	}
	return makeBatch(schema, cols, int(b.NumRows())), nil
}

// Drain runs op to the end, calling fn for each batch (which fn must not
// keep without retaining). It opens and closes op.
func Drain(ctx context.Context, op Operator, fn func(arrow.RecordBatch) error) (err error) {
	defer func() {
		if cerr := op.Close(); err == nil {
			err = cerr
		}
	}()
	if err = op.Open(ctx); err != nil {
		return err
	}
	for {
		b, err := op.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		err = fn(b)
		b.Release()
		if err != nil {
			return err
		}
	}
}
