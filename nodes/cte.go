package nodes

// Common table expressions computed once (PostgreSQL 12+'s rule: a CTE
// referenced more than once, MATERIALIZED, recursive or calling a
// volatile function). The CTE's plan hangs off the node of the query
// level whose WITH defines it (PlanBase.CTEs), printed as PostgreSQL 15
// prints it, an init block "CTE name" above the node's children; its
// readers are CTE Scans, which share one store of its rows, filled as
// they pull. A recursive CTE's plan is a Recursive Union, whose recursive
// term reads the rows of the previous iteration through a WorkTable
// Scan.

// CTE is a CTE's plan, computed at most once per statement.
type CTE struct {
	// ID identifies the CTE's store among the statement's CTEs (the Param
	// PostgreSQL gives a CTE, unprinted).
	ID   int
	Name string
	Plan Plan
}

// CTEScan reads the rows of CTE from its shared store; its own rows are
// the CTE's output columns.
type CTEScan struct {
	PlanBase
	CTE   *CTE // not a child: the plan belongs to the node holding CTEs
	Alias string
}

func (*CTEScan) Children() []Plan { return nil }
func (*CTEScan) NodeType() string { return "CTE Scan" }

// RecursiveUnion evaluates WITH RECURSIVE: the rows of NonRecursive,
// then, as long as the previous iteration produced rows, those of
// Recursive, whose WorkTable Scans (of WorkTable) read the previous
// iteration's rows. With Distinct (UNION), rows already returned are
// discarded, so that a cycle ends.
type RecursiveUnion struct {
	PlanBase
	NonRecursive, Recursive Plan
	WorkTable               int
	Distinct                bool
}

func (r *RecursiveUnion) Children() []Plan { return []Plan{r.NonRecursive, r.Recursive} }
func (*RecursiveUnion) NodeType() string   { return "Recursive Union" }

// WorkTableScan reads the rows the enclosing Recursive Union's previous
// iteration produced. Name is the CTE's name, Alias the reference's.
// TableRows is the estimated rows of one iteration, for the estimates.
type WorkTableScan struct {
	PlanBase
	WorkTable   int
	Name, Alias string
	TableRows   float64
}

func (*WorkTableScan) Children() []Plan { return nil }
func (*WorkTableScan) NodeType() string { return "WorkTable Scan" }

var (
	_ Plan = (*CTEScan)(nil)
	_ Plan = (*RecursiveUnion)(nil)
	_ Plan = (*WorkTableScan)(nil)
)
