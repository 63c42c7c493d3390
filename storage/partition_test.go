package storage_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/pgfed/pgfed/storage"
	"github.com/pgfed/pgfed/types"
)

func num(s string) *apd.Decimal {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		panic(err)
	}
	return d
}

// hashPart is one partition: FOR VALUES WITH (MODULUS m, REMAINDER r).
type hashPart struct {
	name               string
	modulus, remainder int
}

// routeCase is a row and the partition PostgreSQL 15 stored it in.
type routeCase struct {
	row  []any
	part string
}

// hashPartitioned builds a table partitioned BY HASH on the key columns
// (indexes into cols) with the given partitions.
func hashPartitioned(t *testing.T, name string, cols []storage.Column, key []int, parts []hashPart) *storage.Table {
	t.Helper()
	cat := storage.NewCatalog()
	parent := storage.NewTable("public", name, cols)
	parent.Kind = storage.KindPartitioned
	parent.PartKey = &storage.PartitionKey{Strategy: storage.Hash, Columns: key}
	if _, err := cat.AddTable(parent); err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		child := storage.NewTable("public", p.name, cols)
		child.Parent = parent
		child.Bound = &storage.PartitionBound{Modulus: p.modulus, Remainder: p.remainder}
		if _, err := cat.AddTable(child); err != nil {
			t.Fatal(err)
		}
	}
	return parent
}

// evenParts is name_0 .. name_{m-1}, one partition per remainder.
func evenParts(name string, modulus int) []hashPart {
	ps := make([]hashPart, modulus)
	for r := range ps {
		ps[r] = hashPart{fmt.Sprintf("%s_%d", name, r), modulus, r}
	}
	return ps
}

func col(name string, t types.T) storage.Column { return storage.Column{Name: name, Type: t} }

// The expected partitions below were recorded from PostgreSQL 15.18
// (SELECT tableoid::regclass, ... after inserting the rows into tables
// with the same definitions; database locale C, time zone UTC).
func TestHashRoutingMatchesPostgres(t *testing.T) {
	tests := []struct {
		name  string
		cols  []storage.Column
		key   []int
		parts []hashPart
		rows  []routeCase
	}{
		{
			// CREATE TABLE pint (k int) PARTITION BY HASH (k), modulus 4.
			name: "pint", cols: []storage.Column{col("k", types.Int4T)}, key: []int{0},
			parts: evenParts("pint", 4),
			rows: []routeCase{
				{[]any{nil}, "pint_0"},
				{[]any{int64(-2147483648)}, "pint_2"},
				{[]any{int64(-1000)}, "pint_3"},
				{[]any{int64(-40)}, "pint_0"},
				{[]any{int64(-39)}, "pint_0"},
				{[]any{int64(-38)}, "pint_1"},
				{[]any{int64(-37)}, "pint_1"},
				{[]any{int64(-36)}, "pint_2"},
				{[]any{int64(-35)}, "pint_2"},
				{[]any{int64(-34)}, "pint_1"},
				{[]any{int64(-33)}, "pint_2"},
				{[]any{int64(-32)}, "pint_3"},
				{[]any{int64(-31)}, "pint_0"},
				{[]any{int64(-30)}, "pint_3"},
				{[]any{int64(-29)}, "pint_1"},
				{[]any{int64(-28)}, "pint_0"},
				{[]any{int64(-27)}, "pint_2"},
				{[]any{int64(-26)}, "pint_2"},
				{[]any{int64(-25)}, "pint_2"},
				{[]any{int64(-24)}, "pint_0"},
				{[]any{int64(-23)}, "pint_3"},
				{[]any{int64(-22)}, "pint_1"},
				{[]any{int64(-21)}, "pint_3"},
				{[]any{int64(-20)}, "pint_3"},
				{[]any{int64(-19)}, "pint_0"},
				{[]any{int64(-18)}, "pint_0"},
				{[]any{int64(-17)}, "pint_2"},
				{[]any{int64(-16)}, "pint_3"},
				{[]any{int64(-15)}, "pint_1"},
				{[]any{int64(-14)}, "pint_3"},
				{[]any{int64(-13)}, "pint_1"},
				{[]any{int64(-12)}, "pint_1"},
				{[]any{int64(-11)}, "pint_1"},
				{[]any{int64(-10)}, "pint_3"},
				{[]any{int64(-9)}, "pint_3"},
				{[]any{int64(-8)}, "pint_1"},
				{[]any{int64(-7)}, "pint_2"},
				{[]any{int64(-6)}, "pint_2"},
				{[]any{int64(-5)}, "pint_3"},
				{[]any{int64(-4)}, "pint_2"},
				{[]any{int64(-3)}, "pint_0"},
				{[]any{int64(-2)}, "pint_2"},
				{[]any{int64(-1)}, "pint_1"},
				{[]any{int64(0)}, "pint_0"},
				{[]any{int64(1)}, "pint_0"},
				{[]any{int64(2)}, "pint_2"},
				{[]any{int64(3)}, "pint_1"},
				{[]any{int64(4)}, "pint_3"},
				{[]any{int64(5)}, "pint_1"},
				{[]any{int64(6)}, "pint_3"},
				{[]any{int64(7)}, "pint_3"},
				{[]any{int64(8)}, "pint_1"},
				{[]any{int64(9)}, "pint_1"},
				{[]any{int64(10)}, "pint_3"},
				{[]any{int64(11)}, "pint_1"},
				{[]any{int64(12)}, "pint_0"},
				{[]any{int64(13)}, "pint_2"},
				{[]any{int64(14)}, "pint_0"},
				{[]any{int64(15)}, "pint_3"},
				{[]any{int64(16)}, "pint_0"},
				{[]any{int64(17)}, "pint_0"},
				{[]any{int64(18)}, "pint_2"},
				{[]any{int64(19)}, "pint_1"},
				{[]any{int64(20)}, "pint_1"},
				{[]any{int64(21)}, "pint_1"},
				{[]any{int64(22)}, "pint_3"},
				{[]any{int64(23)}, "pint_2"},
				{[]any{int64(24)}, "pint_3"},
				{[]any{int64(25)}, "pint_2"},
				{[]any{int64(26)}, "pint_0"},
				{[]any{int64(27)}, "pint_2"},
				{[]any{int64(28)}, "pint_0"},
				{[]any{int64(29)}, "pint_3"},
				{[]any{int64(30)}, "pint_0"},
				{[]any{int64(31)}, "pint_1"},
				{[]any{int64(32)}, "pint_0"},
				{[]any{int64(33)}, "pint_3"},
				{[]any{int64(34)}, "pint_0"},
				{[]any{int64(35)}, "pint_1"},
				{[]any{int64(36)}, "pint_1"},
				{[]any{int64(37)}, "pint_1"},
				{[]any{int64(38)}, "pint_1"},
				{[]any{int64(39)}, "pint_2"},
				{[]any{int64(40)}, "pint_3"},
				{[]any{int64(1000)}, "pint_0"},
				{[]any{int64(123456789)}, "pint_1"},
				{[]any{int64(2147483647)}, "pint_3"},
			},
		},
		{
			// bigint key, modulus 3.
			name: "pbig", cols: []storage.Column{col("k", types.Int8T)}, key: []int{0},
			parts: evenParts("pbig", 3),
			rows: []routeCase{
				{[]any{nil}, "pbig_0"},
				{[]any{int64(-9223372036854775808)}, "pbig_1"},
				{[]any{int64(-20000000140)}, "pbig_2"},
				{[]any{int64(-19000000133)}, "pbig_2"},
				{[]any{int64(-18000000126)}, "pbig_2"},
				{[]any{int64(-17000000119)}, "pbig_1"},
				{[]any{int64(-16000000112)}, "pbig_0"},
				{[]any{int64(-15000000105)}, "pbig_2"},
				{[]any{int64(-14000000098)}, "pbig_2"},
				{[]any{int64(-13000000091)}, "pbig_1"},
				{[]any{int64(-12000000084)}, "pbig_0"},
				{[]any{int64(-11000000077)}, "pbig_0"},
				{[]any{int64(-10000000070)}, "pbig_2"},
				{[]any{int64(-9000000063)}, "pbig_2"},
				{[]any{int64(-8000000056)}, "pbig_1"},
				{[]any{int64(-7000000049)}, "pbig_0"},
				{[]any{int64(-6000000042)}, "pbig_2"},
				{[]any{int64(-5000000035)}, "pbig_1"},
				{[]any{int64(-4294967297)}, "pbig_1"},
				{[]any{int64(-4000000028)}, "pbig_1"},
				{[]any{int64(-3000000021)}, "pbig_2"},
				{[]any{int64(-2000000014)}, "pbig_1"},
				{[]any{int64(-1000000007)}, "pbig_0"},
				{[]any{int64(-7)}, "pbig_0"},
				{[]any{int64(0)}, "pbig_2"},
				{[]any{int64(7)}, "pbig_1"},
				{[]any{int64(1000000007)}, "pbig_2"},
				{[]any{int64(2000000014)}, "pbig_2"},
				{[]any{int64(3000000021)}, "pbig_0"},
				{[]any{int64(4000000028)}, "pbig_1"},
				{[]any{int64(4294967296)}, "pbig_2"},
				{[]any{int64(5000000035)}, "pbig_1"},
				{[]any{int64(6000000042)}, "pbig_2"},
				{[]any{int64(7000000049)}, "pbig_1"},
				{[]any{int64(8000000056)}, "pbig_0"},
				{[]any{int64(9000000063)}, "pbig_0"},
				{[]any{int64(10000000070)}, "pbig_0"},
				{[]any{int64(11000000077)}, "pbig_0"},
				{[]any{int64(12000000084)}, "pbig_1"},
				{[]any{int64(13000000091)}, "pbig_1"},
				{[]any{int64(14000000098)}, "pbig_1"},
				{[]any{int64(15000000105)}, "pbig_1"},
				{[]any{int64(16000000112)}, "pbig_0"},
				{[]any{int64(17000000119)}, "pbig_1"},
				{[]any{int64(18000000126)}, "pbig_1"},
				{[]any{int64(19000000133)}, "pbig_0"},
				{[]any{int64(20000000140)}, "pbig_0"},
				{[]any{int64(9223372036854775807)}, "pbig_0"},
			},
		},
		{
			// text key, modulus 8.
			name: "ptext", cols: []storage.Column{col("k", types.TextT)}, key: []int{0},
			parts: evenParts("ptext", 8),
			rows: []routeCase{
				{[]any{nil}, "ptext_0"},
				{[]any{""}, "ptext_6"},
				{[]any{"A"}, "ptext_3"},
				{[]any{"a"}, "ptext_6"},
				{[]any{"héllo"}, "ptext_3"},
				{[]any{"key1"}, "ptext_0"},
				{[]any{"key10"}, "ptext_2"},
				{[]any{"key11"}, "ptext_5"},
				{[]any{"key12"}, "ptext_3"},
				{[]any{"key13"}, "ptext_3"},
				{[]any{"key14"}, "ptext_1"},
				{[]any{"key15"}, "ptext_3"},
				{[]any{"key16"}, "ptext_0"},
				{[]any{"key17"}, "ptext_4"},
				{[]any{"key18"}, "ptext_7"},
				{[]any{"key19"}, "ptext_3"},
				{[]any{"key2"}, "ptext_4"},
				{[]any{"key20"}, "ptext_1"},
				{[]any{"key21"}, "ptext_6"},
				{[]any{"key22"}, "ptext_4"},
				{[]any{"key23"}, "ptext_7"},
				{[]any{"key24"}, "ptext_6"},
				{[]any{"key25"}, "ptext_3"},
				{[]any{"key26"}, "ptext_6"},
				{[]any{"key27"}, "ptext_5"},
				{[]any{"key28"}, "ptext_5"},
				{[]any{"key29"}, "ptext_4"},
				{[]any{"key3"}, "ptext_3"},
				{[]any{"key30"}, "ptext_2"},
				{[]any{"key4"}, "ptext_0"},
				{[]any{"key5"}, "ptext_4"},
				{[]any{"key6"}, "ptext_1"},
				{[]any{"key7"}, "ptext_0"},
				{[]any{"key8"}, "ptext_1"},
				{[]any{"key9"}, "ptext_1"},
				{[]any{"the quick brown fox jumps over the lazy dog"}, "ptext_6"},
				{[]any{"trailing "}, "ptext_4"},
				{[]any{"日本語テキスト"}, "ptext_1"},
				{[]any{"🐘"}, "ptext_3"},
			},
		},
		{
			// numeric key, modulus 4.
			name: "pnum", cols: []storage.Column{col("k", types.NumericT)}, key: []int{0},
			parts: evenParts("pnum", 4),
			rows: []routeCase{
				{[]any{nil}, "pnum_0"},
				{[]any{num("-Infinity")}, "pnum_0"},
				{[]any{num("-98765.4321")}, "pnum_1"},
				{[]any{num("-2.5000000000000000")}, "pnum_0"},
				{[]any{num("-2.3750000000000000")}, "pnum_1"},
				{[]any{num("-2.2500000000000000")}, "pnum_1"},
				{[]any{num("-2.1250000000000000")}, "pnum_3"},
				{[]any{num("-2.0000000000000000")}, "pnum_3"},
				{[]any{num("-1.8750000000000000")}, "pnum_3"},
				{[]any{num("-1.7500000000000000")}, "pnum_3"},
				{[]any{num("-1.6250000000000000")}, "pnum_2"},
				{[]any{num("-1.5000000000000000")}, "pnum_2"},
				{[]any{num("-1.3750000000000000")}, "pnum_0"},
				{[]any{num("-1.2500000000000000")}, "pnum_1"},
				{[]any{num("-1.1250000000000000")}, "pnum_2"},
				{[]any{num("-1.00000000000000000000")}, "pnum_1"},
				{[]any{num("-0.87500000000000000000")}, "pnum_0"},
				{[]any{num("-0.75000000000000000000")}, "pnum_1"},
				{[]any{num("-0.62500000000000000000")}, "pnum_2"},
				{[]any{num("-0.50000000000000000000")}, "pnum_3"},
				{[]any{num("-0.37500000000000000000")}, "pnum_1"},
				{[]any{num("-0.25000000000000000000")}, "pnum_0"},
				{[]any{num("-0.12500000000000000000")}, "pnum_0"},
				{[]any{num("0.00000000000000000000")}, "pnum_3"},
				{[]any{num("0.000000000000000000000000000001")}, "pnum_1"},
				{[]any{num("0.0001")}, "pnum_0"},
				{[]any{num("0.12500000000000000000")}, "pnum_0"},
				{[]any{num("0.25000000000000000000")}, "pnum_0"},
				{[]any{num("0.37500000000000000000")}, "pnum_1"},
				{[]any{num("0.50000000000000000000")}, "pnum_3"},
				{[]any{num("0.62500000000000000000")}, "pnum_2"},
				{[]any{num("0.75000000000000000000")}, "pnum_1"},
				{[]any{num("0.87500000000000000000")}, "pnum_0"},
				{[]any{num("1.00000000000000000000")}, "pnum_1"},
				{[]any{num("1.1250000000000000")}, "pnum_2"},
				{[]any{num("1.2500000000000000")}, "pnum_1"},
				{[]any{num("1.3750000000000000")}, "pnum_0"},
				{[]any{num("1.5000000000000000")}, "pnum_2"},
				{[]any{num("1.6250000000000000")}, "pnum_2"},
				{[]any{num("1.7500000000000000")}, "pnum_3"},
				{[]any{num("1.8750000000000000")}, "pnum_3"},
				{[]any{num("2.0000000000000000")}, "pnum_3"},
				{[]any{num("2.1250000000000000")}, "pnum_3"},
				{[]any{num("2.2500000000000000")}, "pnum_1"},
				{[]any{num("2.3750000000000000")}, "pnum_1"},
				{[]any{num("2.5000000000000000")}, "pnum_0"},
				{[]any{num("3.14159265358979323846")}, "pnum_0"},
				{[]any{num("10000.00")}, "pnum_2"},
				{[]any{num("10000")}, "pnum_2"},
				{[]any{num("12345.6789")}, "pnum_2"},
				{[]any{num("100000000")}, "pnum_3"},
				{[]any{num("1000000000000000000000000000000")}, "pnum_0"},
				{[]any{num("Infinity")}, "pnum_0"},
				{[]any{num("NaN")}, "pnum_0"},
			},
		},
		{
			// date key, modulus 3.
			name: "pdate", cols: []storage.Column{col("k", types.DateT)}, key: []int{0},
			parts: evenParts("pdate", 3),
			rows: []routeCase{
				{[]any{nil}, "pdate_0"},
				{[]any{types.DateNegInfinity}, "pdate_0"},
				{[]any{int32(-719162)}, "pdate_1"},
				{[]any{int32(0)}, "pdate_2"},
				{[]any{int32(10956)}, "pdate_2"},
				{[]any{int32(10957)}, "pdate_2"},
				{[]any{int32(19383)}, "pdate_2"},
				{[]any{int32(19400)}, "pdate_1"},
				{[]any{int32(19417)}, "pdate_1"},
				{[]any{int32(19434)}, "pdate_0"},
				{[]any{int32(19451)}, "pdate_0"},
				{[]any{int32(19468)}, "pdate_2"},
				{[]any{int32(19485)}, "pdate_1"},
				{[]any{int32(19502)}, "pdate_0"},
				{[]any{int32(19519)}, "pdate_1"},
				{[]any{int32(19536)}, "pdate_0"},
				{[]any{int32(19553)}, "pdate_2"},
				{[]any{int32(19570)}, "pdate_2"},
				{[]any{int32(19587)}, "pdate_1"},
				{[]any{int32(19604)}, "pdate_0"},
				{[]any{int32(19621)}, "pdate_1"},
				{[]any{int32(19638)}, "pdate_1"},
				{[]any{int32(19655)}, "pdate_0"},
				{[]any{int32(19672)}, "pdate_1"},
				{[]any{int32(19689)}, "pdate_2"},
				{[]any{int32(19706)}, "pdate_1"},
				{[]any{int32(19723)}, "pdate_2"},
				{[]any{int32(19740)}, "pdate_0"},
				{[]any{int32(19757)}, "pdate_2"},
				{[]any{int32(19774)}, "pdate_0"},
				{[]any{int32(19791)}, "pdate_0"},
				{[]any{int32(19808)}, "pdate_2"},
				{[]any{int32(19825)}, "pdate_0"},
				{[]any{int32(19842)}, "pdate_0"},
				{[]any{int32(19859)}, "pdate_0"},
				{[]any{int32(19876)}, "pdate_2"},
				{[]any{int32(19893)}, "pdate_2"},
				{[]any{int32(19910)}, "pdate_1"},
				{[]any{int32(19927)}, "pdate_0"},
				{[]any{int32(19944)}, "pdate_0"},
				{[]any{int32(19961)}, "pdate_1"},
				{[]any{int32(19978)}, "pdate_2"},
				{[]any{int32(19995)}, "pdate_1"},
				{[]any{int32(20012)}, "pdate_0"},
				{[]any{int32(20029)}, "pdate_2"},
				{[]any{int32(20046)}, "pdate_1"},
				{[]any{int32(20063)}, "pdate_0"},
				{[]any{types.DatePosInfinity}, "pdate_1"},
			},
		},
		{
			// Mixed moduli: (2, 0), (4, 1), (8, 3), (8, 7).
			name: "pmix", cols: []storage.Column{col("k", types.Int4T)}, key: []int{0},
			parts: []hashPart{{"pmix_a", 2, 0}, {"pmix_b", 4, 1}, {"pmix_c", 8, 3}, {"pmix_d", 8, 7}},
			rows: []routeCase{
				{[]any{int64(1)}, "pmix_a"},
				{[]any{int64(2)}, "pmix_a"},
				{[]any{int64(3)}, "pmix_b"},
				{[]any{int64(4)}, "pmix_c"},
				{[]any{int64(5)}, "pmix_b"},
				{[]any{int64(6)}, "pmix_c"},
				{[]any{int64(7)}, "pmix_d"},
				{[]any{int64(8)}, "pmix_b"},
				{[]any{int64(9)}, "pmix_b"},
				{[]any{int64(10)}, "pmix_d"},
				{[]any{int64(11)}, "pmix_b"},
				{[]any{int64(12)}, "pmix_a"},
				{[]any{int64(13)}, "pmix_a"},
				{[]any{int64(14)}, "pmix_a"},
				{[]any{int64(15)}, "pmix_c"},
				{[]any{int64(16)}, "pmix_a"},
				{[]any{int64(17)}, "pmix_a"},
				{[]any{int64(18)}, "pmix_a"},
				{[]any{int64(19)}, "pmix_b"},
				{[]any{int64(20)}, "pmix_b"},
				{[]any{int64(21)}, "pmix_b"},
				{[]any{int64(22)}, "pmix_d"},
				{[]any{int64(23)}, "pmix_a"},
				{[]any{int64(24)}, "pmix_c"},
				{[]any{int64(25)}, "pmix_a"},
				{[]any{int64(26)}, "pmix_a"},
				{[]any{int64(27)}, "pmix_a"},
				{[]any{int64(28)}, "pmix_a"},
				{[]any{int64(29)}, "pmix_c"},
				{[]any{int64(30)}, "pmix_a"},
				{[]any{int64(31)}, "pmix_b"},
				{[]any{int64(32)}, "pmix_a"},
				{[]any{int64(33)}, "pmix_d"},
				{[]any{int64(34)}, "pmix_a"},
				{[]any{int64(35)}, "pmix_b"},
				{[]any{int64(36)}, "pmix_b"},
				{[]any{int64(37)}, "pmix_b"},
				{[]any{int64(38)}, "pmix_b"},
				{[]any{int64(39)}, "pmix_a"},
				{[]any{int64(40)}, "pmix_d"},
			},
		},
		{
			// CREATE TABLE ptwo (a int, b text) PARTITION BY HASH (b, a):
			// the key order differs from the column order.
			name: "ptwo", cols: []storage.Column{col("a", types.Int4T), col("b", types.TextT)}, key: []int{1, 0},
			parts: evenParts("ptwo", 4),
			rows: []routeCase{
				{[]any{nil, nil}, "ptwo_0"},
				{[]any{nil, ""}, "ptwo_2"},
				{[]any{nil, "x"}, "ptwo_3"},
				{[]any{int64(-3), ""}, "ptwo_3"},
				{[]any{int64(-3), "héllo"}, "ptwo_0"},
				{[]any{int64(-3), "x"}, "ptwo_3"},
				{[]any{int64(-3), "yy"}, "ptwo_2"},
				{[]any{int64(-2), ""}, "ptwo_1"},
				{[]any{int64(-2), "héllo"}, "ptwo_2"},
				{[]any{int64(-2), "x"}, "ptwo_1"},
				{[]any{int64(-2), "yy"}, "ptwo_0"},
				{[]any{int64(-1), ""}, "ptwo_0"},
				{[]any{int64(-1), "héllo"}, "ptwo_3"},
				{[]any{int64(-1), "x"}, "ptwo_2"},
				{[]any{int64(-1), "yy"}, "ptwo_3"},
				{[]any{int64(0), nil}, "ptwo_0"},
				{[]any{int64(0), ""}, "ptwo_3"},
				{[]any{int64(0), "héllo"}, "ptwo_0"},
				{[]any{int64(0), "x"}, "ptwo_3"},
				{[]any{int64(0), "yy"}, "ptwo_2"},
				{[]any{int64(1), nil}, "ptwo_0"},
				{[]any{int64(1), ""}, "ptwo_3"},
				{[]any{int64(1), "héllo"}, "ptwo_0"},
				{[]any{int64(1), "x"}, "ptwo_3"},
				{[]any{int64(1), "yy"}, "ptwo_2"},
				{[]any{int64(2), ""}, "ptwo_1"},
				{[]any{int64(2), "héllo"}, "ptwo_2"},
				{[]any{int64(2), "x"}, "ptwo_1"},
				{[]any{int64(2), "yy"}, "ptwo_0"},
				{[]any{int64(3), ""}, "ptwo_0"},
				{[]any{int64(3), "héllo"}, "ptwo_3"},
				{[]any{int64(3), "x"}, "ptwo_2"},
				{[]any{int64(3), "yy"}, "ptwo_3"},
			},
		},
		{
			// (f float8, t timestamptz, c char(5), s smallint, flag bool,
			// r real, ts timestamp), hashed on all seven, modulus 3.
			name: "pother",
			cols: []storage.Column{
				col("f", types.Float8T), col("t", types.TimestampTZT), col("c", types.T{ID: types.Bpchar, Len: 5}),
				col("s", types.Int2T), col("flag", types.BoolT), col("r", types.Float4T), col("ts", types.TimestampT),
			},
			key:   []int{0, 1, 2, 3, 4, 5, 6},
			parts: evenParts("pother", 3),
			rows: []routeCase{
				{[]any{math.Float64frombits(0x8000000000000000), nil, nil, nil, true, float64(math.Float32frombits(0x7f800000)), nil}, "pother_0"},
				{[]any{math.Float64frombits(0x7ff8000000000000), nil, "ab   ", nil, nil, float64(math.Float32frombits(0x80000000)), nil}, "pother_1"},
				{[]any{math.Float64frombits(0x7e37e43c8800759c), types.TimestampPosInfinity, "abcde", int64(-32768), true, float64(math.Float32frombits(0x7fc00000)), types.TimestampNegInfinity}, "pother_2"},
				{[]any{math.Float64frombits(0xc014000000000000), int64(1713640689123456), "a    ", int64(-10), true, float64(math.Float32frombits(0xc1480000)), int64(946680599999990)}, "pother_2"},
				{[]any{math.Float64frombits(0xc012000000000000), int64(1713774549123456), "b    ", int64(-9), false, float64(math.Float32frombits(0xc1340000)), int64(946680659999991)}, "pother_0"},
				{[]any{math.Float64frombits(0xc010000000000000), int64(1713908409123456), "c    ", int64(-8), true, float64(math.Float32frombits(0xc1200000)), int64(946680719999992)}, "pother_0"},
				{[]any{math.Float64frombits(0xc00c000000000000), int64(1714042269123456), "d    ", int64(-7), false, float64(math.Float32frombits(0xc10c0000)), int64(946680779999993)}, "pother_1"},
				{[]any{math.Float64frombits(0xc008000000000000), int64(1714176129123456), "e    ", int64(-6), true, float64(math.Float32frombits(0xc0f00000)), int64(946680839999994)}, "pother_2"},
				{[]any{math.Float64frombits(0xc004000000000000), int64(1714309989123456), "f    ", int64(-5), false, float64(math.Float32frombits(0xc0c80000)), int64(946680899999995)}, "pother_2"},
				{[]any{math.Float64frombits(0xc000000000000000), int64(1714443849123456), "g    ", int64(-4), true, float64(math.Float32frombits(0xc0a00000)), int64(946680959999996)}, "pother_2"},
				{[]any{math.Float64frombits(0xbff8000000000000), int64(1714577709123456), "h    ", int64(-3), false, float64(math.Float32frombits(0xc0700000)), int64(946681019999997)}, "pother_0"},
				{[]any{math.Float64frombits(0xbff0000000000000), int64(1714711569123456), "i    ", int64(-2), true, float64(math.Float32frombits(0xc0200000)), int64(946681079999998)}, "pother_1"},
				{[]any{math.Float64frombits(0xbfe0000000000000), int64(1714845429123456), "j    ", int64(-1), false, float64(math.Float32frombits(0xbfa00000)), int64(946681139999999)}, "pother_2"},
				{[]any{math.Float64frombits(0x0000000000000000), int64(1714979289123456), "k    ", int64(0), true, float64(math.Float32frombits(0x00000000)), int64(946681200000000)}, "pother_2"},
				{[]any{math.Float64frombits(0x3fe0000000000000), int64(1715113149123456), "l    ", int64(1), false, float64(math.Float32frombits(0x3fa00000)), int64(946681260000001)}, "pother_2"},
				{[]any{math.Float64frombits(0x3ff0000000000000), int64(1715247009123456), "m    ", int64(2), true, float64(math.Float32frombits(0x40200000)), int64(946681320000002)}, "pother_2"},
				{[]any{math.Float64frombits(0x3ff8000000000000), int64(1715380869123456), "n    ", int64(3), false, float64(math.Float32frombits(0x40700000)), int64(946681380000003)}, "pother_2"},
				{[]any{math.Float64frombits(0x4000000000000000), int64(1715514729123456), "o    ", int64(4), true, float64(math.Float32frombits(0x40a00000)), int64(946681440000004)}, "pother_1"},
				{[]any{math.Float64frombits(0x4004000000000000), int64(1715648589123456), "p    ", int64(5), false, float64(math.Float32frombits(0x40c80000)), int64(946681500000005)}, "pother_1"},
				{[]any{math.Float64frombits(0x4008000000000000), int64(1715782449123456), "q    ", int64(6), true, float64(math.Float32frombits(0x40f00000)), int64(946681560000006)}, "pother_1"},
				{[]any{nil, nil, nil, int64(7), false, nil, nil}, "pother_1"},
				{[]any{math.Float64frombits(0x400c000000000000), int64(1715916309123456), "r    ", int64(7), false, float64(math.Float32frombits(0x410c0000)), int64(946681620000007)}, "pother_1"},
				{[]any{math.Float64frombits(0x4010000000000000), int64(1716050169123456), "s    ", int64(8), true, float64(math.Float32frombits(0x41200000)), int64(946681680000008)}, "pother_1"},
				{[]any{math.Float64frombits(0x4012000000000000), int64(1716184029123456), "t    ", int64(9), false, float64(math.Float32frombits(0x41340000)), int64(946681740000009)}, "pother_1"},
				{[]any{math.Float64frombits(0x4014000000000000), int64(1716317889123456), "u    ", int64(10), true, float64(math.Float32frombits(0x41480000)), int64(946681800000010)}, "pother_1"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tbl := hashPartitioned(t, tc.name, tc.cols, tc.key, tc.parts)
			for _, rc := range tc.rows {
				got := tbl.Route(rc.row)
				if got == nil {
					t.Errorf("row %v: no partition, PostgreSQL uses %s", rc.row, rc.part)
				} else if got.Name != rc.part {
					t.Errorf("row %v: routed to %s, PostgreSQL uses %s", rc.row, got.Name, rc.part)
				}
			}
		})
	}
}

// A key whose columns are all NULL hashes to 0 and so goes to remainder 0.
func TestHashPartitionKeyAllNull(t *testing.T) {
	if h := storage.HashPartitionKey([]types.T{types.Int4T, types.TextT}, []any{nil, nil}); h != 0 {
		t.Errorf("HashPartitionKey(NULL, NULL) = %d, want 0", h)
	}
}
