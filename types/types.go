package types

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// ID names a built-in type.
type ID uint8

const (
	// Unknown is the type of an untyped string literal or NULL before
	// PostgreSQL's type resolution assigns one.
	Unknown ID = iota
	Bool
	Int2
	Int4
	Int8
	Float4
	Float8
	Numeric
	Text
	Varchar
	Bpchar
	Date
	Timestamp
	TimestampTZ
	IntervalType
	// Name is PostgreSQL's name, the 63-byte identifier type (name.go).
	Name
	numIDs
)

// T is a SQL type with its modifier. Len is the length of varchar(n) and
// char(n) (-1 when absent); Precision and Scale are numeric(p,s)'s
// (Precision 0 means unconstrained numeric). T is comparable.
type T struct {
	ID        ID
	Len       int32
	Precision int16
	Scale     int16
}

// Convenience values for types without modifiers.
var (
	UnknownT     = T{ID: Unknown, Len: -1}
	BoolT        = T{ID: Bool, Len: -1}
	Int2T        = T{ID: Int2, Len: -1}
	Int4T        = T{ID: Int4, Len: -1}
	Int8T        = T{ID: Int8, Len: -1}
	Float4T      = T{ID: Float4, Len: -1}
	Float8T      = T{ID: Float8, Len: -1}
	NumericT     = T{ID: Numeric, Len: -1}
	TextT        = T{ID: Text, Len: -1}
	VarcharT     = T{ID: Varchar, Len: -1}
	BpcharT      = T{ID: Bpchar, Len: -1}
	DateT        = T{ID: Date, Len: -1}
	TimestampT   = T{ID: Timestamp, Len: -1}
	TimestampTZT = T{ID: TimestampTZ, Len: -1}
	// IntervalT is interval without fields or precision; an interval's
	// typmod (PostgreSQL's, IntervalTypmod) is in Len.
	IntervalT = T{ID: IntervalType, Len: -1}
	NameT     = T{ID: Name, Len: -1}
)

// Base returns t without its modifier.
func (t T) Base() T { return T{ID: t.ID, Len: -1} }

var idNames = [numIDs]string{
	Unknown:      "unknown",
	Bool:         "boolean",
	Int2:         "smallint",
	Int4:         "integer",
	Int8:         "bigint",
	Float4:       "real",
	Float8:       "double precision",
	Numeric:      "numeric",
	Text:         "text",
	Varchar:      "character varying",
	Bpchar:       "character",
	Date:         "date",
	Timestamp:    "timestamp without time zone",
	TimestampTZ:  "timestamp with time zone",
	IntervalType: "interval",
	Name:         "name",
}

// OIDs of the types in PostgreSQL's catalog, for the wire and remote layers.
var idOIDs = [numIDs]uint32{
	Unknown: 705, Bool: 16, Int2: 21, Int4: 23, Int8: 20, Float4: 700, Float8: 701,
	Numeric: 1700, Text: 25, Varchar: 1043, Bpchar: 1042, Date: 1082, Timestamp: 1114, TimestampTZ: 1184,
	IntervalType: 1186, Name: 19,
}

// OID returns the PostgreSQL type OID.
func (t T) OID() uint32 { return idOIDs[t.ID] }

// String returns the type as PostgreSQL's format_type prints it, e.g.
// "character varying(10)", "numeric(10,2)", "integer".
func (t T) String() string {
	switch t.ID {
	case Varchar, Bpchar:
		if t.Len >= 0 {
			return fmt.Sprintf("%s(%d)", idNames[t.ID], t.Len)
		}
		if t.ID == Bpchar {
			return "bpchar"
		}
	case Numeric:
		if t.Precision > 0 {
			return fmt.Sprintf("numeric(%d,%d)", t.Precision, t.Scale)
		}
	case IntervalType:
		return intervalTypeString(t.Len)
	}
	return idNames[t.ID]
}

// IsInteger reports whether t is smallint, integer or bigint.
func (t T) IsInteger() bool { return t.ID == Int2 || t.ID == Int4 || t.ID == Int8 }

// IsFloat reports whether t is real or double precision.
func (t T) IsFloat() bool { return t.ID == Float4 || t.ID == Float8 }

// IsNumeric reports whether t is in PostgreSQL's numeric category.
func (t T) IsNumeric() bool { return t.IsInteger() || t.IsFloat() || t.ID == Numeric }

// IsString reports whether t is in PostgreSQL's string category (name
// included: its typcategory is S too).
func (t T) IsString() bool { return t.ID == Text || t.ID == Varchar || t.ID == Bpchar || t.ID == Name }

// IsDatetime reports whether t is date, timestamp or timestamptz.
func (t T) IsDatetime() bool { return t.ID == Date || t.ID == Timestamp || t.ID == TimestampTZ }

// ArrowType returns the Arrow type that holds columns of t.
func (t T) ArrowType() arrow.DataType {
	switch t.ID {
	case Bool:
		return arrow.FixedWidthTypes.Boolean
	case Int2:
		return arrow.PrimitiveTypes.Int16
	case Int4:
		return arrow.PrimitiveTypes.Int32
	case Int8:
		return arrow.PrimitiveTypes.Int64
	case Float4:
		return arrow.PrimitiveTypes.Float32
	case Float8:
		return arrow.PrimitiveTypes.Float64
	case Date:
		return arrow.FixedWidthTypes.Date32
	case Timestamp:
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	case TimestampTZ:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case IntervalType:
		// See interval.go for why MonthDayNano.
		return arrow.FixedWidthTypes.MonthDayNanoInterval
	default: // Numeric, strings (name included), Unknown
		return arrow.BinaryTypes.String
	}
}
