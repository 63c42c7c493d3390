package main

import (
	"fmt"
	"strings"
)

// workload is one query of the benchmark table.
type workload struct {
	name  string // what -only matches
	title string // the table's first column
	sql   string
	// target is the PostgreSQL/pgfed time ratio the milestone asks for.
	target float64
	// ordered says the row order is part of the answer (ORDER BY), so the
	// answer check must not ignore it.
	ordered bool
	// rowPath adds the row-at-a-time readers (pgfed rows.Values, pgx
	// rows.Scan): worth measuring only where many rows come back.
	rowPath bool
	// partitioned says the query reads p, so p must be loaded.
	partitioned bool
}

// loopName is the -only name of the Go loop baselines.
const loopName = "loop"

// loopTarget is how many times the Go loop's time pgfed's sum may take.
const loopTarget = 3

var workloads = []workload{
	{name: "sum", title: "1 sum(b)", sql: "SELECT sum(b) FROM t", target: 5},
	{name: "filter", title: "2 filter b % 10 = 0", sql: "SELECT a, b FROM t WHERE b % 10 = 0", target: 2, rowPath: true},
	{name: "groupby", title: "3 group by a", sql: "SELECT a, count(*), sum(b) FROM t GROUP BY a", target: 5},
	{name: "topn", title: "4 order by b desc limit 100", sql: "SELECT a, b FROM t ORDER BY b DESC LIMIT 100", target: 5, ordered: true},
	{name: "partsum", title: "5 sum(b) over 4 partitions", sql: "SELECT sum(b) FROM p", target: 5, partitioned: true},
}

// dataset describes the rows of t and p: row i, for i in [0, n), has
// a = i % 1000, a GROUP BY key with 1,000 values, and b = i*k mod n. With k
// coprime to n that is a permutation of [0, n): b stays unique, exactly a
// tenth of the rows have b % 10 = 0, each range partition gets a quarter of
// them, and sum(b) is n(n-1)/2, while the order of b looks random. k = 1 is
// b = i, rows in ascending b: the worst case for ORDER BY b DESC LIMIT,
// where every row displaces one in the top-N heap.
type dataset struct {
	n int
	k int64
}

func newDataset(n int, sequential bool) dataset {
	if sequential {
		return dataset{n: n, k: 1}
	}
	// k near n/φ spreads consecutive rows far apart (Fibonacci hashing);
	// the first k from there that is coprime to n makes i*k mod n a
	// permutation.
	k := int64(float64(n) * 0.6180339887498949)
	for gcd(k, int64(n)) != 1 {
		k++
	}
	return dataset{n: n, k: k}
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// b returns row i's b, as the SQL of bSQL computes it.
func (d dataset) b(i int) int64 { return int64(i) * d.k % int64(d.n) }

// bSQL is b as SQL over generate_series' g. The product is computed in
// bigint (below 2^62 as both factors are below 2^31) and the result, below
// n, cast back to integer.
func (d dataset) bSQL() string {
	if d.k == 1 {
		return "g"
	}
	return fmt.Sprintf("(g::bigint * %d %% %d)::integer", d.k, d.n)
}

// describe says how b was made, for the report.
func (d dataset) describe() string {
	if d.k == 1 {
		return "a = i % 1000, b = i (ascending)"
	}
	return fmt.Sprintf("a = i %% 1000, b = i * %d %% %d (a permutation of i)", d.k, d.n)
}

// insertSQL fills table with the dataset's rows. Both columns are integer
// in both engines: generate_series over integers yields integer, and so
// does integer % integer.
func (d dataset) insertSQL(table string) string {
	return fmt.Sprintf("INSERT INTO %s SELECT g %% 1000, %s FROM generate_series(0, %d) AS g", table, d.bSQL(), d.n-1)
}

// tableSQL returns the statements that create and fill t.
func (d dataset) tableSQL() []string {
	return []string{"CREATE TABLE t (a integer, b integer)", d.insertSQL("t")}
}

// partitionedSQL returns the statements that create and fill p, holding
// the same rows as t, range-partitioned on b into four partitions of
// (nearly, when n is not a multiple of 4) equal size, so that a scan of p
// is an Append of four scans.
func (d dataset) partitionedSQL() []string {
	stmts := []string{"CREATE TABLE p (a integer, b integer) PARTITION BY RANGE (b)"}
	for i := range 4 {
		stmts = append(stmts, fmt.Sprintf("CREATE TABLE p%d PARTITION OF p FOR VALUES FROM (%d) TO (%d)",
			i+1, i*d.n/4, (i+1)*d.n/4))
	}
	return append(stmts, d.insertSQL("p"))
}

// selected returns the workloads -only picks, and whether it picks the Go
// loop baselines.
func selected(opts options) (ws []workload, loop bool) {
	for _, w := range workloads {
		if opts.only.MatchString(w.name) {
			ws = append(ws, w)
		}
	}
	return ws, opts.only.MatchString(loopName)
}

// workloadNames lists every name -only can match, for the error when it
// matches none.
func workloadNames() string {
	names := make([]string, 0, len(workloads)+1)
	for _, w := range workloads {
		names = append(names, w.name)
	}
	return strings.Join(append(names, loopName), ", ")
}
