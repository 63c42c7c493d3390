package pgfed_test

// Tests of COPY FROM and COPY TO, with files and with a CopyHandler for
// STDIN and STDOUT. Every expected output, message and CONTEXT line was
// checked against PostgreSQL 15 (TimeZone UTC).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/pgerr"
)

// copyStreams is a CopyHandler over memory: COPY FROM STDIN reads in,
// COPY TO STDOUT appends to out.
type copyStreams struct {
	in  io.Reader
	out bytes.Buffer
}

func (c *copyStreams) CopyIn() (io.Reader, error) {
	if c.in == nil {
		return nil, errors.New("no COPY input")
	}
	return c.in, nil
}

func (c *copyStreams) CopyOut() (io.Writer, error) { return &c.out, nil }

// copyIn runs a COPY ... FROM STDIN that reads input.
func copyIn(s *pgfed.Session, sql, input string) (tag string, err error) {
	s.SetCopyHandler(&copyStreams{in: strings.NewReader(input)})
	defer s.SetCopyHandler(nil)
	return s.Exec(context.Background(), sql)
}

// copyOut runs a COPY ... TO STDOUT and returns what it wrote; an error
// fails the test. The tag must be "COPY n" with n the number of lines
// written (which the data must end with a newline for).
func copyOut(t testing.TB, s *pgfed.Session, sql string) string {
	t.Helper()
	h := &copyStreams{}
	s.SetCopyHandler(h)
	defer s.SetCopyHandler(nil)
	tag, err := s.Exec(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	if !strings.HasPrefix(tag, "COPY ") {
		t.Errorf("%s: tag %q, want COPY n", sql, tag)
	}
	return h.out.String()
}

// lines joins lines, each ending with a newline, as COPY writes them.
func lines(ls ...string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

// The all-types table and the values its rows hold: edge cases of each
// type, NULLs, and text needing escapes or quotes.
const allTypesTable = `(id int, i2 smallint, i4 integer, i8 bigint, f4 real, f8 double precision,
	num numeric(10,2), b boolean, t text, vc varchar(5), c char(3), d date, ts timestamp, tstz timestamptz)`

const allTypesRows = `
 (1, 1, 2, 3, 1.5, 2.25, 3.14159, true, 'plain', 'abc', 'x', '2024-02-29',
  '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05+02'),
 (2, null, null, null, null, null, null, null, null, null, null, null, null, null),
 (3, -32768, -2147483648, -9223372036854775808, 3.4028235e38, 1e-300, -12345678.99, false,
  E'tab\there\nnew\\line', '', 'ab', '0001-01-01', '1999-12-31 23:59:59', '2000-01-01 00:00:00 UTC'),
 (4, 32767, 2147483647, 9223372036854775807, 'NaN', '-Infinity', 0, true, '\N', 'a,b', '"q"',
  '4713-11-24 BC', 'infinity', '-infinity'),
 (5, 0, 0, 0, -0.1, 0.30000000000000004, 99999999.99, false, 'comma, "quote"', 'x y', 'é',
  '2038-01-19', '0044-03-15 12:00:00 BC', '1970-01-01 00:00:00.5+00'),
 (6, 1, 1, 1, 1, 1, 1, true, '', ' ', '', '2000-02-29', '2000-02-29 00:00:00',
  '2024-06-30 23:59:59.999999-07'),
 (7, 1, 1, 1, 1e-45, 1.7976931348623157e308, 0.005, true, E'cr\rhere', 'ab\', 'a\b',
  '1970-01-01', '1970-01-01 00:00:00', '1970-01-01 00:00:00+00')`

// What PostgreSQL 15 writes for the all-types rows.
var (
	allTypesText = lines(
		"1\t1\t2\t3\t1.5\t2.25\t3.14\tt\tplain\tabc\tx  \t2024-02-29\t2024-01-02 03:04:05.123456\t2024-01-02 01:04:05+00",
		`2	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N	\N`,
		"3\t-32768\t-2147483648\t-9223372036854775808\t3.4028235e+38\t1e-300\t-12345678.99\tf\t"+
			`tab\there\nnew\\line`+"\t\tab \t0001-01-01\t1999-12-31 23:59:59\t2000-01-01 00:00:00+00",
		"4\t32767\t2147483647\t9223372036854775807\tNaN\t-Infinity\t0.00\tt\t"+
			`\\N`+"\ta,b\t\"q\"\t4713-11-24 BC\tinfinity\t-infinity",
		"5\t0\t0\t0\t-0.1\t0.30000000000000004\t99999999.99\tf\tcomma, \"quote\"\tx y\té  \t"+
			"2038-01-19\t0044-03-15 12:00:00 BC\t1970-01-01 00:00:00.5+00",
		"6\t1\t1\t1\t1\t1\t1.00\tt\t\t \t   \t2000-02-29\t2000-02-29 00:00:00\t2024-07-01 06:59:59.999999+00",
		"7\t1\t1\t1\t1e-45\t1.7976931348623157e+308\t0.01\tt\t"+
			`cr\rhere`+"\t"+`ab\\`+"\t"+`a\\b`+"\t1970-01-01\t1970-01-01 00:00:00\t1970-01-01 00:00:00+00",
	)
	allTypesCSV = lines(
		"id,i2,i4,i8,f4,f8,num,b,t,vc,c,d,ts,tstz",
		"1,1,2,3,1.5,2.25,3.14,t,plain,abc,x  ,2024-02-29,2024-01-02 03:04:05.123456,2024-01-02 01:04:05+00",
		"2,,,,,,,,,,,,,",
		"3,-32768,-2147483648,-9223372036854775808,3.4028235e+38,1e-300,-12345678.99,f,\"tab\there\n"+
			`new\line","",ab ,0001-01-01,1999-12-31 23:59:59,2000-01-01 00:00:00+00`,
		`4,32767,2147483647,9223372036854775807,NaN,-Infinity,0.00,t,\N,"a,b","""q""",4713-11-24 BC,infinity,-infinity`,
		`5,0,0,0,-0.1,0.30000000000000004,99999999.99,f,"comma, ""quote""",x y,é  ,2038-01-19,0044-03-15 12:00:00 BC,1970-01-01 00:00:00.5+00`,
		`6,1,1,1,1,1,1.00,t,"", ,   ,2000-02-29,2000-02-29 00:00:00,2024-07-01 06:59:59.999999+00`,
		"7,1,1,1,1e-45,1.7976931348623157e+308,0.01,t,\"cr\rhere\",ab\\,a\\b,1970-01-01,1970-01-01 00:00:00,1970-01-01 00:00:00+00",
	)
)

// TestCopyAllTypesRoundTrip writes every type out in text and CSV, to a
// file and to STDOUT, reads it back into another table, and checks that
// both the written data and the table read back are what PostgreSQL gives.
func TestCopyAllTypesRoundTrip(t *testing.T) {
	s := openDB(t).NewSession()
	execSQL(t, s, "CREATE TABLE alltypes "+allTypesTable+"; INSERT INTO alltypes VALUES "+allTypesRows)
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		options string
		want    string
	}{
		{"text", "", allTypesText},
		{"csv", "(FORMAT csv, HEADER)", allTypesCSV},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := copyOut(t, s, "COPY alltypes TO STDOUT "+tc.options); got != tc.want {
				t.Errorf("COPY TO STDOUT wrote\n%s\nwant\n%s", got, tc.want)
			}

			// Through a file.
			file := filepath.Join(dir, tc.name+".data")
			tag := execSQL(t, s, fmt.Sprintf("COPY alltypes TO '%s' %s", file, tc.options))
			if tag != "COPY 7" {
				t.Errorf("COPY TO file: tag %q, want COPY 7", tag)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != tc.want {
				t.Errorf("COPY TO file wrote\n%s\nwant\n%s", data, tc.want)
			}
			fromFile := "from_file_" + tc.name
			execSQL(t, s, "CREATE TABLE "+fromFile+" "+allTypesTable)
			tag = execSQL(t, s, fmt.Sprintf("COPY %s FROM '%s' %s", fromFile, file, tc.options))
			if tag != "COPY 7" {
				t.Errorf("COPY FROM file: tag %q, want COPY 7", tag)
			}
			if got := copyOut(t, s, "COPY "+fromFile+" TO STDOUT "+tc.options); got != tc.want {
				t.Errorf("the table read from the file holds\n%s\nwant\n%s", got, tc.want)
			}

			// Through STDIN.
			fromStdin := "from_stdin_" + tc.name
			execSQL(t, s, "CREATE TABLE "+fromStdin+" "+allTypesTable)
			tag, err = copyIn(s, fmt.Sprintf("COPY %s FROM STDIN %s", fromStdin, tc.options), tc.want)
			if err != nil || tag != "COPY 7" {
				t.Fatalf("COPY FROM STDIN: %q, %v; want COPY 7", tag, err)
			}
			if got := copyOut(t, s, "COPY "+fromStdin+" TO STDOUT "+tc.options); got != tc.want {
				t.Errorf("the table read from STDIN holds\n%s\nwant\n%s", got, tc.want)
			}
		})
	}

	// The values read back equal the originals, not just their text.
	original := rowValues(t, s, "SELECT * FROM alltypes ORDER BY id")
	for _, table := range []string{"from_file_text", "from_stdin_text", "from_file_csv", "from_stdin_csv"} {
		if got := rowValues(t, s, "SELECT * FROM "+table+" ORDER BY id"); !reflect.DeepEqual(got, original) {
			t.Errorf("%s holds\n%q\nwant\n%q", table, got, original)
		}
	}
}

// rowValues returns the Go values of a query's rows, each printed with
// its type (numeric as its text), so that they compare exactly.
func rowValues(t testing.TB, s *pgfed.Session, sql string) [][]string {
	t.Helper()
	rows, err := s.Query(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		var row []string
		for _, v := range rows.Values() {
			row = append(row, fmt.Sprintf("%T %v", v, v))
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// TestCopyFrom reads text and CSV input with various options.
func TestCopyFrom(t *testing.T) {
	for _, tc := range []struct {
		name  string
		copy  string // the COPY statement
		input string
		tag   string
		rows  []string // SELECT a, b, b IS NULL FROM t ORDER BY a
	}{
		{
			name:  "text",
			copy:  "COPY t FROM STDIN",
			input: "1\tone\n2\t\\N\n3\t\n",
			tag:   "COPY 3",
			rows:  []string{"1|one|f", "2|NULL|t", "3||f"},
		},
		{
			name:  "text escapes",
			copy:  "COPY t FROM STDIN",
			input: "1\t" + `a\\b\tc\nd\re\\N` + "\n2\t" + `\x41\x4a\101\060` + "\n3\t" + `\a\q\%` + "\n",
			tag:   "COPY 3",
			rows:  []string{"1|a\\b\tc\nd\re\\N|f", "2|AJA0|f", "3|aq%|f"},
		},
		{
			name:  "text end marker and CRLF",
			copy:  "COPY t FROM STDIN",
			input: "1\tone\r\n2\ttwo\r\n\\.\r\n3\tignored\n",
			tag:   "COPY 2",
			rows:  []string{"1|one|f", "2|two|f"},
		},
		{
			name:  "text without final newline",
			copy:  "COPY t FROM STDIN",
			input: "1\tone\n2\ttwo",
			tag:   "COPY 2",
			rows:  []string{"1|one|f", "2|two|f"},
		},
		{
			name:  "empty input",
			copy:  "COPY t FROM STDIN",
			input: "",
			tag:   "COPY 0",
		},
		{
			name:  "text header, delimiter and null",
			copy:  "COPY t FROM STDIN (HEADER, DELIMITER '|', NULL 'NULL')",
			input: "a|b\n1|NULL\n2|\\N\n3|\n",
			tag:   "COPY 3",
			rows:  []string{"1|NULL|t", "2|N|f", "3||f"},
		},
		{
			name:  "csv",
			copy:  "COPY t FROM STDIN (FORMAT csv)",
			input: "1,plain\n2,\n3,\"\"\n4,\"a,b\"\n5,\"say \"\"hi\"\"\"\n6,\"two\nlines\"\n\"7\", spaced \n",
			tag:   "COPY 7",
			rows: []string{"1|plain|f", "2|NULL|t", "3||f", "4|a,b|f",
				`5|say "hi"|f`, "6|two\nlines|f", "7| spaced |f"},
		},
		{
			name:  "csv end marker and quoted end marker",
			copy:  "COPY t FROM STDIN (FORMAT csv)",
			input: "1,\"\\.\"\n\\.\n2,ignored\n",
			tag:   "COPY 1",
			rows:  []string{`1|\.|f`},
		},
		{
			name:  "csv header, delimiter and null",
			copy:  "COPY t FROM STDIN (FORMAT csv, HEADER true, DELIMITER ';', NULL 'NULL')",
			input: "a;b\n1;NULL\n2;\"NULL\"\n3;\n4;\"\"\n5;x,y\n",
			tag:   "COPY 5",
			rows:  []string{"1|NULL|t", "2|NULL|f", "3||f", "4||f", "5|x,y|f"},
		},
		{
			name:  "csv quote and escape",
			copy:  `COPY t FROM STDIN (FORMAT csv, QUOTE '''', ESCAPE '\')`,
			input: "1,'it\\'s, ok'\n2,'a''b'\n",
			tag:   "COPY 2",
			rows:  []string{"1|it's, ok|f", "2|ab|f"},
		},
		{
			name:  "column list in another order",
			copy:  "COPY t (b, a) FROM STDIN (FORMAT csv, HEADER)",
			input: "b,a\nx,2\ny,1\n",
			tag:   "COPY 2",
			rows:  []string{"1|y|f", "2|x|f"},
		},
		{
			name:  "column list leaving b out",
			copy:  "COPY t (a) FROM STDIN",
			input: "1\n2\n",
			tag:   "COPY 2",
			rows:  []string{"1|NULL|t", "2|NULL|t"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openDB(t).NewSession()
			execSQL(t, s, "CREATE TABLE t (a int, b text)")
			tag, err := copyIn(s, tc.copy, tc.input)
			if err != nil {
				t.Fatal(err)
			}
			if tag != tc.tag {
				t.Errorf("tag %q, want %q", tag, tc.tag)
			}
			query := "SELECT a, b, b IS NULL FROM t ORDER BY a"
			if len(tc.rows) == 0 {
				query = "SELECT a, b, b IS NULL FROM t" // see TestOrderByEmptyTable
			}
			if got := queryRows(t, s, query); !reflect.DeepEqual(got, tc.rows) {
				t.Errorf("rows %q\nwant %q", got, tc.rows)
			}
		})
	}
}

// TestCopyFromDefaults: columns left out of COPY's column list get their
// DEFAULT, or NULL without one.
func TestCopyFromDefaults(t *testing.T) {
	s := openDB(t).NewSession()
	execSQL(t, s, `CREATE TABLE t (
		id int,
		note text DEFAULT 'none',
		qty numeric(10,2) DEFAULT 7.5,
		day date DEFAULT '2024-01-01',
		flag boolean DEFAULT 1 < 2,
		total bigint DEFAULT 6 * 7,
		other text)`)
	if tag, err := copyIn(s, "COPY t (id, qty) FROM STDIN", "1\t2.345\n2\t\\N\n"); err != nil || tag != "COPY 2" {
		t.Fatalf("%q, %v", tag, err)
	}
	if tag, err := copyIn(s, "COPY t (note, id) FROM STDIN (FORMAT csv)", "given,3\n"); err != nil || tag != "COPY 1" {
		t.Fatalf("%q, %v", tag, err)
	}
	want := []string{
		"1|none|2.35|2024-01-01|t|42|NULL",
		"2|none|NULL|2024-01-01|t|42|NULL",
		"3|given|7.50|2024-01-01|t|42|NULL",
	}
	if got := queryRows(t, s, "SELECT * FROM t ORDER BY id"); !reflect.DeepEqual(got, want) {
		t.Errorf("rows %q\nwant %q", got, want)
	}
}

// TestCopyTo writes tables and queries with various options.
func TestCopyTo(t *testing.T) {
	s := openDB(t).NewSession()
	execSQL(t, s, `CREATE TABLE t (a int, b text, c numeric(6,2));
		INSERT INTO t VALUES (1, 'plain', 1.5), (2, NULL, NULL), (3, '', 0),
			(4, E'tab\tnl\nbs\\cr\r', -2), (5, 'a,b|c "q"', 3.25), (6, 'NULL', 1)`)
	for _, tc := range []struct{ copy, want string }{
		{"COPY t TO STDOUT", lines(
			"1\tplain\t1.50",
			`2	\N	\N`,
			"3\t\t0.00",
			"4\t"+`tab\tnl\nbs\\cr\r`+"\t-2.00",
			"5\ta,b|c \"q\"\t3.25",
			"6\tNULL\t1.00",
		)},
		{"COPY t TO STDOUT (HEADER, DELIMITER '|', NULL 'NULL')", lines(
			"a|b|c",
			"1|plain|1.50",
			"2|NULL|NULL",
			"3||0.00",
			`4|tab\tnl\nbs\\cr\r|-2.00`,
			`5|a,b\|c "q"|3.25`,
			"6|NULL|1.00",
		)},
		{"COPY t TO STDOUT (FORMAT csv)", lines(
			"1,plain,1.50",
			"2,,",
			`3,"",0.00`,
			"4,\"tab\tnl\nbs\\cr\r\",-2.00",
			`5,"a,b|c ""q""",3.25`,
			"6,NULL,1.00",
		)},
		{`COPY t TO STDOUT (FORMAT csv, HEADER, DELIMITER '|', NULL 'NULL', QUOTE '''')`, lines(
			"a|b|c",
			"1|plain|1.50",
			"2|NULL|NULL",
			"3||0.00",
			"4|'tab\tnl\nbs\\cr\r'|-2.00",
			`5|'a,b|c "q"'|3.25`,
			"6|'NULL'|1.00",
		)},
		{"COPY t (c, a) TO STDOUT (FORMAT csv, HEADER)", lines(
			"c,a", "1.50,1", ",2", "0.00,3", "-2.00,4", "3.25,5", "1.00,6",
		)},
		{"COPY (SELECT a * 10 AS tens, upper(b) FROM t WHERE a <= 3 ORDER BY a DESC) TO STDOUT (FORMAT csv, HEADER)", lines(
			"tens,upper", `30,""`, "20,", "10,PLAIN",
		)},
		{`COPY (SELECT 'it''s', '"') TO STDOUT (FORMAT csv, QUOTE '''', ESCAPE '"')`, lines(`'it"'s',"`)},
		{`COPY (SELECT '\.' AS x) TO STDOUT (FORMAT csv)`, lines(`"\."`)},
		{"COPY (SELECT 1 WHERE false) TO STDOUT", ""},
		{"COPY (VALUES (1, 'x'), (2, 'y')) TO STDOUT", lines("1\tx", "2\ty")},
		{`CREATE TABLE "Odd,Name" ("a,b" int, "q""x" text); COPY "Odd,Name" TO STDOUT (FORMAT csv, HEADER)`,
			lines(`"a,b","q""x"`)},
	} {
		if got := copyOut(t, s, tc.copy); got != tc.want {
			t.Errorf("%s wrote\n%s\nwant\n%s", tc.copy, got, tc.want)
		}
	}
}

// TestCopyTags checks "COPY n" for both directions and all paths.
func TestCopyTags(t *testing.T) {
	ctx := context.Background()
	s := openDB(t).NewSession()
	execSQL(t, s, "CREATE TABLE t (a int); INSERT INTO t SELECT g FROM generate_series(1, 100000) g")
	file := filepath.Join(t.TempDir(), "t.csv")
	h := &copyStreams{in: strings.NewReader("1\n2\n3\n")}
	s.SetCopyHandler(h)
	for _, tc := range []struct{ sql, tag string }{
		{"COPY t TO STDOUT", "COPY 100000"},
		{fmt.Sprintf("COPY t TO '%s' (FORMAT csv)", file), "COPY 100000"},
		{fmt.Sprintf("COPY t FROM '%s' (FORMAT csv)", file), "COPY 100000"},
		{"COPY t FROM STDIN", "COPY 3"},
		{"COPY (SELECT * FROM t WHERE a < 3) TO STDOUT", "COPY 6"},
	} {
		tag, err := runQuery(ctx, s, tc.sql)
		if err != nil || tag != tc.tag {
			t.Errorf("%s: %q, %v; want %q", tc.sql, tag, err, tc.tag)
		}
	}
	if got := queryRows(t, s, "SELECT count(*), sum(a) FROM t"); !reflect.DeepEqual(got, []string{"200003|10000100006"}) {
		t.Errorf("count, sum = %q", got)
	}
}

// TestCopyFileAccess: server-side files are off unless the embedder
// names directories; relative paths are refused (42602) as PostgreSQL
// does; a path that leaves the allowed directories, by .. or by a
// symbolic link, is refused; COPY TO replaces a file only when it
// succeeds.
func TestCopyFileAccess(t *testing.T) {
	ctx := context.Background()
	allowed, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(allowed, "link")); err != nil {
		t.Fatal(err)
	}
	closed, err := pgfed.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer closed.Close()
	open, err := pgfed.Open(pgfed.WithFileAccess(allowed))
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	if _, err := pgfed.Open(pgfed.WithFileAccess("data")); err == nil {
		t.Error("Open accepted a relative file access directory")
	}
	for _, db := range []*pgfed.DB{closed, open} {
		execSQL(t, db.NewSession(), "CREATE TABLE t (a int)")
	}
	for _, tc := range []struct {
		db        *pgfed.DB
		sql, code string
	}{
		{closed, "COPY t FROM '" + secret + "'", "42501"},
		{closed, "COPY t TO '" + filepath.Join(allowed, "x") + "'", "42501"},
		{open, "COPY t TO 'out.txt'", "42602"},
		{open, "COPY t FROM 'out.txt'", "42602"},
		{open, "COPY t FROM '" + secret + "'", "42501"},
		{open, "COPY t FROM '" + allowed + "/../" + filepath.Base(outside) + "/secret'", "42501"},
		{open, "COPY t FROM '" + filepath.Join(allowed, "link", "secret") + "'", "42501"},
		{open, "COPY t TO '" + filepath.Join(allowed, "link", "new") + "'", "42501"},
		{open, "COPY t FROM '" + filepath.Join(allowed, "missing") + "'", "58P01"},
	} {
		_, err := runQuery(ctx, tc.db.NewSession(), tc.sql)
		if got := pgerr.Code(err); got != tc.code {
			t.Errorf("%s: %v (%s), want %s", tc.sql, err, got, tc.code)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
		t.Error("COPY TO wrote through a symbolic link out of the allowed directory")
	}

	// A COPY TO that fails halfway leaves the old file whole and no
	// temporary file behind; one that succeeds replaces it.
	s := open.NewSession()
	out := filepath.Join(allowed, "out.txt")
	execSQL(t, s, "INSERT INTO t VALUES (1), (2)")
	execSQL(t, s, "COPY t TO '"+out+"'")
	_, err = runQuery(ctx, s, "COPY (SELECT 10 / (g - 50000) FROM generate_series(1, 100000) g) TO '"+out+"'")
	if pgerr.Code(err) != "22012" {
		t.Fatalf("failing COPY TO: %v", err)
	}
	if data, _ := os.ReadFile(out); string(data) != "1\n2\n" {
		t.Errorf("after a failed COPY TO the file holds %q", data)
	}
	entries, _ := os.ReadDir(allowed)
	if len(entries) != 2 {
		t.Errorf("directory holds %d entries after a failed COPY TO, want out.txt and link", len(entries))
	}
	execSQL(t, s, "COPY t FROM '"+out+"'")
	if got := queryRows(t, s, "SELECT count(*) FROM t"); !reflect.DeepEqual(got, []string{"4"}) {
		t.Errorf("count = %q, want 4", got)
	}
}

// TestCopyErrors checks PostgreSQL's SQLSTATE, message, DETAIL and CONTEXT
// for bad input and bad statements.
func TestCopyErrors(t *testing.T) {
	for _, tc := range []struct {
		copy    string
		input   string
		code    string
		message string
		detail  string
		context string // checked as a prefix when it ends with "..."
	}{
		{"COPY t (a, b) FROM STDIN", "1\tx\nzz\ty\n",
			"22P02", `invalid input syntax for type integer: "zz"`, "", `COPY t, line 2, column a: "zz"`},
		{"COPY t (a, b, d) FROM STDIN (FORMAT csv)", "1,x,2024-01-01\n2,y,2024-13-01\n",
			"22008", `date/time field value out of range: "2024-13-01"`, "", `COPY t, line 2, column d: "2024-13-01"`},
		{"COPY t (d) FROM STDIN", "notadate\n",
			"22007", `invalid input syntax for type date: "notadate"`, "", `COPY t, line 1, column d: "notadate"`},
		{"COPY t (a, b) FROM STDIN (HEADER)", "a\tb\n1\tx\n99999999999\ty\n",
			"22003", `value "99999999999" is out of range for type integer`, "", `COPY t, line 3, column a: "99999999999"`},
		{"COPY t (v) FROM STDIN", "toolong\n",
			"22001", "value too long for type character varying(5)", "", `COPY t, line 1, column v: "toolong"`},
		{"COPY t (n) FROM STDIN", "123456789.123\n",
			"22003", "numeric field overflow", "A field with precision 10, scale 2 must round to an absolute value less than 10^8.",
			`COPY t, line 1, column n: "123456789.123"`},
		{"COPY t (f) FROM STDIN", "maybe\n",
			"22P02", `invalid input syntax for type boolean: "maybe"`, "", `COPY t, line 1, column f: "maybe"`},
		{"COPY t (a, b) FROM STDIN", "1\n",
			"22P04", `missing data for column "b"`, "", "COPY t, line 1..."},
		{"COPY t (a, b) FROM STDIN", "1\tx\n2\tx\ty\n",
			"22P04", "extra data after last expected column", "", "COPY t, line 2..."},
		{"COPY t (a, b) FROM STDIN (FORMAT csv)", "1,\"unterminated\n2,x\n",
			"22P04", "unterminated CSV quoted field", "", "COPY t, line 1..."},
		{"COPY t (a, b) FROM STDIN", "1\tx\n\\N\ty\n",
			"23502", `null value in column "a" of relation "t" violates not-null constraint`, "Failing row contains (null, y, null, null, null, null).", "COPY t, line 2..."},
		{"COPY t FROM '/nonexistent/dir/file'", "",
			"58P01", `could not open file "/nonexistent/dir/file" for reading: ...`, "", ""},
		{"COPY t TO '/nonexistent/dir/file'", "",
			"58P01", `could not open file "/nonexistent/dir/file" for writing: ...`, "", ""},
		{"COPY nosuch FROM STDIN", "",
			"42P01", `relation "nosuch" does not exist`, "", ""},
		{"COPY t (a, nosuch) FROM STDIN", "",
			"42703", `column "nosuch" of relation "t" does not exist`, "", ""},
		{"COPY t (a, a) TO STDOUT", "",
			"42701", `column "a" specified more than once`, "", ""},
		{"COPY t FROM STDIN (FORMAT xml)", "",
			"22023", `COPY format "xml" not recognized`, "", ""},
		{"COPY t FROM STDIN (DELIMITER '||')", "",
			"0A000", "COPY delimiter must be a single one-byte character", "", ""},
		{"COPY t FROM STDIN (FORMAT binary)", "",
			"0A000", "COPY in binary format is not supported", "", ""},
	} {
		t.Run(tc.copy, func(t *testing.T) {
			s := openDB(t).NewSession()
			execSQL(t, s, "CREATE TABLE t (a int NOT NULL, b text, d date, v varchar(5), n numeric(10,2), f boolean)")
			h := &copyStreams{in: strings.NewReader(tc.input)}
			s.SetCopyHandler(h)
			_, err := s.Exec(context.Background(), tc.copy)
			pe, ok := pgerr.As(err)
			if !ok {
				t.Fatalf("error %v (%T), want a *pgerr.Error", err, err)
			}
			if pe.Code != tc.code || !matches(pe.Message, tc.message) {
				t.Errorf("error %s %q, want %s %q", pe.Code, pe.Message, tc.code, tc.message)
			}
			if pe.Detail != tc.detail {
				t.Errorf("DETAIL %q, want %q", pe.Detail, tc.detail)
			}
			if !matches(pe.Context, tc.context) {
				t.Errorf("CONTEXT %q, want %q", pe.Context, tc.context)
			}
			if h.out.Len() > 0 {
				t.Errorf("a failed COPY wrote %q", h.out.String())
			}
			if got := queryRows(t, s, "SELECT count(*) FROM t"); !reflect.DeepEqual(got, []string{"0"}) {
				t.Errorf("the failed COPY stored %s rows", got)
			}
		})
	}
}

// matches compares s with want, or with want's beginning when want ends
// with "...".
func matches(s, want string) bool {
	if prefix, ok := strings.CutSuffix(want, "..."); ok {
		return strings.HasPrefix(s, prefix)
	}
	return s == want
}

// TestCopyAllOrNothing: a COPY that fails stores no row, however far into
// the data it fails and whichever tables the rows went to.
func TestCopyAllOrNothing(t *testing.T) {
	const n = 150_000 // more than two of the executor's batches
	big := func(bad string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if i == n-1 {
				b.WriteString(bad)
				continue
			}
			fmt.Fprintf(&b, "%d\trow %d\n", i, i)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name    string
		copy    string
		input   string
		code    string
		message string
	}{
		{"bad value on line 3", "COPY t FROM STDIN", "1\ta\n2\tb\nthree\tc\n4\td\n",
			"22P02", `invalid input syntax for type integer: "three"`},
		{"bad value after many batches", "COPY t FROM STDIN", big("x\ty\n"),
			"22P02", `invalid input syntax for type integer: "x"`},
		{"missing column after many batches", "COPY t FROM STDIN", big("1\n"),
			"22P04", `missing data for column "b"`},
		{"NULL in a NOT NULL column after many batches", "COPY t FROM STDIN", big("\\N\tnull\n"),
			"23502", `null value in column "a" of relation "t" violates not-null constraint`},
		{"row without a partition after many batches", "COPY p FROM STDIN", big("-5\tnowhere\n"),
			"23514", `no partition of relation "p" found for row`},
		{"row outside the partition's bound", "COPY p1 FROM STDIN", "1\tin\n200000\tout\n",
			"23514", `new row for relation "p1" violates partition constraint`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openDB(t).NewSession()
			execSQL(t, s, `CREATE TABLE t (a int NOT NULL, b text);
				CREATE TABLE p (a int NOT NULL, b text) PARTITION BY RANGE (a);
				CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (1) TO (100000);
				CREATE TABLE p2 PARTITION OF p FOR VALUES FROM (100000) TO (1000000);
				INSERT INTO t VALUES (0, 'before');
				INSERT INTO p VALUES (1, 'before'), (100000, 'before')`)
			_, err := copyIn(s, tc.copy, tc.input)
			checkError(t, err, tc.code, tc.message)
			if got := rowCounts(t, s, "t", "p1", "p2"); !reflect.DeepEqual(got, []string{"1", "1", "1"}) {
				t.Errorf("row counts of t, p1, p2 after the failed COPY: %q, want the rows from before only", got)
			}
		})
	}
}

// TestCopyPartitions routes the rows COPY reads into partitions.
func TestCopyPartitions(t *testing.T) {
	s := openDB(t).NewSession()
	execSQL(t, s, `CREATE TABLE r (a int, b text) PARTITION BY RANGE (a);
		CREATE TABLE r1 PARTITION OF r FOR VALUES FROM (MINVALUE) TO (10);
		CREATE TABLE r2 PARTITION OF r FOR VALUES FROM (10) TO (20);
		CREATE TABLE l (k text, v int) PARTITION BY LIST (k);
		CREATE TABLE l_ab PARTITION OF l FOR VALUES IN ('a', 'b');
		CREATE TABLE l_null PARTITION OF l FOR VALUES IN (NULL);
		CREATE TABLE l_rest PARTITION OF l DEFAULT`)
	if tag, err := copyIn(s, "COPY r FROM STDIN", "1\tone\n15\tfifteen\n-3\tminus\n19\tnineteen\n"); err != nil || tag != "COPY 4" {
		t.Fatalf("%q, %v", tag, err)
	}
	if tag, err := copyIn(s, "COPY l FROM STDIN (FORMAT csv)", "a,1\nb,2\n,3\nz,4\n\"\",5\n"); err != nil || tag != "COPY 5" {
		t.Fatalf("%q, %v", tag, err)
	}
	if tag, err := copyIn(s, "COPY r2 FROM STDIN", "12\tdirect\n"); err != nil || tag != "COPY 1" {
		t.Fatalf("%q, %v", tag, err)
	}
	for table, want := range map[string][]string{
		"r1":     {"-3|minus", "1|one"},
		"r2":     {"12|direct", "15|fifteen", "19|nineteen"},
		"l_ab":   {"a|1", "b|2"},
		"l_null": {"NULL|3"},
		"l_rest": {"z|4", "|5"},
	} {
		if got := queryRows(t, s, "SELECT * FROM "+table+" ORDER BY 2"); !reflect.DeepEqual(got, want) {
			t.Errorf("%s holds %q, want %q", table, got, want)
		}
	}
	// COPY (SELECT ...) reads the partitioned table as a whole.
	got := copyOut(t, s, "COPY (SELECT * FROM r ORDER BY a) TO STDOUT (FORMAT csv)")
	if want := lines("-3,minus", "1,one", "12,direct", "15,fifteen", "19,nineteen"); got != want {
		t.Errorf("COPY (SELECT ...) TO wrote\n%s\nwant\n%s", got, want)
	}
}

// failingReader returns its data, then an error.
type failingReader struct {
	data string
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write(p []byte) (int, error) { return 0, errors.New("disk full") }

// funcHandler is a CopyHandler made of two functions.
type funcHandler struct {
	in  func() (io.Reader, error)
	out func() (io.Writer, error)
}

func (h funcHandler) CopyIn() (io.Reader, error)  { return h.in() }
func (h funcHandler) CopyOut() (io.Writer, error) { return h.out() }

// TestCopyHandlerFailures: the handler's errors end the COPY, storing
// nothing, and leave the session usable.
func TestCopyHandlerFailures(t *testing.T) {
	ctx := context.Background()
	s := openDB(t).NewSession()
	execSQL(t, s, "CREATE TABLE t (a int)")

	_, err := s.Exec(ctx, "COPY t FROM STDIN")
	checkError(t, err, "0A000", "COPY FROM STDIN needs a copy handler (Session.SetCopyHandler)")
	_, err = s.Exec(ctx, "COPY t TO STDOUT")
	checkError(t, err, "0A000", "COPY TO STDOUT needs a copy handler (Session.SetCopyHandler)")

	s.SetCopyHandler(funcHandler{
		in:  func() (io.Reader, error) { return nil, errors.New("no input today") },
		out: func() (io.Writer, error) { return failingWriter{}, nil },
	})
	_, err = s.Exec(ctx, "COPY t FROM STDIN")
	if err == nil || !strings.Contains(err.Error(), "no input today") {
		t.Errorf("CopyIn's error gave %v", err)
	}
	execSQL(t, s, "INSERT INTO t VALUES (1)")
	_, err = s.Exec(ctx, "COPY t TO STDOUT")
	checkError(t, err, "58030", "could not write COPY data: disk full")

	s.SetCopyHandler(funcHandler{
		in: func() (io.Reader, error) {
			return &failingReader{data: "2\n3\n", err: errors.New("connection reset")}, nil
		},
	})
	_, err = s.Exec(ctx, "COPY t FROM STDIN")
	checkError(t, err, "58030", "could not read COPY data: connection reset")

	if got := queryRows(t, s, "SELECT a FROM t"); !reflect.DeepEqual(got, []string{"1"}) {
		t.Errorf("t holds %q after the failed COPYs, want only 1", got)
	}
}

// The tests below show where pgfed's COPY differs from PostgreSQL 15.

func TestCopyTextEscapedDelimiter(t *testing.T) {
	s := openDB(t).NewSession()
	execSQL(t, s, "CREATE TABLE t (a int, b text)")
	if _, err := copyIn(s, "COPY t FROM STDIN (DELIMITER ',')", "1,a\\,b\n"); err != nil {
		t.Fatal(err)
	}
	if got := queryRows(t, s, "SELECT b FROM t"); !reflect.DeepEqual(got, []string{"a,b"}) {
		t.Errorf("b = %q, want a,b", got)
	}
}

func TestCopyCSVEndMarkerQuoting(t *testing.T) {
	s := openDB(t).NewSession()
	if got, want := copyOut(t, s, `COPY (SELECT 1, '\.') TO STDOUT (FORMAT csv)`), "1,\\.\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

func TestCopyHeaderMatch(t *testing.T) {
	s := openDB(t).NewSession()
	execSQL(t, s, "CREATE TABLE t (a int, b text)")
	_, err := copyIn(s, "COPY t FROM STDIN (HEADER MATCH)", "x\tb\n1\tone\n")
	pe := checkError(t, err, "22P04", `column name mismatch in header line field 1: got "x", expected "a"`)
	if want := "COPY t, line 1: \"x\tb\""; pe.Context != want {
		t.Errorf("CONTEXT %q, want %q", pe.Context, want)
	}
}

func TestCopyLineContext(t *testing.T) {
	for _, tc := range []struct{ input, context string }{
		{"1\n", `COPY t, line 1: "1"`},
		{"1\tx\ty\n", "COPY t, line 1: \"1\tx\ty\""},
		{"\\N\tx\n", "COPY t, line 1: \"\\N\tx\""},
	} {
		s := openDB(t).NewSession()
		execSQL(t, s, "CREATE TABLE t (a int NOT NULL, b text)")
		_, err := copyIn(s, "COPY t FROM STDIN", tc.input)
		pe, ok := pgerr.As(err)
		if !ok {
			t.Errorf("input %q: error %v, want a *pgerr.Error", tc.input, err)
		} else if pe.Context != tc.context {
			t.Errorf("input %q: error %q with CONTEXT %q, want %q", tc.input, pe.Message, pe.Context, tc.context)
		}
	}
}

func TestCopyMissingFileMessage(t *testing.T) {
	s := openDB(t).NewSession()
	execSQL(t, s, "CREATE TABLE t (a int)")
	_, err := s.Exec(context.Background(), "COPY t FROM '/nonexistent/file'")
	pe := checkError(t, err, "58P01", `could not open file "/nonexistent/file" for reading: No such file or directory`)
	if want := "COPY FROM instructs the PostgreSQL server process to read a file. " +
		"You may want a client-side facility such as psql's \\copy."; pe.Hint != want {
		t.Errorf("HINT %q, want %q", pe.Hint, want)
	}
}

func TestCopyToOfPartitionedTable(t *testing.T) {
	s := openDB(t).NewSession()
	execSQL(t, s, "CREATE TABLE p (a int) PARTITION BY LIST (a); CREATE TABLE p1 PARTITION OF p FOR VALUES IN (1)")
	s.SetCopyHandler(&copyStreams{})
	_, err := s.Exec(context.Background(), "COPY p TO STDOUT")
	pe := checkError(t, err, "42809", `cannot copy from partitioned table "p"`)
	if pe.Hint != "Try the COPY (SELECT ...) TO variant." {
		t.Errorf("HINT %q", pe.Hint)
	}
}

func TestCopyDMLWithoutReturning(t *testing.T) {
	s := openDB(t).NewSession()
	execSQL(t, s, "CREATE TABLE t (a int)")
	s.SetCopyHandler(&copyStreams{})
	_, err := s.Exec(context.Background(), "COPY (INSERT INTO t VALUES (1)) TO STDOUT")
	checkError(t, err, "0A000", "COPY query must have a RETURNING clause")
	if got := queryRows(t, s, "SELECT count(*) FROM t"); !reflect.DeepEqual(got, []string{"0"}) {
		t.Errorf("t has %q rows, want 0", got)
	}
}

func TestCopyCSVEscapeOfEscape(t *testing.T) {
	s := openDB(t).NewSession()
	execSQL(t, s, "CREATE TABLE t (a int, b text)")
	const options = `(FORMAT csv, QUOTE '''', ESCAPE '\')`
	if _, err := copyIn(s, "COPY t FROM STDIN "+options, `1,'a\\b'`+"\n"); err != nil {
		t.Fatal(err)
	}
	if got := queryRows(t, s, "SELECT b FROM t"); !reflect.DeepEqual(got, []string{`a\b`}) {
		t.Errorf(`read %q, want a\b`, got)
	}
	if got, want := copyOut(t, s, `COPY (SELECT 'x,\y') TO STDOUT `+options), `'x,\\y'`+"\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}
