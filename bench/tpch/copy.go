package tpch

import (
	"context"
	"io"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
)

// The COPY text format (PostgreSQL's default: tab-separated, \N for
// NULL, backslash escapes). The generated values never hold a tab, a
// newline or a backslash, and no column is NULL, so no escaping is
// needed; the same files load into DuckDB's CSV reader with a tab
// delimiter and no quoting.

func appendPadded(b []byte, v int64, width int) []byte {
	var tmp [20]byte
	s := strconv.AppendInt(tmp[:0], v, 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// appendMoney appends cents as a decimal with two digits after the point.
func appendMoney(b []byte, cents int64) []byte {
	if cents < 0 {
		b = append(b, '-')
		cents = -cents
	}
	b = strconv.AppendInt(b, cents/100, 10)
	c := cents % 100
	return append(b, '.', byte('0'+c/10), byte('0'+c%10))
}

// appendHundredths appends 0 <= v < 100 hundredths: 0.06.
func appendHundredths(b []byte, v int8) []byte {
	return append(b, '0', '.', byte('0'+v/10), byte('0'+v%10))
}

// dateText holds the text of every date from 1970 to 2000 (the dates of
// the data are 1992 to 1998).
var dateText = func() [][10]byte {
	end := dateOf(2000, 1, 1)
	out := make([][10]byte, end)
	for d := Date(0); d < end; d++ {
		copy(out[d][:], d.String())
	}
	return out
}()

func appendDate(b []byte, d Date) []byte { return append(b, dateText[d][:]...) }

func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

func tab(b []byte) []byte { return append(b, '\t') }

// append* append one row as a COPY text line.
func appendRegion(b []byte, r *RegionRow) []byte {
	b = tab(appendInt(b, int64(r.RegionKey)))
	b = tab(append(b, r.Name...))
	return append(append(b, r.Comment...), '\n')
}

func appendNation(b []byte, r *NationRow) []byte {
	b = tab(appendInt(b, int64(r.NationKey)))
	b = tab(append(b, r.Name...))
	b = tab(appendInt(b, int64(r.RegionKey)))
	return append(append(b, r.Comment...), '\n')
}

func appendSupplier(b []byte, r *SupplierRow) []byte {
	b = tab(appendInt(b, int64(r.SuppKey)))
	b = tab(appendPadded(append(b, "Supplier#"...), int64(r.SuppKey), 9))
	b = tab(append(b, r.Address...))
	b = tab(appendInt(b, int64(r.NationKey)))
	b = tab(append(b, r.Phone[:]...))
	b = tab(appendMoney(b, int64(r.AcctBal)))
	return append(append(b, r.Comment...), '\n')
}

func appendCustomer(b []byte, r *CustomerRow) []byte {
	b = tab(appendInt(b, int64(r.CustKey)))
	b = tab(appendPadded(append(b, "Customer#"...), int64(r.CustKey), 9))
	b = tab(append(b, r.Address...))
	b = tab(appendInt(b, int64(r.NationKey)))
	b = tab(append(b, r.Phone[:]...))
	b = tab(appendMoney(b, int64(r.AcctBal)))
	b = tab(append(b, r.MktSegment...))
	return append(append(b, r.Comment...), '\n')
}

func appendPart(b []byte, r *PartRow) []byte {
	b = tab(appendInt(b, int64(r.PartKey)))
	for i, w := range r.Name {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, w...)
	}
	b = tab(b)
	b = tab(append(append(b, "Manufacturer#"...), byte('0'+r.Mfgr)))
	b = tab(append(append(b, "Brand#"...), byte('0'+r.Mfgr), byte('0'+r.Brand)))
	b = tab(append(b, r.Type...))
	b = tab(appendInt(b, int64(r.Size)))
	b = tab(append(b, r.Container...))
	b = tab(appendMoney(b, int64(r.RetailPrice)))
	return append(append(b, r.Comment...), '\n')
}

func appendPartSupp(b []byte, r *PartSuppRow) []byte {
	b = tab(appendInt(b, int64(r.PartKey)))
	b = tab(appendInt(b, int64(r.SuppKey)))
	b = tab(appendInt(b, int64(r.AvailQty)))
	b = tab(appendMoney(b, int64(r.SupplyCost)))
	return append(append(b, r.Comment...), '\n')
}

func appendOrder(b []byte, r *OrderRow) []byte {
	b = tab(appendInt(b, int64(r.OrderKey)))
	b = tab(appendInt(b, int64(r.CustKey)))
	b = tab(append(b, r.OrderStatus))
	b = tab(appendMoney(b, int64(r.TotalPrice)))
	b = tab(appendDate(b, r.OrderDate))
	b = tab(append(b, r.OrderPriority...))
	b = tab(appendPadded(append(b, "Clerk#"...), int64(r.Clerk), 9))
	b = tab(appendInt(b, int64(r.ShipPriority)))
	return append(append(b, r.Comment...), '\n')
}

func appendLineItem(b []byte, r *LineItemRow) []byte {
	b = tab(appendInt(b, int64(r.OrderKey)))
	b = tab(appendInt(b, int64(r.PartKey)))
	b = tab(appendInt(b, int64(r.SuppKey)))
	b = tab(appendInt(b, int64(r.LineNumber)))
	b = tab(append(appendInt(b, int64(r.Quantity)), ".00"...))
	b = tab(appendMoney(b, int64(r.ExtendedPrice)))
	b = tab(appendHundredths(b, r.Discount))
	b = tab(appendHundredths(b, r.Tax))
	b = tab(append(b, r.ReturnFlag))
	b = tab(append(b, r.LineStatus))
	b = tab(appendDate(b, r.ShipDate))
	b = tab(appendDate(b, r.CommitDate))
	b = tab(appendDate(b, r.ReceiptDate))
	b = tab(append(b, r.ShipInstruct...))
	b = tab(append(b, r.ShipMode...))
	return append(append(b, r.Comment...), '\n')
}

// chunkUnits is how many driving rows (orders, parts, ...) one piece of
// work formats: a few MB of text.
const chunkUnits = 8192

// AppendCopy appends the COPY text of the rows of table t driven by units
// [first, last) (0-based: orders for orders and lineitem, parts for part
// and partsupp, else the rows) to b, and returns it with the number of
// rows appended.
func (g *Generator) AppendCopy(b []byte, t Table, first, last int64) ([]byte, int64) {
	var (
		n     int64
		arena []byte
		sr    SupplierRow
		cr    CustomerRow
		pr    PartRow
		ps    [4]PartSuppRow
		or    OrderRow
	)
	for i := first; i < last; i++ {
		arena = arena[:0]
		switch t {
		case Region:
			var r RegionRow
			g.region(i, &r)
			b = appendRegion(b, &r)
			n++
		case Nation:
			var r NationRow
			g.nation(i, &r)
			b = appendNation(b, &r)
			n++
		case Supplier:
			arena = g.supplier(i+1, &sr, arena)
			b = appendSupplier(b, &sr)
			n++
		case Customer:
			arena = g.customer(i+1, &cr, arena)
			b = appendCustomer(b, &cr)
			n++
		case Part:
			g.part(i+1, &pr)
			b = appendPart(b, &pr)
			n++
		case PartSupp:
			g.partSupps(i+1, &ps)
			for k := range ps {
				b = appendPartSupp(b, &ps[k])
			}
			n += 4
		case Orders:
			g.order(i+1, &or)
			b = appendOrder(b, &or)
			n++
		case LineItem:
			g.order(i+1, &or)
			for k := range or.Lines {
				b = appendLineItem(b, &or.Lines[k])
			}
			n += int64(len(or.Lines))
		}
	}
	return b, n
}

// WriteCopy writes table t's rows to w in PostgreSQL's COPY text format,
// formatted by workers goroutines (0: GOMAXPROCS) in chunks written in
// key order: the bytes do not depend on workers. It returns the number
// of rows written.
func (g *Generator) WriteCopy(ctx context.Context, t Table, w io.Writer, workers int) (int64, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	units := g.units(t)
	chunks := (units + chunkUnits - 1) / chunkUnits
	type piece struct {
		buf  []byte
		rows int64
	}
	results := make([]chan piece, chunks)
	for i := range results {
		results[i] = make(chan piece, 1)
	}
	// A worker takes a token before it takes the next chunk, and the
	// writer returns it once that chunk is written: at most 2*workers
	// chunks are in memory, and the oldest unwritten one always has a
	// worker.
	tokens := make(chan struct{}, 2*workers)
	pool := sync.Pool{New: func() any { return []byte(nil) }}
	var next atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case tokens <- struct{}{}:
				case <-done:
					return
				}
				select {
				case <-done:
					return
				default:
				}
				c := next.Add(1) - 1
				if c >= chunks {
					<-tokens
					return
				}
				first := c * chunkUnits
				last := min(first+chunkUnits, units)
				buf, rows := g.AppendCopy(pool.Get().([]byte)[:0], t, first, last)
				results[c] <- piece{buf, rows}
			}
		}()
	}
	defer func() {
		close(done)
		wg.Wait()
	}()
	var rows int64
	for c := range chunks {
		var p piece
		select {
		case p = <-results[c]:
		case <-ctx.Done():
			return rows, ctx.Err()
		}
		if _, err := w.Write(p.buf); err != nil {
			return rows, err
		}
		rows += p.rows
		pool.Put(p.buf) //nolint:staticcheck // the slice header's allocation is negligible
		<-tokens
	}
	return rows, nil
}
