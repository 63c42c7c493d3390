package nodes

import (
	"strconv"

	"github.com/pgfed/pgfed/types"
)

// InitPlan is an uncorrelated subquery in an expression (a scalar
// subquery, or EXISTS where it is not a join), run once before the node
// that holds it (PlanBase.InitPlans) starts, as PostgreSQL's initplans
// are. Its value sets Param ID: the first column of its only row (NULL
// without rows; more than one row is an error, 21000), or, for Exists,
// whether it returns a row.
type InitPlan struct {
	ID     int // the Param it sets, $ID in EXPLAIN
	Number int // "InitPlan N" in EXPLAIN, numbered from 1 per statement
	Plan   Plan
	Exists bool
}

// Param reads the value an InitPlan computed, or one a SubPlan or a
// parameterized Nested Loop set from its outer row before a run. Name,
// when set, is what EXPLAIN prints for it: the outer expression, as
// PostgreSQL 15 prints a correlated subquery's outer references.
type Param struct {
	ID   int
	T    types.T
	Name string
}

func (p *Param) Type() types.T { return p.T }
func (p *Param) String() string {
	if p.Name != "" {
		return p.Name
	}
	return "$" + strconv.Itoa(p.ID)
}

var _ Expr = (*Param)(nil)
