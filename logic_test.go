package pgfed_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/logictest"
	"github.com/pgfed/pgfed/pgerr"
)

// engineDB adapts a pgfed session to the logic-test runner.
type engineDB struct{ s *pgfed.Session }

func (d engineDB) Query(ctx context.Context, sql string) ([]string, [][]*string, error) {
	rows, err := d.s.Query(ctx, sql)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	if !rows.ReturnsRows() {
		for rows.Next() {
		}
		return nil, nil, rows.Err()
	}
	var names []string
	for _, c := range rows.Columns() {
		names = append(names, c.Name)
	}
	var out [][]*string
	for rows.Next() {
		row := make([]*string, len(names))
		for i := range row {
			if s, ok := rows.Text(i); ok {
				row[i] = &s
			}
		}
		out = append(out, row)
	}
	return names, out, rows.Err()
}

var pgfedEngine = logictest.Engine{
	Name:     "pgfed",
	SQLState: pgerr.Code,
	Message: func(err error) string {
		if pe, ok := pgerr.As(err); ok {
			return pe.Message
		}
		return err.Error()
	},
}

// knownFailing lists corpus files pgfed does not pass yet (see the file);
// they run only with PGFED_ALL_LOGIC=1.
func knownFailing(t *testing.T) map[string]bool {
	f, err := os.Open("testdata/logic/known_failing.txt")
	if err != nil {
		return nil
	}
	defer f.Close()
	out := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			out[line] = true
		}
	}
	return out
}

// TestLogic runs the SQL logic corpus (whose expected results come from
// PostgreSQL 15) against pgfed.
func TestLogic(t *testing.T) {
	files, _ := filepath.Glob("testdata/logic/*.test")
	skip := knownFailing(t)
	all := os.Getenv("PGFED_ALL_LOGIC") != ""
	for _, path := range files {
		name := filepath.Base(path)
		if strings.HasPrefix(name, "_") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			if skip[name] && !all {
				t.Skip("listed in testdata/logic/known_failing.txt")
			}
			t.Parallel()
			db, err := pgfed.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			logictest.Run(t, path, engineDB{db.NewSession()}, pgfedEngine)
		})
	}
}
