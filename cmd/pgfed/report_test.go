package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/pgerr"
)

// The expected LINE/caret displays are what psql 15 printed for the same
// statements and positions (the positions PostgreSQL reported).
func TestErrorPosition(t *testing.T) {
	var nums []string
	for i := 1; i <= 9; i++ {
		nums = append(nums, strings.Repeat(string(rune('0'+i)), 9))
	}
	list := strings.Join(nums, ", ")
	wide := strings.Repeat("日本語", 13)
	tests := []struct {
		name  string
		query string
		pos   int
		want  string
	}{
		{
			name:  "short line",
			query: "select * frm t;",
			pos:   10,
			want:  "LINE 1: select * frm t;\n                 ^\n",
		},
		{
			name:  "second line",
			query: "select a from t where b = 'zzz' and\n  c > 0 and nosuch = 1;",
			pos:   49,
			want:  "LINE 2:   c > 0 and nosuch = 1;\n                    ^\n",
		},
		{
			name:  "third line",
			query: "select 1 +\n  (2 *\n    nosuch6);",
			pos:   23,
			want:  "LINE 3:     nosuch6);\n            ^\n",
		},
		{
			name:  "long line cut on the left",
			query: "select " + list + " frm x;",
			pos:   110,
			want: "LINE 1: ...555555555, 666666666, 777777777, 888888888, 999999999 frm x;\n" +
				strings.Repeat(" ", 69) + "^\n",
		},
		{
			name:  "long line cut on the right",
			query: "select 1 frm x, " + list + ";",
			pos:   14,
			want: "LINE 1: select 1 frm x, 111111111, 222222222, 333333333, 444444444, ...\n" +
				strings.Repeat(" ", 21) + "^\n",
		},
		{
			name:  "long line cut on both sides",
			query: "select " + list + ", " + list + " frm x, " + list + ", " + list + ";",
			pos:   209,
			want: "LINE 1: ...5, 666666666, 777777777, 888888888, 999999999 frm x, 1111111...\n" +
				strings.Repeat(" ", 61) + "^\n",
		},
		{
			name:  "wide characters count two columns",
			query: "select '" + wide + "' frm x, 12345678901234567890;",
			pos:   54,
			want: "LINE 1: ...語日本語日本語日本語日本語日本語日本語日本語' frm x, 1234567...\n" +
				strings.Repeat(" ", 61) + "^\n",
		},
		{
			name:  "tab shows as a space",
			query: "select\t'tab',\tnosuch5;",
			pos:   15,
			want:  "LINE 1: select 'tab', nosuch5;\n                      ^\n",
		},
		{
			name:  "carriage return ends a line",
			query: "select 1,\r 2 frm x;",
			pos:   18,
			want:  "LINE 2:  2 frm x;\n               ^\n",
		},
		{
			name:  "CRLF is one line end",
			query: "select 1,\r\n 2 frm x;",
			pos:   19,
			want:  "LINE 2:  2 frm x;\n               ^\n",
		},
		{
			name:  "just past the end",
			query: "select (",
			pos:   9,
			want:  "LINE 1: select (\n                ^\n",
		},
		{name: "beyond the end", query: "select", pos: 20, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, errorPosition(tt.query, tt.pos)); diff != "" {
				t.Errorf("(-psql +pgfed):\n%s", diff)
			}
		})
	}
}

func TestFormatError(t *testing.T) {
	tests := []struct {
		name  string
		err   error
		query string
		want  string
	}{
		{
			name: "all fields",
			err: &pgerr.Error{Code: pgerr.UndefinedFunction, Message: "function f() does not exist",
				Detail: "d", Hint: "h", Context: "c", Position: 8},
			query: "select f();",
			want:  "ERROR:  function f() does not exist\nLINE 1: select f();\n               ^\nDETAIL:  d\nHINT:  h\nCONTEXT:  c\n",
		},
		{
			name: "severity kept",
			err:  &pgerr.Error{Code: "XX000", Severity: "FATAL", Message: "gone"},
			want: "FATAL:  gone\n",
		},
		{
			name: "plain error",
			err:  errors.New("engine not ready"),
			want: "ERROR:  engine not ready\n",
		},
		{
			name: "cancellation",
			err:  context.Canceled,
			want: "ERROR:  canceling statement due to user request\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, formatError(tt.err, tt.query)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormatNotice(t *testing.T) {
	n := &pgfed.Notice{Message: "m", Detail: "d", Hint: "h", Context: "not shown"}
	if got, want := formatNotice(n), "NOTICE:  m\nDETAIL:  d\nHINT:  h\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestFormatTiming(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{1234 * time.Microsecond, "Time: 1.234 ms"},
		{999999 * time.Microsecond, "Time: 999.999 ms"},
		{61500 * time.Millisecond, "Time: 61500.000 ms (01:01.500)"},
		{3*time.Hour + 2*time.Minute + 1500*time.Millisecond, "Time: 10921500.000 ms (03:02:01.500)"},
		{50*time.Hour + 5*time.Second, "Time: 180005000.000 ms (2 d 02:00:05.000)"},
	}
	for _, tt := range tests {
		if got := formatTiming(tt.d); got != tt.want {
			t.Errorf("formatTiming(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
