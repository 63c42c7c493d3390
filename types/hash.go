package types

import (
	"encoding/binary"
	"hash/maphash"
	"math"

	"github.com/cockroachdb/apd/v3"
)

var hashSeed = maphash.MakeSeed()

// Hash64 hashes a non-NULL datum of type t so that values that Compare
// equal hash equal (1 and 1.0 as numeric, 'a' and 'a ' as char(n)).
func Hash64(t T, d any) uint64 {
	var buf [8]byte
	switch v := d.(type) {
	case int64:
		binary.LittleEndian.PutUint64(buf[:], uint64(v))
		return maphash.Bytes(hashSeed, buf[:])
	case float64:
		if v == 0 {
			v = 0 // -0 hashes as 0
		}
		if math.IsNaN(v) {
			v = math.NaN()
		}
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
		return maphash.Bytes(hashSeed, buf[:])
	case bool:
		if v {
			return 1
		}
		return 2
	case string:
		if t.ID == Bpchar {
			for len(v) > 0 && v[len(v)-1] == ' ' {
				v = v[:len(v)-1]
			}
		}
		return maphash.String(hashSeed, v)
	case int32:
		binary.LittleEndian.PutUint64(buf[:], uint64(v))
		return maphash.Bytes(hashSeed, buf[:])
	case Interval:
		var kb [16]byte
		return maphash.Bytes(hashSeed, IntervalKey(kb[:0], v))
	case *apd.Decimal:
		var r apd.Decimal
		r.Reduce(v)
		return maphash.String(hashSeed, r.Text('E'))
	}
	return 0
}

// HashFamily groups the types whose hash join keys compare as values of
// one type (the planner gives both sides of a join clause one type;
// integer widths may still differ).
func HashFamily(t T) ID {
	switch t.ID {
	case Int2, Int4:
		return Int8
	case Float4:
		return Float8
	case Varchar, Name, Unknown:
		return Text
	case TimestampTZ:
		return Timestamp
	}
	return t.ID
}
