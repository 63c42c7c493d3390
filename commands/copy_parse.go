package commands

// Parsing a chunk of COPY FROM records (copy_split.go) into a batch of
// the table. The records are taken a block at a time: first each
// record of the block is split into fields (offsets into the chunk's
// text; a value with escapes or quotes is unescaped into text appended
// to the chunk), then each column converts its field of every row of
// the block in one loop (copy_columns.go), so that the block's text and
// offsets stay in cache while the columns go over them. The first bad
// record stops the chunk: the batch holds the rows before it and the
// error names its line (and column) as PostgreSQL's CONTEXT does.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/executor"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/storage"
)

// blockRows is how many records are split before their columns are
// converted.
const blockRows = 512

// fieldRef is where a field's value lies in a chunk's data; start < 0
// for NULL.
type fieldRef struct{ start, end int }

var nullField = fieldRef{-1, -1}

// copyParser turns chunks into batches of t. It is used by one
// goroutine at a time.
type copyParser struct {
	t     *storage.Table
	o     copyOptions
	null  []byte
	cols  []int        // the table column of each input field
	conv  []copyColumn // the converter of each input field
	fixed map[int]any  // the value of each table column not read (its DEFAULT or NULL)
	// fields holds the fields of a block's records, len(cols) a record.
	fields []fieldRef
	// broken is the error of a panic while parsing: its state is lost.
	broken error
}

func newCopyParser(t *storage.Table, o copyOptions, cols []int, defaults map[int]any) *copyParser {
	p := &copyParser{t: t, o: o, null: []byte(o.null), cols: cols, fixed: map[int]any{}}
	read := map[int]bool{}
	for _, c := range cols {
		p.conv = append(p.conv, newCopyColumn(t.Columns[c].Type))
		read[c] = true
	}
	for i := range t.Columns {
		if !read[i] {
			p.fixed[i] = defaults[i]
		}
	}
	return p
}

// parse converts ch's records from the first one on. It returns the
// batch of the rows before the first bad record (nil if none) and that
// record's error, with CONTEXT.
func (p *copyParser) parse(ch *copyChunk) (arrow.RecordBatch, error) {
	rows := 0
	for block := 0; block < ch.records(); block += blockRows {
		good, err := p.parseBlock(ch, block)
		rows += good
		if err != nil {
			for _, conv := range p.conv {
				conv.truncate(rows)
			}
			return p.finish(rows), err
		}
	}
	return p.finish(rows), nil
}

// parseBlock converts the records of the block starting at record block:
// it returns how many came out right, and the error of the next one.
// Each column stops at its first bad row, and the next columns convert
// only the rows before it, so the error is that of the first bad row's
// first bad column.
func (p *copyParser) parseBlock(ch *copyChunk, block int) (int, error) {
	good, err := p.splitBlock(ch, block, min(blockRows, ch.records()-block))
	for _, conv := range p.conv {
		conv.reserve(ch.records() - block)
	}
	for k, conv := range p.conv {
		ok, cerr := conv.convert(ch.data, p.fields, k, len(p.cols), good)
		if cerr != nil {
			f := p.fields[ok*len(p.cols)+k]
			where := fmt.Sprintf("line %d, column %s: %q", ch.firstLine+block+ok, p.t.Columns[p.cols[k]].Name, ch.data[f.start:f.end])
			good, err = ok, copyContext(cerr, p.t, where)
		}
	}
	return good, err
}

// finish builds the batch of the rows converted, nil if none.
func (p *copyParser) finish(rows int) arrow.RecordBatch {
	if rows == 0 {
		for _, conv := range p.conv {
			conv.truncate(0)
		}
		return nil
	}
	arrs := make([]arrow.Array, len(p.t.Columns))
	for k, c := range p.cols {
		arrs[c] = p.conv[k].finish()
	}
	for c, v := range p.fixed {
		ds := make([]any, rows)
		if v != nil {
			for i := range ds {
				ds[i] = v
			}
		}
		arrs[c] = executor.ArrayOfDatums(p.t.Columns[c].Type, ds)
	}
	return executor.MakeBatch(p.t.ArrowSchema(), arrs, rows)
}

// splitBlock splits records [block, block+n) of ch into p.fields. It
// returns how many records came out right, and the error of the next.
func (p *copyParser) splitBlock(ch *copyChunk, block, n int) (int, error) {
	want := len(p.cols)
	p.fields = p.fields[:0]
	for r := 0; r < n; r++ {
		got := p.split(ch, block+r)
		switch {
		case got < want:
			return r, copyContext(pgerr.New(pgerr.BadCopyFileFormat, "missing data for column %q", p.t.Columns[p.cols[got]].Name),
				p.t, lineContext(ch.firstLine+block+r, string(ch.record(block+r))))
		case got > want:
			return r, copyContext(pgerr.New(pgerr.BadCopyFileFormat, "extra data after last expected column"),
				p.t, lineContext(ch.firstLine+block+r, string(ch.record(block+r))))
		}
	}
	return n, nil
}

// split appends the fields of record i of ch to p.fields and returns
// how many it has.
func (p *copyParser) split(ch *copyChunk, i int) int {
	start := 0
	if i > 0 {
		start = ch.ends[i-1]
	}
	end := ch.ends[i]
	before := len(p.fields)
	special := byte('\\') // what makes a record not plain
	if p.o.csv {
		special = p.o.quote
	}
	if !p.splitPlain(ch.data[start:end], start, special) {
		p.fields = p.fields[:before]
		if p.o.csv {
			p.splitCSV(ch, start, end)
		} else {
			p.splitEscapedText(ch, start, end)
		}
	}
	return len(p.fields) - before
}

// splitPlain splits a record without escapes (text) or quotes (CSV),
// special: each field is its text, NULL if that is the NULL string. It
// looks at eight bytes at a time for the delimiters, and returns false
// as soon as it meets special (leaving some fields appended).
func (p *copyParser) splitPlain(rec []byte, base int, special byte) bool {
	delim := p.o.delimiter
	delims, specials := uint64(delim)*0x0101010101010101, uint64(special)*0x0101010101010101
	field, i := 0, 0
	for ; i+8 <= len(rec); i += 8 {
		w := binary.LittleEndian.Uint64(rec[i:])
		if zeroBytes(w^specials) != 0 {
			return false
		}
		for m := zeroBytes(w ^ delims); m != 0; m &= m - 1 {
			end := i + bits.TrailingZeros64(m)>>3
			p.fields = append(p.fields, p.plainField(rec[field:end], base+field, base+end))
			field = end + 1
		}
	}
	for ; i < len(rec); i++ {
		switch rec[i] {
		case special:
			return false
		case delim:
			p.fields = append(p.fields, p.plainField(rec[field:i], base+field, base+i))
			field = i + 1
		}
	}
	p.fields = append(p.fields, p.plainField(rec[field:], base+field, base+len(rec)))
	return true
}

// zeroBytes returns the high bit of each byte of w that is zero (exactly:
// the low seven bits are added apart, so no carry crosses bytes).
func zeroBytes(w uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	return ^((w&low7 + low7) | w | low7)
}

func (p *copyParser) plainField(v []byte, start, end int) fieldRef {
	if len(v) == len(p.null) && bytes.Equal(v, p.null) {
		return nullField
	}
	return fieldRef{start, end}
}

// splitEscapedText splits a text-format record with backslashes: a
// backslash escapes the next byte (the delimiter too); a field is NULL
// if its text before unescaping is the NULL string.
func (p *copyParser) splitEscapedText(ch *copyChunk, start, end int) {
	rec := ch.data[start:end]
	delim := p.o.delimiter
	field := 0
	for i := 0; i < len(rec); i++ {
		switch rec[i] {
		case '\\':
			i++ // the next byte is escaped, whatever it is
		case delim:
			p.escapedField(ch, rec[field:i], start+field)
			field = i + 1
		}
	}
	p.escapedField(ch, rec[field:], start+field)
}

// escapedField appends the field of raw text raw, at offset at of
// ch.data.
func (p *copyParser) escapedField(ch *copyChunk, raw []byte, at int) {
	switch {
	case len(raw) == len(p.null) && bytes.Equal(raw, p.null):
		p.fields = append(p.fields, nullField)
	case bytes.IndexByte(raw, '\\') < 0:
		p.fields = append(p.fields, fieldRef{at, at + len(raw)})
	default:
		from := len(ch.data)
		ch.data = appendUnescaped(ch.data, raw)
		p.fields = append(p.fields, fieldRef{from, len(ch.data)})
	}
}

// appendUnescaped appends s with the text format's backslash escapes
// undone: \b \f \n \r \t \v, \x with one or two hex digits, one to three
// octal digits, and any other byte stands for itself.
func appendUnescaped(dst, s []byte) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			dst = append(dst, c)
			continue
		}
		i++
		switch s[i] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'v':
			dst = append(dst, '\v')
		case 'x':
			var v byte
			j := i + 1
			for ; j < len(s) && j < i+3 && isHex(s[j]); j++ {
				v = v<<4 | hexValue(s[j])
			}
			if j == i+1 {
				dst = append(dst, 'x')
				continue
			}
			dst = append(dst, v)
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			var v byte
			j := i
			for ; j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7'; j++ {
				v = v<<3 | (s[j] - '0')
			}
			dst = append(dst, v)
			i = j - 1
		default:
			dst = append(dst, s[i])
		}
	}
	return dst
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexValue(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// splitCSV splits a CSV record with quotes. A field without quotes is its
// text (NULL if that is the NULL string); in one with quotes, the quotes
// are taken out and, inside them, the escape character before a quote or
// itself stands for that byte; the value is appended to ch.data. A
// quoted field is never NULL.
func (p *copyParser) splitCSV(ch *copyChunk, start, end int) {
	rec := ch.data[start:end]
	delim, quote, escape := p.o.delimiter, p.o.quote, p.o.escape
	pos := 0
	for {
		// Up to the first quote or delimiter the field is plain.
		j := pos
		for j < len(rec) && rec[j] != delim && rec[j] != quote {
			j++
		}
		if j == len(rec) || rec[j] == delim {
			p.fields = append(p.fields, p.plainField(rec[pos:j], start+pos, start+j))
			if j == len(rec) {
				return
			}
			pos = j + 1
			continue
		}
		if close, ok := p.simpleQuoted(rec, pos, j); ok {
			// "text" alone: the value is the text between the quotes.
			p.fields = append(p.fields, fieldRef{start + j + 1, start + close})
			if close+1 == len(rec) {
				return
			}
			pos = close + 2
			continue
		}
		from := len(ch.data)
		ch.data = append(ch.data, rec[pos:j]...)
		inQuote := false
		for ; j < len(rec); j++ {
			c := rec[j]
			switch {
			case inQuote && c == escape && j+1 < len(rec) && (rec[j+1] == quote || rec[j+1] == escape):
				ch.data = append(ch.data, rec[j+1])
				j++
			case inQuote && c == quote:
				inQuote = false
			case inQuote:
				ch.data = append(ch.data, c)
			case c == quote:
				inQuote = true
			case c == delim:
				goto fieldEnd
			default:
				ch.data = append(ch.data, c)
			}
		}
	fieldEnd:
		p.fields = append(p.fields, fieldRef{from, len(ch.data)})
		if j >= len(rec) {
			return
		}
		pos = j + 1
	}
}

// simpleQuoted reports whether the field starting at pos of rec, whose
// first quote is at q, is a quoted text alone with no quote or escape
// inside, and where its closing quote is.
func (p *copyParser) simpleQuoted(rec []byte, pos, q int) (int, bool) {
	if q != pos {
		return 0, false
	}
	i := bytes.IndexByte(rec[q+1:], p.o.quote)
	if i < 0 {
		return 0, false
	}
	close := q + 1 + i
	if close+1 < len(rec) && rec[close+1] != p.o.delimiter {
		return 0, false // "a""b" or "a"b
	}
	if p.o.escape != p.o.quote && bytes.IndexByte(rec[q+1:close], p.o.escape) >= 0 {
		return 0, false
	}
	return close, true
}

// headerFields returns the values of record 0 of ch, for HEADER MATCH.
func (p *copyParser) headerFields(ch *copyChunk) []string {
	p.fields = p.fields[:0]
	p.split(ch, 0)
	out := make([]string, len(p.fields))
	for i, f := range p.fields {
		if f.start >= 0 {
			out[i] = string(ch.data[f.start:f.end])
		} else {
			out[i] = p.o.null
		}
	}
	return out
}
