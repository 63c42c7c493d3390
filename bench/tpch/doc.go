// Package tpch generates TPC-H data and holds TPC-H's 22 queries, for
// pgfedbench -suite tpch.
//
// The generator follows dbgen's rules (the specification's clause 4.2)
// for the eight tables at a scale factor SF from 0.01 to 300:
//
//   - Cardinalities: region 5, nation 25 (the fixed tables, with their
//     names and region keys), supplier SF*10,000, part SF*200,000,
//     partsupp 4 per part, customer SF*150,000, orders SF*1,500,000,
//     lineitem 1 to 7 per order (uniform: about SF*6,000,000).
//   - Keys: dense keys from 1, but dbgen's sparse orderkeys (the first 8
//     of every 32: for the i-th order, (i>>3)<<5 | i&7, up to
//     SF*6,000,000); PS_SUPPKEY and L_SUPPKEY by the specification's
//     formula over a part's four suppliers; O_CUSTKEY never a multiple of
//     3, so a third of the customers have no orders.
//   - Dates: O_ORDERDATE uniform from 1992-01-01 to 1998-08-02 (ENDDATE
//     1998-12-31 less 151 days); L_SHIPDATE orderdate + [1, 121] days,
//     L_COMMITDATE orderdate + [30, 90], L_RECEIPTDATE shipdate + [1, 30].
//   - Flags: L_RETURNFLAG R or A (at random) when the receipt date is at
//     most CURRENTDATE 1995-06-17, else N; L_LINESTATUS O when the ship
//     date is after CURRENTDATE, else F; O_ORDERSTATUS F, O or P from its
//     lines' statuses.
//   - Prices: P_RETAILPRICE by the specification's formula of the
//     partkey; L_EXTENDEDPRICE = L_QUANTITY [1, 50] * P_RETAILPRICE;
//     L_DISCOUNT [0.00, 0.10] and L_TAX [0.00, 0.08] in hundredths;
//     O_TOTALPRICE the sum of the lines' extendedprice times
//     (1 - discount) times (1 + tax), each line truncated to cents after
//     the discount and again after the tax, as dbgen's integer
//     arithmetic does;
//     PS_SUPPLYCOST [1.00, 1000.00], PS_AVAILQTY [1, 9999], account
//     balances [-999.99, 9999.99].
//   - Words: P_NAME five distinct words of the 92 colors; P_MFGR
//     Manufacturer#M, P_BRAND Brand#MN (M, N in 1..5); P_TYPE of the
//     6x5x5 syllables, P_CONTAINER of the 5x8; C_MKTSEGMENT,
//     O_ORDERPRIORITY, L_SHIPINSTRUCT and L_SHIPMODE of their lists, all
//     uniform; phone numbers CC-NNN-NNN-NNNN with CC the nation key + 10;
//     addresses random v-strings of 10 to 40 characters; names
//     Supplier#, Customer# and Clerk# with 9-digit numbers (clerks 1 to
//     SF*1,000).
//   - Comments: substrings, of a length uniform in each column's range
//     (dbgen's 0.4 to 1.6 times the average, e.g. L_COMMENT 10 to 43),
//     at a uniform offset, of a text made by the specification's grammar
//     (sentences of noun, verb and prepositional phrases over its word
//     lists), as dbgen cuts them from its text pool; about 5 in 10,000
//     S_COMMENTs get "Customer " ... "Complaints" and as many "Customer "
//     ... "Recommends" at a random place, as dbgen puts them there (Q16
//     excludes the former).
//
// Where it approximates dbgen:
//
//   - The random numbers. dbgen draws each column from a Park-Miller
//     stream of its own with fixed seeds; here every row has a splitmix64
//     stream seeded by the generator's seed, the table and the row's
//     number, so that chunks can be made by several goroutines and still
//     give the same bytes. The distributions are dbgen's, the values are
//     not: no row equals dbgen's, the lineitem count differs slightly
//     (SF1 gives 6,003,618 rows with DefaultSeed, dbgen 6,001,215), and
//     the answer sets the specification publishes for the validation
//     queries do not apply. The suite checks every engine against
//     PostgreSQL on the same data instead.
//   - The text. The grammar's forms and the word lists are the
//     specification's, but the weights of the forms and words
//     (dbgen's dists.dss) are approximations that keep their shape: a few
//     words ("packages", "requests", "accounts", "deposits"; "regular",
//     "final", "ironic"; "furiously", "slyly", "carefully") carry most of
//     the weight. The pool is 16 MB, not dbgen's 300 MB. So LIKE
//     patterns over comments (Q13's '%special%requests%', Q16's
//     '%Customer%Complaints%') select about, not exactly, as many rows as
//     in dbgen's data.
//   - O_CUSTKEY is uniform over the customers whose key is not a multiple
//     of 3; dbgen draws over all of them and moves off the multiples,
//     which is not exactly uniform.
//   - The v-string alphabet is 64 characters (digits, letters, comma,
//     space), which may not be dbgen's exact set.
//   - Only the initial population: no refresh functions (RF1, RF2) and
//     no qgen: the queries carry the validation parameters.
//   - Keys are integer, as in dbgen's dss.ddl, which bounds SF at 300.
//
// The data comes out as PostgreSQL COPY text (Generator.WriteCopy, one
// table at a time, formatted in parallel chunks written in key order;
// SF1 takes about 5 seconds on two cores) or row by row as Go structs
// (Generator.Each). Queries returns the queries, CreateTable the DDL,
// PrimaryKeys and ForeignKeyIndexes the statements for engines with
// indexes.
package tpch
