package planner

// Type names, literals and PostgreSQL's implicit coercion rules, in the
// subset pgfed's types need: numeric promotion (int2 < int4 < int8 <
// numeric < float4 < float8), string types resolving to text, date <
// timestamp < timestamptz, and untyped literals ("unknown") taking the
// type their context asks for.

import (
	"math"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// TypeFromName resolves a parse-tree type name, checking its type
// modifiers as PostgreSQL's typmodin functions do (every place a type name
// is resolved comes here: casts, CREATE TABLE, IMPORT FOREIGN SCHEMA).
func TypeFromName(tn *pg.TypeName) (types.T, error) {
	if len(tn.ArrayBounds) > 0 {
		return types.T{}, pgerr.NotSupported("array types")
	}
	var name string
	for _, n := range tn.Names {
		name = n.GetString_().Sval
	}
	pos := int(tn.Location) + 1
	t, ok := typeByName(name)
	if !ok {
		return types.T{}, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", name).WithPosition(pos)
	}
	if len(tn.Typmods) == 0 {
		if t.ID == types.Bpchar && strings.ToLower(name) != "bpchar" {
			t.Len = 1 // char without length is char(1)
		}
		return t, nil
	}
	if t.ID == types.IntervalType {
		return intervalTypmod(t, tn.Typmods, pos)
	}
	takesTypmod := t.ID == types.Varchar || t.ID == types.Bpchar || t.ID == types.Numeric || t.IsDatetime()
	if !takesTypmod {
		return types.T{}, pgerr.New(pgerr.SyntaxError, "type modifier is not allowed for type %q", name).WithPosition(pos)
	}
	mods, err := typmodValues(tn.Typmods, pos)
	if err != nil {
		return types.T{}, err
	}
	switch t.ID {
	case types.Varchar, types.Bpchar:
		// anychar_typmodin; bpchar's messages call it "char".
		typeName := "varchar"
		if t.ID == types.Bpchar {
			typeName = "char"
		}
		if len(mods) != 1 {
			return types.T{}, pgerr.New(pgerr.InvalidParameterValue, "invalid type modifier").WithPosition(pos)
		}
		if mods[0] < 1 {
			return types.T{}, pgerr.New(pgerr.InvalidParameterValue, "length for type %s must be at least 1", typeName).WithPosition(pos)
		}
		if mods[0] > types.MaxAttrSize {
			return types.T{}, pgerr.New(pgerr.InvalidParameterValue, "length for type %s cannot exceed %d", typeName, types.MaxAttrSize).WithPosition(pos)
		}
		t.Len = mods[0]
	case types.Numeric:
		// numerictypmodin.
		if len(mods) > 2 {
			return types.T{}, pgerr.New(pgerr.InvalidParameterValue, "invalid NUMERIC type modifier").WithPosition(pos)
		}
		if mods[0] < 1 || mods[0] > types.NumericMaxPrecision {
			return types.T{}, pgerr.New(pgerr.InvalidParameterValue, "NUMERIC precision %d must be between 1 and %d", mods[0], types.NumericMaxPrecision).WithPosition(pos)
		}
		t.Precision = int16(mods[0])
		if len(mods) > 1 {
			if mods[1] < types.NumericMinScale || mods[1] > types.NumericMaxScale {
				return types.T{}, pgerr.New(pgerr.InvalidParameterValue, "NUMERIC scale %d must be between %d and %d", mods[1], types.NumericMinScale, types.NumericMaxScale).WithPosition(pos)
			}
			t.Scale = int16(mods[1])
		}
	}
	return t, nil
}

// intervalTypmod is intervaltypmodin: the grammar gives the fields as a
// mask (INTERVAL_FULL_RANGE for none) and optionally a precision.
func intervalTypmod(t types.T, typmods []*pg.Node, pos int) (types.T, error) {
	mods, err := typmodValues(typmods, pos)
	if err != nil {
		return types.T{}, err
	}
	if len(mods) == 0 || len(mods) > 2 || !types.ValidIntervalRange(mods[0]) {
		return types.T{}, pgerr.New(pgerr.InvalidParameterValue, "invalid INTERVAL type modifier").WithPosition(pos)
	}
	if len(mods) == 1 {
		if mods[0] != types.IntervalFullRange {
			t.Len = types.IntervalTypmod(types.IntervalFullPrecision, mods[0])
		}
		return t, nil
	}
	p := mods[1]
	if p < 0 {
		return types.T{}, pgerr.New(pgerr.InvalidParameterValue, "INTERVAL(%d) precision must not be negative", p).WithPosition(pos)
	}
	if p > types.MaxIntervalPrecision {
		// PostgreSQL warns "INTERVAL(%d) precision reduced to maximum
		// allowed, 6" and goes on.
		p = types.MaxIntervalPrecision
	}
	t.Len = types.IntervalTypmod(p, mods[0])
	return t, nil
}

// typmodValues is typenameTypeMod plus ArrayGetIntegerTypmods: each
// modifier must be an integer, float or string constant or a bare
// identifier, and is then read as an int4 (so numeric('a') is 22P02 and
// numeric(2147483648) 22003, as in PostgreSQL).
func typmodValues(typmods []*pg.Node, pos int) ([]int32, error) {
	mods := make([]int32, 0, len(typmods))
	for _, m := range typmods {
		var text string
		if c := m.GetAConst(); c != nil && !c.Isnull {
			switch {
			case c.GetIval() != nil:
				mods = append(mods, c.GetIval().Ival)
				continue
			case c.GetFval() != nil:
				text = c.GetFval().Fval
			case c.GetSval() != nil:
				text = c.GetSval().Sval
			default:
				return nil, errTypmodNotSimple(pos)
			}
		} else if cr := m.GetColumnRef(); cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
			text = cr.Fields[0].GetString_().Sval
		} else {
			return nil, errTypmodNotSimple(pos)
		}
		v, err := types.Parse(types.Int4T, text)
		if err != nil {
			if pe, ok := pgerr.As(err); ok {
				return nil, pe.WithPosition(pos)
			}
			return nil, err
		}
		mods = append(mods, int32(v.(int64)))
	}
	return mods, nil
}

func errTypmodNotSimple(pos int) error {
	return pgerr.New(pgerr.SyntaxError, "type modifiers must be simple constants or identifiers").WithPosition(pos)
}

func typeByName(name string) (types.T, bool) {
	switch strings.ToLower(name) {
	case "bool", "boolean":
		return types.BoolT, true
	case "int2", "smallint":
		return types.Int2T, true
	case "int4", "int", "integer":
		return types.Int4T, true
	case "int8", "bigint":
		return types.Int8T, true
	case "float4", "real":
		return types.Float4T, true
	case "float8", "float", "double precision":
		return types.Float8T, true
	case "numeric", "decimal":
		return types.NumericT, true
	case "text":
		return types.TextT, true
	case "name":
		return types.NameT, true
	case "varchar", "character varying":
		return types.VarcharT, true
	case "bpchar", "char", "character":
		return types.BpcharT, true
	case "date":
		return types.DateT, true
	case "timestamp":
		return types.TimestampT, true
	case "timestamptz":
		return types.TimestampTZT, true
	case "interval":
		return types.IntervalT, true
	}
	return types.T{}, false
}

// category ranks types for implicit promotion within PostgreSQL's type
// categories; preferred types end each chain.
func numericRank(t types.T) int {
	switch t.ID {
	case types.Int2:
		return 1
	case types.Int4:
		return 2
	case types.Int8:
		return 3
	case types.Numeric:
		return 4
	case types.Float4:
		return 5
	case types.Float8:
		return 6
	}
	return 0
}

func datetimeRank(t types.T) int {
	switch t.ID {
	case types.Date:
		return 1
	case types.Timestamp:
		return 2
	case types.TimestampTZ:
		return 3
	}
	return 0
}

// commonType is PostgreSQL's select_common_type for UNION, CASE, VALUES,
// COALESCE, IN and comparisons: unknown inputs defer to the others
// (text if all are unknown); otherwise all must share a category, and the
// widest type wins. context names the construct for the error message.
func commonType(ts []types.T, context string) (types.T, error) {
	var res types.T
	found := false
	for _, t := range ts {
		if t.ID == types.Unknown {
			continue
		}
		if !found {
			res, found = t, true
			continue
		}
		next, ok := widen(res, t)
		if !ok {
			return types.T{}, pgerr.New(pgerr.DatatypeMismatch, "%s types %s and %s cannot be matched", context, res, t)
		}
		res = next
	}
	if !found {
		return types.TextT, nil
	}
	return res, nil
}

func widen(a, b types.T) (types.T, bool) {
	if a == b {
		return a, true
	}
	switch {
	case numericRank(a) > 0 && numericRank(b) > 0:
		if numericRank(a) >= numericRank(b) {
			return a.Base(), true
		}
		return b.Base(), true
	case a.IsString() && b.IsString():
		if a.ID == b.ID {
			return a.Base(), true
		}
		// select_common_type keeps the first type unless the next is
		// reached implicitly and not back: name wins over varchar and
		// char; between name and text (implicit both ways) the first
		// wins, text being preferred.
		if a.ID == types.Name || (b.ID == types.Name && a.ID != types.Text) {
			return types.NameT, true
		}
		return types.TextT, true
	case datetimeRank(a) > 0 && datetimeRank(b) > 0:
		if datetimeRank(a) >= datetimeRank(b) {
			return a.Base(), true
		}
		return b.Base(), true
	case a.ID == b.ID:
		return a.Base(), true
	}
	return types.T{}, false
}

// coerce converts e to type t implicitly (or by assignment): unknown
// literals are parsed as t; other values get a Cast node when PostgreSQL
// allows the cast in that context.
func coerce(e nodes.Expr, t types.T, ctx types.CastContext) (nodes.Expr, error) {
	from := e.Type()
	if from == t {
		return e, nil
	}
	if c, ok := e.(*nodes.Const); ok && from.ID == types.Unknown {
		if c.Value == nil {
			return &nodes.Const{T: t}, nil
		}
		if rel := relativeTime(c.Value.(string), t); rel != nil {
			return rel, nil
		}
		if t.ID == types.IntervalType {
			// interval_in takes the typmod: the fields decide what a
			// bare number means ('1'::interval hour is one hour).
			v, err := types.Parse(t, c.Value.(string))
			if err != nil {
				return nil, err
			}
			return &nodes.Const{T: t, Value: v}, nil
		}
		if ctx == types.CastExplicit && (t.Len >= 0 || t.Precision > 0) {
			// 'abcdef'::varchar(3) is an explicit cast: read the literal as
			// the unconstrained type, then apply the modifier as CAST does
			// (truncating strings).
			v, err := types.Parse(t.Base(), c.Value.(string))
			if err != nil {
				return nil, err
			}
			if v, err = types.Cast(v, t.Base(), t, true); err != nil {
				return nil, err
			}
			return &nodes.Const{T: t, Value: v}, nil
		}
		v, err := types.Parse(t, c.Value.(string))
		if err != nil {
			return nil, err
		}
		return &nodes.Const{T: t, Value: v}, nil
	}
	if from.ID == types.Unknown {
		// An unknown-typed column (a literal in a UNION branch) is read by
		// the target type's input function.
		return &nodes.Cast{Arg: e, T: t, Explicit: ctx == types.CastExplicit}, nil
	}
	if from.ID == t.ID && from.Base() == t.Base() && ctx != types.CastExplicit && t.Len < 0 && t.Precision == 0 {
		return e, nil // varchar(5) where varchar is wanted
	}
	if !types.CanCast(from, t, ctx) && !(from.ID == types.Unknown) {
		return nil, errCannotCoerce(from, t, ctx)
	}
	// Fold casts of constants at plan time, as PostgreSQL does.
	if c, ok := e.(*nodes.Const); ok {
		if c.Value == nil {
			return &nodes.Const{T: t}, nil
		}
		v, err := types.Cast(c.Value, from, t, ctx == types.CastExplicit)
		if err != nil {
			return nil, err
		}
		return &nodes.Const{T: t, Value: v}, nil
	}
	return &nodes.Cast{Arg: e, T: t, Explicit: ctx == types.CastExplicit}, nil
}

// relativeTime turns the special inputs 'now', 'today', 'tomorrow' and
// 'yesterday' of date/time types into expressions over the statement's
// timestamp (the value package types cannot know it).
func relativeTime(s string, t types.T) nodes.Expr {
	if !t.IsDatetime() {
		return nil
	}
	now := &nodes.FuncExpr{Name: "now", T: types.TimestampTZT}
	day := func(offset int64) nodes.Expr {
		var d nodes.Expr = &nodes.Cast{Arg: now, T: types.DateT}
		if offset != 0 {
			d = &nodes.OpExpr{Op: "+", Left: d, Right: &nodes.Const{T: types.Int4T, Value: offset}, T: types.DateT}
		}
		if t.ID == types.Date {
			return d
		}
		return &nodes.Cast{Arg: d, T: t}
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "now":
		if t.ID == types.TimestampTZ {
			return now
		}
		return &nodes.Cast{Arg: now, T: t}
	case "today":
		return day(0)
	case "tomorrow":
		return day(1)
	case "yesterday":
		return day(-1)
	}
	return nil
}

func errCannotCoerce(from, to types.T, ctx types.CastContext) error {
	if ctx == types.CastExplicit {
		return pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to %s", from, to)
	}
	return pgerr.New(pgerr.DatatypeMismatch, "column is of type %s but expression is of type %s", to, from).
		WithHint("You will need to rewrite or cast the expression.")
}

// literal makes the constant of an A_Const: integers are int4 when they
// fit, else int8, else numeric; decimals are numeric; strings are unknown.
func literal(c *pg.A_Const) (*nodes.Const, error) {
	if c.Isnull {
		return &nodes.Const{T: types.UnknownT}, nil
	}
	switch v := c.Val.(type) {
	case *pg.A_Const_Ival:
		return &nodes.Const{T: types.Int4T, Value: int64(v.Ival.Ival)}, nil
	case *pg.A_Const_Fval:
		s := v.Fval.Fval
		if !strings.ContainsAny(s, ".eE") {
			if i, err := strconv.ParseInt(s, 10, 64); err == nil {
				if i >= math.MinInt32 && i <= math.MaxInt32 {
					return &nodes.Const{T: types.Int4T, Value: i}, nil
				}
				return &nodes.Const{T: types.Int8T, Value: i}, nil
			}
		}
		d, err := types.Parse(types.NumericT, s)
		if err != nil {
			return nil, err
		}
		return &nodes.Const{T: types.NumericT, Value: d}, nil
	case *pg.A_Const_Sval:
		return &nodes.Const{T: types.UnknownT, Value: v.Sval.Sval}, nil
	case *pg.A_Const_Boolval:
		return &nodes.Const{T: types.BoolT, Value: v.Boolval.Boolval}, nil
	case *pg.A_Const_Bsval:
		return nil, pgerr.NotSupported("bit string literals")
	}
	return nil, pgerr.Internal("unknown constant")
}
