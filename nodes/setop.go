package nodes

// SetOp and the Result that projects a set operation's rows: PostgreSQL
// 15's plan shape for INTERSECT [ALL] and EXCEPT [ALL] (nodeSetOp.c).
//
// A SetOp reads one child, an Append of its two inputs, whose rows carry
// the compared columns and then a flag column (0: a row of the left
// input, 1: of the right input). It counts, per group of equal rows
// (NULLs equal), the rows of each input, and returns each group's first
// row as many times as its command says. Hashed, it keeps the groups of
// the input the Append returns first in a hash table and counts the
// other input's rows into them; sorted, its child is a Sort of the Append
// on the compared columns and it counts each run of equal rows.

// SetOpCmd is what a SetOp returns per group, given the rows l of the
// left and r of the right input.
type SetOpCmd uint8

const (
	SetOpIntersect    SetOpCmd = iota // one row if l > 0 and r > 0
	SetOpIntersectAll                 // min(l, r) rows
	SetOpExcept                       // one row if l > 0 and r = 0
	SetOpExceptAll                    // max(l - r, 0) rows
)

// String is the command as EXPLAIN names it ("Intersect All").
func (c SetOpCmd) String() string {
	return [...]string{"Intersect", "Intersect All", "Except", "Except All"}[c]
}

// Copies is the number of rows a group with l left and r right rows
// returns.
func (c SetOpCmd) Copies(l, r int64) int64 {
	switch c {
	case SetOpIntersect:
		if l > 0 && r > 0 {
			return 1
		}
	case SetOpIntersectAll:
		return min(l, r)
	case SetOpExcept:
		if l > 0 && r == 0 {
			return 1
		}
	case SetOpExceptAll:
		return max(l-r, 0)
	}
	return 0
}

// SetOpStrategy is how a SetOp finds its groups.
type SetOpStrategy uint8

const (
	SetOpSorted SetOpStrategy = iota // runs of its sorted input
	SetOpHashed                      // a hash table of the first input's groups
)

// SetOp is INTERSECT [ALL] or EXCEPT [ALL] over its child's rows. Its
// output columns are the child's first FlagCol columns (the compared
// ones); column FlagCol is the flag.
type SetOp struct {
	PlanBase
	Child    Plan
	Cmd      SetOpCmd
	Strategy SetOpStrategy
	FlagCol  int
	// FirstFlag is the flag of the input the Append returns first: 1
	// when the planner put INTERSECT's right input first, as PostgreSQL
	// does with the input of fewer groups (hashed only); rows of the
	// other input never create a group.
	FirstFlag int
}

func (s *SetOp) Children() []Plan { return []Plan{s.Child} }
func (s *SetOp) NodeType() string {
	if s.Strategy == SetOpHashed {
		return "HashSetOp " + s.Cmd.String()
	}
	return "SetOp " + s.Cmd.String()
}

// ResultProject is PostgreSQL's Result over a child plan that cannot
// project itself (an Append, a SetOp): it evaluates its Targets (and
// Filter) over the child's rows, as the flag column of a nested set
// operation is added.
type ResultProject struct {
	PlanBase
	Child Plan
}

func (r *ResultProject) Children() []Plan { return []Plan{r.Child} }
func (*ResultProject) NodeType() string   { return "Result" }

var (
	_ Plan = (*SetOp)(nil)
	_ Plan = (*ResultProject)(nil)
)
