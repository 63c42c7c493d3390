package storage

import (
	"github.com/pgfed/pgfed/types"
)

// Strategy is a partitioning strategy.
type Strategy uint8

const (
	Range Strategy = iota
	List
	Hash
)

func (s Strategy) String() string {
	return [...]string{"RANGE", "LIST", "HASH"}[s]
}

// PartitionKey is PARTITION BY strategy (columns).
type PartitionKey struct {
	Strategy Strategy
	Columns  []int // column indexes into the table
}

// RangeDatum is one column of a range bound: a value, MINVALUE or MAXVALUE.
type RangeDatum struct {
	Kind  RangeKind
	Value any
}

// RangeKind marks MINVALUE / MAXVALUE in range bounds.
type RangeKind int8

const (
	MinValue RangeKind = -1
	Value    RangeKind = 0
	MaxValue RangeKind = 1
)

// PartitionBound is FOR VALUES ... of a partition.
type PartitionBound struct {
	Default   bool
	From, To  []RangeDatum // RANGE
	In        []any        // LIST (nil element = NULL)
	Modulus   int          // HASH
	Remainder int
}

// KeyTypes returns the partition key's column types.
func (t *Table) KeyTypes() []types.T {
	ts := make([]types.T, len(t.PartKey.Columns))
	for i, c := range t.PartKey.Columns {
		ts[i] = t.Columns[c].Type
	}
	return ts
}

// compareRange compares a key (all non-NULL) with a range bound.
func compareRange(ts []types.T, key []any, bound []RangeDatum) int {
	for i, b := range bound {
		switch b.Kind {
		case MinValue:
			return 1
		case MaxValue:
			return -1
		}
		if c := types.Compare(ts[i], key[i], b.Value); c != 0 {
			return c
		}
	}
	return 0
}

// Accepts reports whether a row with the given partition-key values
// belongs to a partition with bound b (a default partition is not
// considered here: the router falls back to it).
func (b *PartitionBound) Accepts(strategy Strategy, ts []types.T, key []any, hash func([]any) uint64) bool {
	if b.Default {
		return false
	}
	switch strategy {
	case Range:
		for _, k := range key {
			if k == nil {
				return false
			}
		}
		return compareRange(ts, key, b.From) >= 0 && compareRange(ts, key, b.To) < 0
	case List:
		k := key[0]
		for _, v := range b.In {
			if v == nil || k == nil {
				if v == nil && k == nil {
					return true
				}
				continue
			}
			if types.Compare(ts[0], k, v) == 0 {
				return true
			}
		}
		return false
	default:
		return hash(key)%uint64(b.Modulus) == uint64(b.Remainder)
	}
}

// InPartition reports whether a row (full row values of the parent)
// satisfies partition p's bound within its parent; for a default partition,
// that no sibling accepts it.
func InPartition(p *Table, row []any) bool {
	parent := p.Parent
	key := make([]any, len(parent.PartKey.Columns))
	for i, c := range parent.PartKey.Columns {
		key[i] = row[c]
	}
	ts := parent.KeyTypes()
	hash := func(k []any) uint64 { return HashPartitionKey(ts, k) }
	if !p.Bound.Default {
		return p.Bound.Accepts(parent.PartKey.Strategy, ts, key, hash)
	}
	for _, s := range parent.Partitions() {
		if s != p && !s.Bound.Default && s.Bound.Accepts(parent.PartKey.Strategy, ts, key, hash) {
			return false
		}
	}
	return true
}

// Route returns the leaf partition of t (a partitioned table) that holds
// a row with the given full row values, descending through
// sub-partitioning; nil if no partition accepts it. (Statements that route
// many rows keep a Router.)
func (t *Table) Route(row []any) *Table {
	if t.Kind != KindPartitioned {
		return t
	}
	return NewRouter(t).Route(row)
}

// HashPartitionKey computes PostgreSQL's row hash for hash partitioning
// (compute_partition_hash_value in partitioning/partbounds.c), so that a
// row lands in the partition PostgreSQL 15 would put it in: each non-NULL
// key column is hashed with its type's extended hash function and the
// partitioning seed, and the column hashes are folded together with
// hash_combine64. NULL columns are skipped rather than hashed, so an
// all-NULL key hashes to 0 (remainder 0). A partition with FOR VALUES WITH
// (MODULUS m, REMAINDER r) holds the rows whose hash is r modulo m.
func HashPartitionKey(ts []types.T, key []any) uint64 {
	var rowHash uint64
	for i, k := range key {
		if k == nil {
			continue
		}
		rowHash = types.HashCombine64(rowHash, types.HashExtended(ts[i], k, types.HashPartitionSeed))
	}
	return rowHash
}
