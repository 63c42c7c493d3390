package planner

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// TestGroupingSetOrder expands grouping sets over keys a, b, c, v
// (positions 0..3) and checks the order of the sets and of their keys
// against PostgreSQL 15's EXPLAIN of the same GROUP BY.
func TestGroupingSetOrder(t *testing.T) {
	a, b, c, v := []int{0}, []int{1}, []int{2}, []int{3}
	u := func(units ...[]int) []int { return unionInts(nil, slices.Concat(units...)) }
	sets := func(ss ...[]int) [][]int { return ss }
	cases := []struct {
		name  string
		items [][][]int // the top-level GROUP BY items' expansions
		order []int     // ORDER BY's leading keys
		want  string    // PostgreSQL's Hash Key / Group Key lines
	}{
		{"rollup(a,b)", [][][]int{rollupSets([][]int{a, b})}, nil, "a,b a ()"},
		{"cube(a,b)", [][][]int{cubeSets([][]int{a, b})}, nil, "a,b a b ()"},
		{"cube(a,b,c)", [][][]int{cubeSets([][]int{a, b, c})}, nil, "a,b,c a,b a b,c b c,a c ()"},
		{"cube(a,b,c,v)", [][][]int{cubeSets([][]int{a, b, c, v})}, nil,
			"a,c,b a,c a b,c,v b,c b c,v c v,a,c v,a v a,b,v a,b b,v,a,c b,v ()"},
		{"a, rollup(b,c)", [][][]int{{a}, rollupSets([][]int{b, c})}, nil, "a,b,c a,b a"},
		{"rollup(a,b), cube(c,v)", [][][]int{rollupSets([][]int{a, b}), cubeSets([][]int{c, v})}, nil,
			"a,v,b a,v a v,c,a v,c v c,a,b,v c,a c a,b,c a,b ()"},
		{"sets ((a,b),(c),(a),(b,c),())", [][][]int{sets(u(a, b), c, a, u(b, c), nil)}, nil, "c,b c a,b a ()"},
		{"ten sets", [][][]int{sets(u(a, b), c, v, a, u(b, c), u(c, v), u(a, v), b, nil, u(a, b, c))}, nil,
			"v,a v a,b,c a,b a b,c b c,v c ()"},
		{"pairs and singles", [][][]int{sets(u(a, b), u(b, c), u(c, v), u(a, v), u(b, v), u(a, c), a, b, c, v)}, nil,
			"a,b a b,v b c,a c v,c v b,c a,v"},
		{"duplicates", [][][]int{sets(a, a, nil)}, nil, "a a ()"},
		{"duplicates in another order", [][][]int{sets(u(a, b), u(b, a), a)}, nil, "a,b a,b a"},
		{"ORDER BY b, a", [][][]int{sets(u(a, b), nil)}, []int{1, 0}, "b,a ()"},
		{"ORDER BY diverging", [][][]int{sets(u(a, b), a, nil)}, []int{1, 0}, "a,b a ()"},
	}
	names := []string{"a", "b", "c", "v"}
	for _, tc := range cases {
		expanded := cartesian(tc.items)
		pgQsort(expanded, func(x, y []int) int { return len(x) - len(y) })
		var lines []string
		for _, s := range orderSets(expanded, tc.order) {
			if len(s) == 0 {
				lines = append(lines, "()")
				continue
			}
			keys := make([]string, len(s))
			for i, k := range s {
				keys[i] = names[k]
			}
			lines = append(lines, strings.Join(keys, ","))
		}
		if got := strings.Join(lines, " "); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestPgQsortSorts: PostgreSQL's qsort orders like any sort (it is only
// unstable among equal elements).
func TestPgQsortSorts(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 6, 7, 8, 40, 41, 100, 1000} {
		xs := make([]int, n)
		for i := range xs {
			xs[i] = r.Intn(n/3 + 1)
		}
		want := slices.Clone(xs)
		slices.Sort(want)
		pgQsort(xs, func(a, b int) int { return a - b })
		if !slices.Equal(xs, want) {
			t.Errorf("n=%d: %v", n, fmt.Sprint(xs))
		}
	}
}
