// Package types is pgfed's SQL type system: the built-in PostgreSQL types
// pgfed supports, how each maps to an Arrow column type, and the scalar
// semantics of their values (text input and output, casts, comparison,
// numeric and date/time arithmetic) with PostgreSQL 15's exact results and
// errors.
//
// Datum convention. Where a single value travels outside an Arrow array
// (constants, row-at-a-time function evaluation, COPY, the embedding API),
// it is a Go value whose dynamic type is fixed by its SQL type:
//
//	NULL                          nil (for every type)
//	boolean                       bool
//	smallint, integer, bigint     int64 (range-checked for the SQL type)
//	real, double precision        float64 (real values are float32-exact)
//	numeric                       *apd.Decimal (never mutated once built; Exponent gives the display scale)
//	text, varchar(n), char(n)     string (char(n) values are stored blank-padded)
//	name                          string (at most 63 bytes, name.go)
//	date                          int32, days since 1970-01-01
//	timestamp, timestamptz        int64, microseconds since 1970-01-01 00:00:00 (UTC for timestamptz)
//	interval                      Interval{Months, Days int32; Micros int64}, PostgreSQL's three fields
//
// 'infinity' and '-infinity' are the extreme values of those Go types
// (DatePosInfinity, TimestampNegInfinity, ...). Counting microseconds from
// 1970 rather than 2000 makes timestamps end in 292277 instead of
// PostgreSQL's 294276.
//
// The session time zone is UTC, so timestamptz is written with "+00".
//
// Arrow mapping (ArrowType): boolean=Boolean, smallint=Int16, integer=Int32,
// bigint=Int64, real=Float32, double precision=Float64, numeric=String
// (canonical text, keeping PostgreSQL's display scale), text/varchar/char/
// name=String, date=Date32, timestamp=Timestamp(us), timestamptz=Timestamp(us, UTC),
// interval=MonthDayNanoInterval (its time part limited to what int64
// nanoseconds hold, ±2562047 hours; see interval.go). Interval output is
// IntervalStyle postgres, the only style.
//
// This package depends only on the standard library, apd and arrow.
package types
