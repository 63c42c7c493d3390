package pgfed

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/storage"
)

type arrow_RecordBatch = arrow.RecordBatch

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// relabel gives b the schema of table t (same column types), taking over b.
func relabel(t *storage.Table, b arrow.RecordBatch) arrow.RecordBatch {
	cols := make([]arrow.Array, b.NumCols())
	for i := range cols {
		cols[i] = b.Column(i)
	}
	nb := array.NewRecordBatch(t.ArrowSchema(), cols, b.NumRows())
	b.Release()
	return nb
}
