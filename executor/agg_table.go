package executor

// groupTable is a hashed Agg's table of groups: it maps the group keys of
// a batch's rows to dense group numbers. Keys are normalized column by
// column into the hash join's key vectors (keyVec: one int64 word per row
// for integers, dates, timestamps, floats, booleans and char(1), whose
// few bytes are packed; bytes for other text, numeric and interval),
// hashed a whole batch at once (hashKeys), and looked up in one
// open-addressing array of slots. A group is no object:
// its keys are the g-th entries of flat per-column vectors, its NULL keys
// a bit mask, its aggregate states the g-th entries of the states' own
// vectors. The output key columns are rebuilt from those vectors, except
// where normalizing lost the value (bpchar's trailing spaces, 1.50 versus
// 1.5, -0 versus 0, '1 mon' versus '30 days'): those columns keep the
// first row of each group, as PostgreSQL's hash table keeps a group's
// first tuple.

import (
	"bytes"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

const (
	groupTableMinSlots = 16
	// maxGroupKeys bounds the keys of a groupTable: a group's NULL keys
	// are one uint32 mask.
	maxGroupKeys = 32
	// slotBytes is one slot: the hash's low 32 bits, then group + 1.
	slotBytes = 8
)

type groupTable struct {
	types []types.T
	forms []keyForm
	cols  []groupKeyCol
	nulls []uint32 // per group, bit c set when key c is NULL; nil until a group has one
	slots []uint64 // hash<<32 | group+1, 0 empty; at most 3/4 full
	mask  uint32
	n     int

	// per batch
	in       []keyVec
	hashes   []uint64
	rowNulls []uint32 // nil: no NULL key in the batch
	newRows  []int32  // the batch's rows that started a group
}

// groupKeyCol is one key column of every group.
type groupKeyCol struct {
	words []int64 // keyWords form
	data  []byte  // keyBytes form: group g is data[offs[g]:offs[g+1]]
	offs  []int32
	// firstRows holds the first row of each group (in group order, batch
	// by batch) when the column cannot be rebuilt from its normal form.
	firstRows []arrow.Array
	rowBytes  int64 // of firstRows
}

// groupTableFits reports whether keys of these types go in a groupTable
// (the others, and an Agg without keys, use the encoded-key map).
func groupTableFits(ts []types.T) bool {
	if len(ts) == 0 || len(ts) > maxGroupKeys {
		return false
	}
	for _, t := range ts {
		switch t.ID {
		case types.Bool, types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Date,
			types.Timestamp, types.TimestampTZ, types.IntervalType, types.Numeric,
			types.Text, types.Varchar, types.Bpchar, types.Name, types.Unknown:
		default:
			return false
		}
	}
	return true
}

func newGroupTable(ts []types.T) *groupTable {
	t := &groupTable{types: ts, cols: make([]groupKeyCol, len(ts)), in: make([]keyVec, len(ts))}
	for _, kt := range ts {
		t.forms = append(t.forms, groupKeyFormOf(kt))
	}
	t.slots = make([]uint64, groupTableMinSlots)
	t.mask = groupTableMinSlots - 1
	return t
}

// rebuilt reports whether key column c's output is rebuilt from its
// normal form.
func (t *groupTable) rebuilt(c int) bool {
	switch t.types[c].ID {
	case types.Float4, types.Float8, types.Bpchar, types.Numeric, types.IntervalType:
		return false
	}
	return true
}

// fitsArrays reports whether the key arrays are of the forms the table
// normalizes (a plan whose key types disagree with its data is not).
func (t *groupTable) fitsArrays(keys []arrow.Array) bool {
	for c, arr := range keys {
		switch arr.(type) {
		case *array.Int64, *array.Timestamp, *array.Int32, *array.Date32, *array.Int16,
			*array.Float64, *array.Float32, *array.Boolean:
			if t.forms[c].kind != keyWords {
				return false
			}
		case *array.String:
			if t.forms[c].kind != keyBytes && !t.forms[c].packed {
				return false
			}
		case *array.MonthDayNanoInterval:
			if t.forms[c].kind != keyBytes {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// load normalizes and hashes the keys of a batch.
func (t *groupTable) load(keys []arrow.Array) { t.loadSelected(keys, nil) }

// loadSelected is load for the rows sel of keys (all of them when sel is
// nil), read in place: row r of the loaded batch is row sel[r].
func (t *groupTable) loadSelected(keys []arrow.Array, sel []int32) {
	n := keys[0].Len()
	if sel != nil {
		n = len(sel)
	}
	t.rowNulls = t.rowNulls[:0]
	anyNull := false
	for c, arr := range keys {
		k := &t.in[c]
		switch {
		case arr.NullN() > 0:
		case sel == nil:
			k.load(arr, t.forms[c])
			continue
		default:
			k.reset()
			k.appendSelected(arr, t.forms[c], sel)
			continue
		}
		if !anyNull {
			t.rowNulls = append(t.rowNulls[:0], make([]uint32, n)...)
			anyNull = true
		}
		k.reset()
		k.appendSelected(arr, t.forms[c], sel)
		valid := validity(arr)
		for r := 0; r < n; r++ {
			row := r
			if sel != nil {
				row = int(sel[r])
			}
			if !isValid(valid, row) {
				t.rowNulls[r] |= 1 << c
				if t.forms[c].kind == keyWords {
					k.words[r] = 0 // NULLs are equal: one word for all
				}
			}
		}
	}
	if !anyNull {
		t.rowNulls = nil
	}
	if cap(t.hashes) < n {
		t.hashes = make([]uint64, n)
	}
	t.hashes = t.hashes[:n]
	hashKeys(t.in, t.forms, 0, n, t.hashes)
	for r, m := range t.rowNulls {
		if m != 0 {
			t.hashes[r] = mix64(t.hashes[r] ^ uint64(m)*0x9E3779B97F4A7C15)
		}
	}
}

// assign sets groups[r] to the group of each row of the loaded batch,
// adding groups while a admits them; a row whose new group is refused
// gets -1 and its partition marked.
func (t *groupTable) assign(a *aggOp, groups []int32) {
	t.newRows = t.newRows[:0]
	if len(t.cols) == 1 && t.forms[0].kind == keyWords && t.rowNulls == nil {
		t.assignWords(a, groups)
		return
	}
	if t.rowNulls == nil && t.nulls == nil && t.allWords() {
		t.assignAllWords(a, groups)
		return
	}
	for r, h := range t.hashes {
		var rowNull uint32
		if t.rowNulls != nil {
			rowNull = t.rowNulls[r]
		}
		tag := uint32(h)
		i := tag & t.mask
		for {
			s := t.slots[i]
			if s == 0 {
				groups[r] = t.add(a, r, i, tag, rowNull)
				break
			}
			if uint32(s>>32) == tag {
				if g := int32(uint32(s)) - 1; t.equal(g, r, rowNull) {
					groups[r] = g
					break
				}
			}
			i = (i + 1) & t.mask
		}
	}
}

// assignWords is assign for one integer-like key without NULLs in the
// batch: the comparison is one word, and a row with the key of the row
// before (tables stored in key order: lineitem by l_orderkey) takes that
// row's group, or its partition, without a probe.
func (t *groupTable) assignWords(a *aggOp, groups []int32) {
	in, keys := t.in[0].words, t.cols[0].words
	partOf := a.spill.partOf
	for r, h := range t.hashes {
		if r > 0 && in[r] == in[r-1] {
			if groups[r] = groups[r-1]; groups[r] < 0 {
				partOf[r] = partOf[r-1]
			}
			continue
		}
		tag := uint32(h)
		i := tag & t.mask
		for {
			s := t.slots[i]
			if s == 0 {
				groups[r] = t.add(a, r, i, tag, 0)
				keys = t.cols[0].words
				break
			}
			if uint32(s>>32) == tag {
				if g := int32(uint32(s)) - 1; keys[g] == in[r] && (t.nulls == nil || t.nulls[g] == 0) {
					groups[r] = g
					break
				}
			}
			i = (i + 1) & t.mask
		}
	}
}

// allWords reports whether every key column is of the word form.
func (t *groupTable) allWords() bool {
	for _, f := range t.forms {
		if f.kind != keyWords {
			return false
		}
	}
	return true
}

// assignAllWords is assign for several word keys, no NULL among the
// groups or the batch's rows: a group matches when every word does.
func (t *groupTable) assignAllWords(a *aggOp, groups []int32) {
	for r, h := range t.hashes {
		tag := uint32(h)
		i := tag & t.mask
		for {
			s := t.slots[i]
			if s == 0 {
				groups[r] = t.add(a, r, i, tag, 0)
				break
			}
			if uint32(s>>32) == tag {
				if g := int32(uint32(s)) - 1; t.equalWords(g, r) {
					groups[r] = g
					break
				}
			}
			i = (i + 1) & t.mask
		}
	}
}

func (t *groupTable) equalWords(g int32, r int) bool {
	for c := range t.cols {
		if t.cols[c].words[g] != t.in[c].words[r] {
			return false
		}
	}
	return true
}

func (t *groupTable) equal(g int32, r int, rowNull uint32) bool {
	var groupNull uint32
	if t.nulls != nil {
		groupNull = t.nulls[g]
	}
	if groupNull != rowNull {
		return false
	}
	for c := range t.cols {
		if rowNull&(1<<c) != 0 {
			continue
		}
		col, k := &t.cols[c], &t.in[c]
		if t.forms[c].kind == keyWords {
			if col.words[g] != k.words[r] {
				return false
			}
		} else if !bytes.Equal(col.data[col.offs[g]:col.offs[g+1]], k.data[k.offs[r]:k.offs[r+1]]) {
			return false
		}
	}
	return true
}

// add makes row r's keys a new group in the empty slot i, unless a
// refuses it (-1).
func (t *groupTable) add(a *aggOp, r int, i, tag uint32, rowNull uint32) int32 {
	if !a.spill.admit(a) {
		a.spill.markRow(r, t.hashes[r])
		return -1
	}
	g := int32(t.n)
	t.n++
	a.ngroups++
	t.slots[i] = uint64(tag)<<32 | uint64(g+1)
	for c := range t.cols {
		col, k := &t.cols[c], &t.in[c]
		if t.forms[c].kind == keyWords {
			col.words = append(col.words, k.words[r])
			continue
		}
		if len(col.offs) == 0 {
			col.offs = append(col.offs, 0)
		}
		col.data = append(col.data, k.data[k.offs[r]:k.offs[r+1]]...)
		col.offs = append(col.offs, int32(len(col.data)))
	}
	if rowNull != 0 && t.nulls == nil {
		t.nulls = make([]uint32, g, max(2*int(g), 16))
	}
	if t.nulls != nil {
		t.nulls = append(t.nulls, rowNull)
	}
	t.newRows = append(t.newRows, int32(r))
	if t.n > len(t.slots)/4*3 {
		t.grow()
	}
	return g
}

// grow doubles the slots, placing each group by the hash bits its slot
// keeps.
func (t *groupTable) grow() {
	old := t.slots
	t.slots = make([]uint64, 2*len(old))
	t.mask = uint32(len(t.slots) - 1)
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := uint32(s>>32) & t.mask
		for t.slots[i] != 0 {
			i = (i + 1) & t.mask
		}
		t.slots[i] = s
	}
}

// keepFirstRowsSelected is keepFirstRows for a batch loaded by
// loadSelected: the new groups' rows are sel's.
func (t *groupTable) keepFirstRowsSelected(keys []arrow.Array, sel []int32) {
	for i, r := range t.newRows {
		t.newRows[i] = sel[r]
	}
	t.keepFirstRows(keys)
}

// keepFirstRows keeps the batch's new groups' first rows of the columns
// that are not rebuilt.
func (t *groupTable) keepFirstRows(keys []arrow.Array) {
	if len(t.newRows) == 0 {
		return
	}
	for c := range t.cols {
		if t.rebuilt(c) {
			continue
		}
		rows := takeArray(keys[c], t.newRows)
		t.cols[c].firstRows = append(t.cols[c].firstRows, rows)
		t.cols[c].rowBytes += arrayBytes(rows)
	}
}

// release frees the first rows kept.
func (t *groupTable) release() {
	for c := range t.cols {
		releaseAll(t.cols[c].firstRows)
		t.cols[c].firstRows = nil
	}
}

// bytes is the memory the table holds: every vector's capacity.
func (t *groupTable) bytes() int64 {
	n := int64(cap(t.slots))*slotBytes + int64(cap(t.nulls))*4
	for c := range t.cols {
		col := &t.cols[c]
		n += int64(cap(col.words))*8 + int64(cap(col.data)) + int64(cap(col.offs))*4 + col.rowBytes
	}
	return n
}

// groupBytes is what one more group adds to the keys (the slots aside):
// for variable-width keys, the mean of the groups so far.
func (t *groupTable) groupBytes() int64 {
	var n int64
	if t.nulls != nil {
		n += 4
	}
	for c := range t.cols {
		col := &t.cols[c]
		if t.forms[c].kind == keyWords {
			n += 8
		} else {
			n += 4 + meanBytes(int64(len(col.data)), t.n)
		}
		if !t.rebuilt(c) {
			n += meanBytes(col.rowBytes, t.n)
		}
	}
	return n
}

func meanBytes(total int64, groups int) int64 {
	if groups == 0 {
		return 16
	}
	return (total + int64(groups) - 1) / int64(groups)
}

// groupsThatFit is how many more groups of perGroup bytes fit in room
// bytes, counting the larger slot arrays the table grows into: the most
// over the sizes the slots may reach (the slots grow when they are more
// than 3/4 full).
func (t *groupTable) groupsThatFit(room, perGroup int64) int64 {
	best := int64(0)
	for size := int64(len(t.slots)); ; size *= 2 {
		grown := (size - int64(len(t.slots))) * slotBytes
		if grown > room {
			return best
		}
		fit := (room - grown) / perGroup
		// a table of size slots holds size*3/4 groups before it grows
		if held := size/4*3 - int64(t.n); fit >= held {
			best = max(best, held)
			continue
		}
		return max(best, fit)
	}
}

// keyArrays returns the group keys as output columns.
func (t *groupTable) keyArrays() ([]arrow.Array, error) {
	out := make([]arrow.Array, 0, len(t.cols))
	for c := range t.cols {
		arr, err := t.keyArray(c)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out = append(out, arr)
	}
	return out, nil
}

func (t *groupTable) keyArray(c int) (arrow.Array, error) {
	col := &t.cols[c]
	if !t.rebuilt(c) {
		if len(col.firstRows) == 1 {
			col.firstRows[0].Retain()
			return col.firstRows[0], nil
		}
		return array.Concatenate(col.firstRows, alloc)
	}
	valid, nulls := t.validity(c)
	switch t.types[c].ID {
	case types.Bool:
		bits := make([]byte, bitutil.BytesForBits(int64(t.n)))
		for g, w := range col.words {
			if w != 0 {
				bitutil.SetBit(bits, g)
			}
		}
		return newBoolArray(bits, t.n, valid, nulls), nil
	case types.Int8, types.Timestamp, types.TimestampTZ:
		return newFixedArray(t.types[c].ArrowType(), col.words[:t.n:t.n], valid, nulls), nil
	case types.Int4, types.Date:
		return newFixedArray(t.types[c].ArrowType(), convertSlice[int64, int32](col.words), valid, nulls), nil
	case types.Int2:
		return newFixedArray(t.types[c].ArrowType(), convertSlice[int64, int16](col.words), valid, nulls), nil
	}
	// text, varchar, name, unknown: the bytes are the value
	if len(col.data) > math.MaxInt32 {
		return nil, pgerr.New(pgerr.ProgramLimitExceeded, "group keys exceed 2GB")
	}
	if len(col.offs) == 0 {
		col.offs = append(col.offs, 0)
	}
	offs := col.offs[: t.n+1 : t.n+1]
	data := col.data[:len(col.data):len(col.data)]
	return newStringArray(offs, data, valid, nulls), nil
}

// validity is the validity bitmap of key column c (nil: no NULLs).
func (t *groupTable) validity(c int) ([]byte, int) {
	if t.nulls == nil {
		return nil, 0
	}
	var valid []byte
	nulls := 0
	for g, m := range t.nulls {
		if m&(1<<c) == 0 {
			continue
		}
		if valid == nil {
			valid = make([]byte, bitutil.BytesForBits(int64(t.n)))
			bitutil.SetBitsTo(valid, 0, int64(t.n), true)
		}
		bitutil.ClearBit(valid, g)
		nulls++
	}
	return valid, nulls
}

// newStringArray wraps offsets, bytes and an optional validity bitmap as
// a string array.
func newStringArray(offs []int32, data []byte, valid []byte, nulls int) arrow.Array {
	var vb *memory.Buffer
	if valid != nil {
		vb = memory.NewBufferBytes(valid)
	}
	bufs := []*memory.Buffer{vb, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs)), memory.NewBufferBytes(data)}
	d := array.NewData(arrow.BinaryTypes.String, len(offs)-1, bufs, nil, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d)
}
