package storage

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// rangeTable is p(a int8 [NOT NULL], b int8) PARTITION BY RANGE (a) with
// p1 [0, 10), p2 [10, 20) and, with def, a default partition.
func rangeTable(t *testing.T, def bool) (*Table, []*Table) {
	t.Helper()
	cat := NewCatalog()
	cols := []Column{{Name: "a", Type: types.Int8T}, {Name: "b", Type: types.Int8T, NotNull: true}}
	p := NewTable("public", "p", cols)
	p.Kind = KindPartitioned
	p.PartKey = &PartitionKey{Strategy: Range, Columns: []int{0}}
	if _, err := cat.AddTable(p); err != nil {
		t.Fatal(err)
	}
	var parts []*Table
	add := func(name string, b *PartitionBound) {
		c := NewTable("public", name, cols)
		c.Parent, c.Bound = p, b
		if _, err := cat.AddTable(c); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, c)
	}
	add("p1", &PartitionBound{From: []RangeDatum{{Value: int64(0)}}, To: []RangeDatum{{Value: int64(10)}}})
	add("p2", &PartitionBound{From: []RangeDatum{{Value: int64(10)}}, To: []RangeDatum{{Value: int64(20)}}})
	if def {
		add("pd", &PartitionBound{Default: true})
	}
	return p, parts
}

// pairs makes a batch of (a, b) rows of t; nil is NULL.
func pairs(t *Table, rows ...[2]any) arrow.RecordBatch {
	mem := memory.DefaultAllocator
	cols := make([]arrow.Array, 2)
	for c := range cols {
		b := array.NewInt64Builder(mem)
		for _, r := range rows {
			if r[c] == nil {
				b.AppendNull()
			} else {
				b.Append(int64(r[c].(int)))
			}
		}
		cols[c] = b.NewArray()
		b.Release()
	}
	batch := array.NewRecordBatch(t.ArrowSchema(), cols, int64(len(rows)))
	for _, c := range cols {
		c.Release()
	}
	return batch
}

func TestRouterSplit(t *testing.T) {
	for _, def := range []bool{false, true} {
		p, parts := rangeTable(t, def)
		r := NewRouter(p)
		if r.ranges == nil {
			t.Fatal("no typed fast path for a range on one integer column")
		}
		// The fast path and the general path (forced by a NULL key) agree.
		b := pairs(p, [2]any{15, 1}, [2]any{3, 1}, [2]any{17, 1}, [2]any{0, 1})
		leaves, rows, err := r.Split(b)
		if err != nil {
			t.Fatal(err)
		}
		if len(leaves) != 2 || leaves[0] != parts[1] || leaves[1] != parts[0] || len(rows[parts[1]]) != 2 || rows[parts[0]][1] != 3 {
			t.Errorf("default %v: leaves %v, rows %v", def, leaves, rows)
		}
		r.ranges = nil
		gl, grows, err := r.Split(b)
		if err != nil || len(gl) != len(leaves) || len(grows[parts[1]]) != 2 {
			t.Errorf("default %v: general path %v %v %v", def, gl, grows, err)
		}
		b.Release()

		// A row no partition takes: PostgreSQL's error, naming the row.
		b = pairs(p, [2]any{5, 1}, [2]any{25, 1})
		_, _, err = NewRouter(p).Split(b)
		b.Release()
		var re *RowError
		switch {
		case def && err != nil:
			t.Errorf("with a default partition: %v", err)
		case !def && (!errors.As(err, &re) || re.Row != 1 || pgerr.Code(err) != pgerr.CheckViolation ||
			err.Error() != `no partition of relation "p" found for row`):
			t.Errorf("no partition: %v", err)
		}
	}
}

func TestCheckRows(t *testing.T) {
	p, parts := rangeTable(t, false)
	for _, tc := range []struct {
		name   string
		t      *Table
		rows   [][2]any
		bounds bool
		code   string
		row    int
		detail string
	}{
		{"fine", parts[0], [][2]any{{1, 1}, {2, 2}}, true, "", 0, ""},
		{"NULL in NOT NULL", p, [][2]any{{1, 1}, {2, nil}}, false, pgerr.NotNullViolation, 1, "Failing row contains (2, null)."},
		{"outside the partition", parts[0], [][2]any{{1, 1}, {12, 1}}, true, pgerr.CheckViolation, 1, "Failing row contains (12, 1)."},
		{"routed rows skip the bound check", parts[0], [][2]any{{12, 1}}, false, "", 0, ""},
	} {
		b := pairs(tc.t, tc.rows...)
		err := CheckRows(tc.t, b, tc.bounds)
		b.Release()
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		var re *RowError
		pe, _ := pgerr.As(err)
		if !errors.As(err, &re) || re.Row != tc.row || pe.Code != tc.code || pe.Detail != tc.detail {
			t.Errorf("%s: %v (row %v, detail %q)", tc.name, err, re, pe.Detail)
		}
	}
}
