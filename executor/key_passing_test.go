package executor

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pgfed/pgfed/executor/exectest"
	"github.com/pgfed/pgfed/types"
)

func TestKeyArrayText(t *testing.T) {
	mem := memory.NewGoAllocator()
	for _, tt := range []struct {
		name string
		col  exectest.Col
		t    types.T
		want string
	}{
		{"integers, NULLs and duplicates dropped", exectest.Int64s("k", 3, nil, 1, 3), types.Int8T, `{"3","1"}`},
		{"nothing", exectest.Int64s("k", nil), types.Int8T, `{}`},
		{"text quoted", exectest.Strings("k", `a"b`, `c\d`, "", "x y"), types.TextT, `{"a\"b","c\\d","","x y"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := exectest.NewBatch(mem, tt.col)
			defer b.Release()
			if got := keyArrayText(b.Column(0), tt.t); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
