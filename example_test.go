package pgfed_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/pgerr"
)

// The whole embedding: open an engine, query it, close it.
func Example() {
	db, _ := pgfed.Open()
	defer db.Close()
	rows, _ := db.Query(context.Background(), "SELECT 'hello, ' || 'world' AS greeting")
	defer rows.Close()

	for rows.Next() {
		greeting, _ := rows.Text(0)
		fmt.Println(greeting)
	}
	// Output:
	// hello, world
}

// Rows are read one at a time, scanned into Go values.
func ExampleRows_Scan() {
	ctx := context.Background()
	db, err := pgfed.Open()
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, `
		CREATE TABLE city (name text, population bigint, area real);
		INSERT INTO city VALUES ('Paris', 2102650, 105.4), ('Lyon', 522250, 47.87), ('Nice', 348085, 71.92)`); err != nil {
		log.Fatal(err)
	}

	rows, err := db.Query(ctx, "SELECT name, population, population / area AS density FROM city ORDER BY density DESC")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			name       string
			population int64
			density    float64
		)
		if err := rows.Scan(&name, &population, &density); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-5s %8d %6.0f/km²\n", name, population, density)
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(rows.Tag())
	// Output:
	// Paris  2102650  19949/km²
	// Lyon    522250  10910/km²
	// Nice    348085   4840/km²
	// SELECT 3
}

// Results can also be read as Arrow record batches, which hold the
// query's visible columns.
func ExampleRows_NextBatch() {
	ctx := context.Background()
	db, err := pgfed.Open()
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	rows, err := db.Query(ctx, "SELECT g AS n, g * g AS square FROM generate_series(1, 5) g ORDER BY g DESC")
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.NextBatch() {
		batch := rows.Batch() // valid until the next NextBatch or Close
		fmt.Println(batch.Schema().Field(0).Name, batch.Schema().Field(1).Name, batch.NumRows())
		squares := batch.Column(1).(*array.Int32)
		fmt.Println(squares.Int32Values())
	}
	if err := rows.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// n square 5
	// [25 16 9 4 1]
}

// EXPLAIN ANALYZE runs the query and shows the rows each plan node
// produced; without timings (and costs) its output is the same every time.
func ExampleSession_Query_explainAnalyze() {
	ctx := context.Background()
	db, err := pgfed.Open()
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	s := db.NewSession()
	defer s.Close()
	if _, err := s.Exec(ctx, `CREATE TABLE t (a int, b text);
		INSERT INTO t SELECT g, 'group ' || g % 3 FROM generate_series(1, 1000) g`); err != nil {
		log.Fatal(err)
	}

	rows, err := s.Query(ctx, `EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF, SUMMARY OFF)
		SELECT b, count(*) FROM t WHERE a > 10 GROUP BY b ORDER BY b`)
	if err != nil {
		log.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		line, _ := rows.Text(0)
		fmt.Println(line)
	}
	// Output:
	// Sort (actual rows=3 loops=1)
	//   Sort Key: b
	//   Sort Method: quicksort  Memory: 1kB
	//   ->  HashAggregate (actual rows=3 loops=1)
	//         Group Key: b
	//         Batches: 1  Memory Usage: 1kB
	//         ->  Seq Scan on t (actual rows=990 loops=1)
	//               Filter: (a > 10)
	//               Rows Removed by Filter: 10
}

// stdio is a CopyHandler: COPY FROM STDIN reads in, COPY TO STDOUT writes
// to out.
type stdio struct {
	in  io.Reader
	out io.Writer
}

func (s stdio) CopyIn() (io.Reader, error)  { return s.in, nil }
func (s stdio) CopyOut() (io.Writer, error) { return s.out, nil }

// COPY FROM STDIN and COPY TO STDOUT use the session's CopyHandler.
func ExampleSession_SetCopyHandler() {
	ctx := context.Background()
	db, err := pgfed.Open()
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	s := db.NewSession()
	defer s.Close()

	csv := "id,name\n1,\"Smith, Jane\"\n2,\n"
	s.SetCopyHandler(stdio{in: strings.NewReader(csv), out: os.Stdout})
	for _, sql := range []string{
		"CREATE TABLE people (id int, name text)",
		"COPY people FROM STDIN (FORMAT csv, HEADER)",
		"COPY people TO STDOUT",
	} {
		tag, err := s.Exec(ctx, sql)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(tag)
	}
	// Output:
	// CREATE TABLE
	// COPY 2
	// 1	Smith, Jane
	// 2	\N
	// COPY 2
}

// Errors carry PostgreSQL's SQLSTATE and, for errors in the statement
// text, the position of the error; notices go to a handler.
func ExampleSession_SetNoticeHandler() {
	ctx := context.Background()
	db, err := pgfed.Open()
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	s := db.NewSession()
	defer s.Close()
	s.SetNoticeHandler(func(n *pgfed.Notice) { fmt.Printf("%s:  %s\n", n.Severity, n.Message) })

	tag, err := s.Exec(ctx, "DROP TABLE IF EXISTS nosuch")
	fmt.Println(tag, err)
	_, err = s.Exec(ctx, "SELECT * FRM nosuch")
	if pe, ok := pgerr.As(err); ok {
		fmt.Printf("ERROR:  %s (SQLSTATE %s) at character %d\n", pe.Message, pe.Code, pe.Position)
	}
	// Output:
	// NOTICE:  table "nosuch" does not exist, skipping
	// DROP TABLE <nil>
	// ERROR:  syntax error at or near "FRM" (SQLSTATE 42601) at character 10
}
