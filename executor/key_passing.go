package executor

// Key passing (planner/key_passing.go): a Hash Join with PassKeys builds
// its table before it opens its outer side, a Foreign Scan with a
// KeyFilter, and then sets the filter's Param to the distinct non-NULL
// values of the passed inner key, as the text of an array; the scan
// sends them as $1 of its remote query when it opens. A build that
// spilled to disk has not got all its keys in memory: it sets the Param
// to NULL and the scan runs its query unfiltered. Each participant of a
// parallel plan has its own join and scan (foreign scans never run in
// workers), so the Param is set and read by one goroutine.

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/types"
)

// passKeys publishes the built table's keys for the outer Foreign Scan;
// spilled says the table holds only part of the build side.
func (j *hashJoin) passKeys(spilled bool) error {
	pk := j.plan.PassKeys
	if spilled || j.table == nil || j.table.batch == nil {
		j.ec.params.set(pk.Param, nil)
		return nil
	}
	vals, err := j.innerKeys[pk.Key].eval(j.table.batch)
	if err != nil {
		return err
	}
	defer vals.Release()
	j.ec.params.set(pk.Param, keyArrayText(vals, j.plan.InnerKeys[pk.Key].Type()))
	return nil
}

// keyArrayText is the array literal of the distinct non-NULL values of
// arr, each element quoted: {"1","5"}.
func keyArrayText(arr arrow.Array, t types.T) string {
	seen := map[string]bool{}
	var b strings.Builder
	b.WriteByte('{')
	for i := 0; i < arr.Len(); i++ {
		d := types.DatumAt(arr, t, i)
		if d == nil {
			continue
		}
		s := types.Format(t, d)
		if seen[s] {
			continue
		}
		seen[s] = true
		if len(seen) > 1 {
			b.WriteByte(',')
		}
		b.WriteByte('"')
		for _, c := range []byte(s) {
			if c == '"' || c == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// keyFilterSQL is the query a Foreign Scan with a KeyFilter runs, and its
// parameters: filtered by the keys its join passed, else unfiltered.
func (f *foreignScan) keyFilterSQL() (string, [][]byte, error) {
	kf := f.plan.KeyFilter
	if kf == nil {
		params, err := f.paramValues()
		return f.plan.RemoteSQL, params, err
	}
	v, ok := f.ec.params.get(kf.Param)
	s, isText := v.(string)
	if !ok || !isText {
		return kf.Unfiltered, nil, nil
	}
	return f.plan.RemoteSQL, [][]byte{[]byte(s)}, nil
}

// paramValues is the text of the scan's Params ($1, $2 ...) as they are
// now (nil for NULL), read each time the scan opens: a SubPlan or a
// parameterized Nested Loop sets them before each run.
func (f *foreignScan) paramValues() ([][]byte, error) {
	if len(f.plan.Params) == 0 {
		return nil, nil
	}
	out := make([][]byte, len(f.plan.Params))
	for i, p := range f.plan.Params {
		v, ok := f.ec.params.get(p.ID)
		if !ok {
			return nil, pgerr.Internal("executor: no value for parameter $%d of a foreign scan", p.ID)
		}
		if v != nil {
			out[i] = []byte(types.Format(p.T, v))
		}
	}
	return out, nil
}
