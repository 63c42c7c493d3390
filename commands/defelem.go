package commands

// The one reader of DefElem lists (OPTIONS (...), WITH (...), EXPLAIN's
// options): the argument as text, as PostgreSQL's defGetString prints any
// argument, and as a Boolean as defGetBoolean reads it.

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/pgerr"
)

// defString returns d's argument as text ("" when it has none).
func defString(d *pg.DefElem) string {
	if d.Arg == nil {
		return ""
	}
	switch a := d.Arg.Node.(type) {
	case *pg.Node_String_:
		return a.String_.Sval
	case *pg.Node_Integer:
		return strconv.Itoa(int(a.Integer.Ival))
	case *pg.Node_Float:
		return a.Float.Fval
	case *pg.Node_Boolean:
		return strconv.FormatBool(a.Boolean.Boolval)
	case *pg.Node_TypeName:
		// A keyword used as a value (FORMAT csv parses as a type name).
		var parts []string
		for _, n := range a.TypeName.Names {
			parts = append(parts, n.GetString_().Sval)
		}
		return strings.Join(parts, ".")
	case *pg.Node_AConst:
		switch v := a.AConst.Val.(type) {
		case *pg.A_Const_Sval:
			return v.Sval.Sval
		case *pg.A_Const_Ival:
			return strconv.Itoa(int(v.Ival.Ival))
		case *pg.A_Const_Fval:
			return v.Fval.Fval
		case *pg.A_Const_Boolval:
			return strconv.FormatBool(v.Boolval.Boolval)
		}
	}
	return ""
}

// defBool reads d's argument as a Boolean (no argument means true), with
// PostgreSQL's error: "NAME requires a Boolean value".
func defBool(d *pg.DefElem) (bool, error) {
	if d.Arg == nil {
		return true, nil
	}
	switch strings.ToLower(defString(d)) {
	case "true", "on", "1":
		return true, nil
	case "false", "off", "0":
		return false, nil
	}
	return false, pgerr.New(pgerr.SyntaxError, "%s requires a Boolean value", d.Defname)
}
