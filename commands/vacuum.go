package commands

// VACUUM and ANALYZE (PostgreSQL's commands/vacuum.c and analyze.c).
//
// ANALYZE computes the planner's column statistics of the tables named
// (every local table of the search path's schemas when none is) now,
// instead of at the first query that plans with them after a write
// (storage/stats.go); a partitioned table's are its partitions'. pgfed
// keeps no statistics of foreign tables: the planner estimates them from
// the rows their servers report, so ANALYZE of one is an error.
//
// VACUUM has nothing to reclaim: a table's old versions are freed as
// soon as no snapshot reads them (storage/mvcc.go). It checks that the
// tables exist and, with ANALYZE, analyzes them. As PostgreSQL's, it
// cannot run inside a transaction block (the engine checks).

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
)

// Vacuum runs a VACUUM or ANALYZE statement.
func Vacuum(env *Env, st *pg.VacuumStmt) (*Result, error) {
	tag := "VACUUM"
	analyze := !st.IsVacuumcmd
	if analyze {
		tag = "ANALYZE"
	}
	for _, o := range st.Options {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		switch strings.ToLower(d.Defname) {
		case "analyze":
			on, err := defBool(d)
			if err != nil {
				return nil, err
			}
			analyze = analyze || on
		case "verbose", "skip_locked", "full", "freeze", "disable_page_skipping", "index_cleanup",
			"process_toast", "process_main", "truncate", "parallel", "skip_database_stats", "only_database_stats":
			// Options of work pgfed does not do (or does on its own).
		default:
			return nil, pgerr.New(pgerr.SyntaxError, "unrecognized %s option \"%s\"", tag, d.Defname)
		}
	}
	tables, err := vacuumTables(env, st, analyze)
	if err != nil {
		return nil, err
	}
	if analyze {
		for _, t := range tables {
			t.Analyze()
		}
	}
	return &Result{Tag: tag}, nil
}

// vacuumTables resolves the statement's tables to the local tables whose
// rows they hold.
func vacuumTables(env *Env, st *pg.VacuumStmt, analyze bool) ([]*storage.Table, error) {
	pl := env.Planner()
	if len(st.Rels) == 0 {
		var out []*storage.Table
		for _, t := range env.Catalog.Tables(pl.RelationSearchPath()) {
			if t.Kind == storage.KindTable {
				out = append(out, t)
			}
		}
		return out, nil
	}
	var out []*storage.Table
	for _, r := range st.Rels {
		rel := r.GetVacuumRelation()
		if rel == nil || rel.Relation == nil {
			continue
		}
		t, err := pl.ResolveTable(rel.Relation)
		if err != nil {
			return nil, err
		}
		for _, leaf := range t.Leaves() {
			if leaf.Kind == storage.KindForeign {
				if analyze {
					return nil, pgerr.New(pgerr.FeatureNotSupported, "pgfed keeps no statistics of foreign table \"%s\"", leaf.Name)
				}
				continue
			}
			out = append(out, leaf)
		}
	}
	return out, nil
}
