package commands

// DDL for remote tables, with postgres_fdw's syntax, options and errors:
// CREATE/ALTER/DROP SERVER, CREATE/ALTER/DROP USER MAPPING, CREATE
// FOREIGN TABLE (also as a partition), DROP FOREIGN TABLE. Passwords are
// stored in user mappings only and never printed.

import (
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/remote"
	"github.com/pgfed/pgfed/storage"
	"slices"
)

// applyOptions applies an OPTIONS (...) list to opts: plain options (on
// CREATE) and ADD / SET / DROP (on ALTER), validating each.
func applyOptions(opts map[string]string, defs []*pg.Node, ctx remote.OptionContext) (map[string]string, error) {
	out := map[string]string{}
	for k, v := range opts {
		out[k] = v
	}
	seen := map[string]bool{}
	for _, n := range defs {
		d := n.GetDefElem()
		name, value := d.Defname, defString(d)
		switch d.Defaction {
		case pg.DefElemAction_DEFELEM_DROP:
			if _, ok := out[name]; !ok {
				return nil, pgerr.New(pgerr.UndefinedObject, "option %q not found", name)
			}
			delete(out, name)
			continue
		case pg.DefElemAction_DEFELEM_SET:
			if _, ok := out[name]; !ok {
				return nil, pgerr.New(pgerr.UndefinedObject, "option %q not found", name)
			}
		default: // ADD or plain
			if _, ok := out[name]; ok || seen[name] {
				return nil, pgerr.New(pgerr.DuplicateObject, "option %q provided more than once", name)
			}
		}
		if err := remote.ValidateOption(ctx, name, value); err != nil {
			return nil, err
		}
		seen[name] = true
		out[name] = value
	}
	return out, nil
}

func CreateServer(env *Env, st *pg.CreateForeignServerStmt) (*Result, error) {
	if st.Fdwname != "postgres_fdw" {
		return nil, pgerr.New(pgerr.UndefinedObject, "foreign-data wrapper %q does not exist", st.Fdwname)
	}
	if env.Catalog.Server(st.Servername) != nil {
		if st.IfNotExists {
			env.noticef(pgerr.DuplicateObject, "server %q already exists, skipping", st.Servername)
			return tag("CREATE SERVER")
		}
		return nil, pgerr.New(pgerr.DuplicateObject, "server %q already exists", st.Servername)
	}
	opts, err := applyOptions(nil, st.Options, remote.ServerOptions)
	if err != nil {
		return nil, err
	}
	c, err := env.Catalog.AddServer(&storage.Server{Name: st.Servername, Wrapper: st.Fdwname, Options: opts})
	if err != nil {
		return nil, err
	}
	env.Changed(c)
	return tag("CREATE SERVER")
}

func AlterServer(env *Env, st *pg.AlterForeignServerStmt) (*Result, error) {
	srv := env.Catalog.Server(st.Servername)
	if srv == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "server %q does not exist", st.Servername)
	}
	opts, err := applyOptions(srv.Options, st.Options, remote.ServerOptions)
	if err != nil {
		return nil, err
	}
	env.Changed(env.Catalog.ReplaceServer(&storage.Server{Name: srv.Name, Wrapper: srv.Wrapper, Options: opts}))
	// Connections made with the old options are closed so the new ones
	// take effect (postgres_fdw's invalidation).
	_, _ = env.Remote.Disconnect(srv.Name)
	return tag("ALTER SERVER")
}

// AlterForeignTable runs ALTER FOREIGN TABLE ... OPTIONS (...) and ALTER
// COLUMN ... OPTIONS (...), the forms that change postgres_fdw options.
func AlterForeignTable(env *Env, st *pg.AlterTableStmt) (*Result, error) {
	t, err := env.Planner().ResolveTable(st.Relation)
	if err != nil {
		if st.MissingOk && pgerr.Code(err) == pgerr.UndefinedTable {
			env.noticef(pgerr.SuccessfulCompletion, "relation %q does not exist, skipping", st.Relation.Relname)
			return tag("ALTER FOREIGN TABLE")
		}
		return nil, err
	}
	if t.Kind != storage.KindForeign {
		return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a foreign table", t.Name)
	}
	f := &storage.ForeignTable{Server: t.Foreign.Server, Options: t.Foreign.Options,
		ColumnOptions: slices.Clone(t.Foreign.ColumnOptions)}
	for _, n := range st.Cmds {
		cmd := n.GetAlterTableCmd()
		defs := cmd.GetDef().GetList().GetItems()
		switch cmd.Subtype {
		case pg.AlterTableType_AT_GenericOptions:
			if f.Options, err = applyOptions(f.Options, defs, remote.TableOptions); err != nil {
				return nil, err
			}
		case pg.AlterTableType_AT_AlterColumnGenericOptions:
			c := t.ColumnIndex(cmd.Name)
			if c < 0 {
				return nil, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %q does not exist", cmd.Name, t.Name)
			}
			for len(f.ColumnOptions) <= c {
				f.ColumnOptions = append(f.ColumnOptions, nil)
			}
			if f.ColumnOptions[c], err = applyOptions(f.ColumnOptions[c], defs, remote.ColumnOptions); err != nil {
				return nil, err
			}
		default:
			return nil, pgerr.NotSupported("this form of ALTER FOREIGN TABLE")
		}
	}
	env.Changed(env.Catalog.SetForeignOptions(t, f))
	return tag("ALTER FOREIGN TABLE")
}

func dropServers(env *Env, st *pg.DropStmt) (*Result, error) {
	for _, o := range st.Objects {
		name := o.GetString_().Sval
		if env.Catalog.Server(name) == nil {
			if st.MissingOk {
				env.noticef(pgerr.SuccessfulCompletion, "server %q does not exist, skipping", name)
				continue
			}
			return nil, pgerr.New(pgerr.UndefinedObject, "server %q does not exist", name)
		}
		// The session's connections to it go first (while the server exists).
		_, _ = env.Remote.Disconnect(name)
		c, err := env.Catalog.DropServer(name, st.Behavior == pg.DropBehavior_DROP_CASCADE)
		if err != nil {
			return nil, err
		}
		env.Changed(c)
	}
	return tag("DROP SERVER")
}

// mappingUser resolves the user of a USER MAPPING statement.
func mappingUser(r *pg.RoleSpec) string {
	switch r.Roletype {
	case pg.RoleSpecType_ROLESPEC_PUBLIC:
		return "public"
	case pg.RoleSpecType_ROLESPEC_CSTRING:
		return r.Rolename
	}
	return SessionUser // CURRENT_USER, CURRENT_ROLE, SESSION_USER, USER
}

func displayUser(u string) string {
	if u == "public" {
		return "public"
	}
	return u
}

func CreateUserMapping(env *Env, st *pg.CreateUserMappingStmt) (*Result, error) {
	if env.Catalog.Server(st.Servername) == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "server %q does not exist", st.Servername)
	}
	user := mappingUser(st.User)
	if env.Catalog.UserMapping(st.Servername, user) != nil {
		if st.IfNotExists {
			env.noticef(pgerr.DuplicateObject, "user mapping for %q already exists for server %q, skipping", displayUser(user), st.Servername)
			return tag("CREATE USER MAPPING")
		}
		return nil, pgerr.New(pgerr.DuplicateObject, "user mapping for %q already exists for server %q", displayUser(user), st.Servername)
	}
	opts, err := applyOptions(nil, st.Options, remote.UserMappingOptions)
	if err != nil {
		return nil, err
	}
	env.Changed(env.Catalog.SetUserMapping(&storage.UserMapping{Server: st.Servername, User: user, Options: opts}))
	return tag("CREATE USER MAPPING")
}

func AlterUserMapping(env *Env, st *pg.AlterUserMappingStmt) (*Result, error) {
	if env.Catalog.Server(st.Servername) == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "server %q does not exist", st.Servername)
	}
	user := mappingUser(st.User)
	m := env.Catalog.UserMapping(st.Servername, user)
	if m == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "user mapping for %q does not exist for server %q", displayUser(user), st.Servername)
	}
	opts, err := applyOptions(m.Options, st.Options, remote.UserMappingOptions)
	if err != nil {
		return nil, err
	}
	env.Changed(env.Catalog.SetUserMapping(&storage.UserMapping{Server: m.Server, User: m.User, Options: opts}))
	_, _ = env.Remote.Disconnect(m.Server)
	return tag("ALTER USER MAPPING")
}

func DropUserMapping(env *Env, st *pg.DropUserMappingStmt) (*Result, error) {
	user := mappingUser(st.User)
	if env.Catalog.Server(st.Servername) == nil {
		if st.MissingOk {
			env.noticef(pgerr.SuccessfulCompletion, "server %q does not exist, skipping", st.Servername)
			return tag("DROP USER MAPPING")
		}
		return nil, pgerr.New(pgerr.UndefinedObject, "server %q does not exist", st.Servername)
	}
	dropped, c := env.Catalog.DropUserMapping(st.Servername, user)
	env.Changed(c)
	if !dropped {
		if st.MissingOk {
			env.noticef(pgerr.SuccessfulCompletion, "user mapping for %q does not exist for server %q, skipping", displayUser(user), st.Servername)
			return tag("DROP USER MAPPING")
		}
		return nil, pgerr.New(pgerr.UndefinedObject, "user mapping for %q does not exist for server %q", displayUser(user), st.Servername)
	}
	_, _ = env.Remote.Disconnect(st.Servername)
	return tag("DROP USER MAPPING")
}

func CreateForeignTable(env *Env, st *pg.CreateForeignTableStmt) (*Result, error) {
	if env.Catalog.Server(st.Servername) == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "server %q does not exist", st.Servername)
	}
	opts, err := applyOptions(nil, st.Options, remote.TableOptions)
	if err != nil {
		return nil, err
	}
	ft := &storage.ForeignTable{Server: st.Servername, Options: opts}
	return createTableWith(env, st.BaseStmt, ft, "CREATE FOREIGN TABLE")
}

// columnFDWOptions validates a foreign table column's OPTIONS.
func columnFDWOptions(cd *pg.ColumnDef) (map[string]string, error) {
	if len(cd.Fdwoptions) == 0 {
		return nil, nil
	}
	return applyOptions(nil, cd.Fdwoptions, remote.ColumnOptions)
}
