package pgfed

// DDL for remote tables, with postgres_fdw's syntax, options and errors:
// CREATE/ALTER/DROP SERVER, CREATE/ALTER/DROP USER MAPPING, CREATE
// FOREIGN TABLE (also as a partition), DROP FOREIGN TABLE. Passwords are
// stored in user mappings only and never printed.

import (
	"sort"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
)

// sessionUser is the user name sessions run as: CURRENT_USER in user
// mappings resolves to it.
const sessionUser = "pgfed"

// optionKind is how an option's value is checked.
type optionKind uint8

const (
	optString optionKind = iota
	optBool
	optPositiveInt
	optNonNegFloat
)

// Valid options per context, as postgres_fdw's validator has them. Server
// options are libpq connection keywords plus postgres_fdw's own.
var (
	libpqServerOptions = []string{
		"host", "hostaddr", "port", "dbname", "connect_timeout", "options", "application_name",
		"keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout",
		"sslmode", "sslcompression", "sslcert", "sslkey", "sslrootcert", "sslcrl", "sslcrldir", "sslsni",
		"requirepeer", "ssl_min_protocol_version", "ssl_max_protocol_version", "gssencmode", "krbsrvname",
		"gsslib", "target_session_attrs", "load_balance_hosts",
	}
	fdwServerOptions = map[string]optionKind{
		"use_remote_estimate": optBool, "updatable": optBool, "truncatable": optBool,
		"fdw_startup_cost": optNonNegFloat, "fdw_tuple_cost": optNonNegFloat, "extensions": optString,
		"fetch_size": optPositiveInt, "batch_size": optPositiveInt, "async_capable": optBool,
		"parallel_commit": optBool, "parallel_abort": optBool, "keep_connections": optBool,
		// pgfed's own: read the partitions of this server over up to N
		// connections that share one exported snapshot (async Append).
		"async_connections": optPositiveInt,
		"analyze_sampling":  optString,
	}
	userMappingOptions = map[string]optionKind{
		"user": optString, "password": optString, "sslcert": optString, "sslkey": optString,
		"sslpassword": optString, "password_required": optBool,
	}
	foreignTableOptions = map[string]optionKind{
		"schema_name": optString, "table_name": optString, "use_remote_estimate": optBool,
		"updatable": optBool, "truncatable": optBool, "fetch_size": optPositiveInt,
		"batch_size": optPositiveInt, "async_capable": optBool, "analyze_sampling": optString,
	}
	columnOptions = map[string]optionKind{"column_name": optString}
)

func serverOptionKinds() map[string]optionKind {
	m := map[string]optionKind{}
	for _, o := range libpqServerOptions {
		m[o] = optString
	}
	for k, v := range fdwServerOptions {
		m[k] = v
	}
	return m
}

// checkOption validates one option of a context.
func checkOption(valid map[string]optionKind, name, value string) error {
	kind, ok := valid[name]
	if !ok {
		names := make([]string, 0, len(valid))
		for n := range valid {
			names = append(names, n)
		}
		sort.Strings(names)
		return pgerr.New(pgerr.FDWInvalidOptionName, "invalid option %q", name).
			WithHint("Valid options in this context are: %s", strings.Join(names, ", "))
	}
	switch kind {
	case optBool:
		switch strings.ToLower(value) {
		case "true", "false", "on", "off", "yes", "no", "1", "0", "t", "f":
		default:
			return pgerr.New(pgerr.InvalidParameterValue, "%s requires a Boolean value", name)
		}
	case optPositiveInt:
		n, err := strconv.Atoi(strings.TrimSpace(value))
		if err != nil {
			return pgerr.New(pgerr.InvalidParameterValue, "invalid value for integer option %q: %s", name, value)
		}
		if n <= 0 {
			return pgerr.New(pgerr.InvalidParameterValue, "%q must be an integer value greater than zero", name)
		}
	case optNonNegFloat:
		f, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			return pgerr.New(pgerr.InvalidParameterValue, "invalid value for floating point option %q: %s", name, value)
		}
		if f < 0 {
			return pgerr.New(pgerr.InvalidParameterValue, "%q must be a floating point value greater than or equal to zero", name)
		}
	}
	if name == "analyze_sampling" {
		switch strings.ToLower(value) {
		case "off", "auto", "random", "system", "bernoulli":
		default:
			return pgerr.New(pgerr.InvalidParameterValue, "invalid value for string option %q: %s", name, value)
		}
	}
	return nil
}

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
	}
	return ""
}

// applyOptions applies an OPTIONS (...) list to opts: plain options (on
// CREATE) and ADD / SET / DROP (on ALTER), validating each.
func applyOptions(opts map[string]string, defs []*pg.Node, valid map[string]optionKind) (map[string]string, error) {
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
		if err := checkOption(valid, name, value); err != nil {
			return nil, err
		}
		seen[name] = true
		out[name] = value
	}
	return out, nil
}

func (s *Session) createServer(st *pg.CreateForeignServerStmt) (*Rows, error) {
	if st.Fdwname != "postgres_fdw" {
		return nil, pgerr.New(pgerr.UndefinedObject, "foreign-data wrapper %q does not exist", st.Fdwname)
	}
	if s.db.catalog.Server(st.Servername) != nil {
		if st.IfNotExists {
			s.noticef(pgerr.DuplicateObject, "server %q already exists, skipping", st.Servername)
			return tagRows("CREATE SERVER"), nil
		}
		return nil, pgerr.New(pgerr.DuplicateObject, "server %q already exists", st.Servername)
	}
	opts, err := applyOptions(nil, st.Options, serverOptionKinds())
	if err != nil {
		return nil, err
	}
	if err := s.db.catalog.AddServer(&storage.Server{Name: st.Servername, Wrapper: st.Fdwname, Options: opts}); err != nil {
		return nil, err
	}
	return tagRows("CREATE SERVER"), nil
}

func (s *Session) alterServer(st *pg.AlterForeignServerStmt) (*Rows, error) {
	srv := s.db.catalog.Server(st.Servername)
	if srv == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "server %q does not exist", st.Servername)
	}
	opts, err := applyOptions(srv.Options, st.Options, serverOptionKinds())
	if err != nil {
		return nil, err
	}
	s.db.catalog.ReplaceServer(&storage.Server{Name: srv.Name, Wrapper: srv.Wrapper, Options: opts})
	// Connections made with the old options are closed so the new ones
	// take effect (postgres_fdw's invalidation).
	s.remoteManager().Disconnect(srv.Name)
	return tagRows("ALTER SERVER"), nil
}

func (s *Session) dropServers(st *pg.DropStmt) (*Rows, error) {
	for _, o := range st.Objects {
		name := o.GetString_().Sval
		if s.db.catalog.Server(name) == nil {
			if st.MissingOk {
				s.noticef(pgerr.SuccessfulCompletion, "server %q does not exist, skipping", name)
				continue
			}
			return nil, pgerr.New(pgerr.UndefinedObject, "server %q does not exist", name)
		}
		if err := s.db.catalog.DropServer(name, st.Behavior == pg.DropBehavior_DROP_CASCADE); err != nil {
			return nil, err
		}
		s.remoteManager().Disconnect(name)
	}
	return tagRows("DROP SERVER"), nil
}

// mappingUser resolves the user of a USER MAPPING statement.
func mappingUser(r *pg.RoleSpec) string {
	switch r.Roletype {
	case pg.RoleSpecType_ROLESPEC_PUBLIC:
		return "public"
	case pg.RoleSpecType_ROLESPEC_CSTRING:
		return r.Rolename
	}
	return sessionUser // CURRENT_USER, CURRENT_ROLE, SESSION_USER, USER
}

func displayUser(u string) string {
	if u == "public" {
		return "public"
	}
	return u
}

func (s *Session) createUserMapping(st *pg.CreateUserMappingStmt) (*Rows, error) {
	if s.db.catalog.Server(st.Servername) == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "server %q does not exist", st.Servername)
	}
	user := mappingUser(st.User)
	if s.db.catalog.UserMapping(st.Servername, user) != nil {
		if st.IfNotExists {
			s.noticef(pgerr.DuplicateObject, "user mapping for %q already exists for server %q, skipping", displayUser(user), st.Servername)
			return tagRows("CREATE USER MAPPING"), nil
		}
		return nil, pgerr.New(pgerr.DuplicateObject, "user mapping for %q already exists for server %q", displayUser(user), st.Servername)
	}
	opts, err := applyOptions(nil, st.Options, userMappingOptions)
	if err != nil {
		return nil, err
	}
	s.db.catalog.SetUserMapping(&storage.UserMapping{Server: st.Servername, User: user, Options: opts})
	return tagRows("CREATE USER MAPPING"), nil
}

func (s *Session) alterUserMapping(st *pg.AlterUserMappingStmt) (*Rows, error) {
	if s.db.catalog.Server(st.Servername) == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "server %q does not exist", st.Servername)
	}
	user := mappingUser(st.User)
	m := s.db.catalog.UserMapping(st.Servername, user)
	if m == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "user mapping for %q does not exist for server %q", displayUser(user), st.Servername)
	}
	opts, err := applyOptions(m.Options, st.Options, userMappingOptions)
	if err != nil {
		return nil, err
	}
	s.db.catalog.SetUserMapping(&storage.UserMapping{Server: m.Server, User: m.User, Options: opts})
	s.remoteManager().Disconnect(m.Server)
	return tagRows("ALTER USER MAPPING"), nil
}

func (s *Session) dropUserMapping(st *pg.DropUserMappingStmt) (*Rows, error) {
	user := mappingUser(st.User)
	if s.db.catalog.Server(st.Servername) == nil {
		if st.MissingOk {
			s.noticef(pgerr.SuccessfulCompletion, "server %q does not exist, skipping", st.Servername)
			return tagRows("DROP USER MAPPING"), nil
		}
		return nil, pgerr.New(pgerr.UndefinedObject, "server %q does not exist", st.Servername)
	}
	if !s.db.catalog.DropUserMapping(st.Servername, user) {
		if st.MissingOk {
			s.noticef(pgerr.SuccessfulCompletion, "user mapping for %q does not exist for server %q, skipping", displayUser(user), st.Servername)
			return tagRows("DROP USER MAPPING"), nil
		}
		return nil, pgerr.New(pgerr.UndefinedObject, "user mapping for %q does not exist for server %q", displayUser(user), st.Servername)
	}
	s.remoteManager().Disconnect(st.Servername)
	return tagRows("DROP USER MAPPING"), nil
}

func (s *Session) createForeignTable(st *pg.CreateForeignTableStmt) (*Rows, error) {
	if s.db.catalog.Server(st.Servername) == nil {
		return nil, pgerr.New(pgerr.UndefinedObject, "server %q does not exist", st.Servername)
	}
	opts, err := applyOptions(nil, st.Options, foreignTableOptions)
	if err != nil {
		return nil, err
	}
	ft := &storage.ForeignTable{Server: st.Servername, Options: opts}
	return s.createTableWith(st.BaseStmt, ft, "CREATE FOREIGN TABLE")
}

// columnFDWOptions validates a foreign table column's OPTIONS.
func columnFDWOptions(cd *pg.ColumnDef) (map[string]string, error) {
	if len(cd.Fdwoptions) == 0 {
		return nil, nil
	}
	return applyOptions(nil, cd.Fdwoptions, columnOptions)
}
