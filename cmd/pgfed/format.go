package main

import (
	"bufio"
	"fmt"
	"strings"
)

// This file prints tables the way psql 15 does with its default settings
// (\pset border 1, linestyle ascii, null display ''), in the aligned,
// expanded (\x) and CSV (--csv) formats. The code mirrors print.c closely,
// since users compare the output with psql's character by character.

// table is a result ready for printing. Cells hold the text of each value,
// NULL already replaced by the empty string.
type table struct {
	title   string
	headers []string
	// rightAlign marks numeric columns, which psql right-aligns.
	rightAlign []bool
	rows       [][]string
	// footers replace psql's default "(N rows)" footer when non-nil.
	footers []string
}

// outputFormat is psql's \pset format, of which pgfed has two.
type outputFormat int

const (
	formatAligned outputFormat = iota
	formatCSV
)

// expandedMode is psql's \x setting.
type expandedMode int

const (
	expandedOff expandedMode = iota
	expandedOn
	expandedAuto
)

// printOptions says how to print a table.
type printOptions struct {
	format   outputFormat
	expanded expandedMode
	// termWidth is the width of the terminal the output goes to, or 0
	// when it is not a terminal; \x auto only expands on a terminal.
	termWidth int
}

// printTable writes t in the chosen format.
func printTable(w *bufio.Writer, t *table, o printOptions) {
	expanded := o.expanded == expandedOn ||
		o.expanded == expandedAuto && o.termWidth > 0 && alignedWidth(t) > o.termWidth
	switch {
	case o.format == formatCSV && expanded:
		printCSVVertical(w, t)
	case o.format == formatCSV:
		printCSV(w, t)
	case expanded:
		printExpanded(w, t)
	default:
		printAligned(w, t)
	}
}

// rowCountFooter is psql's default footer.
func rowCountFooter(n int) string {
	if n == 1 {
		return "(1 row)"
	}
	return fmt.Sprintf("(%d rows)", n)
}

func (t *table) footerLines() []string {
	if t.footers != nil {
		return t.footers
	}
	return []string{rowCountFooter(len(t.rows))}
}

func spaces(w *bufio.Writer, n int) {
	for ; n > 0; n-- {
		w.WriteByte(' ')
	}
}

func repeatByte(w *bufio.Writer, c byte, n int) {
	for ; n > 0; n-- {
		w.WriteByte(c)
	}
}

// formatted holds t's headers and cells split into display lines, with the
// width of each column.
type formatted struct {
	headers []displayLines
	rows    [][]displayLines
	widths  []int
}

func formatTable(t *table) formatted {
	f := formatted{
		headers: make([]displayLines, len(t.headers)),
		rows:    make([][]displayLines, len(t.rows)),
		widths:  make([]int, len(t.headers)),
	}
	for j, h := range t.headers {
		f.headers[j] = formatCell(h)
		f.widths[j] = f.headers[j].maxWidth()
	}
	for i, row := range t.rows {
		f.rows[i] = make([]displayLines, len(row))
		for j, v := range row {
			f.rows[i][j] = formatCell(v)
			f.widths[j] = max(f.widths[j], f.rows[i][j].maxWidth())
		}
	}
	return f
}

// totalWidth is the width of an aligned table's rule line.
func (f formatted) totalWidth() int {
	n := len(f.widths)
	total := 3*n - 1
	if n == 0 {
		total = 0
	}
	for _, cw := range f.widths {
		total += cw
	}
	return total
}

// alignedWidth is how wide t would print in the aligned format, for \x auto.
func alignedWidth(t *table) int { return formatTable(t).totalWidth() }

// printAligned is print.c's print_aligned_text for border 1.
func printAligned(w *bufio.Writer, t *table) {
	f := formatTable(t)
	n := len(t.headers)

	if t.title != "" {
		total := f.totalWidth()
		if tw := formatCell(t.title).maxWidth(); tw < total {
			spaces(w, (total-tw)/2)
		}
		w.WriteString(t.title)
		w.WriteByte('\n')
	}

	// Headers are centred; a header with newlines takes several lines,
	// each but the last marked with "+".
	done := make([]bool, n)
	left := n
	for line := 0; left > 0; line++ {
		for j := 0; j < n; j++ {
			w.WriteByte(' ')
			h := f.headers[j]
			if !done[j] {
				pad := f.widths[j] - h.widths[line]
				spaces(w, pad/2)
				w.WriteString(h.lines[line])
				spaces(w, (pad+1)/2)
				if line+1 >= len(h.lines) {
					done[j] = true
					left--
				}
			} else {
				spaces(w, f.widths[j])
			}
			if done[j] {
				w.WriteByte(' ')
			} else {
				w.WriteByte('+')
			}
			if j < n-1 {
				w.WriteByte('|')
			}
		}
		w.WriteByte('\n')
	}

	w.WriteByte('-')
	for j := 0; j < n; j++ {
		repeatByte(w, '-', f.widths[j])
		if j < n-1 {
			w.WriteString("-+-")
		}
	}
	w.WriteString("-\n")

	// Each row prints as many lines as its tallest cell. A cell that
	// continues on the next line gets a "+" after it; the last column is
	// not padded (psql leaves no trailing blanks) unless it needs that mark.
	cur := make([]int, n)
	for _, row := range f.rows {
		if n == 0 {
			break // psql prints no line for a row without columns
		}
		clear(cur)
		for more := true; more; {
			more = false
			for j := 0; j < n; j++ {
				last := j == n-1
				w.WriteByte(' ')
				c := row[j]
				used := f.widths[j]
				if cur[j] < len(c.lines) {
					used = c.widths[cur[j]]
					if t.rightAlign[j] {
						spaces(w, f.widths[j]-used)
					}
					w.WriteString(c.lines[cur[j]])
					cur[j]++
					if cur[j] < len(c.lines) {
						more = true
					}
				} else if !last {
					spaces(w, f.widths[j])
				}
				continues := cur[j] < len(c.lines)
				if !t.rightAlign[j] && (!last || continues) {
					spaces(w, f.widths[j]-used)
				}
				switch {
				case continues:
					w.WriteByte('+')
				case !last:
					w.WriteByte(' ')
				}
				if !last {
					w.WriteByte('|')
				}
			}
			w.WriteByte('\n')
		}
	}

	for _, line := range t.footerLines() {
		w.WriteString(line)
		w.WriteByte('\n')
	}
	w.WriteByte('\n')
}

// printExpanded is print.c's print_aligned_vertical for border 1: one
// "-[ RECORD n ]" block per row with a "name | value" line per column.
func printExpanded(w *bufio.Writer, t *table) {
	if len(t.rows) == 0 || len(t.headers) == 0 {
		// psql prints only the footer when there is no cell at all.
		for _, line := range t.footerLines() {
			w.WriteString(line)
			w.WriteByte('\n')
		}
		w.WriteByte('\n')
		return
	}
	f := formatTable(t)
	hwidth, dwidth := 0, 0
	for _, h := range f.headers {
		hwidth = max(hwidth, h.maxWidth())
	}
	for _, row := range f.rows {
		for _, c := range row {
			dwidth = max(dwidth, c.maxWidth())
		}
	}

	if t.title != "" {
		w.WriteString(t.title)
		w.WriteByte('\n')
	}
	for i, row := range f.rows {
		recordLine(w, i+1, hwidth, dwidth)
		for j, c := range row {
			h := f.headers[j]
			hl, dl := 0, 0
			hdone, ddone := false, false
			for !hdone || !ddone {
				if !hdone {
					w.WriteString(h.lines[hl])
					spaces(w, hwidth-h.widths[hl])
					if hl+1 < len(h.lines) {
						w.WriteByte('+')
						hl++
					} else {
						w.WriteByte(' ')
						hdone = true
					}
				} else {
					spaces(w, hwidth+1)
				}
				w.WriteByte('|')
				if !ddone {
					w.WriteByte(' ')
					w.WriteString(c.lines[dl])
					if dl+1 < len(c.lines) {
						spaces(w, dwidth-c.widths[dl])
						w.WriteByte('+')
						dl++
					} else {
						ddone = true
					}
				}
				w.WriteByte('\n')
			}
		}
	}
	if t.footers != nil {
		w.WriteByte('\n')
		for _, line := range t.footers {
			w.WriteString(line)
			w.WriteByte('\n')
		}
	}
	w.WriteByte('\n')
}

// recordLine is print_aligned_vertical_line: "-[ RECORD n ]" followed by
// dashes to the table's width, with "+" where the column divider falls if
// the label is short enough to leave room for it.
func recordLine(w *bufio.Writer, record, hwidth, dwidth int) {
	label := fmt.Sprintf("[ RECORD %d ]", record)
	w.WriteByte('-')
	w.WriteString(label)
	reclen := len(label) + 1
	repeatByte(w, '-', hwidth-reclen)
	reclen -= hwidth
	for _, c := range []byte("-+-") {
		if reclen <= 0 {
			w.WriteByte(c)
		}
		reclen--
	}
	repeatByte(w, '-', dwidth-max(reclen, 0))
	w.WriteByte('\n')
}

// printCSV is print_csv_text: a header line, then one line per row, with
// no title or footer. NULL and the empty string both print as nothing.
func printCSV(w *bufio.Writer, t *table) {
	for j, h := range t.headers {
		if j > 0 {
			w.WriteByte(',')
		}
		csvField(w, h)
	}
	w.WriteByte('\n')
	for _, row := range t.rows {
		if len(row) == 0 {
			continue // psql prints no line for a row without cells
		}
		for j, v := range row {
			if j > 0 {
				w.WriteByte(',')
			}
			csvField(w, v)
		}
		w.WriteByte('\n')
	}
}

// printCSVVertical is print_csv_vertical: a "name,value" line per cell.
func printCSVVertical(w *bufio.Writer, t *table) {
	for _, row := range t.rows {
		for j, v := range row {
			csvField(w, t.headers[j])
			w.WriteByte(',')
			csvField(w, v)
			w.WriteByte('\n')
		}
	}
}

// csvField writes s quoted when RFC 4180 needs it, and also when it is
// exactly \. so that the output can be fed back to COPY FROM STDIN.
func csvField(w *bufio.Writer, s string) {
	if !strings.ContainsAny(s, ",\r\n\"") && s != `\.` {
		w.WriteString(s)
		return
	}
	w.WriteByte('"')
	w.WriteString(strings.ReplaceAll(s, `"`, `""`))
	w.WriteByte('"')
}
