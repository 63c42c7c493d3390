package executor

// BenchmarkScanFilter runs the lineitem filters of TPC-H Q1, Q6, Q12,
// Q14/Q20 and Q19 as a scan applies them (qual.apply: the filter, then
// the surviving rows taken) over 1M generated lineitem rows, in the shapes
// the planner hands the executor (numeric columns as text, char(n)
// blank-padded, date columns cast to timestamp against a timestamp
// constant, constant subexpressions unfolded).

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// Columns of lineitemBatches.
const (
	liQuantity = iota
	liExtendedPrice
	liDiscount
	liShipdate
	liCommitdate
	liReceiptdate
	liShipinstruct
	liShipmode
	liComment
)

func lineitemBatches(n int) []arrow.RecordBatch {
	r := rand.New(rand.NewSource(19))
	modes := []string{"AIR", "AIR REG", "FOB", "MAIL", "RAIL", "SHIP", "TRUCK"}
	instructs := []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	pad := func(s string, w int) string { return fmt.Sprintf("%-*s", w, s) }
	var out []arrow.RecordBatch
	for from := 0; from < n; from += DefaultBatchSize {
		m := min(DefaultBatchSize, n-from)
		strCols := make([]*array.StringBuilder, 9)
		dateCols := make([]*array.Date32Builder, 9)
		for c := range strCols {
			if c == liShipdate || c == liCommitdate || c == liReceiptdate {
				dateCols[c] = array.NewDate32Builder(memory.DefaultAllocator)
			} else {
				strCols[c] = array.NewStringBuilder(memory.DefaultAllocator)
			}
		}
		for i := 0; i < m; i++ {
			ship := int32(8036 + r.Intn(2526))
			strCols[liQuantity].Append(fmt.Sprintf("%d.00", 1+r.Intn(50)))
			strCols[liExtendedPrice].Append(fmt.Sprintf("%d.%02d", 900+r.Intn(104000), r.Intn(100)))
			strCols[liDiscount].Append(fmt.Sprintf("0.%02d", r.Intn(11)))
			dateCols[liShipdate].Append(arrow.Date32(ship))
			dateCols[liCommitdate].Append(arrow.Date32(ship - 30 + int32(r.Intn(60))))
			dateCols[liReceiptdate].Append(arrow.Date32(ship + 1 + int32(r.Intn(30))))
			strCols[liShipinstruct].Append(pad(instructs[r.Intn(len(instructs))], 25))
			strCols[liShipmode].Append(pad(modes[r.Intn(len(modes))], 10))
			strCols[liComment].Append(fmt.Sprintf("carefully final deposits %d", r.Intn(1000000)))
		}
		cols := make([]arrow.Array, 9)
		fields := make([]arrow.Field, 9)
		for c := range cols {
			if dateCols[c] != nil {
				cols[c] = dateCols[c].NewArray()
				dateCols[c].Release()
			} else {
				cols[c] = strCols[c].NewArray()
				strCols[c].Release()
			}
			fields[c] = arrow.Field{Name: fmt.Sprint("c", c), Type: cols[c].DataType()}
		}
		out = append(out, array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(m)))
		releaseAll(cols)
	}
	return out
}

func inList(arg nodes.Expr, not bool, list ...nodes.Expr) *nodes.InList {
	return &nodes.InList{Arg: arg, List: list, Not: not}
}

func and(args ...nodes.Expr) *nodes.BoolExpr { return &nodes.BoolExpr{Op: nodes.And, Args: args} }
func or(args ...nodes.Expr) *nodes.BoolExpr  { return &nodes.BoolExpr{Op: nodes.Or, Args: args} }

// lineitemFilters are the scan filters of lineitem in TPC-H's queries.
func lineitemFilters() map[string]nodes.Expr {
	num := func(i int) nodes.Expr { return col(i, types.NumericT) }
	date := func(i int) nodes.Expr { return col(i, types.DateT) }
	asNum := func(v int64) nodes.Expr { return &nodes.Cast{Arg: lit(v, types.Int4T), T: types.NumericT} }
	numC := func(s string) nodes.Expr {
		d, _ := types.NumericFromString(s)
		return lit(d, types.NumericT)
	}
	day := func(y, m, d int) int32 {
		v, err := types.Parse(types.DateT, fmt.Sprintf("%04d-%02d-%02d", y, m, d))
		if err != nil {
			panic(err)
		}
		return v.(int32)
	}
	dateC := func(y, m, d int) nodes.Expr { return lit(day(y, m, d), types.DateT) }
	// date 'y-m-d' + interval, unfolded: timestamp + interval.
	plus := func(y, m, d int, iv types.Interval) nodes.Expr {
		ts := &nodes.Cast{Arg: dateC(y, m, d), T: types.TimestampT}
		return op("+", ts, lit(iv, types.IntervalT), types.TimestampT)
	}
	asTS := func(e nodes.Expr) nodes.Expr { return &nodes.Cast{Arg: e, T: types.TimestampT} }
	char := func(s string, w int32) nodes.Expr { return lit(s, types.T{ID: types.Bpchar, Len: w}) }
	shipmode := col(liShipmode, types.T{ID: types.Bpchar, Len: 10})
	year := types.Interval{Months: 12}
	qty := func(lo int64) nodes.Expr {
		return and(cmpOp(">=", num(liQuantity), asNum(lo)),
			cmpOp("<=", num(liQuantity), &nodes.Cast{Arg: op("+", lit(lo, types.Int4T), lit(int64(10), types.Int4T), types.Int4T), T: types.NumericT}))
	}
	return map[string]nodes.Expr{
		"Q1": cmpOp("<=", asTS(date(liShipdate)), op("-", asTS(dateC(1998, 12, 1)), lit(types.Interval{Days: 90}, types.IntervalT), types.TimestampT)),
		"Q6": and(cmpOp(">=", date(liShipdate), dateC(1994, 1, 1)),
			cmpOp("<", asTS(date(liShipdate)), plus(1994, 1, 1, year)),
			cmpOp(">=", num(liDiscount), op("-", numC("0.06"), numC("0.01"), types.NumericT)),
			cmpOp("<=", num(liDiscount), op("+", numC("0.06"), numC("0.01"), types.NumericT)),
			cmpOp("<", num(liQuantity), asNum(24))),
		"Q12": and(inList(shipmode, false, char("MAIL      ", 10), char("SHIP      ", 10)),
			cmpOp("<", date(liCommitdate), date(liReceiptdate)),
			cmpOp("<", date(liShipdate), date(liCommitdate)),
			cmpOp(">=", date(liReceiptdate), dateC(1994, 1, 1)),
			cmpOp("<", asTS(date(liReceiptdate)), plus(1994, 1, 1, year))),
		"Q20": and(cmpOp(">=", date(liShipdate), dateC(1994, 1, 1)),
			cmpOp("<", asTS(date(liShipdate)), plus(1994, 1, 1, year))),
		"Q19": and(inList(shipmode, false, char("AIR       ", 10), char("AIR REG   ", 10)),
			cmpOp("=", col(liShipinstruct, types.T{ID: types.Bpchar, Len: 25}), char("DELIVER IN PERSON", -1)),
			or(qty(1), qty(10), qty(20))),
	}
}

func BenchmarkScanFilter(b *testing.B) {
	const rows = 1 << 20
	batches := lineitemBatches(rows)
	defer releaseBatches(batches)
	filters := lineitemFilters()
	for _, q := range []string{"Q1", "Q6", "Q12", "Q19", "Q20"} {
		b.Run(q, func(b *testing.B) {
			ec := &ExecContext{}
			defer ec.Release()
			qu, err := newQual(&nodes.PlanBase{Filter: filters[q]}, ec)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu0 := processCPU()
			kept := 0
			for b.Loop() {
				kept = 0
				for _, rb := range batches {
					rb.Retain()
					out, err := qu.apply(rb)
					if err != nil {
						b.Fatal(err)
					}
					if out != nil {
						kept += int(out.NumRows())
						out.Release()
					}
				}
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/rows, "cpu-ns/row")
			b.ReportMetric(float64(kept), "rows-kept")
		})
	}
}
