package commands

// SET, SET LOCAL, RESET and SHOW (PostgreSQL's commands/variable.c and
// the GUC statements of utility.c), over the session's guc.Settings.

import (
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/guc"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// Set runs SET, SET LOCAL, RESET and RESET ALL.
func Set(env *Env, st *pg.VariableSetStmt) (*Result, error) {
	name := strings.ToLower(st.Name)
	s := env.Settings
	switch st.Kind {
	case pg.VariableSetKind_VAR_RESET_ALL:
		s.ResetAll()
		return tag("RESET")
	case pg.VariableSetKind_VAR_RESET, pg.VariableSetKind_VAR_SET_DEFAULT:
		if err := s.Reset(name); err != nil {
			return nil, err
		}
		if st.Kind == pg.VariableSetKind_VAR_RESET {
			return tag("RESET")
		}
		return tag("SET")
	case pg.VariableSetKind_VAR_SET_VALUE:
		value, err := setValue(name, st.Args)
		if err != nil {
			return nil, err
		}
		set := s.Set
		if st.IsLocal {
			set = s.SetLocal
		}
		if err := set(name, value); err != nil {
			return nil, err
		}
		return tag("SET")
	}
	return nil, pgerr.NotSupported("this form of SET")
}

// setValue is SET's argument list as the text a setting is parsed from.
func setValue(name string, args []*pg.Node) (string, error) {
	var parts []string
	for _, a := range args {
		c := a.GetAConst()
		if c == nil {
			if tc := a.GetTypeCast(); tc != nil {
				c = tc.Arg.GetAConst()
			}
		}
		if c == nil {
			return "", pgerr.New(pgerr.SyntaxError, "syntax error in SET value")
		}
		switch v := c.Val.(type) {
		case *pg.A_Const_Sval:
			p := v.Sval.Sval
			if name == "search_path" && (strings.ToLower(p) != p || strings.ContainsAny(p, " ,$")) {
				p = `"` + p + `"`
			}
			parts = append(parts, p)
		case *pg.A_Const_Ival:
			parts = append(parts, strconv.Itoa(int(v.Ival.Ival)))
		case *pg.A_Const_Fval:
			parts = append(parts, v.Fval.Fval)
		case *pg.A_Const_Boolval:
			parts = append(parts, strconv.FormatBool(v.Boolval.Boolval))
		}
	}
	if name == "timezone" && len(parts) == 1 && strings.EqualFold(parts[0], "utc") {
		parts[0] = "UTC"
	}
	return strings.Join(parts, ", "), nil
}

// Show runs SHOW name.
func Show(env *Env, st *pg.VariableShowStmt) (*Result, error) {
	name := strings.ToLower(st.Name)
	if name == "all" {
		return nil, pgerr.NotSupported("SHOW ALL")
	}
	v, err := env.Settings.Show(name)
	if err != nil {
		return nil, err
	}
	return &Result{Tag: "SHOW", Columns: []nodes.Field{{Name: guc.DisplayName(name), T: types.TextT}}, Rows: [][]any{{v}}}, nil
}
