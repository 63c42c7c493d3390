package main

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/pgfed/pgfed"
	"github.com/pgfed/pgfed/pgerr"
)

// formatError renders err the way psql shows a server error with its
// default verbosity: "ERROR:  message", the statement line holding the
// error position with a caret under it, then DETAIL, HINT and CONTEXT.
// query is the statement text the position counts in.
func formatError(err error, query string) string {
	e := pgerr.Wrap(err)
	var b strings.Builder
	severity := e.Severity
	if severity == "" {
		severity = "ERROR"
	}
	fmt.Fprintf(&b, "%s:  %s\n", severity, e.Message)
	if e.Position > 0 {
		b.WriteString(errorPosition(query, e.Position))
	}
	writeField(&b, "DETAIL", e.Detail)
	writeField(&b, "HINT", e.Hint)
	writeField(&b, "CONTEXT", e.Context)
	return b.String()
}

// formatNotice renders a notice like psql's default notice processor,
// which leaves out CONTEXT for anything but errors.
func formatNotice(n *pgfed.Notice) string {
	var b strings.Builder
	severity := n.Severity
	if severity == "" {
		severity = "NOTICE"
	}
	fmt.Fprintf(&b, "%s:  %s\n", severity, n.Message)
	writeField(&b, "DETAIL", n.Detail)
	writeField(&b, "HINT", n.Hint)
	return b.String()
}

func writeField(b *strings.Builder, name, value string) {
	if value != "" {
		fmt.Fprintf(b, "%s:  %s\n", name, value)
	}
}

// errorPosition is libpq's reportErrorPosition: it prints the line of
// query that holds the 1-based character position pos as "LINE n: ..." and
// a caret under the character. Lines wider than 60 columns are cut around
// the position, the cuts shown as "...". It returns "" when pos lies
// beyond the query.
func errorPosition(query string, pos int) string {
	const (
		displaySize = 60 // screen width limit, in columns
		minRightCut = 10 // try to keep the cut this far right of the caret
	)
	loc := pos - 1
	chars := []rune(query)
	n := len(chars)
	if loc < 0 || loc > n {
		return ""
	}
	// col[i] is the screen column where character i starts; only the
	// columns up to the end of loc's line are needed.
	col := make([]int, n+1)
	line, begin, end := 1, 0, -1
	c := 0
	for i, ch := range chars {
		col[i] = c
		switch ch {
		case '\t':
			chars[i] = ' ' // tabs count as one column, like libpq
		case '\r', '\n':
			if i >= loc {
				end = i
			} else {
				// "\r\n" counts as one line end.
				if ch == '\r' || i == 0 || chars[i-1] != '\r' {
					line++
				}
				begin = i + 1
			}
		}
		if end >= 0 {
			break
		}
		w := runeWidth(chars[i])
		if w <= 0 {
			w = 1
		}
		c += w
	}
	if end < 0 {
		end = n
		col[n] = c
	}

	beginCut, endCut := false, false
	if col[end]-col[begin] > displaySize {
		if col[begin]+displaySize >= col[loc]+minRightCut {
			for col[end]-col[begin] > displaySize {
				end--
			}
			endCut = true
		} else {
			for col[loc]+minRightCut < col[end] {
				end--
				endCut = true
			}
			for col[end]-col[begin] > displaySize {
				begin++
				beginCut = true
			}
		}
	}

	prefix := fmt.Sprintf("LINE %d: ", line)
	if beginCut {
		prefix += "..."
	}
	var b strings.Builder
	b.WriteString(prefix)
	b.WriteString(string(chars[begin:end]))
	if endCut {
		b.WriteString("...")
	}
	b.WriteByte('\n')
	b.WriteString(strings.Repeat(" ", len(prefix)+col[loc]-col[begin]))
	b.WriteString("^\n")
	return b.String()
}

// formatTiming is psql's \timing line; past a second it adds the duration
// in minutes, hours and days.
func formatTiming(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	if ms < 1000 {
		return fmt.Sprintf("Time: %.3f ms", ms)
	}
	seconds := ms / 1000
	minutes := math.Floor(seconds / 60)
	seconds -= 60 * minutes
	if minutes < 60 {
		return fmt.Sprintf("Time: %.3f ms (%02d:%06.3f)", ms, int(minutes), seconds)
	}
	hours := math.Floor(minutes / 60)
	minutes -= 60 * hours
	if hours < 24 {
		return fmt.Sprintf("Time: %.3f ms (%02d:%02d:%06.3f)", ms, int(hours), int(minutes), seconds)
	}
	days := math.Floor(hours / 24)
	hours -= 24 * days
	return fmt.Sprintf("Time: %.3f ms (%.0f d %02d:%02d:%06.3f)", ms, days, int(hours), int(minutes), seconds)
}
