package types

import "github.com/pgfed/pgfed/pgerr"

// PostgreSQL's size limits on single values and on type modifiers.
const (
	// MaxValueBytes is the largest value PostgreSQL can build in memory,
	// MaxAllocSize - 1 (1 GB - 1): a text longer than this is 54000
	// "out of memory" (string_agg, ||, concat) or 54000 "requested length
	// too large" (repeat). Functions that build strings check it before
	// allocating.
	MaxValueBytes = 1<<30 - 1

	// MaxAttrSize is the largest length varchar(n) and char(n) accept
	// (10 MB, PostgreSQL's MaxAttrSize).
	MaxAttrSize = 10 * 1024 * 1024

	// NumericMaxPrecision, NumericMinScale and NumericMaxScale bound
	// numeric(p,s)'s modifiers (NUMERIC_MAX_PRECISION, NUMERIC_MIN_SCALE,
	// NUMERIC_MAX_SCALE).
	NumericMaxPrecision = 1000
	NumericMinScale     = -1000
	NumericMaxScale     = 1000
)

// CheckConcatSize reports PostgreSQL's error for a string of have bytes
// growing by more bytes past MaxValueBytes: enlargeStringInfo's 54000
// "out of memory" with "Cannot enlarge string buffer containing %d bytes
// by %d more bytes." (string_agg and the functions that build text in a
// StringInfo).
func CheckConcatSize(have, more int) error {
	if more < 0 || more >= MaxValueBytes-have {
		return pgerr.New(pgerr.ProgramLimitExceeded, "out of memory").
			WithDetail("Cannot enlarge string buffer containing %d bytes by %d more bytes.", have, more)
	}
	return nil
}

// VarHdrSize is the 4-byte length header PostgreSQL allocates with every
// text value (VARHDRSZ); it counts against the allocation limit.
const VarHdrSize = 4

// CheckTextSize reports the error PostgreSQL's palloc gives for a text of
// n bytes whose allocation (with its header) passes MaxValueBytes: XX000
// "invalid memory alloc request size N" (as text || text does).
func CheckTextSize(n int) error {
	if int64(n)+VarHdrSize > MaxValueBytes {
		return pgerr.New(pgerr.InternalError, "invalid memory alloc request size %d", int64(n)+VarHdrSize)
	}
	return nil
}

// ErrRequestedLengthTooLarge is 54000 "requested length too large", as
// repeat, lpad and rpad report a result past MaxValueBytes.
func ErrRequestedLengthTooLarge() error {
	return pgerr.New(pgerr.ProgramLimitExceeded, "requested length too large")
}
