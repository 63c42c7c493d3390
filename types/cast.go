package types

import "github.com/cockroachdb/apd/v3"

// CastContext is PostgreSQL's pg_cast.castcontext: where a cast may be
// applied without being written.
type CastContext uint8

const (
	CastImplicit   CastContext = iota // in expressions (int4 -> int8, int -> numeric, ...)
	CastAssignment                    // when storing into a column (numeric -> int4, text -> varchar, ...)
	CastExplicit                      // only with CAST or ::
)

// castContexts is pg_cast between distinct supported types (as listed by
// PostgreSQL 15's catalog). Pairs missing here may still convert through
// text: anything to a string type (assignment), a string type to anything
// (explicit), which is PostgreSQL's automatic I/O conversion.
var castContexts = map[[2]ID]CastContext{
	{Bool, Int4}: CastExplicit,
	{Bool, Text}: CastAssignment, {Bool, Varchar}: CastAssignment, {Bool, Bpchar}: CastAssignment,

	{Int2, Int4}: CastImplicit, {Int2, Int8}: CastImplicit, {Int2, Numeric}: CastImplicit,
	{Int2, Float4}: CastImplicit, {Int2, Float8}: CastImplicit,
	{Int4, Int2}: CastAssignment, {Int4, Int8}: CastImplicit, {Int4, Numeric}: CastImplicit,
	{Int4, Float4}: CastImplicit, {Int4, Float8}: CastImplicit, {Int4, Bool}: CastExplicit,
	{Int8, Int2}: CastAssignment, {Int8, Int4}: CastAssignment, {Int8, Numeric}: CastImplicit,
	{Int8, Float4}: CastImplicit, {Int8, Float8}: CastImplicit,
	{Numeric, Int2}: CastAssignment, {Numeric, Int4}: CastAssignment, {Numeric, Int8}: CastAssignment,
	{Numeric, Float4}: CastImplicit, {Numeric, Float8}: CastImplicit,
	{Float4, Int2}: CastAssignment, {Float4, Int4}: CastAssignment, {Float4, Int8}: CastAssignment,
	{Float4, Numeric}: CastAssignment, {Float4, Float8}: CastImplicit,
	{Float8, Int2}: CastAssignment, {Float8, Int4}: CastAssignment, {Float8, Int8}: CastAssignment,
	{Float8, Numeric}: CastAssignment, {Float8, Float4}: CastAssignment,

	{Text, Varchar}: CastImplicit, {Text, Bpchar}: CastImplicit,
	{Varchar, Text}: CastImplicit, {Varchar, Bpchar}: CastImplicit,
	{Bpchar, Text}: CastImplicit, {Bpchar, Varchar}: CastImplicit,
	{Name, Text}: CastImplicit, {Name, Varchar}: CastAssignment, {Name, Bpchar}: CastAssignment,
	{Text, Name}: CastImplicit, {Varchar, Name}: CastImplicit, {Bpchar, Name}: CastImplicit,

	{Date, Timestamp}: CastImplicit, {Date, TimestampTZ}: CastImplicit,
	{Timestamp, Date}: CastAssignment, {Timestamp, TimestampTZ}: CastImplicit,
	{TimestampTZ, Date}: CastAssignment, {TimestampTZ, Timestamp}: CastAssignment,
}

// CanCast reports whether PostgreSQL has a cast from from to to usable in
// context ctx (for coercion in expressions, assignments and CAST). A type
// always casts to itself (applying the target's length or precision), and
// an untyped literal (Unknown) to anything.
func CanCast(from, to T, ctx CastContext) bool {
	if from.ID == to.ID || from.ID == Unknown {
		return true
	}
	if to.ID == Unknown {
		return false
	}
	if needed, ok := castContexts[[2]ID{from.ID, to.ID}]; ok {
		return needed <= ctx
	}
	switch {
	case to.IsString():
		return ctx >= CastAssignment
	case from.IsString():
		return ctx >= CastExplicit
	}
	return false
}

// Cast converts the non-NULL datum d from type from to type to, with
// PostgreSQL's semantics and errors. explicit is true for CAST / :: (an
// explicit cast to varchar(n)/char(n) truncates silently) and false for
// assignment to a column (too long is error 22001, except trailing spaces).
//
// Rules worth knowing: real/double to integer rounds half to even, numeric
// to integer half away from zero; boolean to text is 'true'/'false' (not
// boolout's t/f); char(n) to text or varchar drops the padding; an untyped
// literal or text goes through the target's input function; anything else
// to a string type goes through its output function. A pair PostgreSQL
// cannot cast at all is 42846 "cannot cast type x to y".
func Cast(d any, from, to T, explicit bool) (any, error) {
	switch {
	case from.ID == to.ID:
		return applyTypmod(d, to, explicit)
	case from.ID == Unknown || from.IsString():
		s := asString(d)
		if from.ID == Bpchar && (to.ID == Text || to.ID == Varchar || to.ID == Name) {
			s = trimBlankPadding(s)
		}
		if to.IsString() {
			return applyTypmod(s, to, explicit)
		}
		if to.ID == IntervalType && from.ID == Unknown {
			// A literal is read with the fields of the target
			// ('1'::interval hour is an hour), as interval_in with a typmod.
			return Parse(to, s)
		}
		// As in PostgreSQL, the input function runs without the modifier,
		// which is then applied like a cast (so a literal overflowing
		// numeric's format fails as such even when cast to numeric(p,s)).
		v, err := Parse(to.Base(), s)
		if err != nil {
			return nil, err
		}
		return applyTypmod(v, to, explicit)
	case to.IsString():
		var s string
		if from.ID == Bool && to.ID != Name {
			// booltext; to name there is no cast, so boolout's I/O
			// conversion ('t', 'f').
			s = "false"
			if asBool(d) {
				s = "true"
			}
		} else {
			s = Format(from, d)
		}
		return applyTypmod(s, to, explicit)
	}
	switch to.ID {
	case Int2, Int4, Int8:
		switch from.ID {
		case Int2, Int4, Int8:
			return datum(checkIntRange(to, asInt64(d)))
		case Float4, Float8:
			return datum(floatToInt(to, asFloat64(d)))
		case Numeric:
			return datum(numericToInt(asDecimal(d), to))
		case Bool:
			if to.ID == Int4 {
				if asBool(d) {
					return int64(1), nil
				}
				return int64(0), nil
			}
		}
	case Float4:
		switch from.ID {
		case Int2, Int4, Int8:
			return float64(float32(asInt64(d))), nil
		case Float8:
			return datum(Float8ToFloat4(asFloat64(d)))
		case Numeric:
			return datum(numericToFloat(asDecimal(d), 32))
		}
	case Float8:
		switch from.ID {
		case Int2, Int4, Int8:
			return float64(asInt64(d)), nil
		case Float4:
			return asFloat64(d), nil
		case Numeric:
			return datum(numericToFloat(asDecimal(d), 64))
		}
	case Numeric:
		var n *apd.Decimal
		switch from.ID {
		case Int2, Int4, Int8:
			n = NumericFromInt64(asInt64(d))
		case Float4:
			n = floatToNumeric(asFloat64(d), 32)
		case Float8:
			n = floatToNumeric(asFloat64(d), 64)
		}
		if n != nil {
			return datum(applyNumericTypmod(n, to))
		}
	case Bool:
		if from.ID == Int4 {
			return asInt64(d) != 0, nil
		}
	case Date:
		if from.ID == Timestamp || from.ID == TimestampTZ {
			return timestampToDate(asInt64(d)), nil
		}
	case Timestamp, TimestampTZ:
		switch from.ID {
		case Date:
			return datum(dateToTimestamp(asDate(d)))
		case Timestamp, TimestampTZ:
			return asInt64(d), nil // the session zone is UTC
		}
	}
	return nil, errCannotCast(from, to)
}

// applyTypmod applies t's modifier to a datum already of t's base type:
// varchar(n)/char(n) length and padding, numeric(p,s) rounding.
func applyTypmod(d any, t T, explicit bool) (any, error) {
	switch t.ID {
	case Varchar:
		return datum(coerceVarchar(asString(d), t, explicit))
	case Bpchar:
		return datum(coerceBpchar(asString(d), t, explicit))
	case Name:
		return truncateName(asString(d)), nil
	case Numeric:
		return datum(applyNumericTypmod(asDecimal(d), t))
	case IntervalType:
		return datum(ApplyIntervalTypmod(asInterval(d), t.Len))
	}
	return d, nil
}

// datum turns a typed result into a datum, keeping a failed conversion's
// datum a plain nil rather than a typed nil.
func datum[V any](v V, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}
