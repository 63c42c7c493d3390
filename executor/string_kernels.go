package executor

// String kernels: functions and operators over a text column evaluated a
// batch at a time, with the results of the row-at-a-time implementations
// (funcs' for functions, likeMatch for LIKE) used for everything else.
//
// substring(s, start [, count]) and substr with constant start and count:
// TPC-H's substring(c_phone from 1 for 2), run over every row. Each value
// is cut by characters; an ASCII prefix (the usual case) by bytes. A
// negative constant count, which PostgreSQL reports for every non-NULL
// row, is left to the row-at-a-time implementation.

import (
	"math"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// substrEval cuts characters [start, end) (1-based, end exclusive, as
// substrImpl clamps them) out of each value of arg.
type substrEval struct {
	arg        evaluator
	start, end int64
}

// compileStringKernel returns the kernel for x, or ok false.
func compileStringKernel(x *nodes.FuncExpr, ec *ExecContext) (evaluator, bool, error) {
	if x.Name != "substring" && x.Name != "substr" || len(x.Args) < 2 || !plainText(x.Args[0].Type()) {
		return nil, false, nil
	}
	start, ok := intConstValue(x.Args[1])
	if !ok {
		return nil, false, nil
	}
	end := int64(math.MaxInt64)
	if len(x.Args) == 3 {
		count, ok := intConstValue(x.Args[2])
		if !ok || count < 0 {
			return nil, false, nil
		}
		if end = start + count; end < start { // overflow
			end = math.MaxInt64
		}
	}
	arg, err := compileExpr(x.Args[0], ec)
	if err != nil {
		return nil, false, err
	}
	return &substrEval{arg: arg, start: max(start, 1), end: end}, true, nil
}

// plainText: text and varchar, whose values are cut as stored (char(n)
// reaches substring cast to text, its padding removed).
func plainText(t types.T) bool { return t.ID == types.Text || t.ID == types.Varchar }

// intConstValue is a non-NULL integer constant's value.
func intConstValue(e nodes.Expr) (int64, bool) {
	c, ok := e.(*nodes.Const)
	if !ok || !c.T.IsInteger() {
		return 0, false
	}
	switch v := c.Value.(type) {
	case int64:
		return v, true
	case int32:
		return int64(v), true
	case int16:
		return int64(v), true
	}
	return 0, false
}

// stringArg evaluates a kernel's text argument over b; the caller
// releases it.
func stringArg(ev evaluator, b arrow.RecordBatch, kernel string) (*array.String, error) {
	in, err := ev.eval(b)
	if err != nil {
		return nil, err
	}
	a, ok := in.(*array.String)
	if !ok {
		in.Release()
		return nil, pgerr.Internal("executor: %s over %s", kernel, in.DataType())
	}
	return a, nil
}

func (s *substrEval) eval(b arrow.RecordBatch) (arrow.Array, error) {
	a, err := stringArg(s.arg, b, "substring")
	if err != nil {
		return nil, err
	}
	defer a.Release()
	n := a.Len()
	offs := make([]int32, n+1)
	data := make([]byte, 0, len(a.ValueBytes()))
	for i := 0; i < n; i++ {
		if a.IsValid(i) {
			data = append(data, cutChars(a.Value(i), s.start, s.end)...)
		}
		offs[i+1] = int32(len(data))
	}
	valid, nulls := copyValidity(a)
	return newStringArray(offs, data, valid, nulls), nil
}

// cutChars is characters [start, end) of v (start >= 1).
func cutChars(v string, start, end int64) string {
	if end <= start {
		return ""
	}
	from, to := -1, len(v)
	var pos int64 = 1 // the character at byte i
	for i := 0; i < len(v); pos++ {
		if pos == start {
			from = i
		}
		if pos == end {
			to = i
			break
		}
		if v[i] < utf8.RuneSelf {
			i++
		} else {
			_, size := utf8.DecodeRuneInString(v[i:])
			i += size
		}
	}
	if from < 0 || from >= to {
		return ""
	}
	return v[from:to]
}

// copyValidity is a's validity bitmap, aligned to its first row, and
// its NULL count (nil, 0 without NULLs).
func copyValidity(a arrow.Array) ([]byte, int) {
	if a.NullN() == 0 {
		return nil, 0
	}
	n := a.Len()
	valid := make([]byte, (n+7)/8)
	for i := 0; i < n; i++ {
		if a.IsValid(i) {
			valid[i>>3] |= 1 << (i & 7)
		}
	}
	return valid, a.NullN()
}

// LIKE and NOT LIKE with a constant pattern of literals and % only (no
// _, no escape at its end) over a text column: the pattern is its
// literal segments, found in order by byte search. Leftmost matches are
// enough: any match of the segments in order can be moved to the
// leftmost one without losing the ones after it. UTF-8 keeps a literal
// from matching inside a character, so bytes give likeMatch's answers.
type likeSegments struct {
	arg      evaluator
	segs     []string
	anchorLo bool // the pattern does not start with %
	anchorHi bool // nor end with it
	neg      bool
}

// compileLikeKernel returns the kernel for x, or ok false.
func compileLikeKernel(x *nodes.OpExpr, ec *ExecContext) (evaluator, bool, error) {
	if strings.HasSuffix(x.Op, "*") || !plainText(x.Left.Type()) {
		return nil, false, nil
	}
	c, isConst := x.Right.(*nodes.Const)
	if !isConst {
		return nil, false, nil
	}
	p, isText := c.Value.(string)
	if !isText {
		return nil, false, nil
	}
	toks, err := compileLikePattern(p)
	if err != nil {
		return nil, false, nil
	}
	k := &likeSegments{neg: strings.HasPrefix(x.Op, "!")}
	var seg []rune
	for _, t := range toks {
		switch t.kind {
		case 'l':
			seg = append(seg, t.r)
		case '%':
			k.segs = append(k.segs, string(seg))
			seg = seg[:0]
		default:
			return nil, false, nil
		}
	}
	k.anchorLo = len(toks) == 0 || toks[0].kind != '%'
	k.anchorHi = len(toks) == 0 || toks[len(toks)-1].kind != '%'
	k.segs = append(k.segs, string(seg))
	if k.arg, err = compileExpr(x.Left, ec); err != nil {
		return nil, false, err
	}
	return k, true, nil
}

// match reports whether s matches the segments.
func (k *likeSegments) match(s string) bool {
	segs := k.segs
	if len(segs) == 1 { // no %: equality
		return s == segs[0]
	}
	pos := 0
	if k.anchorLo {
		if !strings.HasPrefix(s, segs[0]) {
			return false
		}
		pos = len(segs[0])
	}
	last := len(segs) - 1
	for _, seg := range segs[1:last] {
		i := strings.Index(s[pos:], seg)
		if i < 0 {
			return false
		}
		pos += i + len(seg)
	}
	if k.anchorHi {
		return len(s)-len(segs[last]) >= pos && strings.HasSuffix(s, segs[last])
	}
	return strings.Contains(s[pos:], segs[last])
}

func (k *likeSegments) eval(b arrow.RecordBatch) (arrow.Array, error) {
	a, err := stringArg(k.arg, b, "LIKE")
	if err != nil {
		return nil, err
	}
	defer a.Release()
	n := a.Len()
	bits := make([]byte, (n+7)/8)
	for i := 0; i < n; i++ {
		if a.IsValid(i) && k.match(a.Value(i)) != k.neg {
			bits[i>>3] |= 1 << (i & 7)
		}
	}
	valid, nulls := copyValidity(a)
	return newBoolArray(bits, n, valid, nulls), nil
}
