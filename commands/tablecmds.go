package commands

// DDL: schemas, tables (with NOT NULL and DEFAULT), partitioned tables
// and their partitions, CREATE TABLE AS, DROP and TRUNCATE.

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/executor"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/planner"
	"github.com/pgfed/pgfed/remote"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

func CreateSchema(env *Env, st *pg.CreateSchemaStmt) (*Result, error) {
	if len(st.SchemaElts) > 0 {
		return nil, pgerr.NotSupported("CREATE SCHEMA with elements")
	}
	if st.Schemaname == "" {
		return nil, pgerr.NotSupported("CREATE SCHEMA AUTHORIZATION")
	}
	if strings.HasPrefix(st.Schemaname, "pg_") {
		// CreateSchemaCommand's rule, which keeps pg_temp_N for sessions.
		return nil, pgerr.New(pgerr.ReservedName, "unacceptable schema name %q", st.Schemaname).
			WithDetail("The prefix \"pg_\" is reserved for system schemas.")
	}
	created, c, err := env.Catalog.CreateSchema(st.Schemaname, st.IfNotExists)
	if err != nil {
		return nil, err
	}
	env.Changed(c)
	if !created {
		env.noticef(pgerr.DuplicateSchema, "schema %q already exists, skipping", st.Schemaname)
	}
	return tag("CREATE SCHEMA")
}

// targetSchema picks the schema a new relation goes into and tells
// whether the relation is temporary, as PostgreSQL's
// RangeVarGetCreationNamespace and RangeVarAdjustRelationPersistence: a
// TEMP relation goes into the session's temporary schema (made now if
// need be), and a relation created in that schema (pg_temp.t, or pg_temp
// first in search_path) is temporary without TEMP.
func targetSchema(env *Env, rv *pg.RangeVar) (string, bool, error) {
	temp := rv.Relpersistence == "t"
	if rv.Schemaname != "" {
		switch s := rv.Schemaname; {
		case s == "pg_temp" || (s == env.Temp.Schema() && s != ""):
			return tempTarget(env)
		case storage.IsTempSchema(s) && env.Catalog.HasSchema(s):
			return "", false, errAtRangeVar(pgerr.New(pgerr.InvalidTableDefinition, "cannot create relations in temporary schemas of other sessions"), rv)
		case !env.Catalog.HasSchema(s):
			return "", false, pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", s)
		case temp:
			return "", false, errAtRangeVar(pgerr.New(pgerr.InvalidTableDefinition, "cannot create temporary relation in non-temporary schema"), rv)
		}
		return rv.Schemaname, false, nil
	}
	if temp {
		return tempTarget(env)
	}
	for _, sc := range env.Settings.SearchPath() {
		if sc == "pg_temp" {
			return tempTarget(env)
		}
		if env.Catalog.HasSchema(sc) {
			return sc, false, nil
		}
	}
	return "", false, pgerr.New(pgerr.InvalidSchemaName, "no schema has been selected to create in")
}

// tempTarget is the session's temporary schema as a creation target.
func tempTarget(env *Env) (string, bool, error) {
	if env.Temp == nil { // an Env without a session
		return "", false, pgerr.NotSupported("temporary tables outside a session")
	}
	return env.Temp.ensureSchema(), true, nil
}

// errAtRangeVar places an error at a relation name, as PostgreSQL's
// parser_errposition on the RangeVar.
func errAtRangeVar(e *pgerr.Error, rv *pg.RangeVar) *pgerr.Error {
	if rv.Location >= 0 {
		return e.WithPosition(int(rv.Location) + 1)
	}
	return e
}

func CreateTable(env *Env, st *pg.CreateStmt) (*Result, error) {
	return createTableWith(env, st, nil, "CREATE TABLE")
}

// createTableWith creates a table, or with ft a foreign table, from a
// CREATE [FOREIGN] TABLE statement; tag is the command tag.
func createTableWith(env *Env, st *pg.CreateStmt, ft *storage.ForeignTable, cmdTag string) (*Result, error) {
	if st.OfTypename != nil {
		return nil, pgerr.NotSupported("CREATE TABLE OF type")
	}
	schema, temp, err := targetSchema(env, st.Relation)
	if err != nil {
		return nil, err
	}
	onCommit, err := onCommitOf(st.Oncommit, temp)
	if err != nil {
		return nil, err
	}
	name := st.Relation.Relname
	if existing := env.Catalog.Lookup(schema, name); existing != nil {
		if st.IfNotExists {
			env.noticef(pgerr.DuplicateTable, "relation %q already exists, skipping", name)
			return tag(cmdTag)
		}
		return nil, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
	}
	for _, c := range st.Constraints {
		return nil, pgerr.NotSupported("table constraint " + constraintName(c.GetConstraint()))
	}
	pl := env.Planner()
	var parent *storage.Table
	if st.Partbound != nil || len(st.InhRelations) > 0 {
		if len(st.InhRelations) != 1 || st.Partbound == nil {
			return nil, pgerr.NotSupported("table inheritance")
		}
		if parent, err = pl.ResolveTable(st.InhRelations[0].GetRangeVar()); err != nil {
			return nil, err
		}
		if parent.Kind != storage.KindPartitioned {
			return nil, pgerr.New(pgerr.InvalidObjectDefinition, "table %q is not partitioned", parent.Name)
		}
		if err := checkPartitionPersistence(parent, temp); err != nil {
			return nil, err
		}
	}
	var cols []storage.Column
	var colOpts []map[string]string
	if parent != nil {
		cols = append(cols, parent.Columns...)
		colOpts = make([]map[string]string, len(cols))
	}
	for _, elt := range st.TableElts {
		cd := elt.GetColumnDef()
		if cd != nil && len(cd.Fdwoptions) > 0 && ft == nil {
			return nil, pgerr.New(pgerr.SyntaxError, "column options are only allowed on foreign tables")
		}
		if cd == nil {
			if c := elt.GetConstraint(); c != nil {
				return nil, pgerr.NotSupported("table constraint " + constraintName(c))
			}
			return nil, pgerr.NotSupported("LIKE in CREATE TABLE")
		}
		if parent != nil {
			// Column options on a partition (NOT NULL, DEFAULT) refine the
			// inherited column.
			i := indexOfColumn(cols, cd.Colname)
			if i < 0 {
				return nil, pgerr.New(pgerr.UndefinedColumn, "column %q named in partition key does not exist", cd.Colname)
			}
			if err := applyColumnConstraints(env, &cols[i], cd, pl); err != nil {
				return nil, err
			}
			if ft != nil {
				if colOpts[i], err = columnFDWOptions(cd); err != nil {
					return nil, err
				}
			}
			continue
		}
		if indexOfColumn(cols, cd.Colname) >= 0 {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", cd.Colname)
		}
		t, err := planner.TypeFromName(cd.TypeName)
		if err != nil {
			return nil, err
		}
		col := storage.Column{Name: cd.Colname, Type: t}
		if cd.IsNotNull {
			col.NotNull = true
		}
		if err := applyColumnConstraints(env, &col, cd, pl); err != nil {
			return nil, err
		}
		cols = append(cols, col)
		var co map[string]string
		if ft != nil {
			if co, err = columnFDWOptions(cd); err != nil {
				return nil, err
			}
		}
		colOpts = append(colOpts, co)
	}
	if len(cols) > 1600 {
		return nil, pgerr.New(pgerr.TooManyColumns, "tables can have at most 1600 columns")
	}
	t := storage.NewTable(schema, name, cols)
	if ft != nil {
		if st.Partspec != nil {
			return nil, pgerr.NotSupported("partitioned foreign tables")
		}
		ft.ColumnOptions = colOpts
		t.Kind, t.Foreign = storage.KindForeign, ft
	}
	if st.Partspec != nil {
		if t.PartKey, err = partitionKey(st.Partspec, t); err != nil {
			return nil, err
		}
		t.Kind = storage.KindPartitioned
	}
	if parent != nil {
		t.Parent = parent
		if t.Bound, err = partitionBound(st.Partbound, parent, pl, name); err != nil {
			return nil, err
		}
		if err := checkOverlap(parent, t); err != nil {
			return nil, err
		}
		if err := checkDefaultRows(parent, t); err != nil {
			return nil, err
		}
	}
	c, err := env.Catalog.AddTable(t)
	if err != nil {
		return nil, err
	}
	env.Changed(c)
	if temp {
		env.Temp.Register(t, onCommit)
	}
	return tag(cmdTag)
}

// checkPartitionPersistence is MergeAttributes' rule: a partition is
// temporary exactly when its parent is (the parent, resolved by name, is
// the session's own if temporary).
func checkPartitionPersistence(parent *storage.Table, temp bool) error {
	parentTemp := storage.IsTempSchema(parent.Schema)
	switch {
	case temp && !parentTemp:
		return pgerr.New(pgerr.WrongObjectType, "cannot create a temporary relation as partition of permanent relation %q", parent.Name)
	case !temp && parentTemp:
		return pgerr.New(pgerr.WrongObjectType, "cannot create a permanent relation as partition of temporary relation %q", parent.Name)
	}
	return nil
}

func indexOfColumn(cols []storage.Column, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

func constraintName(c *pg.Constraint) string {
	if c == nil {
		return ""
	}
	return strings.TrimPrefix(c.Contype.String(), "CONSTR_")
}

// applyColumnConstraints handles NOT NULL, NULL and DEFAULT on a column.
func applyColumnConstraints(env *Env, col *storage.Column, cd *pg.ColumnDef, pl *planner.Planner) error {
	for _, cn := range cd.Constraints {
		c := cn.GetConstraint()
		switch c.Contype {
		case pg.ConstrType_CONSTR_NOTNULL:
			col.NotNull = true
		case pg.ConstrType_CONSTR_NULL:
			col.NotNull = false
		case pg.ConstrType_CONSTR_DEFAULT:
			if planner.HasColumnRef(c.RawExpr) {
				return pgerr.New(pgerr.FeatureNotSupported, "cannot use column reference in DEFAULT expression")
			}
			// Type-check the default now; errors in its value (a literal
			// too long for the column, say) surface when it is used, as in
			// PostgreSQL.
			e, err := pl.Expr(c.RawExpr, col.Type, "DEFAULT expressions")
			if err != nil && pgerr.Code(err) != pgerr.StringDataRightTruncation && pgerr.Code(err) != pgerr.NumericValueOutOfRange {
				return err
			}
			text, err := deparseExpr(c.RawExpr)
			if err != nil {
				return err
			}
			col.Default = text
			col.DefaultDisplay = text
			if e != nil {
				col.DefaultDisplay = e.String()
				if _, coerced := e.(*nodes.Cast); !coerced {
					// A top-level operator prints without its parentheses;
					// under a coercion PostgreSQL keeps them: (6 * 7).
					col.DefaultDisplay = topLevel(col.DefaultDisplay)
				}
			}
		default:
			return pgerr.NotSupported("column constraint " + constraintName(c))
		}
	}
	return nil
}

// topLevel drops the parentheses around a whole printed expression, as
// PostgreSQL prints a top-level expression.
func topLevel(s string) string {
	if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
		return s
	}
	depth := 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 && i != len(s)-1 {
				return s // "(a) + (b)": the outer pair is not one group
			}
		}
	}
	return s[1 : len(s)-1]
}

// deparseExpr prints an expression back to SQL with pg_query's deparser.
func deparseExpr(n *pg.Node) (string, error) {
	tree := &pg.ParseResult{Version: 170007, Stmts: []*pg.RawStmt{{Stmt: &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: &pg.SelectStmt{
		TargetList: []*pg.Node{{Node: &pg.Node_ResTarget{ResTarget: &pg.ResTarget{Val: n}}}},
	}}}}}}
	s, err := pg.Deparse(tree)
	if err != nil {
		return "", pgerr.Internal("deparse: %v", err)
	}
	return strings.TrimPrefix(s, "SELECT "), nil
}

func partitionKey(ps *pg.PartitionSpec, t *storage.Table) (*storage.PartitionKey, error) {
	key := &storage.PartitionKey{}
	switch ps.Strategy {
	case pg.PartitionStrategy_PARTITION_STRATEGY_RANGE:
		key.Strategy = storage.Range
	case pg.PartitionStrategy_PARTITION_STRATEGY_LIST:
		key.Strategy = storage.List
	default:
		key.Strategy = storage.Hash
	}
	for _, p := range ps.PartParams {
		el := p.GetPartitionElem()
		if el.Expr != nil {
			return nil, pgerr.NotSupported("partition key expressions")
		}
		i := t.ColumnIndex(el.Name)
		if i < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q named in partition key does not exist", el.Name).WithPosition(int(el.Location) + 1)
		}
		key.Columns = append(key.Columns, i)
	}
	if key.Strategy == storage.List && len(key.Columns) != 1 {
		return nil, pgerr.New(pgerr.InvalidTableDefinition, "cannot use \"list\" partition strategy with more than one column")
	}
	return key, nil
}

// partitionBound evaluates FOR VALUES ... against the parent's key types.
func partitionBound(pb *pg.PartitionBoundSpec, parent *storage.Table, pl *planner.Planner, name string) (*storage.PartitionBound, error) {
	b := &storage.PartitionBound{}
	if pb.IsDefault {
		if parent.PartKey.Strategy == storage.Hash {
			return nil, pgerr.New(pgerr.InvalidTableDefinition, "a hash-partitioned table may not have a default partition")
		}
		for _, p := range parent.Partitions() {
			if p.Bound.Default {
				return nil, pgerr.New(pgerr.InvalidObjectDefinition, "partition %q conflicts with existing default partition %q", name, p.Name)
			}
		}
		b.Default = true
		return b, nil
	}
	kts := parent.KeyTypes()
	strategy := map[string]storage.Strategy{"r": storage.Range, "l": storage.List, "h": storage.Hash}[pb.Strategy]
	if strategy != parent.PartKey.Strategy {
		names := map[storage.Strategy]string{storage.Range: "range", storage.List: "list", storage.Hash: "hash"}
		return nil, pgerr.New(pgerr.InvalidTableDefinition, "invalid bound specification for a %s partition", names[parent.PartKey.Strategy])
	}
	value := func(n *pg.Node, t types.T) (any, error) {
		e, err := pl.Expr(n, t, "partition bound")
		if err != nil {
			return nil, err
		}
		return executor.EvalConst(e, &executor.ExecContext{})
	}
	switch strategy {
	case storage.List:
		for _, d := range pb.Listdatums {
			v, err := value(d, kts[0])
			if err != nil {
				return nil, err
			}
			b.In = append(b.In, v)
		}
	case storage.Range:
		conv := func(ds []*pg.Node) ([]storage.RangeDatum, error) {
			var out []storage.RangeDatum
			for i, d := range ds {
				if rd := d.GetPartitionRangeDatum(); rd != nil {
					switch rd.Kind {
					case pg.PartitionRangeDatumKind_PARTITION_RANGE_DATUM_MINVALUE:
						out = append(out, storage.RangeDatum{Kind: storage.MinValue})
						continue
					case pg.PartitionRangeDatumKind_PARTITION_RANGE_DATUM_MAXVALUE:
						out = append(out, storage.RangeDatum{Kind: storage.MaxValue})
						continue
					}
					d = rd.Value
				}
				if cr := d.GetColumnRef(); cr != nil && len(cr.Fields) == 1 {
					switch strings.ToLower(cr.Fields[0].GetString_().Sval) {
					case "minvalue":
						out = append(out, storage.RangeDatum{Kind: storage.MinValue})
						continue
					case "maxvalue":
						out = append(out, storage.RangeDatum{Kind: storage.MaxValue})
						continue
					}
				}
				if i >= len(kts) {
					return nil, pgerr.New(pgerr.InvalidTableDefinition, "TO must specify exactly one value per partitioning column")
				}
				v, err := value(d, kts[i])
				if err != nil {
					return nil, err
				}
				if v == nil {
					return nil, pgerr.New(pgerr.InvalidTableDefinition, "cannot specify NULL in range bound")
				}
				out = append(out, storage.RangeDatum{Value: v})
			}
			return out, nil
		}
		var err error
		if b.From, err = conv(pb.Lowerdatums); err != nil {
			return nil, err
		}
		if b.To, err = conv(pb.Upperdatums); err != nil {
			return nil, err
		}
		if len(b.From) != len(kts) {
			return nil, pgerr.New(pgerr.InvalidTableDefinition, "FROM must specify exactly one value per partitioning column")
		}
		if len(b.To) != len(kts) {
			return nil, pgerr.New(pgerr.InvalidTableDefinition, "TO must specify exactly one value per partitioning column")
		}
		if cmpBounds(kts, b.From, b.To) >= 0 {
			return nil, pgerr.New(pgerr.InvalidObjectDefinition, "empty range bound specified for partition %q", name)
		}
	case storage.Hash:
		if pb.Modulus <= 0 {
			return nil, pgerr.New(pgerr.InvalidTableDefinition, "modulus for hash partition must be an integer value greater than zero")
		}
		if pb.Remainder < 0 || pb.Remainder >= pb.Modulus {
			return nil, pgerr.New(pgerr.InvalidTableDefinition, "remainder for hash partition must be less than modulus")
		}
		b.Modulus, b.Remainder = int(pb.Modulus), int(pb.Remainder)
	}
	return b, nil
}

func cmpBounds(kts []types.T, a, b []storage.RangeDatum) int {
	for i := range a {
		if a[i].Kind != b[i].Kind {
			if a[i].Kind < b[i].Kind {
				return -1
			}
			return 1
		}
		if a[i].Kind != storage.Value {
			return 0
		}
		if c := types.Compare(kts[i], a[i].Value, b[i].Value); c != 0 {
			return c
		}
	}
	return 0
}

// checkOverlap refuses a partition whose bound overlaps a sibling's.
func checkOverlap(parent, t *storage.Table) error {
	kts := parent.KeyTypes()
	for _, p := range parent.Partitions() {
		if p.Bound.Default || t.Bound.Default {
			continue
		}
		overlap := false
		switch parent.PartKey.Strategy {
		case storage.Range:
			overlap = cmpBounds(kts, t.Bound.From, p.Bound.To) < 0 && cmpBounds(kts, p.Bound.From, t.Bound.To) < 0
		case storage.List:
			for _, v := range t.Bound.In {
				for _, w := range p.Bound.In {
					if (v == nil && w == nil) || (v != nil && w != nil && types.Compare(kts[0], v, w) == 0) {
						overlap = true
					}
				}
			}
		case storage.Hash:
			a, b := t.Bound, p.Bound
			if a.Modulus%b.Modulus != 0 && b.Modulus%a.Modulus != 0 {
				return pgerr.New(pgerr.InvalidObjectDefinition, "every hash partition modulus must be a factor of the next larger modulus")
			}
			m := min(a.Modulus, b.Modulus)
			overlap = a.Remainder%m == b.Remainder%m
		}
		if overlap {
			return pgerr.New(pgerr.InvalidObjectDefinition, "partition %q would overlap partition %q", t.Name, p.Name)
		}
	}
	return nil
}

// checkDefaultRows refuses a new partition when rows already in the
// default partition belong to it (PostgreSQL would have to move them).
func checkDefaultRows(parent, t *storage.Table) error {
	if t.Bound.Default {
		return nil
	}
	kts := parent.KeyTypes()
	for _, p := range parent.Partitions() {
		if !p.Bound.Default {
			continue
		}
		for _, b := range p.Snapshot() {
			bad := false
			for r := 0; r < int(b.NumRows()) && !bad; r++ {
				key := make([]any, len(parent.PartKey.Columns))
				for i, c := range parent.PartKey.Columns {
					key[i] = types.DatumAt(b.Column(c), parent.Columns[c].Type, r)
				}
				bad = t.Bound.Accepts(parent.PartKey.Strategy, kts, key, func(k []any) uint64 { return storage.HashPartitionKey(kts, k) })
			}
			b.Release()
			if bad {
				return pgerr.New(pgerr.CheckViolation, "updated partition constraint for default partition %q would be violated by some row", p.Name)
			}
		}
	}
	return nil
}

func CreateTableAs(ctx context.Context, env *Env, st *pg.CreateTableAsStmt) (*Result, error) {
	if st.Objtype != pg.ObjectType_OBJECT_TABLE {
		return nil, pgerr.NotSupported("CREATE MATERIALIZED VIEW")
	}
	into := st.Into
	schema, temp, err := targetSchema(env, into.Rel)
	if err != nil {
		return nil, err
	}
	onCommit, err := onCommitOf(into.OnCommit, temp)
	if err != nil {
		return nil, err
	}
	if env.Catalog.Lookup(schema, into.Rel.Relname) != nil {
		if st.IfNotExists {
			env.noticef(pgerr.DuplicateTable, "relation %q already exists, skipping", into.Rel.Relname)
			return tag("CREATE TABLE AS")
		}
		return nil, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", into.Rel.Relname)
	}
	q, err := env.Planner().Plan(st.Query)
	if err != nil {
		return nil, err
	}
	cols := make([]storage.Column, len(q.Columns))
	for i, f := range q.Columns {
		cols[i] = storage.Column{Name: f.Name, Type: f.T}
		if i < len(into.ColNames) {
			cols[i].Name = into.ColNames[i].GetString_().Sval
		}
	}
	t := storage.NewTable(schema, into.Rel.Relname, cols)
	var n int64
	if !into.SkipData {
		var batches []arrow.RecordBatch
		err := env.Run(ctx, q, nil, func(b arrow.RecordBatch) error {
			b.Retain()
			batches = append(batches, storage.Relabel(b, t.ArrowSchema()))
			n += b.NumRows()
			return nil
		})
		if err != nil {
			for _, b := range batches {
				b.Release()
			}
			return nil, err
		}
		t.Append(batches...)
	}
	c, err := env.Catalog.AddTable(t)
	if err != nil {
		return nil, err
	}
	env.Changed(c)
	if temp {
		env.Temp.Register(t, onCommit)
	}
	return tag("SELECT " + strconv.FormatInt(n, 10))
}

func Drop(env *Env, st *pg.DropStmt) (*Result, error) {
	switch st.RemoveType {
	case pg.ObjectType_OBJECT_FOREIGN_SERVER:
		return dropServers(env, st)
	case pg.ObjectType_OBJECT_TABLE, pg.ObjectType_OBJECT_FOREIGN_TABLE:
		foreign := st.RemoveType == pg.ObjectType_OBJECT_FOREIGN_TABLE
		what := map[bool]string{false: "table", true: "foreign table"}[foreign]
		pl := env.Planner()
		var tables []*storage.Table
		for _, o := range st.Objects {
			items := o.GetList().Items
			rv := &pg.RangeVar{Relname: items[len(items)-1].GetString_().Sval}
			if len(items) > 1 {
				rv.Schemaname = items[len(items)-2].GetString_().Sval
			}
			t, err := pl.ResolveTable(rv)
			if err != nil {
				if st.MissingOk && (pgerr.Code(err) == pgerr.UndefinedTable || pgerr.Code(err) == pgerr.InvalidSchemaName) {
					env.noticef(pgerr.SuccessfulCompletion, "%s %q does not exist, skipping", what, rv.Relname)
					continue
				}
				if pgerr.Code(err) == pgerr.UndefinedTable {
					return nil, pgerr.New(pgerr.UndefinedTable, "%s %q does not exist", what, rv.Relname)
				}
				if pe, ok := pgerr.As(err); ok {
					c := *pe
					c.Position = 0
					return nil, &c
				}
				return nil, err
			}
			if (t.Kind == storage.KindForeign) != foreign {
				hint := "Use DROP FOREIGN TABLE to remove a foreign table."
				if foreign {
					hint = "Use DROP TABLE to remove a table."
				}
				return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a %s", t.Name, what).WithHint("%s", hint)
			}
			tables = append(tables, t)
		}
		for _, t := range tables {
			env.Changed(env.Catalog.DropTable(t))
		}
		if foreign {
			return tag("DROP FOREIGN TABLE")
		}
		return tag("DROP TABLE")
	case pg.ObjectType_OBJECT_SCHEMA:
		for _, o := range st.Objects {
			name := o.GetString_().Sval
			if storage.IsTempSchema(name) && env.Catalog.HasSchema(name) {
				// A session's temporary schema goes with its session.
				return nil, pgerr.NotSupported("DROP SCHEMA of a temporary schema")
			}
			if !env.Catalog.HasSchema(name) {
				if st.MissingOk {
					env.noticef(pgerr.SuccessfulCompletion, "schema %q does not exist, skipping", name)
					continue
				}
				return nil, pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", name)
			}
			c, err := env.Catalog.DropSchema(name, st.Behavior == pg.DropBehavior_DROP_CASCADE)
			if err != nil {
				return nil, err
			}
			env.Changed(c)
		}
		return tag("DROP SCHEMA")
	}
	return nil, pgerr.NotSupported("DROP " + strings.TrimPrefix(st.RemoveType.String(), "OBJECT_"))
}

func Truncate(ctx context.Context, env *Env, st *pg.TruncateStmt) (*Result, error) {
	pl := env.Planner()
	var local []*storage.Table
	// Foreign tables are truncated remotely, all of one server (and user
	// mapping) in one command, as postgres_fdw does.
	type remoteGroup struct {
		server, key string
		rels        []remote.Relation
	}
	var groups []*remoteGroup
	for _, r := range st.Relations {
		t, err := pl.ResolveTable(r.GetRangeVar())
		if err != nil {
			return nil, err
		}
		for _, leaf := range t.Leaves() {
			if leaf.Kind != storage.KindForeign {
				local = append(local, leaf)
				continue
			}
			if err := pl.CheckTruncatable(leaf); err != nil {
				return nil, err
			}
			server, key, err := pl.ForeignServer(leaf)
			if err != nil {
				return nil, err
			}
			i := slices.IndexFunc(groups, func(g *remoteGroup) bool { return g.key == key })
			if i < 0 {
				groups = append(groups, &remoteGroup{server: server, key: key})
				i = len(groups) - 1
			}
			schema, name := leaf.RemoteName()
			groups[i].rels = append(groups[i].rels, remote.Relation{Schema: schema, Table: name})
		}
	}
	for _, g := range groups {
		conn, err := env.Remote.Conn(ctx, g.server, g.key, 0)
		if err != nil {
			return nil, err
		}
		sql := remote.TruncateSQL(g.rels, st.RestartSeqs, st.Behavior == pg.DropBehavior_DROP_CASCADE)
		if _, _, err := conn.Exec(ctx, sql); err != nil {
			return nil, err
		}
	}
	// The local tables empty when the transaction commits; rows other
	// sessions insert meanwhile wait for it (the write locks).
	if err := env.Writes.Lock(ctx, local, env.Settings.Duration("lock_timeout")); err != nil {
		return nil, err
	}
	for _, leaf := range local {
		env.Writes.Truncate(leaf)
	}
	return tag("TRUNCATE TABLE")
}
