package tpch

// The tables' DDL: the specification's columns (1.4.1) in the types of
// dbgen's dss.ddl, identifiers as integer, decimals as numeric(15,2),
// fixed text as char(n), variable text as varchar(n). No constraints:
// PrimaryKeys and ForeignKeyIndexes give the statements that add the
// specification's primary keys and indexes on its foreign keys (the
// auxiliary structures it permits on key columns), for engines that have
// them.

// CreateTable returns the CREATE TABLE statement of t.
func CreateTable(t Table) string { return "CREATE TABLE " + t.String() + " (" + columnDefs[t] + ")" }

var columnDefs = [...]string{
	Region: "r_regionkey integer NOT NULL, r_name char(25) NOT NULL, r_comment varchar(152) NOT NULL",
	Nation: "n_nationkey integer NOT NULL, n_name char(25) NOT NULL, n_regionkey integer NOT NULL, " +
		"n_comment varchar(152) NOT NULL",
	Supplier: "s_suppkey integer NOT NULL, s_name char(25) NOT NULL, s_address varchar(40) NOT NULL, " +
		"s_nationkey integer NOT NULL, s_phone char(15) NOT NULL, s_acctbal numeric(15,2) NOT NULL, " +
		"s_comment varchar(101) NOT NULL",
	Customer: "c_custkey integer NOT NULL, c_name varchar(25) NOT NULL, c_address varchar(40) NOT NULL, " +
		"c_nationkey integer NOT NULL, c_phone char(15) NOT NULL, c_acctbal numeric(15,2) NOT NULL, " +
		"c_mktsegment char(10) NOT NULL, c_comment varchar(117) NOT NULL",
	Part: "p_partkey integer NOT NULL, p_name varchar(55) NOT NULL, p_mfgr char(25) NOT NULL, " +
		"p_brand char(10) NOT NULL, p_type varchar(25) NOT NULL, p_size integer NOT NULL, " +
		"p_container char(10) NOT NULL, p_retailprice numeric(15,2) NOT NULL, p_comment varchar(23) NOT NULL",
	PartSupp: "ps_partkey integer NOT NULL, ps_suppkey integer NOT NULL, ps_availqty integer NOT NULL, " +
		"ps_supplycost numeric(15,2) NOT NULL, ps_comment varchar(199) NOT NULL",
	Orders: "o_orderkey integer NOT NULL, o_custkey integer NOT NULL, o_orderstatus char(1) NOT NULL, " +
		"o_totalprice numeric(15,2) NOT NULL, o_orderdate date NOT NULL, o_orderpriority char(15) NOT NULL, " +
		"o_clerk char(15) NOT NULL, o_shippriority integer NOT NULL, o_comment varchar(79) NOT NULL",
	LineItem: "l_orderkey integer NOT NULL, l_partkey integer NOT NULL, l_suppkey integer NOT NULL, " +
		"l_linenumber integer NOT NULL, l_quantity numeric(15,2) NOT NULL, l_extendedprice numeric(15,2) NOT NULL, " +
		"l_discount numeric(15,2) NOT NULL, l_tax numeric(15,2) NOT NULL, l_returnflag char(1) NOT NULL, " +
		"l_linestatus char(1) NOT NULL, l_shipdate date NOT NULL, l_commitdate date NOT NULL, " +
		"l_receiptdate date NOT NULL, l_shipinstruct char(25) NOT NULL, l_shipmode char(10) NOT NULL, " +
		"l_comment varchar(44) NOT NULL",
}

// PrimaryKeys returns the ALTER TABLE statements adding the
// specification's primary keys.
func PrimaryKeys() []string {
	return []string{
		"ALTER TABLE region ADD PRIMARY KEY (r_regionkey)",
		"ALTER TABLE nation ADD PRIMARY KEY (n_nationkey)",
		"ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey)",
		"ALTER TABLE customer ADD PRIMARY KEY (c_custkey)",
		"ALTER TABLE part ADD PRIMARY KEY (p_partkey)",
		"ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey)",
		"ALTER TABLE orders ADD PRIMARY KEY (o_orderkey)",
		"ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber)",
	}
}

// ForeignKeyIndexes returns CREATE INDEX statements on the
// specification's foreign keys that no primary key already leads with.
func ForeignKeyIndexes() []string {
	return []string{
		"CREATE INDEX nation_regionkey ON nation (n_regionkey)",
		"CREATE INDEX supplier_nationkey ON supplier (s_nationkey)",
		"CREATE INDEX customer_nationkey ON customer (c_nationkey)",
		"CREATE INDEX partsupp_suppkey ON partsupp (ps_suppkey)",
		"CREATE INDEX orders_custkey ON orders (o_custkey)",
		"CREATE INDEX lineitem_part_supp ON lineitem (l_partkey, l_suppkey)",
		"CREATE INDEX lineitem_suppkey ON lineitem (l_suppkey)",
	}
}
