package tpch

import (
	"fmt"
	"strconv"
	"strings"
)

// Query is one of TPC-H's 22 queries with the specification's default
// substitution parameters (the values of each query's validation clause),
// in PostgreSQL's SQL. The row limits the specification puts on Q2, Q3,
// Q10, Q18 and Q21 are LIMIT clauses; Q15's view is a WITH query.
type Query struct {
	Num    int
	Name   string // "Q1" ... "Q22"
	Title  string
	Params string // the substitution parameters used
	SQL    string
	// Ordered says the query has ORDER BY over its whole result, so the
	// row order is part of the answer.
	Ordered bool
}

// Queries returns the 22 queries for scale factor sf (only Q11's
// FRACTION, 0.0001 / SF, depends on it).
func Queries(sf float64) []Query {
	qs := make([]Query, len(queryTexts))
	for i, q := range queryTexts {
		q.Num = i + 1
		q.Name = "Q" + strconv.Itoa(i+1)
		q.SQL = strings.TrimSpace(q.SQL)
		if q.Num == 11 {
			fraction := strconv.FormatFloat(0.0001/sf, 'f', 10, 64)
			q.SQL = strings.ReplaceAll(q.SQL, "{FRACTION}", fraction)
			q.Params = strings.ReplaceAll(q.Params, "{FRACTION}", fraction)
		}
		qs[i] = q
	}
	return qs
}

// ParseQueryList parses a list of query names such as "Q1,q6, 17": the
// numbers in the order given, without repeats.
func ParseQueryList(list string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
		s := strings.TrimPrefix(strings.ToUpper(f), "Q")
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > len(queryTexts) {
			return nil, fmt.Errorf("%q is not a TPC-H query (Q1 ... Q%d)", f, len(queryTexts))
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out, nil
}

var queryTexts = []Query{
	// Q1: pricing summary report. DELTA = 90.
	{Title: "Pricing Summary Report", Params: "DELTA = 90", Ordered: true, SQL: `
SELECT l_returnflag, l_linestatus,
       sum(l_quantity) AS sum_qty,
       sum(l_extendedprice) AS sum_base_price,
       sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
       avg(l_quantity) AS avg_qty,
       avg(l_extendedprice) AS avg_price,
       avg(l_discount) AS avg_disc,
       count(*) AS count_order
FROM lineitem
WHERE l_shipdate <= date '1998-12-01' - interval '90' day
GROUP BY l_returnflag, l_linestatus
ORDER BY l_returnflag, l_linestatus`},

	// Q2: minimum cost supplier. A correlated scalar subquery. SIZE = 15,
	// TYPE = BRASS, REGION = EUROPE; 100 rows.
	{Title: "Minimum Cost Supplier", Params: "SIZE = 15, TYPE = BRASS, REGION = EUROPE", Ordered: true, SQL: `
SELECT s_acctbal, s_name, n_name, p_partkey, p_mfgr, s_address, s_phone, s_comment
FROM part, supplier, partsupp, nation, region
WHERE p_partkey = ps_partkey
  AND s_suppkey = ps_suppkey
  AND p_size = 15
  AND p_type LIKE '%BRASS'
  AND s_nationkey = n_nationkey
  AND n_regionkey = r_regionkey
  AND r_name = 'EUROPE'
  AND ps_supplycost = (
        SELECT min(ps_supplycost)
        FROM partsupp, supplier, nation, region
        WHERE p_partkey = ps_partkey
          AND s_suppkey = ps_suppkey
          AND s_nationkey = n_nationkey
          AND n_regionkey = r_regionkey
          AND r_name = 'EUROPE')
ORDER BY s_acctbal DESC, n_name, s_name, p_partkey
LIMIT 100`},

	// Q3: shipping priority. SEGMENT = BUILDING, DATE = 1995-03-15; 10 rows.
	{Title: "Shipping Priority", Params: "SEGMENT = BUILDING, DATE = 1995-03-15", Ordered: true, SQL: `
SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority
FROM customer, orders, lineitem
WHERE c_mktsegment = 'BUILDING'
  AND c_custkey = o_custkey
  AND l_orderkey = o_orderkey
  AND o_orderdate < date '1995-03-15'
  AND l_shipdate > date '1995-03-15'
GROUP BY l_orderkey, o_orderdate, o_shippriority
ORDER BY revenue DESC, o_orderdate
LIMIT 10`},

	// Q4: order priority checking. EXISTS: a semi join. DATE = 1993-07-01.
	{Title: "Order Priority Checking", Params: "DATE = 1993-07-01", Ordered: true, SQL: `
SELECT o_orderpriority, count(*) AS order_count
FROM orders
WHERE o_orderdate >= date '1993-07-01'
  AND o_orderdate < date '1993-07-01' + interval '3' month
  AND EXISTS (SELECT * FROM lineitem WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)
GROUP BY o_orderpriority
ORDER BY o_orderpriority`},

	// Q5: local supplier volume. REGION = ASIA, DATE = 1994-01-01.
	{Title: "Local Supplier Volume", Params: "REGION = ASIA, DATE = 1994-01-01", Ordered: true, SQL: `
SELECT n_name, sum(l_extendedprice * (1 - l_discount)) AS revenue
FROM customer, orders, lineitem, supplier, nation, region
WHERE c_custkey = o_custkey
  AND l_orderkey = o_orderkey
  AND l_suppkey = s_suppkey
  AND c_nationkey = s_nationkey
  AND s_nationkey = n_nationkey
  AND n_regionkey = r_regionkey
  AND r_name = 'ASIA'
  AND o_orderdate >= date '1994-01-01'
  AND o_orderdate < date '1994-01-01' + interval '1' year
GROUP BY n_name
ORDER BY revenue DESC`},

	// Q6: forecasting revenue change. DATE = 1994-01-01, DISCOUNT = 0.06,
	// QUANTITY = 24.
	{Title: "Forecasting Revenue Change", Params: "DATE = 1994-01-01, DISCOUNT = 0.06, QUANTITY = 24", SQL: `
SELECT sum(l_extendedprice * l_discount) AS revenue
FROM lineitem
WHERE l_shipdate >= date '1994-01-01'
  AND l_shipdate < date '1994-01-01' + interval '1' year
  AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01
  AND l_quantity < 24`},

	// Q7: volume shipping. NATION1 = FRANCE, NATION2 = GERMANY.
	{Title: "Volume Shipping", Params: "NATION1 = FRANCE, NATION2 = GERMANY", Ordered: true, SQL: `
SELECT supp_nation, cust_nation, l_year, sum(volume) AS revenue
FROM (
  SELECT n1.n_name AS supp_nation, n2.n_name AS cust_nation,
         extract(year FROM l_shipdate) AS l_year,
         l_extendedprice * (1 - l_discount) AS volume
  FROM supplier, lineitem, orders, customer, nation n1, nation n2
  WHERE s_suppkey = l_suppkey
    AND o_orderkey = l_orderkey
    AND c_custkey = o_custkey
    AND s_nationkey = n1.n_nationkey
    AND c_nationkey = n2.n_nationkey
    AND ((n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY')
      OR (n1.n_name = 'GERMANY' AND n2.n_name = 'FRANCE'))
    AND l_shipdate BETWEEN date '1995-01-01' AND date '1996-12-31'
) AS shipping
GROUP BY supp_nation, cust_nation, l_year
ORDER BY supp_nation, cust_nation, l_year`},

	// Q8: national market share. NATION = BRAZIL, REGION = AMERICA,
	// TYPE = ECONOMY ANODIZED STEEL. Eight relations.
	{Title: "National Market Share", Params: "NATION = BRAZIL, REGION = AMERICA, TYPE = ECONOMY ANODIZED STEEL", Ordered: true, SQL: `
SELECT o_year, sum(CASE WHEN nation = 'BRAZIL' THEN volume ELSE 0 END) / sum(volume) AS mkt_share
FROM (
  SELECT extract(year FROM o_orderdate) AS o_year,
         l_extendedprice * (1 - l_discount) AS volume,
         n2.n_name AS nation
  FROM part, supplier, lineitem, orders, customer, nation n1, nation n2, region
  WHERE p_partkey = l_partkey
    AND s_suppkey = l_suppkey
    AND l_orderkey = o_orderkey
    AND o_custkey = c_custkey
    AND c_nationkey = n1.n_nationkey
    AND n1.n_regionkey = r_regionkey
    AND r_name = 'AMERICA'
    AND s_nationkey = n2.n_nationkey
    AND o_orderdate BETWEEN date '1995-01-01' AND date '1996-12-31'
    AND p_type = 'ECONOMY ANODIZED STEEL'
) AS all_nations
GROUP BY o_year
ORDER BY o_year`},

	// Q9: product type profit measure. COLOR = green.
	{Title: "Product Type Profit Measure", Params: "COLOR = green", Ordered: true, SQL: `
SELECT nation, o_year, sum(amount) AS sum_profit
FROM (
  SELECT n_name AS nation,
         extract(year FROM o_orderdate) AS o_year,
         l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity AS amount
  FROM part, supplier, lineitem, partsupp, orders, nation
  WHERE s_suppkey = l_suppkey
    AND ps_suppkey = l_suppkey
    AND ps_partkey = l_partkey
    AND p_partkey = l_partkey
    AND o_orderkey = l_orderkey
    AND s_nationkey = n_nationkey
    AND p_name LIKE '%green%'
) AS profit
GROUP BY nation, o_year
ORDER BY nation, o_year DESC`},

	// Q10: returned item reporting. DATE = 1993-10-01; 20 rows.
	{Title: "Returned Item Reporting", Params: "DATE = 1993-10-01", Ordered: true, SQL: `
SELECT c_custkey, c_name, sum(l_extendedprice * (1 - l_discount)) AS revenue,
       c_acctbal, n_name, c_address, c_phone, c_comment
FROM customer, orders, lineitem, nation
WHERE c_custkey = o_custkey
  AND l_orderkey = o_orderkey
  AND o_orderdate >= date '1993-10-01'
  AND o_orderdate < date '1993-10-01' + interval '3' month
  AND l_returnflag = 'R'
  AND c_nationkey = n_nationkey
GROUP BY c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment
ORDER BY revenue DESC
LIMIT 20`},

	// Q11: important stock identification. An uncorrelated scalar
	// subquery in HAVING. NATION = GERMANY, FRACTION = 0.0001 / SF.
	{Title: "Important Stock Identification", Params: "NATION = GERMANY, FRACTION = {FRACTION}", Ordered: true, SQL: `
SELECT ps_partkey, sum(ps_supplycost * ps_availqty) AS value
FROM partsupp, supplier, nation
WHERE ps_suppkey = s_suppkey
  AND s_nationkey = n_nationkey
  AND n_name = 'GERMANY'
GROUP BY ps_partkey
HAVING sum(ps_supplycost * ps_availqty) > (
         SELECT sum(ps_supplycost * ps_availqty) * {FRACTION}
         FROM partsupp, supplier, nation
         WHERE ps_suppkey = s_suppkey
           AND s_nationkey = n_nationkey
           AND n_name = 'GERMANY')
ORDER BY value DESC`},

	// Q12: shipping modes and order priority. SHIPMODE1 = MAIL,
	// SHIPMODE2 = SHIP, DATE = 1994-01-01.
	{Title: "Shipping Modes and Order Priority", Params: "SHIPMODE1 = MAIL, SHIPMODE2 = SHIP, DATE = 1994-01-01", Ordered: true, SQL: `
SELECT l_shipmode,
       sum(CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH' THEN 1 ELSE 0 END) AS high_line_count,
       sum(CASE WHEN o_orderpriority <> '1-URGENT' AND o_orderpriority <> '2-HIGH' THEN 1 ELSE 0 END) AS low_line_count
FROM orders, lineitem
WHERE o_orderkey = l_orderkey
  AND l_shipmode IN ('MAIL', 'SHIP')
  AND l_commitdate < l_receiptdate
  AND l_shipdate < l_commitdate
  AND l_receiptdate >= date '1994-01-01'
  AND l_receiptdate < date '1994-01-01' + interval '1' year
GROUP BY l_shipmode
ORDER BY l_shipmode`},

	// Q13: customer distribution. A left outer join. WORD1 = special,
	// WORD2 = requests.
	{Title: "Customer Distribution", Params: "WORD1 = special, WORD2 = requests", Ordered: true, SQL: `
SELECT c_count, count(*) AS custdist
FROM (
  SELECT c_custkey, count(o_orderkey)
  FROM customer LEFT OUTER JOIN orders
    ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%'
  GROUP BY c_custkey
) AS c_orders (c_custkey, c_count)
GROUP BY c_count
ORDER BY custdist DESC, c_count DESC`},

	// Q14: promotion effect. DATE = 1995-09-01.
	{Title: "Promotion Effect", Params: "DATE = 1995-09-01", SQL: `
SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
       / sum(l_extendedprice * (1 - l_discount)) AS promo_revenue
FROM lineitem, part
WHERE l_partkey = p_partkey
  AND l_shipdate >= date '1995-09-01'
  AND l_shipdate < date '1995-09-01' + interval '1' month`},

	// Q15: top supplier. The specification's view revenue0 as a WITH
	// query, referenced twice. DATE = 1996-01-01.
	{Title: "Top Supplier", Params: "DATE = 1996-01-01", Ordered: true, SQL: `
WITH revenue0 (supplier_no, total_revenue) AS (
  SELECT l_suppkey, sum(l_extendedprice * (1 - l_discount))
  FROM lineitem
  WHERE l_shipdate >= date '1996-01-01'
    AND l_shipdate < date '1996-01-01' + interval '3' month
  GROUP BY l_suppkey
)
SELECT s_suppkey, s_name, s_address, s_phone, total_revenue
FROM supplier, revenue0
WHERE s_suppkey = supplier_no
  AND total_revenue = (SELECT max(total_revenue) FROM revenue0)
ORDER BY s_suppkey`},

	// Q16: parts/supplier relationship. NOT IN (SELECT ...). BRAND =
	// Brand#45, TYPE = MEDIUM POLISHED, SIZE1..8 = 49, 14, 23, 45, 19, 3,
	// 36, 9.
	{Title: "Parts/Supplier Relationship", Params: "BRAND = Brand#45, TYPE = MEDIUM POLISHED, SIZES = 49, 14, 23, 45, 19, 3, 36, 9", Ordered: true, SQL: `
SELECT p_brand, p_type, p_size, count(DISTINCT ps_suppkey) AS supplier_cnt
FROM partsupp, part
WHERE p_partkey = ps_partkey
  AND p_brand <> 'Brand#45'
  AND p_type NOT LIKE 'MEDIUM POLISHED%'
  AND p_size IN (49, 14, 23, 45, 19, 3, 36, 9)
  AND ps_suppkey NOT IN (SELECT s_suppkey FROM supplier WHERE s_comment LIKE '%Customer%Complaints%')
GROUP BY p_brand, p_type, p_size
ORDER BY supplier_cnt DESC, p_brand, p_type, p_size`},

	// Q17: small-quantity-order revenue. A correlated scalar subquery.
	// BRAND = Brand#23, CONTAINER = MED BOX.
	{Title: "Small-Quantity-Order Revenue", Params: "BRAND = Brand#23, CONTAINER = MED BOX", SQL: `
SELECT sum(l_extendedprice) / 7.0 AS avg_yearly
FROM lineitem, part
WHERE p_partkey = l_partkey
  AND p_brand = 'Brand#23'
  AND p_container = 'MED BOX'
  AND l_quantity < (SELECT 0.2 * avg(l_quantity) FROM lineitem WHERE l_partkey = p_partkey)`},

	// Q18: large volume customer. IN (SELECT ... GROUP BY ... HAVING).
	// QUANTITY = 300; 100 rows.
	{Title: "Large Volume Customer", Params: "QUANTITY = 300", Ordered: true, SQL: `
SELECT c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity)
FROM customer, orders, lineitem
WHERE o_orderkey IN (SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING sum(l_quantity) > 300)
  AND c_custkey = o_custkey
  AND o_orderkey = l_orderkey
GROUP BY c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
ORDER BY o_totalprice DESC, o_orderdate
LIMIT 100`},

	// Q19: discounted revenue. The join condition repeated in each arm of
	// an OR. QUANTITY1..3 = 1, 10, 20, BRAND1..3 = Brand#12, Brand#23,
	// Brand#34. 'AIR REG' is the specification's text (no row has it).
	{Title: "Discounted Revenue", Params: "QUANTITY1 = 1, QUANTITY2 = 10, QUANTITY3 = 20, BRAND1 = Brand#12, BRAND2 = Brand#23, BRAND3 = Brand#34", SQL: `
SELECT sum(l_extendedprice * (1 - l_discount)) AS revenue
FROM lineitem, part
WHERE (p_partkey = l_partkey
       AND p_brand = 'Brand#12'
       AND p_container IN ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
       AND l_quantity >= 1 AND l_quantity <= 1 + 10
       AND p_size BETWEEN 1 AND 5
       AND l_shipmode IN ('AIR', 'AIR REG')
       AND l_shipinstruct = 'DELIVER IN PERSON')
   OR (p_partkey = l_partkey
       AND p_brand = 'Brand#23'
       AND p_container IN ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
       AND l_quantity >= 10 AND l_quantity <= 10 + 10
       AND p_size BETWEEN 1 AND 10
       AND l_shipmode IN ('AIR', 'AIR REG')
       AND l_shipinstruct = 'DELIVER IN PERSON')
   OR (p_partkey = l_partkey
       AND p_brand = 'Brand#34'
       AND p_container IN ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG')
       AND l_quantity >= 20 AND l_quantity <= 20 + 10
       AND p_size BETWEEN 1 AND 15
       AND l_shipmode IN ('AIR', 'AIR REG')
       AND l_shipinstruct = 'DELIVER IN PERSON')`},

	// Q20: potential part promotion. Nested IN subqueries, the inner one
	// with a correlated scalar subquery. COLOR = forest, DATE =
	// 1994-01-01, NATION = CANADA.
	{Title: "Potential Part Promotion", Params: "COLOR = forest, DATE = 1994-01-01, NATION = CANADA", Ordered: true, SQL: `
SELECT s_name, s_address
FROM supplier, nation
WHERE s_suppkey IN (
        SELECT ps_suppkey
        FROM partsupp
        WHERE ps_partkey IN (SELECT p_partkey FROM part WHERE p_name LIKE 'forest%')
          AND ps_availqty > (
                SELECT 0.5 * sum(l_quantity)
                FROM lineitem
                WHERE l_partkey = ps_partkey
                  AND l_suppkey = ps_suppkey
                  AND l_shipdate >= date '1994-01-01'
                  AND l_shipdate < date '1994-01-01' + interval '1' year))
  AND s_nationkey = n_nationkey
  AND n_name = 'CANADA'
ORDER BY s_name`},

	// Q21: suppliers who kept orders waiting. EXISTS and NOT EXISTS with
	// a non-equality: semi and anti joins with residual conditions.
	// NATION = SAUDI ARABIA; 100 rows.
	{Title: "Suppliers Who Kept Orders Waiting", Params: "NATION = SAUDI ARABIA", Ordered: true, SQL: `
SELECT s_name, count(*) AS numwait
FROM supplier, lineitem l1, orders, nation
WHERE s_suppkey = l1.l_suppkey
  AND o_orderkey = l1.l_orderkey
  AND o_orderstatus = 'F'
  AND l1.l_receiptdate > l1.l_commitdate
  AND EXISTS (SELECT * FROM lineitem l2
              WHERE l2.l_orderkey = l1.l_orderkey AND l2.l_suppkey <> l1.l_suppkey)
  AND NOT EXISTS (SELECT * FROM lineitem l3
                  WHERE l3.l_orderkey = l1.l_orderkey AND l3.l_suppkey <> l1.l_suppkey
                    AND l3.l_receiptdate > l3.l_commitdate)
  AND s_nationkey = n_nationkey
  AND n_name = 'SAUDI ARABIA'
GROUP BY s_name
ORDER BY numwait DESC, s_name
LIMIT 100`},

	// Q22: global sales opportunity. An uncorrelated scalar subquery and
	// NOT EXISTS. I1..I7 = 13, 31, 23, 29, 30, 18, 17.
	{Title: "Global Sales Opportunity", Params: "I1..I7 = 13, 31, 23, 29, 30, 18, 17", Ordered: true, SQL: `
SELECT cntrycode, count(*) AS numcust, sum(c_acctbal) AS totacctbal
FROM (
  SELECT substring(c_phone FROM 1 FOR 2) AS cntrycode, c_acctbal
  FROM customer
  WHERE substring(c_phone FROM 1 FOR 2) IN ('13', '31', '23', '29', '30', '18', '17')
    AND c_acctbal > (
          SELECT avg(c_acctbal)
          FROM customer
          WHERE c_acctbal > 0.00
            AND substring(c_phone FROM 1 FOR 2) IN ('13', '31', '23', '29', '30', '18', '17'))
    AND NOT EXISTS (SELECT * FROM orders WHERE o_custkey = c_custkey)
) AS custsale
GROUP BY cntrycode
ORDER BY cntrycode`},
}
