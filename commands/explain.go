package commands

// EXPLAIN [ANALYZE] with PostgreSQL's options (ANALYZE, VERBOSE, COSTS,
// TIMING, SUMMARY, FORMAT TEXT | JSON; BUFFERS, WAL and SETTINGS are
// accepted and show nothing) and its defaults (SUMMARY follows ANALYZE).

import (
	"context"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	pg "github.com/pganalyze/pg_query_go/v6"
	"github.com/pgfed/pgfed/instrument"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// explainOptions reads EXPLAIN's option list.
func explainOptions(defs []*pg.Node) (instrument.ExplainOptions, error) {
	o := instrument.ExplainOptions{Costs: true, Timing: true, Format: "text"}
	summarySet := false
	for _, n := range defs {
		d := n.GetDefElem()
		if d.Defname == "format" {
			f := strings.ToLower(defString(d))
			if f != "text" && f != "json" {
				return o, pgerr.New(pgerr.FeatureNotSupported, "EXPLAIN format %q is not supported", f)
			}
			o.Format = f
			continue
		}
		val, err := defBool(d)
		if err != nil {
			return o, pgerr.New(pgerr.InvalidParameterValue, "%s requires a Boolean value", strings.ToUpper(d.Defname))
		}
		switch d.Defname {
		case "analyze":
			o.Analyze = val
		case "verbose":
			o.Verbose = val
		case "costs":
			o.Costs = val
		case "timing":
			o.Timing = val
		case "summary":
			o.Summary, summarySet = val, true
		case "buffers", "wal", "settings":
		default:
			return o, pgerr.New(pgerr.SyntaxError, "unrecognized EXPLAIN option %q", d.Defname)
		}
	}
	if !summarySet {
		o.Summary = o.Analyze
	}
	return o, nil
}

// Explain plans the statement and prints its plan; with ANALYZE it runs
// it first (its writes are the statement's, as in PostgreSQL).
func Explain(ctx context.Context, env *Env, st *pg.ExplainStmt) (*Result, error) {
	o, err := explainOptions(st.Options)
	if err != nil {
		return nil, err
	}
	switch st.Query.Node.(type) {
	case *pg.Node_SelectStmt, *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt:
	case *pg.Node_CreateTableAsStmt:
		return nil, pgerr.NotSupported("EXPLAIN of CREATE TABLE AS")
	default:
		return nil, pgerr.NotSupported("EXPLAIN of this statement")
	}
	planStart := time.Now()
	q, err := env.Planner().Plan(st.Query)
	if err != nil {
		return nil, err
	}
	o.PlanningTime = time.Since(planStart)
	var stats *instrument.Stats
	if o.Analyze {
		stats = instrument.NewStats(q.NumNodes, o.Timing)
		execStart := time.Now()
		if err := env.Run(ctx, q, stats, func(arrow.RecordBatch) error { return nil }); err != nil {
			return nil, err
		}
		o.ExecutionTime = time.Since(execStart)
	}
	lines := instrument.Explain(q.Plan, stats, o)
	rows := make([][]any, len(lines))
	for i, l := range lines {
		rows[i] = []any{l}
	}
	return &Result{Tag: "EXPLAIN", Columns: []nodes.Field{{Name: "QUERY PLAN", T: types.TextT}}, Rows: rows}, nil
}
