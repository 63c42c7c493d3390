package tpch

import (
	"fmt"
	"math"
	"time"
)

// Table is one of TPC-H's eight tables.
type Table int

// The tables, in the order they are best loaded (the small fixed ones
// first).
const (
	Region Table = iota
	Nation
	Supplier
	Customer
	Part
	PartSupp
	Orders
	LineItem
)

// Tables lists every table.
var Tables = []Table{Region, Nation, Supplier, Customer, Part, PartSupp, Orders, LineItem}

var tableNames = []string{"region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"}

// String is the table's SQL name.
func (t Table) String() string { return tableNames[t] }

// TableByName returns the table of a SQL name.
func TableByName(name string) (Table, bool) {
	for i, n := range tableNames {
		if n == name {
			return Table(i), true
		}
	}
	return 0, false
}

// Stream tags: each table's rows draw from streams of their own tag.
const (
	tagRegion = iota + 1
	tagNation
	tagSupplier
	tagCustomer
	tagPart
	tagPartSupp
	tagOrders
	tagLineCount
	tagLineItem
)

// Date is a day, counted from 1970-01-01 (as Arrow's date32 and Go's
// Unix days).
type Date int32

// The dates of 4.2.2.12, as day numbers.
var (
	StartDate   = dateOf(1992, 1, 1)
	CurrentDate = dateOf(1995, 6, 17)
	EndDate     = dateOf(1998, 12, 31)
)

func dateOf(y int, m time.Month, d int) Date {
	return Date(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
}

// Time returns the date as a UTC midnight.
func (d Date) Time() time.Time { return time.Unix(int64(d)*86400, 0).UTC() }

func (d Date) String() string { return d.Time().Format(time.DateOnly) }

// Money is a decimal(15,2) value in hundredths (cents).
type Money int64

func (m Money) String() string { return string(appendMoney(nil, int64(m))) }

// Rows of the tables. Byte-slice fields alias the generator's text pool
// or a chunk's buffer: they are valid until the next call that fills the
// same row.
type (
	RegionRow struct {
		RegionKey int32
		Name      string
		Comment   []byte
	}
	NationRow struct {
		NationKey int32
		Name      string
		RegionKey int32
		Comment   []byte
	}
	SupplierRow struct {
		SuppKey   int32 // S_NAME is "Supplier#" and the key in 9 digits
		Address   []byte
		NationKey int32
		Phone     [15]byte
		AcctBal   Money
		Comment   []byte
	}
	CustomerRow struct {
		CustKey    int32 // C_NAME is "Customer#" and the key in 9 digits
		Address    []byte
		NationKey  int32
		Phone      [15]byte
		AcctBal    Money
		MktSegment string
		Comment    []byte
	}
	PartRow struct {
		PartKey     int32
		Name        [5]string // P_NAME: these five colors, spaced
		Mfgr        int8      // P_MFGR is "Manufacturer#" Mfgr
		Brand       int8      // P_BRAND is "Brand#" Mfgr Brand
		Type        string
		Size        int32
		Container   string
		RetailPrice Money
		Comment     []byte
	}
	PartSuppRow struct {
		PartKey    int32
		SuppKey    int32
		AvailQty   int32
		SupplyCost Money
		Comment    []byte
	}
	OrderRow struct {
		OrderKey      int32
		CustKey       int32
		OrderStatus   byte
		TotalPrice    Money
		OrderDate     Date
		OrderPriority string
		Clerk         int32 // O_CLERK is "Clerk#" and this in 9 digits
		ShipPriority  int32
		Comment       []byte
		// Lines are the order's lineitems.
		Lines []LineItemRow
	}
	LineItemRow struct {
		OrderKey      int32
		PartKey       int32
		SuppKey       int32
		LineNumber    int32
		Quantity      int32 // a decimal(15,2) with no fraction
		ExtendedPrice Money
		Discount      int8 // hundredths: 0 .. 10
		Tax           int8 // hundredths: 0 .. 8
		ReturnFlag    byte
		LineStatus    byte
		ShipDate      Date
		CommitDate    Date
		ReceiptDate   Date
		ShipInstruct  string
		ShipMode      string
		Comment       []byte
	}
)

// Generator makes the rows of one database: one scale factor, one seed.
// It is safe for concurrent use.
type Generator struct {
	sf   float64
	seed uint64
	pool []byte
	// Cardinalities (of 4.2.5.1) at sf, but for lineitem's.
	suppliers, customers, parts, orders, clerks int64
}

// MinScale and MaxScale bound the scale factor: below 0.01 the supplier
// formula of PS_SUPPKEY repeats suppliers within a part (as dbgen's
// does), above 300 the orderkeys outgrow integer.
const (
	MinScale = 0.01
	MaxScale = 300.0
)

// DefaultSeed is the seed of the suite's data.
const DefaultSeed = 19920101

// New returns the generator of scale factor sf and the given seed.
func New(sf float64, seed uint64) (*Generator, error) {
	if math.IsNaN(sf) || sf < MinScale || sf > MaxScale {
		return nil, fmt.Errorf("tpch: scale factor %g out of [%g, %g]", sf, MinScale, MaxScale)
	}
	scaled := func(base float64) int64 { return int64(base*sf + 1e-9) }
	g := &Generator{
		sf:        sf,
		seed:      seed,
		pool:      buildTextPool(seed, textPoolSize),
		suppliers: scaled(10_000),
		customers: scaled(150_000),
		parts:     scaled(200_000),
		orders:    scaled(1_500_000),
		clerks:    max(1, scaled(1_000)),
	}
	return g, nil
}

// ScaleFactor returns the generator's scale factor.
func (g *Generator) ScaleFactor() float64 { return g.sf }

// Seed returns the generator's seed.
func (g *Generator) Seed() uint64 { return g.seed }

// units is how many driving rows a table has: parts for part and
// partsupp, orders for orders and lineitem, else its rows.
func (g *Generator) units(t Table) int64 {
	switch t {
	case Region:
		return int64(len(regions))
	case Nation:
		return int64(len(nations))
	case Supplier:
		return g.suppliers
	case Customer:
		return g.customers
	case Part, PartSupp:
		return g.parts
	}
	return g.orders
}

// Rows returns the number of rows of table t. For lineitem it counts the
// lines of every order (about 4 per order), which takes a few
// milliseconds per million orders.
func (g *Generator) Rows(t Table) int64 {
	switch t {
	case PartSupp:
		return 4 * g.parts
	case LineItem:
		var n int64
		for i := int64(1); i <= g.orders; i++ {
			n += int64(g.lineCount(i))
		}
		return n
	}
	return g.units(t)
}

// OrderKey returns the key of the i-th order (from 1): dbgen's sparse
// keys, the first 8 of every 32 (4.2.3: O_ORDERKEY is sparse).
func OrderKey(i int64) int32 { return int32((i>>3)<<5 | i&7) }

// RetailPrice is P_RETAILPRICE of a part (4.2.3).
func RetailPrice(partKey int32) Money {
	pk := int64(partKey)
	return Money(90000 + (pk/10)%20001 + 100*(pk%1000))
}

// suppKey is PS_SUPPKEY of a part's j-th supplier (j in 0..3), as 4.2.3
// gives it; L_SUPPKEY is the same of a random j.
func (g *Generator) suppKey(partKey int32, j int64) int32 {
	s := g.suppliers
	pk := int64(partKey)
	return int32((pk+j*(s/4+(pk-1)/s))%s + 1)
}

// The Region and Nation rows.
func (g *Generator) region(i int64, row *RegionRow) {
	r := rowRNG(g.seed, tagRegion, i)
	*row = RegionRow{RegionKey: int32(i), Name: regions[i], Comment: g.text(&r, 31, 115)}
}

func (g *Generator) nation(i int64, row *NationRow) {
	r := rowRNG(g.seed, tagNation, i)
	*row = NationRow{NationKey: int32(i), Name: nations[i].name, RegionKey: int32(nations[i].region), Comment: g.text(&r, 31, 114)}
}

// vstring appends a random v-string [lo, hi] (4.2.2.7) to arena.
func vstring(r *rng, arena []byte, lo, hi int) ([]byte, []byte) {
	n := int(r.intn(int64(lo), int64(hi)))
	start := len(arena)
	for range n {
		arena = append(arena, vstringChars[r.pick(len(vstringChars))])
	}
	return arena, arena[start:]
}

// phone fills a phone number of 4.2.2.9: the nation's country code
// (nationkey + 10), then three random groups.
func phone(r *rng, nationKey int32, p *[15]byte) {
	b := p[:0]
	b = append2(b, int64(nationKey)+10)
	b = append(b, '-')
	b = appendPadded(b, r.intn(100, 999), 3)
	b = append(b, '-')
	b = appendPadded(b, r.intn(100, 999), 3)
	b = append(b, '-')
	appendPadded(b, r.intn(1000, 9999), 4)
}

func append2(b []byte, v int64) []byte { return appendPadded(b, v, 2) }

// The "Better Business Bureau" comments of S_COMMENT (4.2.3): about 5
// suppliers in 10,000 say "Customer ...Complaints", as many
// "Customer ...Recommends", as dbgen places them.
const (
	bbbBase     = "Customer "
	bbbComplain = "Complaints"
	bbbCommend  = "Recommends"
	bbbPer10000 = 10
)

func (g *Generator) supplier(i int64, row *SupplierRow, arena []byte) []byte {
	r := rowRNG(g.seed, tagSupplier, i)
	row.SuppKey = int32(i)
	arena, row.Address = vstring(&r, arena, 10, 40)
	row.NationKey = int32(r.intn(0, 24))
	phone(&r, row.NationKey, &row.Phone)
	row.AcctBal = Money(r.intn(-99999, 999999))
	row.Comment = g.text(&r, 25, 100)
	if r.intn(1, 10000) <= bbbPer10000 {
		word := bbbComplain
		if r.intn(0, 1) == 1 {
			word = bbbCommend
		}
		n := len(row.Comment)
		fixed := len(bbbBase) + len(word)
		noise := int(r.intn(0, int64(n-fixed)))
		off := int(r.intn(0, int64(n-fixed-noise)))
		start := len(arena)
		arena = append(arena, row.Comment...)
		c := arena[start:]
		copy(c[off:], bbbBase)
		copy(c[off+len(bbbBase)+noise:], word)
		row.Comment = c
	}
	return arena
}

func (g *Generator) customer(i int64, row *CustomerRow, arena []byte) []byte {
	r := rowRNG(g.seed, tagCustomer, i)
	row.CustKey = int32(i)
	arena, row.Address = vstring(&r, arena, 10, 40)
	row.NationKey = int32(r.intn(0, 24))
	phone(&r, row.NationKey, &row.Phone)
	row.AcctBal = Money(r.intn(-99999, 999999))
	row.MktSegment = segments[r.pick(len(segments))]
	row.Comment = g.text(&r, 29, 116)
	return arena
}

// numColors is len(colors).
const numColors = 92

// partTypes and partContainers are every combination of the syllables.
var partTypes, partContainers = func() ([]string, []string) {
	var ts, cs []string
	for _, a := range typeSyllable1 {
		for _, b := range typeSyllable2 {
			for _, c := range typeSyllable3 {
				ts = append(ts, a+" "+b+" "+c)
			}
		}
	}
	for _, a := range containerSyllable1 {
		for _, b := range containerSyllable2 {
			cs = append(cs, a+" "+b)
		}
	}
	return ts, cs
}()

func (g *Generator) part(i int64, row *PartRow) {
	r := rowRNG(g.seed, tagPart, i)
	row.PartKey = int32(i)
	// Five distinct colors: a partial Fisher-Yates shuffle.
	var idx [numColors]uint8
	for k := range idx {
		idx[k] = uint8(k)
	}
	for k := range 5 {
		j := k + r.pick(len(colors)-k)
		idx[k], idx[j] = idx[j], idx[k]
		row.Name[k] = colors[idx[k]]
	}
	row.Mfgr = int8(r.intn(1, 5))
	row.Brand = int8(r.intn(1, 5))
	row.Type = partTypes[r.pick(len(partTypes))]
	row.Size = int32(r.intn(1, 50))
	row.Container = partContainers[r.pick(len(partContainers))]
	row.RetailPrice = RetailPrice(row.PartKey)
	row.Comment = g.text(&r, 5, 22)
}

// partSupps fills the four partsupp rows of part i.
func (g *Generator) partSupps(i int64, rows *[4]PartSuppRow) {
	r := rowRNG(g.seed, tagPartSupp, i)
	for j := range int64(4) {
		row := &rows[j]
		row.PartKey = int32(i)
		row.SuppKey = g.suppKey(row.PartKey, j)
		row.AvailQty = int32(r.intn(1, 9999))
		row.SupplyCost = Money(r.intn(100, 100000))
		row.Comment = g.text(&r, 49, 198)
	}
}

// lineCount is the number of lineitems of order i: uniform in [1, 7].
func (g *Generator) lineCount(i int64) int {
	r := rowRNG(g.seed, tagLineCount, i)
	return int(r.intn(1, 7))
}

// orderDateSpan is the orderdates' range, STARTDATE to ENDDATE - 151
// days, so that every receipt date is at most ENDDATE.
const orderDateSpan = 2557 - 151 - 1 // [0, 2405] days after STARTDATE

// order fills order i (from 1) and its lines, reusing row.Lines.
func (g *Generator) order(i int64, row *OrderRow) {
	r := rowRNG(g.seed, tagOrders, i)
	row.OrderKey = OrderKey(i)
	// A third of the customers, those whose key is a multiple of 3,
	// have no orders (4.2.3): the k-th of the others.
	k := r.intn(0, g.customers-g.customers/3-1)
	row.CustKey = int32(3*(k/2) + 1 + k%2)
	row.OrderDate = StartDate + Date(r.intn(0, orderDateSpan))
	row.OrderPriority = priorities[r.pick(len(priorities))]
	row.Clerk = int32(r.intn(1, g.clerks))
	row.ShipPriority = 0
	row.Comment = g.text(&r, 19, 78)

	n := g.lineCount(i)
	lr := rowRNG(g.seed, tagLineItem, i)
	row.Lines = row.Lines[:0]
	var total int64
	shipped, open := 0, 0
	for j := 1; j <= n; j++ {
		var l LineItemRow
		l.OrderKey = row.OrderKey
		l.PartKey = int32(lr.intn(1, g.parts))
		l.SuppKey = g.suppKey(l.PartKey, lr.intn(0, 3))
		l.LineNumber = int32(j)
		l.Quantity = int32(lr.intn(1, 50))
		l.ExtendedPrice = Money(int64(l.Quantity)) * RetailPrice(l.PartKey)
		l.Discount = int8(lr.intn(0, 10))
		l.Tax = int8(lr.intn(0, 8))
		l.ShipDate = row.OrderDate + Date(lr.intn(1, 121))
		l.CommitDate = row.OrderDate + Date(lr.intn(30, 90))
		l.ReceiptDate = l.ShipDate + Date(lr.intn(1, 30))
		flag := lr.intn(0, 1)
		switch {
		case l.ReceiptDate > CurrentDate:
			l.ReturnFlag = 'N'
		case flag == 0:
			l.ReturnFlag = 'R'
		default:
			l.ReturnFlag = 'A'
		}
		if l.ShipDate > CurrentDate {
			l.LineStatus = 'O'
			open++
		} else {
			l.LineStatus = 'F'
			shipped++
		}
		l.ShipInstruct = instructions[lr.pick(len(instructions))]
		l.ShipMode = shipModes[lr.pick(len(shipModes))]
		l.Comment = g.text(&lr, 10, 43)
		// O_TOTALPRICE in cents as dbgen sums it: each line's price
		// after discount, then after tax, truncated to cents.
		p := int64(l.ExtendedPrice) * (100 - int64(l.Discount)) / 100
		total += p * (100 + int64(l.Tax)) / 100
		row.Lines = append(row.Lines, l)
	}
	row.TotalPrice = Money(total)
	switch {
	case open == 0:
		row.OrderStatus = 'F'
	case shipped == 0:
		row.OrderStatus = 'O'
	default:
		row.OrderStatus = 'P'
	}
}

// Each calls fn with every row of table t, in key order, one goroutine:
// for tests and small tables (WriteCopy is the fast path). fn receives a
// *RegionRow, *NationRow, ... or *LineItemRow, valid during the call.
func (g *Generator) Each(t Table, fn func(row any)) {
	var arena []byte
	n := g.units(t)
	var (
		rr RegionRow
		nr NationRow
		sr SupplierRow
		cr CustomerRow
		pr PartRow
		ps [4]PartSuppRow
		or OrderRow
	)
	for i := int64(0); i < n; i++ {
		arena = arena[:0]
		switch t {
		case Region:
			g.region(i, &rr)
			fn(&rr)
		case Nation:
			g.nation(i, &nr)
			fn(&nr)
		case Supplier:
			arena = g.supplier(i+1, &sr, arena)
			fn(&sr)
		case Customer:
			arena = g.customer(i+1, &cr, arena)
			fn(&cr)
		case Part:
			g.part(i+1, &pr)
			fn(&pr)
		case PartSupp:
			g.partSupps(i+1, &ps)
			for k := range ps {
				fn(&ps[k])
			}
		case Orders:
			g.order(i+1, &or)
			fn(&or)
		case LineItem:
			g.order(i+1, &or)
			for k := range or.Lines {
				fn(&or.Lines[k])
			}
		}
	}
}
