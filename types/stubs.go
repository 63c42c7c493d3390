package types

// This file holds the signatures of the value-level semantics; a
// dedicated change fills them in with PostgreSQL 15's exact behaviour.

import (
	"errors"

	"github.com/cockroachdb/apd/v3"
)

var errTODO = errors.New("types: not implemented yet")

// CastContext is PostgreSQL's pg_cast.castcontext: where a cast may be
// applied without being written.
type CastContext uint8

const (
	CastImplicit   CastContext = iota // in expressions (int4 -> int8, int -> numeric, ...)
	CastAssignment                    // when storing into a column (numeric -> int4, text -> varchar, ...)
	CastExplicit                      // only with CAST or ::
)

// Format returns PostgreSQL's text output of the non-NULL datum d of type t
// (session settings: DateStyle ISO, extra_float_digits 1, TimeZone UTC).
func Format(t T, d any) string { panic(errTODO) }

// AppendFormat appends Format(t, d) to buf.
func AppendFormat(buf []byte, t T, d any) []byte { return append(buf, Format(t, d)...) }

// Parse reads PostgreSQL text input for type t, applying t's modifier
// (char(n) padding, varchar(n)/char(n) length errors 22001, numeric(p,s)
// rounding and 22003), with PostgreSQL's errors (22P02, 22003, 22007,
// 22008 ...), messages included.
func Parse(t T, s string) (any, error) { return nil, errTODO }

// Cast converts the non-NULL datum d from type from to type to, with
// PostgreSQL's semantics and errors. explicit is true for CAST / :: (an
// explicit cast to varchar(n)/char(n) truncates silently) and false for
// assignment to a column (too long is error 22001, except trailing spaces).
func Cast(d any, from, to T, explicit bool) (any, error) { return nil, errTODO }

// CanCast reports whether PostgreSQL has a cast from from to to usable in
// context ctx (for coercion in expressions, assignments and CAST).
func CanCast(from, to T, ctx CastContext) bool { return false }

// Compare orders two non-NULL datums of type t: -1, 0 or +1. Strings compare
// bytewise (C collation); char(n) ignores trailing spaces; floats order NaN
// after everything and -0 equal to 0; numeric compares by value.
func Compare(t T, a, b any) int { panic(errTODO) }

// Numeric arithmetic with PostgreSQL's result scales and errors.
func NumericAdd(a, b *apd.Decimal) (*apd.Decimal, error)    { return nil, errTODO }
func NumericSub(a, b *apd.Decimal) (*apd.Decimal, error)    { return nil, errTODO }
func NumericMul(a, b *apd.Decimal) (*apd.Decimal, error)    { return nil, errTODO }
func NumericDiv(a, b *apd.Decimal) (*apd.Decimal, error)    { return nil, errTODO } // select_div_scale; 22012
func NumericMod(a, b *apd.Decimal) (*apd.Decimal, error)    { return nil, errTODO }
func NumericNeg(a *apd.Decimal) *apd.Decimal                { panic(errTODO) }
func NumericAbs(a *apd.Decimal) *apd.Decimal                { panic(errTODO) }
func NumericRound(a *apd.Decimal, scale int32) *apd.Decimal { panic(errTODO) } // round(numeric, int): half away from zero
func NumericTrunc(a *apd.Decimal, scale int32) *apd.Decimal { panic(errTODO) }
func NumericFloor(a *apd.Decimal) *apd.Decimal              { panic(errTODO) }
func NumericCeil(a *apd.Decimal) *apd.Decimal               { panic(errTODO) }
func NumericPower(a, b *apd.Decimal) (*apd.Decimal, error)  { return nil, errTODO }
func NumericSqrt(a *apd.Decimal) (*apd.Decimal, error)      { return nil, errTODO }
func NumericFromInt64(v int64) *apd.Decimal                 { panic(errTODO) }
func NumericFromString(s string) (*apd.Decimal, error)      { return nil, errTODO } // canonical text as stored in Arrow; keeps display scale
// NumericAvg is avg()'s final value: sum / count with PostgreSQL's scale.
func NumericAvg(sum *apd.Decimal, count int64) (*apd.Decimal, error) { return nil, errTODO }

// DateTrunc truncates a timestamp/timestamptz (microseconds) to field
// ('microseconds' ... 'millennium'); errors as PostgreSQL's for unknown units.
func DateTrunc(field string, t T, v int64) (int64, error) { return 0, errTODO }

// Extract is EXTRACT(field FROM v) / date_part for date, timestamp and
// timestamptz, returning numeric as PostgreSQL 14+ does.
func Extract(field string, t T, v any) (*apd.Decimal, error) { return nil, errTODO }
