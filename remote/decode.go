package remote

// Decoding FETCH results into Arrow columns. Each column of a batch has a
// sink, which accumulates values of the local type in plain Go slices and
// bitmaps and wraps them as an Arrow array at the end, and a decoder,
// which turns one remote value (binary, or text for types decoded through
// the local input function) into the sink. The binary decoders of the
// fixed-width types write typed values straight into their sink, with no
// per-value allocation or boxing.

import (
	"encoding/binary"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// PostgreSQL's wire format codes.
const (
	textFormat   int16 = 0
	binaryFormat int16 = 1
)

// Type OIDs of the remote types decoded from the binary format.
const (
	oidBool        = 16
	oidName        = 19
	oidInt8        = 20
	oidInt2        = 21
	oidInt4        = 23
	oidText        = 25
	oidFloat4      = 700
	oidFloat8      = 701
	oidBpchar      = 1042
	oidVarchar     = 1043
	oidDate        = 1082
	oidTimestamp   = 1114
	oidTimestampTZ = 1184
	oidNumeric     = 1700
	oidInterval    = 1186
	oidTid         = 27
)

// PostgreSQL's binary dates and timestamps count from 2000-01-01, pgfed's
// from 1970-01-01.
const (
	pgEpochDays  = 10957                  // days from 1970-01-01 to 2000-01-01
	pgEpochUsecs = pgEpochDays * 86_400e6 // the same in microseconds
)

// fetchColumn is one column of a fetch: its decoder and the sink it fills.
type fetchColumn struct {
	dec decoder
	out sink
}

// decoder decodes one remote value (nil = NULL) into its sink.
type decoder interface {
	decode(v []byte) error
}

// sink accumulates the values of one local column.
type sink interface {
	// reset starts a new batch, reserving room for hint values.
	reset(hint int)
	appendNull()
	// appendDatum appends a non-NULL datum of the column's local type, in
	// the types package's convention.
	appendDatum(d any) error
	// finish returns the batch's values as an array of type dt.
	finish(dt arrow.DataType) arrow.Array
}

// newColumn chooses how to fetch and decode a remote column of type oid
// into local type t, returning the result format to ask the server for.
//
// Binary decoding is used where it gives exactly what postgres_fdw's text
// route (remote output function, local input function) would: same types,
// integers of any width (range-checked) and the string types among each
// other. Every other pair is fetched as text and read with t's input
// function (types.Parse), which is postgres_fdw's route itself; so are
// remote types unknown here.
func newColumn(oid uint32, t types.T) (fetchColumn, int16) {
	out := newSink(t)
	var dec decoder
	switch t.ID {
	case types.Bool:
		if oid == oidBool {
			dec = boolDecoder{out.(*boolSink)}
		}
	case types.Int2:
		dec = newIntDecoder(oid, out.(*fixedSink[int16]), t)
	case types.Int4:
		dec = newIntDecoder(oid, out.(*fixedSink[int32]), t)
	case types.Int8:
		if oid == oidTid {
			// A remote row identity (UPDATE and DELETE of foreign rows).
			dec = tidDecoder{out.(*fixedSink[int64])}
			break
		}
		dec = newIntDecoder(oid, out.(*fixedSink[int64]), t)
	case types.Float4:
		if oid == oidFloat4 {
			dec = float4Decoder{out.(*fixedSink[float32])}
		}
	case types.Float8:
		if oid == oidFloat8 {
			dec = float8Decoder{out.(*fixedSink[float64])}
		}
	case types.Numeric:
		if oid == oidNumeric {
			dec = &numericDecoder{out: out.(*stringSink), t: t}
		}
	case types.Text, types.Varchar, types.Bpchar, types.Name, types.Unknown:
		switch oid {
		case oidText, oidVarchar, oidBpchar, oidName:
			// These types' binary format is their text.
			return fetchColumn{dec: textDecoder{out: out, t: t}, out: out}, binaryFormat
		}
	case types.Date:
		if oid == oidDate {
			dec = dateDecoder{out.(*fixedSink[int32])}
		}
	case types.Timestamp:
		if oid == oidTimestamp {
			dec = timestampDecoder{out.(*fixedSink[int64])}
		}
	case types.TimestampTZ:
		if oid == oidTimestampTZ {
			dec = timestampDecoder{out.(*fixedSink[int64])}
		}
	case types.IntervalType:
		// With a typmod the local column may be narrower than the
		// remote one: the text route applies it.
		if oid == oidInterval && t.Len < 0 {
			dec = intervalDecoder{out.(*intervalSink)}
		}
	}
	if dec == nil {
		return fetchColumn{dec: textDecoder{out: out, t: t}, out: out}, textFormat
	}
	return fetchColumn{dec: dec, out: out}, binaryFormat
}

// newSink returns the sink for local type t's Arrow representation.
func newSink(t types.T) sink {
	switch t.ID {
	case types.Bool:
		return &boolSink{}
	case types.Int2:
		return &fixedSink[int16]{}
	case types.Int4, types.Date:
		return &fixedSink[int32]{}
	case types.Int8, types.Timestamp, types.TimestampTZ:
		return &fixedSink[int64]{}
	case types.Float4:
		return &fixedSink[float32]{}
	case types.Float8:
		return &fixedSink[float64]{}
	case types.IntervalType:
		return &intervalSink{}
	default: // numeric, the string types, unknown
		return &stringSink{t: t}
	}
}

// errMalformed reports a binary value that does not have its type's
// layout, which only a broken server or a wrong type OID can cause.
func errMalformed(typeName string) error {
	return pgerr.New(pgerr.InternalError, "remote server sent a malformed %s value", typeName)
}

// --- sinks

// validity is a column's validity bitmap, allocated at its first NULL.
type validity struct {
	bits  []byte
	nulls int
}

func (v *validity) reset() { *v = validity{} }

// markValid records that value i (the next one) is not NULL.
func (v *validity) markValid(i int) {
	if v.bits != nil {
		v.grow(i)
		v.bits[i>>3] |= 1 << (i & 7)
	}
}

// markNull records that value i (the next one) is NULL.
func (v *validity) markNull(i int) {
	if v.bits == nil {
		// Every value before this one was valid.
		v.bits = make([]byte, i>>3+1, max(i>>3+1, 64))
		for j := range i >> 3 {
			v.bits[j] = 0xff
		}
		v.bits[i>>3] = byte(1)<<(i&7) - 1
	}
	v.grow(i)
	v.nulls++
}

// grow makes room for bit i, whose byte may be new (and then zero).
func (v *validity) grow(i int) {
	for len(v.bits) <= i>>3 {
		v.bits = append(v.bits, 0)
	}
}

// buffer returns the bitmap as an Arrow buffer, nil when there is no NULL.
func (v *validity) buffer() *memory.Buffer {
	if v.bits == nil {
		return nil
	}
	return memory.NewBufferBytes(v.bits)
}

type fixedWidth interface {
	~int16 | ~int32 | ~int64 | ~float32 | ~float64
}

// fixedSink holds a column of a fixed-width Arrow type: integers, floats,
// Date32 (int32 days) and Timestamp (int64 microseconds).
type fixedSink[T fixedWidth] struct {
	vals  []T
	valid validity
}

func (s *fixedSink[T]) reset(hint int) {
	s.vals = make([]T, 0, hint)
	s.valid.reset()
}

func (s *fixedSink[T]) add(v T) {
	s.valid.markValid(len(s.vals))
	s.vals = append(s.vals, v)
}

func (s *fixedSink[T]) appendNull() {
	s.valid.markNull(len(s.vals))
	s.vals = append(s.vals, 0)
}

func (s *fixedSink[T]) appendDatum(d any) error {
	switch v := d.(type) {
	case int64:
		s.add(T(v))
	case int32:
		s.add(T(v))
	case float64:
		s.add(T(v))
	default:
		return pgerr.Internal("remote: %T datum for a fixed-width column", d)
	}
	return nil
}

func (s *fixedSink[T]) finish(dt arrow.DataType) arrow.Array {
	data := array.NewData(dt, len(s.vals),
		[]*memory.Buffer{s.valid.buffer(), memory.NewBufferBytes(arrow.GetBytes(s.vals))},
		nil, s.valid.nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// boolSink holds a boolean column as a bitmap.
type boolSink struct {
	bits  []byte
	n     int
	valid validity
}

func (s *boolSink) reset(hint int) {
	s.bits = make([]byte, 0, (hint+7)/8)
	s.n = 0
	s.valid.reset()
}

func (s *boolSink) add(b bool) {
	s.valid.markValid(s.n)
	s.addBit(b)
}

func (s *boolSink) addBit(b bool) {
	if s.n&7 == 0 {
		s.bits = append(s.bits, 0)
	}
	if b {
		s.bits[s.n>>3] |= 1 << (s.n & 7)
	}
	s.n++
}

func (s *boolSink) appendNull() {
	s.valid.markNull(s.n)
	s.addBit(false)
}

func (s *boolSink) appendDatum(d any) error {
	b, ok := d.(bool)
	if !ok {
		return pgerr.Internal("remote: %T datum for a boolean column", d)
	}
	s.add(b)
	return nil
}

func (s *boolSink) finish(dt arrow.DataType) arrow.Array {
	data := array.NewData(dt, s.n, []*memory.Buffer{s.valid.buffer(), memory.NewBufferBytes(s.bits)},
		nil, s.valid.nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// stringSink holds a String column (the string types, and numeric as its
// canonical text) as Arrow's offsets and data.
type stringSink struct {
	t       types.T
	offsets []int32
	data    []byte
	valid   validity
}

// avgStringBytes guesses the data size of a batch from its row count.
const avgStringBytes = 16

func (s *stringSink) reset(hint int) {
	s.offsets = make([]int32, 1, hint+1)
	s.data = make([]byte, 0, hint*avgStringBytes)
	s.valid.reset()
}

// endValue ends a value whose bytes were appended to data.
func (s *stringSink) endValue() error {
	if len(s.data) > math.MaxInt32 {
		return pgerr.New(pgerr.ProgramLimitExceeded, "remote: fetched batch exceeds 2 GB of text")
	}
	s.valid.markValid(len(s.offsets) - 1)
	s.offsets = append(s.offsets, int32(len(s.data)))
	return nil
}

func (s *stringSink) appendBytes(b []byte) error {
	s.data = append(s.data, b...)
	return s.endValue()
}

func (s *stringSink) appendNull() {
	s.valid.markNull(len(s.offsets) - 1)
	s.offsets = append(s.offsets, int32(len(s.data)))
}

func (s *stringSink) appendDatum(d any) error {
	s.data = types.AppendFormat(s.data, s.t, d)
	return s.endValue()
}

func (s *stringSink) finish(dt arrow.DataType) arrow.Array {
	data := array.NewData(dt, len(s.offsets)-1,
		[]*memory.Buffer{s.valid.buffer(), memory.NewBufferBytes(arrow.GetBytes(s.offsets)), memory.NewBufferBytes(s.data)},
		nil, s.valid.nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// intervalSink holds an interval column (Arrow MonthDayNano).
type intervalSink struct {
	vals  []arrow.MonthDayNanoInterval
	valid validity
}

func (s *intervalSink) reset(hint int) {
	s.vals = make([]arrow.MonthDayNanoInterval, 0, hint)
	s.valid.reset()
}

func (s *intervalSink) add(iv types.Interval) {
	s.valid.markValid(len(s.vals))
	s.vals = append(s.vals, arrow.MonthDayNanoInterval{Months: iv.Months, Days: iv.Days, Nanoseconds: iv.Micros * 1000})
}

func (s *intervalSink) appendNull() {
	s.valid.markNull(len(s.vals))
	s.vals = append(s.vals, arrow.MonthDayNanoInterval{})
}

func (s *intervalSink) appendDatum(d any) error {
	iv, ok := d.(types.Interval)
	if !ok {
		return pgerr.Internal("remote: %T datum for an interval column", d)
	}
	s.add(iv)
	return nil
}

func (s *intervalSink) finish(dt arrow.DataType) arrow.Array {
	data := array.NewData(dt, len(s.vals),
		[]*memory.Buffer{s.valid.buffer(), memory.NewBufferBytes(arrow.GetBytes(s.vals))},
		nil, s.valid.nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// --- decoders

// intervalDecoder reads interval's binary format: microseconds (int64),
// days and months (int32).
type intervalDecoder struct{ out *intervalSink }

func (d intervalDecoder) decode(v []byte) error {
	if v == nil {
		d.out.appendNull()
		return nil
	}
	if len(v) != 16 {
		return errMalformed("interval")
	}
	usec := int64(binary.BigEndian.Uint64(v))
	if usec > types.MaxIntervalMicros || usec < -types.MaxIntervalMicros {
		return pgerr.New(pgerr.DatetimeFieldOverflow, "interval out of range")
	}
	d.out.add(types.Interval{Months: int32(binary.BigEndian.Uint32(v[12:])), Days: int32(binary.BigEndian.Uint32(v[8:])), Micros: usec})
	return nil
}

type boolDecoder struct{ out *boolSink }

func (d boolDecoder) decode(v []byte) error {
	if v == nil {
		d.out.appendNull()
		return nil
	}
	if len(v) != 1 {
		return errMalformed("boolean")
	}
	d.out.add(v[0] != 0)
	return nil
}

// intDecoder reads a remote smallint, integer or bigint into a local
// integer column, checking the local range.
type intDecoder[T ~int16 | ~int32 | ~int64] struct {
	out    *fixedSink[T]
	width  int // bytes of the remote type
	lo, hi int64
	t      types.T
}

// newIntDecoder returns an intDecoder for a remote integer type, nil for
// other remote types.
func newIntDecoder[T ~int16 | ~int32 | ~int64](oid uint32, out *fixedSink[T], t types.T) decoder {
	var width int
	switch oid {
	case oidInt2:
		width = 2
	case oidInt4:
		width = 4
	case oidInt8:
		width = 8
	default:
		return nil
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	switch t.ID {
	case types.Int2:
		lo, hi = math.MinInt16, math.MaxInt16
	case types.Int4:
		lo, hi = math.MinInt32, math.MaxInt32
	}
	return &intDecoder[T]{out: out, width: width, lo: lo, hi: hi, t: t}
}

// tidDecoder reads a tid (4-byte block, 2-byte offset) as one int64,
// block << 16 | offset; TidText writes it back.
type tidDecoder struct{ out *fixedSink[int64] }

func (d tidDecoder) decode(v []byte) error {
	if v == nil {
		d.out.appendNull()
		return nil
	}
	if len(v) != 6 {
		return errMalformed("tid")
	}
	d.out.add(int64(binary.BigEndian.Uint32(v))<<16 | int64(binary.BigEndian.Uint16(v[4:])))
	return nil
}

func (d *intDecoder[T]) decode(v []byte) error {
	if v == nil {
		d.out.appendNull()
		return nil
	}
	if len(v) != d.width {
		return errMalformed("integer")
	}
	var x int64
	switch d.width {
	case 2:
		x = int64(int16(binary.BigEndian.Uint16(v)))
	case 4:
		x = int64(int32(binary.BigEndian.Uint32(v)))
	default:
		x = int64(binary.BigEndian.Uint64(v))
	}
	if x < d.lo || x > d.hi {
		// The local input function's error, as postgres_fdw gives:
		// value "3000000000" is out of range for type integer.
		_, err := types.Parse(d.t, strconv.FormatInt(x, 10))
		return err
	}
	d.out.add(T(x))
	return nil
}

type float4Decoder struct{ out *fixedSink[float32] }

func (d float4Decoder) decode(v []byte) error {
	if v == nil {
		d.out.appendNull()
		return nil
	}
	if len(v) != 4 {
		return errMalformed("real")
	}
	d.out.add(math.Float32frombits(binary.BigEndian.Uint32(v)))
	return nil
}

type float8Decoder struct{ out *fixedSink[float64] }

func (d float8Decoder) decode(v []byte) error {
	if v == nil {
		d.out.appendNull()
		return nil
	}
	if len(v) != 8 {
		return errMalformed("double precision")
	}
	d.out.add(math.Float64frombits(binary.BigEndian.Uint64(v)))
	return nil
}

type dateDecoder struct{ out *fixedSink[int32] }

func (d dateDecoder) decode(v []byte) error {
	if v == nil {
		d.out.appendNull()
		return nil
	}
	if len(v) != 4 {
		return errMalformed("date")
	}
	// PostgreSQL's ±infinity are the extreme int32 values, like pgfed's;
	// its finite dates end in 5874897, so shifting them cannot overflow.
	switch x := int32(binary.BigEndian.Uint32(v)); x {
	case math.MinInt32, math.MaxInt32:
		d.out.add(x)
	default:
		if x > math.MaxInt32-pgEpochDays {
			return pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range")
		}
		d.out.add(x + pgEpochDays)
	}
	return nil
}

// timestampDecoder reads timestamp and timestamptz, which have the same
// binary format (microseconds, UTC for timestamptz).
type timestampDecoder struct{ out *fixedSink[int64] }

func (d timestampDecoder) decode(v []byte) error {
	if v == nil {
		d.out.appendNull()
		return nil
	}
	if len(v) != 8 {
		return errMalformed("timestamp")
	}
	switch x := int64(binary.BigEndian.Uint64(v)); x {
	case math.MinInt64, math.MaxInt64:
		d.out.add(x)
	default:
		// Counting from 1970 runs out in 292277, before PostgreSQL's end
		// in 294276; the largest int64 is +infinity.
		if x >= math.MaxInt64-pgEpochUsecs {
			return pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
		}
		d.out.add(x + pgEpochUsecs)
	}
	return nil
}

// numericDecoder reads numeric's binary format into its canonical text.
// A local numeric(p,s) then rounds it with the input function.
type numericDecoder struct {
	out     *stringSink
	t       types.T
	scratch []byte
}

func (d *numericDecoder) decode(v []byte) error {
	if v == nil {
		d.out.appendNull()
		return nil
	}
	if d.t.Precision == 0 {
		var err error
		if d.out.data, err = appendNumericText(d.out.data, v); err != nil {
			return err
		}
		return d.out.endValue()
	}
	var err error
	if d.scratch, err = appendNumericText(d.scratch[:0], v); err != nil {
		return err
	}
	n, err := types.Parse(d.t, string(d.scratch))
	if err != nil {
		return err
	}
	return d.out.appendDatum(n)
}

// Sign words of numeric's binary format.
const (
	numericPos    = 0x0000
	numericNeg    = 0x4000
	numericNaN    = 0xC000
	numericPosInf = 0xD000
	numericNegInf = 0xF000
)

// appendNumericText appends the text of a numeric in binary format
// (ndigits, weight, sign, dscale, then ndigits base-10000 digits, the
// first of weight 10000^weight) as PostgreSQL's numeric_out writes it:
// every integer digit and exactly dscale fraction digits.
func appendNumericText(buf, v []byte) ([]byte, error) {
	if len(v) < 8 {
		return buf, errMalformed("numeric")
	}
	ndigits := int(int16(binary.BigEndian.Uint16(v)))
	weight := int(int16(binary.BigEndian.Uint16(v[2:])))
	sign := binary.BigEndian.Uint16(v[4:])
	dscale := int(int16(binary.BigEndian.Uint16(v[6:])))
	if ndigits < 0 || dscale < 0 || len(v) != 8+2*ndigits {
		return buf, errMalformed("numeric")
	}
	switch sign {
	case numericNaN:
		return append(buf, "NaN"...), nil
	case numericPosInf:
		return append(buf, "Infinity"...), nil
	case numericNegInf:
		return append(buf, "-Infinity"...), nil
	case numericPos, numericNeg:
	default:
		return buf, errMalformed("numeric")
	}
	digit := func(i int) int {
		if i < 0 || i >= ndigits {
			return 0
		}
		return int(binary.BigEndian.Uint16(v[8+2*i:]))
	}
	if sign == numericNeg {
		// PostgreSQL never stores a negative zero, but a zero is printed
		// without a sign whatever its sign word says.
		for i := range ndigits {
			if digit(i) != 0 {
				buf = append(buf, '-')
				break
			}
		}
	}
	if weight < 0 {
		buf = append(buf, '0')
	} else {
		for i := 0; i <= weight; i++ {
			dig := digit(i)
			if dig > 9999 {
				return buf, errMalformed("numeric")
			}
			if i == 0 {
				buf = strconv.AppendInt(buf, int64(dig), 10)
			} else {
				buf = append(buf, byte('0'+dig/1000), byte('0'+dig/100%10), byte('0'+dig/10%10), byte('0'+dig%10))
			}
		}
	}
	if dscale > 0 {
		buf = append(buf, '.')
		end := len(buf) + dscale
		for i := weight + 1; len(buf) < end; i++ {
			dig := digit(i)
			if dig > 9999 {
				return buf, errMalformed("numeric")
			}
			buf = append(buf, byte('0'+dig/1000), byte('0'+dig/100%10), byte('0'+dig/10%10), byte('0'+dig%10))
		}
		buf = buf[:end]
	}
	return buf, nil
}

// textDecoder reads a value through the local type's input function:
// text-format results of types without a binary decoder here, and the
// string types, whose binary format is their text (only a length
// modifier needs the input function then).
type textDecoder struct {
	out sink
	t   types.T
}

func (d textDecoder) decode(v []byte) error {
	if v == nil {
		d.out.appendNull()
		return nil
	}
	if s, ok := d.out.(*stringSink); ok && d.t.ID != types.Numeric && d.t.Len < 0 {
		return s.appendBytes(v)
	}
	datum, err := types.Parse(d.t, string(v))
	if err != nil {
		return err
	}
	return d.out.appendDatum(datum)
}
