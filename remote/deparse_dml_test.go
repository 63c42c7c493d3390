package remote

import (
	"testing"

	"github.com/pgfed/pgfed/nodes"
	"github.com/pgfed/pgfed/types"
)

func TestDeparseWrites(t *testing.T) {
	rel := Relation{Schema: "public", Table: "t"}
	odd := Relation{Schema: `we"ird`, Table: "ta ble"}
	col := func(i int, typ types.T) *nodes.ColumnRef { return &nodes.ColumnRef{Index: i, T: typ} }
	for _, tc := range []struct{ got, want string }{
		{InsertSQL(rel, []string{"a", "b"}, 1, nil), "INSERT INTO public.t(a, b) VALUES ($1, $2)"},
		{InsertSQL(rel, []string{"a", "b"}, 3, []string{"a"}), "INSERT INTO public.t(a, b) VALUES ($1, $2), ($3, $4), ($5, $6) RETURNING a"},
		{InsertSQL(rel, nil, 1, nil), "INSERT INTO public.t DEFAULT VALUES"},
		{InsertSQL(odd, []string{"co l", `x"y`}, 1, nil), `INSERT INTO "we""ird"."ta ble"("co l", "x""y") VALUES ($1, $2)`},
		{InsertSQL(Relation{Table: "T"}, []string{"Select"}, 1, nil), `INSERT INTO "T"("Select") VALUES ($1)`},
		{UpdateSQL(rel, []string{"b", "c"}, []string{"a", "b", "c"}), "UPDATE public.t SET b = $2, c = $3 WHERE ctid = $1 RETURNING a, b, c"},
		{UpdateSQL(odd, []string{"select"}, nil), `UPDATE "we""ird"."ta ble" SET "select" = $2 WHERE ctid = $1`},
		{DeleteSQL(rel, nil), "DELETE FROM public.t WHERE ctid = $1"},
		{DeleteSQL(odd, []string{"co l"}), `DELETE FROM "we""ird"."ta ble" WHERE ctid = $1 RETURNING "co l"`},
		{TruncateSQL([]Relation{rel, odd}, false, false), `TRUNCATE public.t, "we""ird"."ta ble" CONTINUE IDENTITY RESTRICT`},
		{TruncateSQL([]Relation{rel}, true, true), "TRUNCATE public.t RESTART IDENTITY CASCADE"},
		{TidText(0<<16 | 1), "(0,1)"},
		{TidText(4294967295<<16 | 65535), "(4294967295,65535)"},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %s\nwant %s", tc.got, tc.want)
		}
	}
	d := &DirectModify{Rel: odd, AllCols: []string{"co l", "v'x"}, Set: []string{"v'x"},
		Values: []nodes.Expr{&nodes.Const{T: types.TextT, Value: "it's"}},
		Where:  []nodes.Expr{&nodes.OpExpr{Op: "=", Left: col(0, types.Int4T), Right: &nodes.Const{T: types.Int4T, Value: int64(1)}, T: types.BoolT}}, Returning: []string{"co l"}}
	got, err := d.SQL()
	if want := `UPDATE "we""ird"."ta ble" SET "v'x" = 'it''s'::text WHERE (("co l" = 1)) RETURNING "co l"`; err != nil || got != want {
		t.Errorf("direct update: %q %v\nwant %q", got, err, want)
	}
	d.Set, d.Values = nil, nil
	if got, err := d.SQL(); err != nil || got != `DELETE FROM "we""ird"."ta ble" WHERE (("co l" = 1)) RETURNING "co l"` {
		t.Errorf("direct delete: %q %v", got, err)
	}
}
