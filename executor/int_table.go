package executor

// intTable maps int64 keys to dense group numbers with open addressing
// and linear probing: the hot loop of GROUP BY on one integer column. A
// Go map costs a hash call and several branches per row; this table costs
// a multiply, a mask and (usually) one probe.

const intTableMinSize = 1024

type intTable struct {
	keys  []int64
	slots []int32 // group number + 1; 0 = empty
	mask  uint64
	n     int
}

func newIntTable() *intTable {
	t := &intTable{}
	t.resize(intTableMinSize)
	return t
}

func (t *intTable) resize(size int) {
	old, oldSlots := t.keys, t.slots
	t.keys = make([]int64, size)
	t.slots = make([]int32, size)
	t.mask = uint64(size - 1)
	for i, s := range oldSlots {
		if s != 0 {
			t.insert(old[i], s)
		}
	}
}

func (t *intTable) insert(k int64, slot int32) {
	i := hashInt64(k) & t.mask
	for t.slots[i] != 0 {
		i = (i + 1) & t.mask
	}
	t.keys[i], t.slots[i] = k, slot
}

func hashInt64(k int64) uint64 {
	h := uint64(k) * 0x9E3779B97F4A7C15
	return h ^ (h >> 29)
}

// lookupOrAdd returns the group of k, calling add for a new key to get
// its group number; add may refuse the key with -1 (a full table that
// spills), which lookupOrAdd returns without adding it.
func (t *intTable) lookupOrAdd(k int64, add func() int32) int32 {
	i := hashInt64(k) & t.mask
	for {
		s := t.slots[i]
		if s == 0 {
			g := add()
			if g < 0 {
				return g
			}
			t.keys[i], t.slots[i] = k, g+1
			t.n++
			if t.n*2 > len(t.slots) {
				t.resize(len(t.slots) * 2)
			}
			return g
		}
		if t.keys[i] == k {
			return s - 1
		}
		i = (i + 1) & t.mask
	}
}
