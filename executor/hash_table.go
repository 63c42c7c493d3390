package executor

// The hash join's table: a flat layout over the build rows, with no
// per-row objects. The table sorts the build rows by bucket (a counting
// sort, stable) and keeps them in that order, so that bucket b is the
// rows offs[b] to offs[b+1]-1, and each row's tag, which decides or
// prefilters a match (the key itself for one word key, else the row's
// 64-bit hash), is tags[row]: two flat arrays, 12 bytes a row. A probe
// costs about two cache misses (the bucket's offsets, its first tag),
// whatever the bucket holds, and the rows of a key with many duplicates
// lie side by side. Rows with a NULL key (kept for right and full joins)
// come after every bucket.
//
// Keys are compared in a normalized form (keyVec), one column at a time:
// integers, dates, timestamps and booleans as 64-bit words, floats as the
// bits of their float64 with -0 and NaNs made one value (float8eq says
// NaN = NaN), text as its bytes (char(n) without trailing spaces),
// numeric as its plain text without trailing fractional zeros, interval
// as the 16 bytes interval_cmp compares (types.IntervalKey). Equal values
// thus have equal forms, so they hash alike, and the forms compare with
// == or bytes.Equal. A row with a NULL in any key matches nothing.
//
// A batch's keys are hashed column by column into one []uint64 (hashKeys).
// The low bits choose the bucket, the high bits the spill partition
// (hash_join_spill.go), so the two never fight.

import (
	"bytes"
	"hash/maphash"
	"math"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// keyKind is how a key column is held.
type keyKind uint8

const (
	keyWords keyKind = iota // one int64 per row
	keyBytes                // bytes per row
)

// keyForm is how one key column is normalized.
type keyForm struct {
	kind keyKind
	t    types.T
	// packed: a char(1) key held as a word, its bytes (at most four,
	// trailing spaces removed) and their count packed (packShort).
	packed bool
}

func keyFormOf(t types.T) keyForm {
	switch t.ID {
	case types.Text, types.Varchar, types.Bpchar, types.Name, types.Unknown, types.Numeric, types.IntervalType:
		return keyForm{kind: keyBytes, t: t}
	}
	return keyForm{kind: keyWords, t: t}
}

// groupKeyFormOf is keyFormOf for a grouping key, whose column holds
// only values of its type: char(1) is packed into a word (flags such as
// TPC-H Q1's l_returnflag), and hashes and compares as one.
func groupKeyFormOf(t types.T) keyForm {
	if t.ID == types.Bpchar && t.Len == 1 {
		return keyForm{kind: keyWords, t: t, packed: true}
	}
	return keyFormOf(t)
}

// packShort is the word of a packed key: its length, then its bytes.
// Values longer than seven bytes are not packed (groupKeyFormOf packs
// only char(1), four bytes at most).
func packShort(s string) int64 {
	s = trimSpaces(s)
	if len(s) > 7 {
		panic(pgerr.Internal("executor: a key of %d bytes packed into a word", len(s)))
	}
	w := uint64(len(s))
	for i := 0; i < len(s); i++ {
		w |= uint64(s[i]) << (8 * (i + 1))
	}
	return int64(w)
}

// appendPacked appends the packed words of a's rows sel (nil: its first
// n rows). A value of one byte other than a space (a flag: 'A', 'F')
// packs without going through a string.
func (k *keyVec) appendPacked(a *array.String, sel []int32, n int) {
	offs, data := a.ValueOffsets(), a.ValueBytes()
	for j := range n {
		r := j
		if sel != nil {
			r = int(sel[j])
		}
		lo, hi := offs[r], offs[r+1]
		if hi-lo == 1 && data[lo] != ' ' {
			k.words = append(k.words, 1|int64(data[lo])<<8)
			continue
		}
		k.words = append(k.words, packShort(a.Value(r)))
	}
}

// keyVec is one key column of some rows in normalized form.
type keyVec struct {
	words []int64
	offs  []int // keyBytes: row i is data[offs[i]:offs[i+1]]
	data  []byte
	// aliased: words is an input array's buffer (load), never appended to.
	aliased bool
}

func (k *keyVec) reset() {
	if k.aliased {
		k.words, k.aliased = nil, false
	}
	k.words = k.words[:0]
	k.offs = append(k.offs[:0], 0)
	k.data = k.data[:0]
}

// load replaces k's rows with those of arr; a bigint or timestamp column
// is used in place.
func (k *keyVec) load(arr arrow.Array, f keyForm) {
	k.reset()
	switch arr.(type) {
	case *array.Int64, *array.Timestamp:
		k.words, k.aliased = valuesOf[int64](arr), true
		return
	}
	k.appendFrom(arr, f)
}

// appendFrom appends the rows of arr (NULL rows hold an arbitrary value).
func (k *keyVec) appendFrom(arr arrow.Array, f keyForm) {
	if len(k.offs) == 0 {
		k.offs = append(k.offs, 0)
	}
	n := arr.Len()
	switch a := arr.(type) {
	case *array.Int64, *array.Timestamp:
		k.words = append(k.words, valuesOf[int64](a)...)
	case *array.Int32, *array.Date32:
		for _, v := range valuesOf[int32](a) {
			k.words = append(k.words, int64(v))
		}
	case *array.Int16:
		for _, v := range valuesOf[int16](a) {
			k.words = append(k.words, int64(v))
		}
	case *array.Float64:
		for _, v := range valuesOf[float64](a) {
			k.words = append(k.words, floatWord(v))
		}
	case *array.Float32:
		for _, v := range valuesOf[float32](a) {
			k.words = append(k.words, floatWord(float64(v)))
		}
	case *array.Boolean:
		for i := 0; i < n; i++ {
			var w int64
			if a.Value(i) {
				w = 1
			}
			k.words = append(k.words, w)
		}
	case *array.String:
		if f.packed {
			k.appendPacked(a, nil, n)
			break
		}
		for i := 0; i < n; i++ {
			if a.IsValid(i) {
				k.data = appendStringKey(k.data, a.Value(i), f)
			}
			k.offs = append(k.offs, len(k.data))
		}
	case *array.MonthDayNanoInterval:
		for i := 0; i < n; i++ {
			if a.IsValid(i) {
				v := a.Value(i)
				k.data = types.IntervalKey(k.data, types.Interval{Months: v.Months, Days: v.Days, Micros: v.Nanoseconds / 1000})
			}
			k.offs = append(k.offs, len(k.data))
		}
	default:
		panic(errJoinKeyType(arr.DataType()))
	}
}

// appendStringKey appends text key s in its normalized form.
func appendStringKey(data []byte, s string, f keyForm) []byte {
	switch f.t.ID {
	case types.Numeric:
		return appendNumericKey(data, s)
	case types.Bpchar:
		return append(data, trimSpaces(s)...)
	}
	return append(data, s...)
}

// appendSelected appends the rows sel of arr (all of them when sel is
// nil), read in place; NULL rows hold an arbitrary value.
func (k *keyVec) appendSelected(arr arrow.Array, f keyForm, sel []int32) {
	if sel == nil {
		k.appendFrom(arr, f)
		return
	}
	if len(k.offs) == 0 {
		k.offs = append(k.offs, 0)
	}
	switch a := arr.(type) {
	case *array.Int64, *array.Timestamp:
		vals := valuesOf[int64](a)
		for _, r := range sel {
			k.words = append(k.words, vals[r])
		}
	case *array.Int32, *array.Date32:
		vals := valuesOf[int32](a)
		for _, r := range sel {
			k.words = append(k.words, int64(vals[r]))
		}
	case *array.String:
		if f.packed {
			k.appendPacked(a, sel, len(sel))
			break
		}
		for _, r := range sel {
			if a.IsValid(int(r)) {
				k.data = appendStringKey(k.data, a.Value(int(r)), f)
			}
			k.offs = append(k.offs, len(k.data))
		}
	default: // the rarer kinds: compacted first
		taken := takeArray(arr, sel)
		k.appendFrom(taken, f)
		taken.Release()
	}
}

func errJoinKeyType(dt arrow.DataType) error {
	return pgerr.Internal("executor: cannot hash join on %s", dt)
}

// floatWord is v's bits, with every zero and every NaN made one.
func floatWord(v float64) int64 {
	if v == 0 {
		v = 0
	}
	if v != v {
		v = math.NaN()
	}
	return int64(math.Float64bits(v))
}

func trimSpaces(s string) string {
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}

// appendNumericKey appends the form of numeric text s under which equal
// numbers are equal: plain notation without trailing fractional zeros
// (1.50 and 1.5, 0.00 and 0). Stored numerics are in numeric_out's plain
// notation already; anything else is parsed and printed first.
func appendNumericKey(buf []byte, s string) []byte {
	if !plainNumeric(s) {
		d, err := types.NumericFromString(s)
		if err != nil {
			panic(err)
		}
		s = types.Format(types.NumericT, d)
		if !plainNumeric(s) { // NaN, Infinity, -Infinity
			return append(buf, s...)
		}
	}
	if i := indexByte(s, '.'); i >= 0 {
		for len(s) > i+1 && s[len(s)-1] == '0' {
			s = s[:len(s)-1]
		}
		if len(s) == i+1 {
			s = s[:i]
		}
	}
	if s == "-0" {
		s = "0"
	}
	return append(buf, s...)
}

// plainNumeric reports whether s is -?(0|[1-9][0-9]*)(\.[0-9]+)?.
func plainNumeric(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == start || (s[start] == '0' && i-start > 1) {
		return false
	}
	if i == len(s) {
		return true
	}
	if s[i] != '.' {
		return false
	}
	i++
	frac := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i == len(s) && i > frac
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// mix64 is a bijective 64-bit mixer (splitmix64's finalizer): integer
// keys never collide, and every output bit depends on every input bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

var joinSeed = maphash.MakeSeed()

// hashKeys sets hashes[i] for the rows lo..hi of keys (column by column;
// the first column's hash, then each next one mixed in).
func hashKeys(keys []keyVec, forms []keyForm, lo, hi int, hashes []uint64) {
	for c := range keys {
		k := &keys[c]
		if forms[c].kind == keyWords {
			ws := k.words[lo:hi]
			if c == 0 {
				for i, w := range ws {
					hashes[i] = mix64(uint64(w))
				}
			} else {
				for i, w := range ws {
					hashes[i] = mix64(bits.RotateLeft64(hashes[i], 27) ^ uint64(w))
				}
			}
			continue
		}
		for i := lo; i < hi; i++ {
			h := maphash.Bytes(joinSeed, k.data[k.offs[i]:k.offs[i+1]])
			if c == 0 {
				hashes[i-lo] = h
			} else {
				hashes[i-lo] = mix64(bits.RotateLeft64(hashes[i-lo], 27) ^ h)
			}
		}
	}
}

// keyNulls returns, per row, whether any key is NULL (nil: none is).
func keyNulls(arrs []arrow.Array, buf []bool) []bool {
	var out []bool
	for _, a := range arrs {
		if a.NullN() == 0 {
			continue
		}
		if out == nil {
			n := a.Len()
			if cap(buf) < n {
				buf = make([]bool, n)
			}
			out = buf[:n]
			clear(out)
		}
		for i := range out {
			if a.IsNull(i) {
				out[i] = true
			}
		}
	}
	return out
}

// hashTable is the built side of a hash join (or of one partition).
type hashTable struct {
	batch   arrow.RecordBatch // the build rows in bucket order, nil when none
	rows    int
	forms   []keyForm
	keys    []keyVec // the rows' keys (unless oneWord: the tags are)
	offs    []uint32 // bucket b holds the rows offs[b] .. offs[b+1]-1
	tags    []uint64
	mask    uint64
	matched bitmap // right and full joins: rows that matched
	// oneWord: the key is one word column, compared as the tag (its hash
	// is a bijection of it, so the hash adds nothing).
	oneWord bool
}

// release frees the table's rows.
func (t *hashTable) release() {
	if t != nil && t.batch != nil {
		t.batch.Release()
		t.batch = nil
	}
}

// tableBytes estimates the memory of a table of rows over buckets,
// besides the rows' own batches.
func tableBytes(rows, buckets int, keys []keyVec, fillInner bool) int64 {
	n := int64(rows)*(8+8+4) + int64(buckets)*4 // tags; hashes and order while building
	for i := range keys {
		n += int64(len(keys[i].words))*8 + int64(len(keys[i].offs))*8 + int64(len(keys[i].data))
	}
	if fillInner {
		n += int64(rows)/8 + int64(rows)
	}
	return n
}

// bucketsFor is the power of two >= rows, at least min.
func bucketsFor(rows, min int) int {
	n := max(min, 1)
	for n < rows {
		n <<= 1
	}
	return n
}

// newHashTable sorts the rows of batch (whose keys, hashes and NULL-key
// flags are given; nullKey nil: none) into buckets, taking batch over
// when it returns (a cancel, which in's polls raise as a panic, leaves
// batch to the caller).
func newHashTable(batch arrow.RecordBatch, forms []keyForm, keys []keyVec, hashes []uint64, nullKey []bool,
	buckets int, in *interrupter) *hashTable {
	rows := len(hashes)
	t := &hashTable{rows: rows, forms: forms, mask: uint64(buckets - 1)}
	t.oneWord = len(forms) == 1 && forms[0].kind == keyWords
	offs := make([]uint32, buckets+1)
	mask := t.mask
	n := 0
	in.chunks(rows, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			if nullKey == nil || !nullKey[r] {
				offs[hashes[r]&mask]++
				n++
			}
		}
	})
	// offs[b] = the end of bucket b; filling it downwards from there, rows
	// in reverse, leaves offs[b] at its start and the bucket in row order.
	sum := uint32(0)
	for b, c := range offs[:buckets] {
		sum += c
		offs[b] = sum
	}
	offs[buckets] = sum
	order := make([]uint32, rows) // new position -> row read
	tags := make([]uint64, rows)
	nulls := n
	var words []int64
	if t.oneWord {
		words = keys[0].words
	}
	in.chunks(rows, func(lo, hi int) {
		lo, hi = rows-hi, rows-lo
		for r := hi - 1; r >= lo; r-- {
			if nullKey != nil && nullKey[r] {
				continue
			}
			h := hashes[r]
			b := h & mask
			tag := h
			if words != nil {
				tag = uint64(words[r])
			}
			offs[b]--
			order[offs[b]], tags[offs[b]] = uint32(r), tag
		}
	})
	for r, null := range nullKey {
		if null {
			order[nulls] = uint32(r)
			nulls++
		}
	}
	t.offs, t.tags = offs, tags
	t.batch = permuteBatch(batch, order)
	if !t.oneWord {
		t.keys = make([]keyVec, len(keys))
		for c := range keys {
			t.keys[c] = keys[c].permuted(order, forms[c])
		}
	}
	return t
}

// permuteBatch returns the rows order of b, taking b over; one column is
// copied at a time, so that at most one is held twice.
func permuteBatch(b arrow.RecordBatch, order []uint32) arrow.RecordBatch {
	if b == nil {
		return nil
	}
	sel := make([]int32, len(order))
	identity := true
	for i, r := range order {
		sel[i] = int32(r)
		identity = identity && int(r) == i
	}
	if identity {
		return b
	}
	cols := make([]arrow.Array, b.NumCols())
	for c := range cols {
		cols[c] = b.Column(c)
		cols[c].Retain()
	}
	schema := b.Schema()
	b.Release()
	for c, col := range cols {
		cols[c] = takeArray(col, sel)
		col.Release()
	}
	return makeBatch(schema, cols, len(order))
}

// permuted returns the rows order of k.
func (k *keyVec) permuted(order []uint32, f keyForm) keyVec {
	var out keyVec
	if f.kind == keyWords {
		out.words = make([]int64, len(order))
		for i, r := range order {
			out.words[i] = k.words[r]
		}
		return out
	}
	out.offs = make([]int, 1, len(order)+1)
	out.data = make([]byte, 0, len(k.data))
	for _, r := range order {
		out.data = append(out.data, k.data[k.offs[r]:k.offs[r+1]]...)
		out.offs = append(out.offs, len(out.data))
	}
	return out
}

// probeBatch is an outer batch being joined: its keys and hashes, and
// the state of its walk over the entries of its rows' buckets. The walk
// goes in rounds over the rows still to check (todo), each round one
// entry for each of them, as CockroachDB's vectorized hash join walks its
// chains: a round loads a block of entries in a loop of its own, so that
// their cache misses overlap instead of waiting for one another as in a
// row-at-a-time walk, then compares them. A round may stop at the
// output's limit and resume.
type probeBatch struct {
	b      arrow.RecordBatch
	n      int
	keys   []keyVec
	hashes []uint64
	nulls  []bool
	cur    []uint32 // per row: its next entry
	end    []uint32 // per row: the end of its bucket's entries
	todo   []int32  // the rows of this round with entries left
	pos    int      // the next position in todo of this round
	kept   int      // the rows of todo[:pos] kept for the next round
	walked bool     // every row's walk is done
	gath   []uint64 // the tags of a block of todo
	// matched marks rows with a match (left, full, semi, anti joins).
	matched  []bool
	arrs     []arrow.Array // the evaluated keys, which keys may alias
	nullBuf  []bool
	matchBuf []bool
}

// start points every row at its bucket's entries (a pass of its own: its
// loads are independent, so they overlap).
func (p *probeBatch) start(t *hashTable) {
	if cap(p.cur) < p.n {
		p.cur = make([]uint32, p.n)
		p.end = make([]uint32, p.n)
		p.todo = make([]int32, p.n)
	}
	cur, end := p.cur[:p.n], p.end[:p.n]
	p.cur, p.end = cur, end
	offs, mask := t.offs, t.mask
	for i, h := range p.hashes[:p.n] {
		b := h & mask
		cur[i], end[i] = offs[b], offs[b+1]
	}
	if p.nulls != nil {
		for i, null := range p.nulls {
			if null {
				end[i] = cur[i]
			}
		}
	}
	todo := p.todo[:p.n]
	n := 0
	for i := range cur {
		todo[n] = int32(i)
		n += int(b2u(cur[i] < end[i]))
	}
	p.todo, p.pos, p.kept, p.walked = todo[:n], 0, 0, n == 0
}

// probe appends to oi, ii the pairs (outer row, build row) with equal
// keys, continuing where the last call stopped, until limit pairs or the
// end of the batch. stopFirst takes only the first match of each row
// (semi and anti joins without a JoinFilter). skip, if set, holds rows
// that need no more matches (semi and anti joins: already matched).
func (t *hashTable) probe(p *probeBatch, oi, ii []int32, limit int, stopFirst bool, skip []bool, in *interrupter) ([]int32, []int32) {
	if skip != nil {
		p.drop(skip)
	}
	if cap(oi) < limit {
		oi, ii = make([]int32, 0, limit), make([]int32, 0, limit)
	}
	if cap(p.gath) < gatherBlock {
		p.gath = make([]uint64, gatherBlock)
	}
	for !p.walked && len(oi) < limit {
		start := p.pos
		if t.oneWord {
			oi, ii = t.roundWord(p, oi, ii, limit, stopFirst)
		} else {
			oi, ii = t.round(p, oi, ii, limit, stopFirst)
		}
		in.add(p.pos - start)
		if p.pos == len(p.todo) {
			// The round is over: the next one over the rows kept.
			p.todo, p.pos, p.kept = p.todo[:p.kept], 0, 0
			p.walked = len(p.todo) == 0
		}
	}
	return oi, ii
}

// drop takes the rows of skip out of the walk.
func (p *probeBatch) drop(skip []bool) {
	todo, kept := p.todo, 0
	for _, i := range todo[:p.kept] {
		if !skip[i] {
			todo[kept] = i
			kept++
		}
	}
	n := kept
	for _, i := range todo[p.pos:] {
		if !skip[i] {
			todo[n] = i
			n++
		}
	}
	p.todo, p.pos, p.kept = todo[:n], kept, kept
	if n == kept {
		p.todo, p.pos, p.kept = todo[:kept], 0, 0
		p.walked = kept == 0
	}
}

// gatherBlock is how many tags a round loads before it looks at them
// (32 kB of tags).
const gatherBlock = 4096

// gather loads the next tags of rows todo into g: a loop of independent
// loads and nothing else, so that many of them are under way at once.
// (With the comparisons and the stores whose place depends on them in the
// same loop, the processor's window holds too few steps for their cache
// misses to overlap: about 3 times slower.)
func (t *hashTable) gather(g []uint64, todo []int32, cur []uint32) []uint64 {
	g = g[:len(todo)]
	tags := t.tags
	for k, i := range todo {
		g[k] = tags[cur[i]]
	}
	return g
}

// roundWord walks one entry of the rows p.todo[p.pos:] for one word key,
// until the round ends or oi holds limit pairs (cap(oi) >= limit). Its
// compaction has no branch on the data: a mispredicted branch would
// cost more than the work it saves (a per-row scan of the bucket, whose
// loop ends unpredictably, is a third slower).
func (t *hashTable) roundWord(p *probeBatch, oi, ii []int32, limit int, stopFirst bool) ([]int32, []int32) {
	pk, cur, end, todo := p.keys[0].words, p.cur, p.end, p.todo
	pos, kept, n := p.pos, p.kept, len(oi)
	oi, ii = oi[:limit], ii[:limit]
	var stop uint32 // 1: a match ends the row's walk
	if stopFirst {
		stop = 1
	}
	for pos < len(todo) && n < limit {
		// At most limit - n entries: each gives at most one pair.
		blk := todo[pos:min(pos+gatherBlock, len(todo), pos+limit-n)]
		g := t.gather(p.gath, blk, cur)
		for k, i := range blk {
			c := cur[i]
			hit := b2u(g[k] == uint64(pk[i]))
			oi[n], ii[n] = i, int32(c)
			n += int(hit)
			c++
			cur[i] = c
			todo[kept] = i // kept <= pos + k: blk[k] is read already
			kept += int(b2u(c < end[i]) &^ (stop & hit))
		}
		pos += len(blk)
	}
	p.pos, p.kept = pos, kept
	return oi[:n], ii[:n]
}

// b2u is 1 for true, 0 for false, without a branch.
func b2u(b bool) uint32 {
	var u uint32
	if b {
		u = 1
	}
	return u
}

// round is roundWord for other keys: the hashes prefilter, the keys
// decide.
func (t *hashTable) round(p *probeBatch, oi, ii []int32, limit int, stopFirst bool) ([]int32, []int32) {
	hashes, cur, end, todo := p.hashes, p.cur, p.end, p.todo
	pos, kept := p.pos, p.kept
	for pos < len(todo) && len(oi) < limit {
		blk := todo[pos:min(pos+gatherBlock, len(todo), pos+limit-len(oi))]
		g := t.gather(p.gath, blk, cur)
		for k, i := range blk {
			r := cur[i]
			c := r + 1
			cur[i] = c
			more := c < end[i]
			if g[k] == hashes[i] && t.keysEqual(p, int(i), int(r)) {
				oi, ii = append(oi, i), append(ii, int32(r))
				more = more && !stopFirst
			}
			if more {
				todo[kept] = i
				kept++
			}
		}
		pos += len(blk)
	}
	p.pos, p.kept = pos, kept
	return oi, ii
}

// keysEqual compares the keys of probe row i and build row r.
func (t *hashTable) keysEqual(p *probeBatch, i, r int) bool {
	for c := range t.keys {
		bk, pk := &t.keys[c], &p.keys[c]
		if t.forms[c].kind == keyWords {
			if bk.words[r] != pk.words[i] {
				return false
			}
			continue
		}
		if !bytes.Equal(bk.data[bk.offs[r]:bk.offs[r+1]], pk.data[pk.offs[i]:pk.offs[i+1]]) {
			return false
		}
	}
	return true
}
