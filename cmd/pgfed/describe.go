package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/pgerr"
)

// listRelations runs \d without a name: psql's "List of relations".
func (r *repl) listRelations() bool {
	rels, err := r.sess.ListRelations()
	if err != nil {
		r.serverError(err, "")
		return false
	}
	if len(rels) == 0 {
		// Not a failure for psql either.
		r.clientMessage("error", "Did not find any relations.")
		return true
	}
	// psql orders by schema and name, bytewise under the C collation.
	rels = append([]pgfed.RelationInfo(nil), rels...)
	sort.Slice(rels, func(i, j int) bool {
		if rels[i].Schema != rels[j].Schema {
			return rels[i].Schema < rels[j].Schema
		}
		return rels[i].Name < rels[j].Name
	})
	t := &table{
		title:      "List of relations",
		headers:    []string{"Schema", "Name", "Type", "Owner"},
		rightAlign: make([]bool, 4),
	}
	for _, rel := range rels {
		t.rows = append(t.rows, []string{rel.Schema, rel.Name, rel.Kind, r.opts.owner})
	}
	r.printTable(t, true)
	return true
}

// describeRelation runs \d NAME (and \d+ NAME, which lists partitions
// rather than counting them).
func (r *repl) describeRelation(pattern string, verbose bool) bool {
	// The engine reads the name as SQL does (quotes, case folding,
	// schema qualification), which is also what psql's pattern amounts to
	// without wildcards, so it gets the argument as typed.
	d, err := r.sess.DescribeRelation(pattern)
	if err != nil && pgerr.Code(err) != pgerr.UndefinedTable && pgerr.Code(err) != pgerr.UndefinedSchema {
		r.serverError(err, "")
		return false
	}
	if d == nil {
		r.clientError(fmt.Sprintf(`Did not find any relation named "%s".`, pattern))
		return false
	}
	r.printTable(describeTable(d, verbose), false)
	return true
}

// describeTable lays out a relation's description like psql 15's
// describeOneTableDetails.
func describeTable(d *pgfed.RelationDesc, verbose bool) *table {
	foreign := d.Kind == "foreign table"
	t := &table{
		title:   fmt.Sprintf("%s \"%s.%s\"", kindTitle(d.Kind), d.Schema, d.Name),
		headers: []string{"Column", "Type", "Collation", "Nullable", "Default"},
		footers: []string{},
	}
	if foreign {
		t.headers = append(t.headers, "FDW options")
	}
	t.rightAlign = make([]bool, len(t.headers))
	for _, c := range d.Columns {
		nullable := ""
		if c.NotNull {
			nullable = "not null"
		}
		row := []string{c.Name, c.Type, "", nullable, c.Default}
		if foreign {
			row = append(row, fdwOptions(c.FDWOptions))
		}
		t.rows = append(t.rows, row)
	}
	if foreign && d.Server != "" {
		t.footers = append(t.footers, "Server: "+d.Server)
		if len(d.FDWOptions) > 0 {
			t.footers = append(t.footers, "FDW options: "+fdwOptions(d.FDWOptions))
		}
	}

	if d.PartitionOf != "" {
		t.footers = append(t.footers, strings.TrimSpace("Partition of: "+d.PartitionOf+" "+d.PartitionBound))
	}
	if d.Kind == "partitioned table" {
		if d.PartitionKey != "" {
			t.footers = append(t.footers, "Partition key: "+d.PartitionKey)
		}
		switch n := len(d.Partitions); {
		case n == 0:
			t.footers = append(t.footers, "Number of partitions: 0")
		case verbose:
			const label = "Partitions: "
			for i, p := range d.Partitions {
				line := strings.Repeat(" ", len(label)) + p
				if i == 0 {
					line = label + p
				}
				if i < n-1 {
					line += ","
				}
				t.footers = append(t.footers, line)
			}
		default:
			t.footers = append(t.footers, fmt.Sprintf(`Number of partitions: %d (Use \d+ to list them.)`, n))
		}
	}
	return t
}

// kindTitle is the word psql starts a description's title with.
func kindTitle(kind string) string {
	switch kind {
	case "", "table":
		return "Table"
	case "partitioned table":
		return "Partitioned table"
	case "foreign table":
		return "Foreign table"
	}
	return strings.ToUpper(kind[:1]) + kind[1:]
}

// fdwOptions formats options as psql shows them: (name 'value', ...),
// names quoted when needed, sorted for a stable display.
func fdwOptions(opts map[string]string) string {
	if len(opts) == 0 {
		return ""
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = quoteOptionName(k) + " '" + strings.ReplaceAll(opts[k], "'", "''") + "'"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// quoteOptionName quotes an option name that is a keyword (user) or not
// a plain identifier, as psql's quote_ident does.
func quoteOptionName(s string) string {
	plain := s != "" && s != "user"
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			plain = false
		}
	}
	if plain {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// listServers runs \des[+]: "List of foreign servers".
func (r *repl) listServers(verbose bool) bool {
	servers, err := r.sess.ListServers()
	if err != nil {
		r.serverError(err, "")
		return false
	}
	t := &table{title: "List of foreign servers", headers: []string{"Name", "Owner", "Foreign-data wrapper"}}
	if verbose {
		t.headers = append(t.headers, "Access privileges", "Type", "Version", "FDW options", "Description")
	}
	t.rightAlign = make([]bool, len(t.headers))
	for _, s := range servers {
		row := []string{s.Name, r.opts.owner, s.Wrapper}
		if verbose {
			row = append(row, "", "", "", fdwOptions(s.Options), "")
		}
		t.rows = append(t.rows, row)
	}
	r.printTable(t, true)
	return true
}

// listUserMappings runs \deu[+]: "List of user mappings" (passwords are
// never shown).
func (r *repl) listUserMappings(verbose bool) bool {
	maps, err := r.sess.ListUserMappings()
	if err != nil {
		r.serverError(err, "")
		return false
	}
	t := &table{title: "List of user mappings", headers: []string{"Server", "User name"}}
	if verbose {
		t.headers = append(t.headers, "FDW options")
	}
	t.rightAlign = make([]bool, len(t.headers))
	for _, m := range maps {
		row := []string{m.Server, m.User}
		if verbose {
			row = append(row, fdwOptions(m.Options))
		}
		t.rows = append(t.rows, row)
	}
	r.printTable(t, true)
	return true
}

// listForeignTables runs \det[+]: "List of foreign tables".
func (r *repl) listForeignTables(verbose bool) bool {
	tables, err := r.sess.ListForeignTables()
	if err != nil {
		r.serverError(err, "")
		return false
	}
	t := &table{title: "List of foreign tables", headers: []string{"Schema", "Table", "Server"}}
	if verbose {
		t.headers = append(t.headers, "FDW options", "Description")
	}
	t.rightAlign = make([]bool, len(t.headers))
	for _, ft := range tables {
		row := []string{ft.Schema, ft.Name, ft.Server}
		if verbose {
			row = append(row, fdwOptions(ft.Options), "")
		}
		t.rows = append(t.rows, row)
	}
	r.printTable(t, true)
	return true
}
