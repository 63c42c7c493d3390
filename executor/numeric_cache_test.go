package executor

import (
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

// TestNumericCacheAcrossStatements: a stored numeric column is parsed
// once for every statement that reads it (the second statement gets the
// first's vector), the entry goes when its array does, a statement's own
// arrays are not kept, and past the cache's limit vectors are parsed per
// statement.
func TestNumericCacheAcrossStatements(t *testing.T) {
	vals := make([]any, 2*numericCacheMinRows)
	for i := range vals {
		d, _ := types.NumericFromString(strconv.Itoa(i) + ".25")
		vals[i] = d
	}
	arr := arrayOfDatums(types.NumericT, vals)
	b := makeBatch(schemaOf([]nodes.Field{field("n", types.NumericT)}), []arrow.Array{arr}, len(vals))
	statement := func() *scaledVec {
		ec := &ExecContext{}
		defer ec.Release()
		ev, err := compileExpr(col(0, types.NumericT), ec)
		if err != nil {
			t.Fatal(err)
		}
		v, err := asScaled(ev, ec).evalScaled(b)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if statement() == statement() {
		t.Fatal("an array no Seq Scan handed out (a statement's own) was kept")
	}
	markStored(arr.(*array.String)) // as a Seq Scan does
	first := statement()
	if first.vals[3] != 325 || first.scale != 2 {
		t.Fatalf("parsed %d at scale %d", first.vals[3], first.scale)
	}
	if second := statement(); second != first {
		t.Fatal("the second statement parsed the column again")
	}
	if _, ok := cachedScaled(arr.(*array.String)); !ok {
		t.Fatal("no entry for the stored array")
	}
	kept := numericCacheBytes.Load()
	b.Release() // the batch held the array's reference
	arr, b = nil, nil
	deadline := time.Now().Add(5 * time.Second)
	for numericCacheBytes.Load() >= kept && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if numericCacheBytes.Load() >= kept {
		t.Errorf("the entry of a dropped array is still counted: %d bytes (%d before)", numericCacheBytes.Load(), kept)
	}

	defer func(l int64) { numericCacheLimit = l }(numericCacheLimit)
	numericCacheLimit = 0
	arr = arrayOfDatums(types.NumericT, vals)
	b = makeBatch(schemaOf([]nodes.Field{field("n", types.NumericT)}), []arrow.Array{arr}, len(vals))
	defer b.Release()
	markStored(arr.(*array.String))
	if statement() == statement() {
		t.Error("a full cache kept a vector")
	}
}

// TestPiecesReadStoredVector: the pieces a streaming Agg cuts from a
// stored batch (and pieces of those) read the stored array's vector,
// sliced at their rows, instead of parsing their own text; a piece of an
// array no scan stored parses as before.
func TestPiecesReadStoredVector(t *testing.T) {
	vals := make([]any, 2*numericCacheMinRows)
	for i := range vals {
		if i%10 == 3 {
			continue // NULL
		}
		d, _ := types.NumericFromString(strconv.Itoa(i) + ".5")
		vals[i] = d
	}
	schema := schemaOf([]nodes.Field{field("n", types.NumericT)})
	stored := arrayOfDatums(types.NumericT, vals)
	defer stored.Release()
	markStored(stored.(*array.String))
	b := makeBatch(schema, []arrow.Array{stored}, len(vals))
	defer b.Release()
	mine := arrayOfDatums(types.NumericT, vals)
	defer mine.Release()
	own := makeBatch(schema, []arrow.Array{mine}, len(vals))
	defer own.Release()

	outer := pieceOf(b, 1000, len(vals))
	defer outer.Release()
	inner := pieceOf(outer, 37, 5000)
	defer inner.Release()
	loose := pieceOf(own, 37, 5000)
	defer loose.Release()
	for _, tc := range []struct {
		piece  arrow.RecordBatch
		from   int
		stored bool
	}{{outer, 1000, true}, {inner, 1037, true}, {loose, 37, false}} {
		v, ok, err := storedVector(tc.piece.Column(0).(*array.String))
		if err != nil || ok != tc.stored {
			t.Fatalf("piece from %d: stored %v, err %v; want %v", tc.from, ok, err, tc.stored)
		}
		if !ok {
			continue
		}
		whole, _ := cachedScaled(stored.(*array.String))
		if v.n != int(tc.piece.NumRows()) || &v.vals[0] != &whole.vals[tc.from] {
			t.Fatalf("piece from %d: %d rows, not the stored vector's", tc.from, v.n)
		}
		for k := range v.n {
			i := tc.from + k
			if isValid(v.valid, k) != (vals[i] != nil) || vals[i] != nil && v.vals[k] != int64(i*10+5) {
				t.Fatalf("piece from %d, row %d: %d (valid %v)", tc.from, k, v.vals[k], isValid(v.valid, k))
			}
		}
	}
}

// TestSumResultsKeepTheirVector: sum's results carry the vector they were
// written from (and a slice of them the slice of it), which agrees with
// what parsing their text gives, NULL groups and sums past int64
// included; so a HAVING on them parses nothing.
func TestSumResultsKeepTheirVector(t *testing.T) {
	n := numericCacheMinRows + 10
	vals := make([]any, 2*n)
	groups := make([]int32, 2*n)
	for i := range vals {
		g := i % n
		groups[i] = int32(g)
		switch {
		case g%17 == 3:
			continue // a group of NULLs: a NULL sum
		case g == 5:
			vals[i], _ = types.NumericFromString("9000000000000000000.00") // past int64: a decimal sum
		default:
			vals[i], _ = types.NumericFromString(strconv.Itoa(g) + "." + strconv.Itoa(i%10))
		}
	}
	arr := arrayOfDatums(types.NumericT, vals)
	defer arr.Release()
	b := makeBatch(schemaOf([]nodes.Field{field("n", types.NumericT)}), []arrow.Array{arr}, len(vals))
	defer b.Release()
	st := newAggState(aggCall("sum", col(0, types.NumericT), types.NumericT))
	ec := &ExecContext{}
	defer ec.Release()
	ev, err := compileExpr(col(0, types.NumericT), ec)
	if err != nil {
		t.Fatal(err)
	}
	if err := aggBatch(st, ev, b, groups, n, ec); err != nil {
		t.Fatal(err)
	}
	res, err := st.result(n)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Release()
	out := makeBatch(schemaOf([]nodes.Field{field("s", types.NumericT)}), []arrow.Array{res}, n)
	defer out.Release()
	piece := pieceOf(out, 100, n)
	defer piece.Release()
	for _, tc := range []struct {
		arr  *array.String
		from int
	}{{res.(*array.String), 0}, {piece.Column(0).(*array.String), 100}} {
		v, ok, err := storedVector(tc.arr)
		if err != nil || !ok {
			t.Fatalf("from %d: no vector (err %v)", tc.from, err)
		}
		parsed, err := parseScaledArray(tc.arr)
		if err != nil {
			t.Fatal(err)
		}
		for i := range tc.arr.Len() {
			if isValid(v.valid, i) != isValid(parsed.valid, i) {
				t.Fatalf("from %d, row %d: NULL differs", tc.from, i)
			}
			if !isValid(v.valid, i) {
				continue
			}
			if i+tc.from == 5 && !v.isExact(i) {
				t.Fatalf("from %d: the decimal sum is not exact in the vector", tc.from)
			}
			got, _ := v.decimalAt(i)
			want, _ := parsed.decimalAt(i)
			if got.Cmp(want) != 0 || got.Exponent != want.Exponent {
				t.Fatalf("from %d, row %d: vector %s, text %s", tc.from, i, got, want)
			}
		}
	}
}
