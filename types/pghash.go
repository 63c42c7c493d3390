package types

// PostgreSQL-compatible hashing. Hash partitioning decides a row's
// partition from the 64-bit "extended" hashes (hash opclass support
// function 2) of its key columns, so to route rows exactly as PostgreSQL 15
// does pgfed must reproduce those hashes bit for bit: the Jenkins lookup3
// variant in src/common/hashfn.c and the per-type wrappers around it
// (hashint4extended, hash_numeric_extended, hashtextextended, ...). The
// results match a little-endian server, which is every platform PostgreSQL
// is commonly built for; pgfed computes them the same way on any host.

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// HashPartitionSeed is the seed PostgreSQL passes to every key column's
// extended hash function when computing a row's hash for hash partitioning
// (HASH_PARTITION_SEED in partitioning/partbounds.h).
const HashPartitionSeed uint64 = 0x7A5B22367996DCFD

// HashCombine64 mixes hash b into the running hash a, exactly as
// PostgreSQL's hash_combine64 (common/hashfn.h) combines the per-column
// hashes of a multi-column partition key.
func HashCombine64(a, b uint64) uint64 {
	// 0x49a0f4dd15e5a8e3 is 64 bits of random data chosen by PostgreSQL.
	a ^= b + 0x49a0f4dd15e5a8e3 + (a << 54) + (a >> 7)
	return a
}

// Offsets between pgfed's epoch (1970-01-01) and PostgreSQL's (2000-01-01):
// date and timestamp hashes are taken over PostgreSQL's internal values.
const (
	postgresEpochDays   = 10957                              // days from 1970-01-01 to 2000-01-01
	postgresEpochMicros = postgresEpochDays * 86_400_000_000 // microseconds over the same span
)

// float8NaNBits is the bit pattern of PostgreSQL's canonical NaN
// (get_float8_nan(), i.e. C's NAN widened to double). hashfloat8extended
// replaces every NaN with it so that all NaNs hash alike. Go's math.NaN()
// has a different payload, so the bits are spelled out.
const float8NaNBits uint64 = 0x7FF8000000000000

// HashExtended is PostgreSQL's extended hash (the type's hash opclass
// support function 2) of a non-NULL datum of type t with the given seed.
// The datum follows the package's datum convention; a datum of the wrong Go
// type for t is a programming error and panics.
func HashExtended(t T, d any, seed uint64) uint64 {
	switch t.ID {
	case Bool:
		// bool_ops uses hashcharextended: the byte 0 or 1 as an int32.
		var v uint32
		if d.(bool) {
			v = 1
		}
		return hashUint32Extended(v, seed)
	case Int2, Int4:
		// hashint2extended and hashint4extended both hash the value as
		// an int32, so smallint and integer keys agree.
		return hashUint32Extended(uint32(int32(d.(int64))), seed)
	case Int8:
		return hashInt8Extended(d.(int64), seed)
	case Float4:
		// hashfloat4extended widens to float8 before hashing so that
		// equal real and double values hash alike. Narrowing first keeps
		// the stored float4 value even if the datum carries extra bits.
		return hashFloat8Extended(float64(float32(d.(float64))), seed)
	case Float8:
		return hashFloat8Extended(d.(float64), seed)
	case Numeric:
		return hashNumericExtended(d.(*apd.Decimal), seed)
	case Text, Varchar, Name, Unknown:
		// hashtextextended under a deterministic collation (C here)
		// hashes the raw bytes; varchar shares text's opclass, and
		// hashnameextended hashes name's bytes the same way.
		return hashBytesExtended(d.(string), seed)
	case Bpchar:
		// hashbpcharextended ignores trailing blanks, as bpchar
		// comparison does ('a' = 'a  ').
		return hashBytesExtended(strings.TrimRight(d.(string), " "), seed)
	case Date:
		// date_ops uses hashint4extended on DateADT (days since 2000).
		return hashUint32Extended(uint32(postgresDate(d.(int32))), seed)
	case Timestamp, TimestampTZ:
		// timestamp_hash_extended is hashint8extended on the Timestamp
		// (microseconds since 2000).
		return hashInt8Extended(postgresTimestamp(d.(int64)), seed)
	}
	panic(fmt.Sprintf("types: HashExtended: no hash function for type %s", t))
}

// postgresDate converts pgfed's date (days since 1970) to PostgreSQL's DateADT.
// The infinities are INT32_MIN/INT32_MAX in both representations.
func postgresDate(days int32) int32 {
	if days == DateNegInfinity || days == DatePosInfinity {
		return days
	}
	return days - postgresEpochDays
}

// postgresTimestamp converts pgfed's timestamp (microseconds since 1970) to
// PostgreSQL's Timestamp. The infinities are INT64_MIN/INT64_MAX in both.
func postgresTimestamp(us int64) int64 {
	if us == TimestampNegInfinity || us == TimestampPosInfinity {
		return us
	}
	return us - postgresEpochMicros
}

// hashInt8Extended is hashint8extended. It folds the high half into the
// low one (complemented for negative values) and hashes the result as an
// int32, so that an int8 within int4 range hashes like the same int4: the
// integer types share one hash opfamily and cross-type equality must hold.
func hashInt8Extended(v int64, seed uint64) uint64 {
	lo := uint32(v)
	hi := uint32(v >> 32)
	if v >= 0 {
		lo ^= hi
	} else {
		lo ^= ^hi
	}
	return hashUint32Extended(lo, seed)
}

// hashFloat8Extended is hashfloat8extended.
func hashFloat8Extended(v float64, seed uint64) uint64 {
	// 0 and -0 compare equal but differ in bits, so zero hashes to the
	// seed itself, as PostgreSQL special-cases it.
	if v == 0 {
		return seed
	}
	b := math.Float64bits(v)
	if math.IsNaN(v) {
		b = float8NaNBits
	}
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], b)
	return hashBytesExtended(buf[:], seed)
}

// hashNumericExtended is hash_numeric_extended. PostgreSQL hashes the
// base-10000 digits of the stored value with leading and trailing zero
// digits dropped, then XORs in the (sign-extended) weight, the base-10000
// exponent of the first non-zero digit. The sign and display scale are not
// hashed, so 1.50 and 1.5 (and, notably, 5 and -5) hash alike.
func hashNumericExtended(v *apd.Decimal, seed uint64) uint64 {
	if v.Form != apd.Finite {
		return seed // NaN and ±Infinity
	}
	if v.Coeff.Sign() == 0 {
		return seed - 1 // zero has no digits at all
	}
	digits, weight := numericNBase(v)
	buf := make([]byte, 2*len(digits))
	for i, g := range digits {
		// NumericDigit is an int16, stored (and so hashed) little-endian.
		binary.LittleEndian.PutUint16(buf[2*i:], g)
	}
	return hashBytesExtended(buf, seed) ^ uint64(int64(weight))
}

// numericNBase returns the base-10000 digits of a finite, non-zero numeric
// as PostgreSQL would hold them after stripping zero digits at both ends,
// and the weight of the first one (its power of 10000). The digit groups
// are aligned on the decimal point: 12345.678 is 1 2345 6780, weight 1.
func numericNBase(v *apd.Decimal) ([]uint16, int64) {
	// apd keeps the coefficient non-negative; trim a sign anyway since
	// PostgreSQL's hash ignores it.
	s := strings.TrimPrefix(v.Coeff.Text(10), "-")
	exp := int64(v.Exponent)
	// Trailing decimal zeros only move the exponent; dropping them here
	// makes the last group non-zero, as PostgreSQL's stripping does.
	for len(s) > 1 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
		exp++
	}
	// Decimal digit i of s stands for 10^p with p = high - i.
	high := exp + int64(len(s)) - 1
	weight := floorDiv4(high)
	digits := make([]uint16, weight-floorDiv4(exp)+1)
	for i := 0; i < len(s); i++ {
		p := high - int64(i)
		g := floorDiv4(p)
		digits[weight-g] += uint16(s[i]-'0') * pow10Small[p-4*g]
	}
	return digits, weight
}

// pow10Small holds the place values of decimal digits within one base-10000
// digit.
var pow10Small = [4]uint16{1, 10, 100, 1000}

// floorDiv4 is p/4 rounded towards negative infinity, the index of the
// base-10000 digit holding the decimal digit for 10^p.
func floorDiv4(p int64) int64 {
	q := p / 4
	if p%4 < 0 {
		q--
	}
	return q
}

// hashUint32Extended is hash_bytes_uint32_extended: hash_bytes_extended of
// the four bytes of k, computed without touching memory.
func hashUint32Extended(k uint32, seed uint64) uint64 {
	a, b, c := hashInit(4, seed)
	a += k
	a, b, c = jenkinsFinal(a, b, c)
	return uint64(b)<<32 | uint64(c)
}

// hashBytesExtended is hash_bytes_extended (hash_any_extended), Bob
// Jenkins' lookup3 hash as adapted by PostgreSQL, reading the key as
// little-endian words. It returns b and c of the final state as the high
// and low halves of the 64-bit result.
func hashBytesExtended[K ~string | ~[]byte](k K, seed uint64) uint64 {
	a, b, c := hashInit(uint32(len(k)), seed)
	for len(k) >= 12 {
		a += loadLE32(k[0:4])
		b += loadLE32(k[4:8])
		c += loadLE32(k[8:12])
		a, b, c = jenkinsMix(a, b, c)
		k = k[12:]
	}
	// The last 0..11 bytes are added like a zero-padded word triple,
	// except that c's bytes are shifted up by one: its lowest byte is
	// reserved for the length (which hashInit already folded in).
	var tail [12]byte
	copy(tail[:], k)
	a += binary.LittleEndian.Uint32(tail[0:4])
	b += binary.LittleEndian.Uint32(tail[4:8])
	c += binary.LittleEndian.Uint32(tail[8:12]) << 8
	a, b, c = jenkinsFinal(a, b, c)
	return uint64(b)<<32 | uint64(c)
}

// loadLE32 reads four bytes as a little-endian word.
func loadLE32[K ~string | ~[]byte](k K) uint32 {
	return uint32(k[0]) | uint32(k[1])<<8 | uint32(k[2])<<16 | uint32(k[3])<<24
}

// hashInit sets up lookup3's internal state for a key of n bytes. A
// non-zero seed is treated as an extra 12-byte chunk of data (its high
// and low words, then four zero bytes) mixed in before the key.
func hashInit(n uint32, seed uint64) (a, b, c uint32) {
	a = 0x9e3779b9 + n + 3923095
	b, c = a, a
	if seed != 0 {
		a += uint32(seed >> 32)
		b += uint32(seed)
		a, b, c = jenkinsMix(a, b, c)
	}
	return a, b, c
}

// jenkinsMix is lookup3's mix(): a reversible mixing of three words.
func jenkinsMix(a, b, c uint32) (uint32, uint32, uint32) {
	a -= c
	a ^= bits.RotateLeft32(c, 4)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 6)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 8)
	b += a
	a -= c
	a ^= bits.RotateLeft32(c, 16)
	c += b
	b -= a
	b ^= bits.RotateLeft32(a, 19)
	a += c
	c -= b
	c ^= bits.RotateLeft32(b, 4)
	b += a
	return a, b, c
}

// jenkinsFinal is lookup3's final(): the last avalanche of (a, b, c),
// after which c (and, for 64-bit results, b) is the hash.
func jenkinsFinal(a, b, c uint32) (uint32, uint32, uint32) {
	c ^= b
	c -= bits.RotateLeft32(b, 14)
	a ^= c
	a -= bits.RotateLeft32(c, 11)
	b ^= a
	b -= bits.RotateLeft32(a, 25)
	c ^= b
	c -= bits.RotateLeft32(b, 16)
	a ^= c
	a -= bits.RotateLeft32(c, 4)
	b ^= a
	b -= bits.RotateLeft32(a, 14)
	c ^= b
	c -= bits.RotateLeft32(b, 24)
	return a, b, c
}
