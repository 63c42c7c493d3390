package tpch

import (
	"bytes"
	"context"
	"crypto/sha256"
	"regexp"
	"strings"
	"testing"
)

const testSF = 0.01

func newTestGenerator(t *testing.T) *Generator {
	t.Helper()
	g, err := New(testSF, DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestCardinalities checks each table's rows at SF 0.01 (4.2.5.1): the
// fixed tables' and the scaled ones', lineitem's near 4 per order, and
// that Rows, Each and WriteCopy agree.
func TestCardinalities(t *testing.T) {
	g := newTestGenerator(t)
	want := map[Table]int64{Region: 5, Nation: 25, Supplier: 100, Customer: 1500, Part: 2000, PartSupp: 8000, Orders: 15000}
	for _, tb := range Tables {
		rows := g.Rows(tb)
		if w, ok := want[tb]; ok && rows != w {
			t.Errorf("%s: Rows = %d, want %d", tb, rows, w)
		}
		var each int64
		g.Each(tb, func(any) { each++ })
		var buf bytes.Buffer
		n, err := g.WriteCopy(context.Background(), tb, &buf, 0)
		if err != nil {
			t.Fatal(err)
		}
		lines := int64(bytes.Count(buf.Bytes(), []byte("\n")))
		if each != rows || n != rows || lines != rows {
			t.Errorf("%s: Rows %d, Each %d, WriteCopy %d rows in %d lines", tb, rows, each, n, lines)
		}
	}
	// 1 to 7 lines per order, uniform: 4 on average, and at 15,000
	// orders within 2% of that (the standard deviation is 0.4%).
	li := g.Rows(LineItem)
	if li < 58800 || li > 61200 {
		t.Errorf("lineitem: %d rows, want about 60,000", li)
	}
}

// TestCopyText checks the COPY text: the right number of columns, no
// character needing an escape, and the same bytes whatever the number of
// goroutines.
func TestCopyText(t *testing.T) {
	g := newTestGenerator(t)
	columns := map[Table]int{Region: 3, Nation: 4, Supplier: 7, Customer: 8, Part: 9, PartSupp: 5, Orders: 9, LineItem: 16}
	for _, tb := range Tables {
		var one, three bytes.Buffer
		if _, err := g.WriteCopy(context.Background(), tb, &one, 1); err != nil {
			t.Fatal(err)
		}
		if _, err := g.WriteCopy(context.Background(), tb, &three, 3); err != nil {
			t.Fatal(err)
		}
		if sha256.Sum256(one.Bytes()) != sha256.Sum256(three.Bytes()) {
			t.Errorf("%s: 1 and 3 goroutines wrote different bytes", tb)
		}
		if bytes.ContainsAny(one.Bytes(), "\\\r") {
			t.Errorf("%s: the text holds a backslash or a carriage return", tb)
		}
		for i, line := range strings.Split(strings.TrimSuffix(one.String(), "\n"), "\n") {
			if n := strings.Count(line, "\t") + 1; n != columns[tb] {
				t.Fatalf("%s line %d: %d columns, want %d: %q", tb, i+1, n, columns[tb], line)
			}
		}
	}
	// Another seed, other data.
	g2, err := New(testSF, DefaultSeed+1)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	_, _ = g.WriteCopy(context.Background(), Orders, &a, 0)
	_, _ = g2.WriteCopy(context.Background(), Orders, &b, 0)
	if bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two seeds gave the same orders")
	}
}

// TestRules checks the value rules of 4.2.3 on every row at SF 0.01.
func TestRules(t *testing.T) {
	g := newTestGenerator(t)
	phoneRE := regexp.MustCompile(`^(\d\d)-\d{3}-\d{3}-\d{4}$`)
	checkPhone := func(what string, p [15]byte, nation int32) {
		m := phoneRE.FindSubmatch(p[:])
		if m == nil || string(m[1]) != string(appendPadded(nil, int64(nation)+10, 2)) {
			t.Errorf("%s: phone %q for nation %d", what, p, nation)
		}
	}
	g.Each(Supplier, func(row any) {
		r := row.(*SupplierRow)
		checkPhone("supplier", r.Phone, r.NationKey)
		if r.AcctBal < -99999 || r.AcctBal > 999999 || len(r.Address) < 10 || len(r.Address) > 40 {
			t.Errorf("supplier %d: %+v", r.SuppKey, r)
		}
	})
	g.Each(Customer, func(row any) {
		r := row.(*CustomerRow)
		checkPhone("customer", r.Phone, r.NationKey)
		if len(r.Comment) < 29 || len(r.Comment) > 116 {
			t.Errorf("customer %d: comment of %d bytes", r.CustKey, len(r.Comment))
		}
	})
	g.Each(Part, func(row any) {
		r := row.(*PartRow)
		seen := map[string]bool{}
		for _, c := range r.Name {
			seen[c] = true
		}
		if len(seen) != 5 || r.Mfgr < 1 || r.Mfgr > 5 || r.Brand < 1 || r.Brand > 5 || r.Size < 1 || r.Size > 50 {
			t.Errorf("part %d: %+v", r.PartKey, r)
		}
		if r.RetailPrice != RetailPrice(r.PartKey) {
			t.Errorf("part %d: retail price %v", r.PartKey, r.RetailPrice)
		}
	})
	if RetailPrice(1) != 90100 || RetailPrice(200000) != 110000 {
		t.Errorf("RetailPrice(1) = %v, RetailPrice(200000) = %v", RetailPrice(1), RetailPrice(200000))
	}
	var ps []PartSuppRow
	g.Each(PartSupp, func(row any) { ps = append(ps, *row.(*PartSuppRow)) })
	for i := 0; i < len(ps); i += 4 {
		seen := map[int32]bool{}
		for _, r := range ps[i : i+4] {
			if r.PartKey != ps[i].PartKey || r.SuppKey < 1 || r.SuppKey > 100 || seen[r.SuppKey] ||
				r.AvailQty < 1 || r.AvailQty > 9999 || r.SupplyCost < 100 || r.SupplyCost > 100000 {
				t.Fatalf("partsupp %+v", r)
			}
			seen[r.SuppKey] = true
		}
	}

	var prevKey int32
	statuses := map[byte]int{}
	flags := map[byte]int{}
	g.Each(Orders, func(row any) {
		o := row.(*OrderRow)
		if o.OrderKey <= prevKey || o.OrderKey&31 >= 8 {
			t.Fatalf("orderkey %d after %d: not dbgen's sparse keys", o.OrderKey, prevKey)
		}
		prevKey = o.OrderKey
		if o.CustKey%3 == 0 || o.CustKey < 1 || o.CustKey > 1500 {
			t.Errorf("order %d: custkey %d", o.OrderKey, o.CustKey)
		}
		if o.OrderDate < StartDate || o.OrderDate > EndDate-151 {
			t.Errorf("order %d: orderdate %v", o.OrderKey, o.OrderDate)
		}
		if n := len(o.Lines); n < 1 || n > 7 {
			t.Errorf("order %d: %d lines", o.OrderKey, n)
		}
		var total int64
		open := 0
		for j, l := range o.Lines {
			if l.OrderKey != o.OrderKey || l.LineNumber != int32(j+1) {
				t.Fatalf("order %d line %d: %+v", o.OrderKey, j+1, l)
			}
			if d := l.ShipDate - o.OrderDate; d < 1 || d > 121 {
				t.Errorf("shipdate %v for orderdate %v", l.ShipDate, o.OrderDate)
			}
			if d := l.CommitDate - o.OrderDate; d < 30 || d > 90 {
				t.Errorf("commitdate %v for orderdate %v", l.CommitDate, o.OrderDate)
			}
			if d := l.ReceiptDate - l.ShipDate; d < 1 || d > 30 || l.ReceiptDate > EndDate {
				t.Errorf("receiptdate %v for shipdate %v", l.ReceiptDate, l.ShipDate)
			}
			wantFlag := l.ReturnFlag == 'N'
			if l.ReceiptDate <= CurrentDate {
				wantFlag = l.ReturnFlag == 'R' || l.ReturnFlag == 'A'
			}
			wantStatus := byte('F')
			if l.ShipDate > CurrentDate {
				wantStatus = 'O'
				open++
			}
			if !wantFlag || l.LineStatus != wantStatus {
				t.Errorf("line %+v: returnflag %c, linestatus %c", l, l.ReturnFlag, l.LineStatus)
			}
			flags[l.ReturnFlag]++
			if l.Quantity < 1 || l.Quantity > 50 || l.Discount < 0 || l.Discount > 10 || l.Tax < 0 || l.Tax > 8 ||
				l.PartKey < 1 || l.PartKey > 2000 || l.ExtendedPrice != Money(l.Quantity)*RetailPrice(l.PartKey) {
				t.Errorf("line %+v", l)
			}
			k := -1
			for j := range int64(4) {
				if g.suppKey(l.PartKey, j) == l.SuppKey {
					k = int(j)
				}
			}
			if k < 0 {
				t.Errorf("line %+v: the supplier is not one of the part's four", l)
			}
			total += int64(l.ExtendedPrice) * (100 - int64(l.Discount)) / 100 * (100 + int64(l.Tax)) / 100
		}
		if Money(total) != o.TotalPrice {
			t.Errorf("order %d: totalprice %v, lines sum to %v", o.OrderKey, o.TotalPrice, Money(total))
		}
		wantStatus := byte('P')
		switch open {
		case 0:
			wantStatus = 'F'
		case len(o.Lines):
			wantStatus = 'O'
		}
		if o.OrderStatus != wantStatus {
			t.Errorf("order %d: status %c, want %c", o.OrderKey, o.OrderStatus, wantStatus)
		}
		statuses[o.OrderStatus]++
	})
	// About half the orders before CURRENTDATE are all shipped, a few
	// percent straddle it.
	if statuses['F'] < 6000 || statuses['O'] < 6000 || statuses['P'] < 100 {
		t.Errorf("order statuses %v", statuses)
	}
	if flags['R'] < flags['A']*9/10 || flags['A'] < flags['R']*9/10 || flags['N'] < flags['R'] {
		t.Errorf("return flags %v", flags)
	}
}

// TestSupplierComments checks the "Customer ... Complaints" and
// "Customer ... Recommends" comments: about 5 of each in 10,000
// suppliers, and none in the plain text.
func TestSupplierComments(t *testing.T) {
	g := newTestGenerator(t)
	if bytes.Contains(g.pool, []byte("Customer")) {
		t.Fatal("the text pool holds Customer")
	}
	complaints := regexp.MustCompile(`Customer .*Complaints`)
	recommends := regexp.MustCompile(`Customer .*Recommends`)
	var c, r int
	var row SupplierRow
	var arena []byte
	for i := int64(1); i <= 20000; i++ {
		arena = g.supplier(i, &row, arena[:0])
		if len(row.Comment) < 25 || len(row.Comment) > 100 {
			t.Fatalf("supplier %d: comment of %d bytes", i, len(row.Comment))
		}
		switch {
		case complaints.Match(row.Comment):
			c++
		case recommends.Match(row.Comment):
			r++
		}
	}
	// 10 of each expected in 20,000 suppliers.
	if c < 2 || c > 25 || r < 2 || r > 25 {
		t.Errorf("%d complaints and %d recommendations in 20,000 suppliers, want about 10 each", c, r)
	}
}

func TestQueries(t *testing.T) {
	qs := Queries(0.01)
	if len(qs) != 22 {
		t.Fatalf("%d queries", len(qs))
	}
	for i, q := range qs {
		if q.Num != i+1 || q.Name == "" || q.SQL == "" || strings.Contains(q.SQL, "{") {
			t.Errorf("query %d: %+v", i+1, q)
		}
		if strings.Contains(strings.ToUpper(q.SQL), "ORDER BY") != q.Ordered {
			t.Errorf("%s: Ordered = %v", q.Name, q.Ordered)
		}
	}
	if !strings.Contains(qs[10].SQL, "* 0.0100000000") {
		t.Errorf("Q11 at SF 0.01: FRACTION should be 0.01:\n%s", qs[10].SQL)
	}
	got, err := ParseQueryList("Q1,q6, 17,Q1")
	if err != nil || len(got) != 3 || got[0] != 1 || got[1] != 6 || got[2] != 17 {
		t.Errorf("ParseQueryList = %v, %v", got, err)
	}
	if _, err := ParseQueryList("Q23"); err == nil {
		t.Error("ParseQueryList(Q23) did not fail")
	}
}

func TestScaleBounds(t *testing.T) {
	for _, sf := range []float64{0, 0.001, 301} {
		if _, err := New(sf, 1); err == nil {
			t.Errorf("New(%g) did not fail", sf)
		}
	}
}
