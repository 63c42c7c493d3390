// Command duckdb is the DuckDB side of pgfedbench -suite tpch: a child
// process that loads tables from PostgreSQL COPY text files into an
// in-memory DuckDB database and runs the queries it is sent, timing each.
// It lives in a Go module of its own (bench/duckdb/go.mod), so that the
// main module does not depend on DuckDB or its cgo library; the suite
// builds it with go build and talks to it over standard input and output,
// one JSON object a line each way:
//
//	{"op":"load","tables":[{"name":"nation","ddl":"CREATE TABLE ...","file":"/abs/nation.tbl"}]}
//	{"op":"query","sql":"SELECT ...","threads":2,"values":true,"timeout_ms":600000}
//	{"op":"quit"}
//
// A load replies with the DuckDB version and each table's rows and load
// time; a query with its time (from the query's start until its last row
// was read, measured here, so the pipe is not counted), its row count,
// its columns (name and DuckDB type) and, with "values", every value as
// text (null for NULL). An error replies {"error": "..."}.
package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"strconv"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

type table struct {
	Name string `json:"name"`
	DDL  string `json:"ddl"`
	File string `json:"file"`
}

type request struct {
	Op        string  `json:"op"`
	Tables    []table `json:"tables,omitempty"`
	SQL       string  `json:"sql,omitempty"`
	Threads   int     `json:"threads,omitempty"`
	Values    bool    `json:"values,omitempty"`
	TimeoutMS int64   `json:"timeout_ms,omitempty"`
}

type column struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

type loaded struct {
	Table string  `json:"table"`
	Rows  int64   `json:"rows"`
	MS    float64 `json:"ms"`
}

type reply struct {
	Error   string      `json:"error,omitempty"`
	Version string      `json:"version,omitempty"`
	Loaded  []loaded    `json:"loaded,omitempty"`
	MS      float64     `json:"ms"`
	Rows    int64       `json:"rows"`
	Columns []column    `json:"columns,omitempty"`
	Values  [][]*string `json:"values,omitempty"`
}

func main() {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		fmt.Fprintln(os.Stderr, "duckdb:", err)
		os.Exit(1)
	}
	defer db.Close()
	ctx := context.Background()
	// One connection, so that SET threads applies to the queries.
	conn, err := db.Conn(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "duckdb:", err)
		os.Exit(1)
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req request
		var rep reply
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			rep.Error = "bad request: " + err.Error()
		} else {
			switch req.Op {
			case "load":
				rep = load(ctx, conn, req.Tables)
			case "query":
				rep = query(ctx, conn, req)
			case "quit":
				return
			default:
				rep.Error = fmt.Sprintf("unknown op %q", req.Op)
			}
		}
		if err := out.Encode(&rep); err != nil {
			fmt.Fprintln(os.Stderr, "duckdb:", err)
			os.Exit(1)
		}
	}
}

func load(ctx context.Context, conn *sql.Conn, tables []table) reply {
	var rep reply
	if err := conn.QueryRowContext(ctx, "SELECT version()").Scan(&rep.Version); err != nil {
		rep.Error = err.Error()
		return rep
	}
	for _, t := range tables {
		start := time.Now()
		if _, err := conn.ExecContext(ctx, t.DDL); err != nil {
			rep.Error = fmt.Sprintf("%s: %v", t.Name, err)
			return rep
		}
		// PostgreSQL's COPY text of the generator: tab-separated, no
		// quoting or escapes in the data, \N for NULL (none occur).
		cp := fmt.Sprintf(`COPY %s FROM '%s' (FORMAT csv, DELIMITER '\t', HEADER false, QUOTE '', ESCAPE '', NULL '\N')`,
			t.Name, strings.ReplaceAll(t.File, "'", "''"))
		res, err := conn.ExecContext(ctx, cp)
		if err != nil {
			rep.Error = fmt.Sprintf("%s: %v", t.Name, err)
			return rep
		}
		n, _ := res.RowsAffected()
		rep.Loaded = append(rep.Loaded, loaded{Table: t.Name, Rows: n, MS: ms(time.Since(start))})
	}
	return rep
}

func query(ctx context.Context, conn *sql.Conn, req request) reply {
	var rep reply
	if req.Threads > 0 {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET threads = %d", req.Threads)); err != nil {
			rep.Error = err.Error()
			return rep
		}
	}
	if req.TimeoutMS > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(req.TimeoutMS)*time.Millisecond)
		defer cancel()
	}
	start := time.Now()
	rows, err := conn.QueryContext(ctx, req.SQL)
	if err != nil {
		rep.Error = err.Error()
		return rep
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		rep.Error = err.Error()
		return rep
	}
	vals := make([]any, len(types))
	ptrs := make([]any, len(types))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			rep.Error = err.Error()
			return rep
		}
		rep.Rows++
		if req.Values {
			row := make([]*string, len(vals))
			for i, v := range vals {
				row[i] = text(v)
			}
			rep.Values = append(rep.Values, row)
		}
	}
	if err := rows.Err(); err != nil {
		rep.Error = err.Error()
		return rep
	}
	rep.MS = ms(time.Since(start))
	for _, t := range types {
		rep.Columns = append(rep.Columns, column{Name: t.Name(), Type: t.DatabaseTypeName()})
	}
	return rep
}

// text formats a value as PostgreSQL would print the same value: dates
// as YYYY-MM-DD, decimals with their scale, floats in the shortest form
// that reads back the same.
func text(v any) *string {
	var s string
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		s = x
	case []byte:
		s = string(x)
	case bool:
		s = "f"
		if x {
			s = "t"
		}
	case int8, int16, int32, int64, uint8, uint16, uint32, uint64, int, uint:
		s = fmt.Sprint(x)
	case *big.Int:
		s = x.String()
	case float32:
		s = strconv.FormatFloat(float64(x), 'g', -1, 32)
	case float64:
		s = strconv.FormatFloat(x, 'g', -1, 64)
	case duckdb.Decimal:
		s = decimalText(x)
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			s = x.Format(time.DateOnly)
		} else {
			s = x.Format("2006-01-02 15:04:05.999999")
		}
	default:
		s = fmt.Sprint(x)
	}
	return &s
}

// decimalText prints a DuckDB decimal with exactly its scale's digits.
func decimalText(d duckdb.Decimal) string {
	digits := new(big.Int).Abs(d.Value).String()
	neg := d.Value.Sign() < 0
	scale := int(d.Scale)
	if scale > 0 {
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if neg {
		digits = "-" + digits
	}
	return digits
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
