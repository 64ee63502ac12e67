package table

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
	"strings"
)

// HTMLOptions are what RenderHTML adds to a table's cells.
type HTMLOptions struct {
	// Paper, when not nil, is the same table filled with the paper's
	// values (reports.PaperTable): a cell whose row key and column have a
	// paper value shows it and the difference (ours − paper, both as
	// displayed: rounded to 3 decimals).
	Paper *Table
	// Link, when not nil, is the address a cell's value links to (its
	// runs), "" for none.
	Link func(row, col int) string
	// Attrs are extra attributes of the <table> element, written as given
	// (already escaped), e.g. ` data-args="…"`.
	Attrs string
}

// RenderHTML writes t as an HTML <table> (no page around it): a two-level
// header as the text format's (dataset over "Low Ratio"/"High Ratio", or
// dataset-ratio over the sub-columns), one row per table row, and in each
// value cell (class "v") the mean (span "m"), "±std" (span "s") and "n=N"
// (span "n") with 3 decimals as the other formats show them (the chance
// row's exact values without std and n), then, when opts.Paper has a
// value, the paper's (span "pv") and the difference (ours − paper, both as
// displayed; class "up", "down" or "same"). Empty cells have the class
// "e". The best cells of IsBest have the class "best"; a row after which
// the other formats draw a rule has the class "rule", the chance row
// "reference". What the table's CSV (Render's csv format) writes as a
// cell's key is in data attributes: data-row on the row (the CSV's first
// column), data-dataset, data-ratio and data-metric on the column's leaf
// header. The notes and warnings are not written: the caller places them.
func RenderHTML(w io.Writer, t *Table, opts HTMLOptions) error {
	if t == nil {
		return fmt.Errorf("reports: nil table")
	}
	bw := bufio.NewWriter(w)
	esc := html.EscapeString
	if len(t.Columns) == 0 || len(t.Rows) == 0 {
		bw.WriteString(`<p class="empty">(no results)</p>` + "\n")
		return bw.Flush()
	}
	paper := map[string]int{} // row key → row of opts.Paper
	if opts.Paper != nil {
		for i, r := range opts.Paper.Rows {
			paper[r.Key] = i
		}
	}
	groups, leaves := t.headers()
	fmt.Fprintf(bw, "<table class=\"results\"%s>\n<thead>\n<tr><th rowspan=\"2\" class=\"rowhead\">%s</th>", opts.Attrs, esc(t.rowHeader()))
	for _, g := range groups {
		fmt.Fprintf(bw, `<th colspan="%d" class="group">%s</th>`, g.end-g.start, esc(g.label))
	}
	bw.WriteString("</tr>\n<tr>")
	for j, l := range leaves {
		c := t.Columns[j]
		cls := "leaf"
		if j > 0 && groupStart(groups, j) {
			cls += " g"
		}
		fmt.Fprintf(bw, `<th class="%s" data-dataset="%s" data-ratio="%s" data-metric="%s">%s</th>`,
			cls, esc(c.Dataset), esc(c.Ratio), esc(c.Metric), esc(l))
	}
	bw.WriteString("</tr>\n</thead>\n<tbody>\n")
	for i, row := range t.Rows {
		var cls []string
		if t.ruleAfter(i) {
			cls = append(cls, "rule")
		}
		if row.Reference {
			cls = append(cls, "reference")
		}
		// The CSV's first column: the row key (registry names), or the
		// label for a table with its own row header.
		name := row.Key
		if t.RowHeader != "" {
			name = row.Label
		}
		fmt.Fprintf(bw, `<tr data-i="%d" data-row="%s"`, i, esc(name))
		if len(cls) > 0 {
			fmt.Fprintf(bw, ` class="%s"`, strings.Join(cls, " "))
		}
		fmt.Fprintf(bw, `><th class="label" scope="row">%s</th>`, esc(row.Label))
		for j := range t.Columns {
			g := j > 0 && groupStart(groups, j)
			c := t.Cells[i][j]
			if c == nil {
				if g {
					bw.WriteString(`<td class="e g">–</td>`)
				} else {
					bw.WriteString(`<td class="e">–</td>`)
				}
				continue
			}
			cls := "v"
			if g {
				cls += " g"
			}
			if t.IsBest(i, j) {
				cls += " best"
			}
			fmt.Fprintf(bw, `<td class="%s">`, cls)
			link := ""
			if opts.Link != nil {
				link = opts.Link(i, j)
			}
			if link != "" {
				fmt.Fprintf(bw, `<a href="%s">`, esc(link))
			}
			fmt.Fprintf(bw, `<span class="m">%s</span>`, fmt3(c.Mean))
			exact := c.Exact && c.SingleSeed()
			if !exact {
				fmt.Fprintf(bw, `<span class="s">±%s</span>`, fmt3(c.Std))
			}
			if link != "" {
				bw.WriteString(`</a>`)
			}
			if !exact {
				fmt.Fprintf(bw, ` <span class="n">n=%d</span>`, c.N)
			}
			if pi, ok := paper[row.Key]; ok {
				if pc := opts.Paper.Cells[pi][j]; pc != nil {
					ps := fmt3(pc.Mean)
					if !pc.Exact {
						ps += "±" + fmt3(pc.Std)
					}
					d := round3(c.Mean) - pc.Mean
					sign, dcls := "+", "up"
					if d < 0 {
						sign, dcls = "−", "down"
					}
					if fmt3(math.Abs(d)) == "0.000" {
						sign, dcls = "±", "same"
					}
					fmt.Fprintf(bw, `<span class="p">paper <span class="pv">%s</span> <span class="%s">%s%s</span></span>`,
						ps, dcls, sign, fmt3(math.Abs(d)))
				}
			}
			bw.WriteString("</td>")
		}
		bw.WriteString("</tr>\n")
	}
	bw.WriteString("</tbody>\n</table>\n")
	return bw.Flush()
}

// groupStart reports whether column j starts a header group.
func groupStart(groups []colGroup, j int) bool {
	for _, g := range groups {
		if g.start == j {
			return true
		}
	}
	return false
}

func fmt3(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
