// Package funcs is pgfed's one registry of built-in functions and
// aggregates (PostgreSQL's pg_proc and pg_aggregate): for each, its name,
// its overloads with argument and result types and volatility, whether a
// remote PostgreSQL computes it the same (so that an immutable call may be
// shipped), and for scalar functions the implementation. The planner
// resolves calls against it, the executor runs the implementations, and
// remote's deparser asks it what may be shipped; none of them keeps a list
// of its own.
//
// Contract: implementations are row-wise over datums (package types'
// convention) and return *pgerr.Error; a Strict function is never called
// with a NULL argument. A few functions need the statement or the session
// (now(), postgres_fdw_disconnect()): they have no implementation here and
// name what the executor must supply (Special).
package funcs

import (
	"github.com/pgfed/pgfed/types"
)

// Volatility is PostgreSQL's provolatile.
type Volatility uint8

const (
	Immutable Volatility = iota
	Stable
	Volatile
)

// Signature is one overload.
type Signature struct {
	Args []types.T
	// Variadic: any number (one or more) of arguments of any type.
	Variadic bool
	Result   types.T
	// Volatility of this overload (date_trunc on timestamptz reads
	// TimeZone: stable, on timestamp immutable).
	Volatility Volatility
}

// Impl computes a function over one row's arguments.
type Impl func(args []any) (any, error)

// Special names what the executor supplies for a function without an
// implementation here.
type Special uint8

const (
	NotSpecial Special = iota
	// StatementTime: the statement's start time (now() and its synonyms).
	StatementTime
	// Disconnect: postgres_fdw_disconnect(server) on the session.
	Disconnect
	// DisconnectAll: postgres_fdw_disconnect_all() on the session.
	DisconnectAll
)

// Func is a built-in scalar function.
type Func struct {
	Name      string
	Overloads []Signature
	// Strict: a NULL argument gives NULL without calling the function.
	Strict bool
	// Remote: PostgreSQL's function of this name computes the same, so an
	// immutable call can be evaluated by a remote server.
	Remote bool
	// Bind returns the implementation for the resolved argument types;
	// nil when Special says what the executor supplies.
	Bind    func(argTypes []types.T) Impl
	Special Special
}

// aliases are names that resolve to another function, and print as it
// (PostgreSQL's parser rewrites POSITION(a IN b) to strpos, say).
var aliases = map[string]string{"position": "strpos", "ceiling": "ceil", "pow": "power"}

// Lookup returns the function called name (an alias resolves to its
// target), or nil.
func Lookup(name string) *Func {
	if a, ok := aliases[name]; ok {
		name = a
	}
	return scalars[name]
}

// Overload returns the overload of f whose parameters are argTypes (the
// planner has coerced the arguments; any string type also stands for a
// text parameter, as varchar is binary-coercible to text), or nil.
func (f *Func) Overload(argTypes []types.T) *Signature {
	for i := range f.Overloads {
		s := &f.Overloads[i]
		if s.Variadic {
			return s
		}
		if len(s.Args) != len(argTypes) {
			continue
		}
		fits := true
		for j, p := range s.Args {
			a := argTypes[j]
			fits = fits && (p.Base() == a.Base() || p.ID == types.Text && a.IsString())
		}
		if fits {
			return s
		}
	}
	return nil
}

// Shippable reports whether a call of name with these (coerced) argument
// types may be evaluated by a remote PostgreSQL: the function exists there
// with the same meaning and the overload is immutable.
func Shippable(name string, argTypes []types.T) bool {
	f := Lookup(name)
	if f == nil || !f.Remote {
		return false
	}
	s := f.Overload(argTypes)
	return s != nil && s.Volatility == Immutable
}

// Agg is a built-in aggregate.
type Agg struct {
	Name string
	// NArgs is the number of arguments (count(*) has none, and is the
	// only call without).
	NArgs int
	// Resolve returns the type each argument is converted to and the
	// result type, for arguments of types args; ok is false when the
	// aggregate does not take them.
	Resolve func(args []types.T) (argTypes []types.T, result types.T, ok bool)
	// Remote: PostgreSQL's aggregate of this name computes the same (every
	// built-in aggregate is immutable).
	Remote bool
}

// Aggregate returns the aggregate called name, or nil.
func Aggregate(name string) *Agg { return aggregates[name] }

// Aggregates lists every built-in aggregate's name.
func Aggregates() []string {
	out := make([]string, 0, len(aggregates))
	for n := range aggregates {
		out = append(out, n)
	}
	return out
}

// Scalars lists every built-in scalar function's name (aliases not
// included).
func Scalars() []string {
	out := make([]string, 0, len(scalars))
	for n := range scalars {
		out = append(out, n)
	}
	return out
}
