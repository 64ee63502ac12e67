package table

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Formats returns the format names Render accepts: a terminal table, GitHub
// Markdown, a LaTeX table (booktabs) and long-format CSV.
func Formats() []string { return []string{"text", "md", "latex", "csv"} }

// Empty-cell marks.
const (
	emptyText  = "–"
	emptyLaTeX = "--"
)

// Render writes t to w in format, one of Formats:
//
//   - text: a box-drawn table (no ANSI colours) with a two-level header,
//     dataset over "Low Ratio"/"High Ratio" (or over the sub-columns), then
//     the notes (Table.Notes), one per line, each starting with "note:",
//     then the warnings, each starting with "warning:".
//   - md: a GitHub Markdown table whose header is flattened ("COIL-DEL low"),
//     the best value of each column in bold, then the notes and warnings.
//   - latex: a table environment with a booktabs tabular (needs
//     \usepackage{booktabs,graphicx}), the best value of each column in
//     \textbf, then the notes and warnings as % comments. RenderLaTeXDocument wraps
//     tables in a document that pdflatex compiles as is.
//   - csv: long format, one line per non-empty cell:
//     method,dataset,ratio,metric,mean,std,n (method = row key with
//     registry names; full precision). Notes and warnings are not
//     written: the caller reads t.Notes and t.Warnings.
//
// Empty cells show as "–" (text, md) or "--" (latex). Values are mean ±
// sample std with 3 decimals; a single-seed cell shows "mean (n=1)".
func Render(w io.Writer, t *Table, format string) error {
	if t == nil {
		return fmt.Errorf("reports: nil table")
	}
	switch format {
	case "text":
		return renderText(w, t)
	case "md":
		return renderMarkdown(w, t)
	case "latex":
		return renderLaTeX(w, t)
	case "csv":
		return renderCSV(w, t)
	}
	return fmt.Errorf("reports: unknown format %q (accepted: %s)", format, strings.Join(Formats(), ", "))
}

// RenderLaTeXDocument writes a standalone LaTeX document holding tables (as
// Render's latex format), which pdflatex compiles as is: article class,
// landscape pages, booktabs and graphicx.
func RenderLaTeXDocument(w io.Writer, tables ...*Table) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`\documentclass{article}
\usepackage[T1]{fontenc}
\usepackage{booktabs}
\usepackage{graphicx}
\usepackage[landscape,margin=2cm]{geometry}
\begin{document}
`)
	for i, t := range tables {
		if i > 0 {
			bw.WriteString("\n")
		}
		if err := renderLaTeX(bw, t); err != nil {
			return err
		}
	}
	bw.WriteString(`\end{document}
`)
	return bw.Flush()
}

// cellText formats c as "mean±std" ("mean (n=1)" for one seed), the mean
// wrapped by bold when bold is not nil, pm between mean and std.
func cellText(c *Cell, pm string, bold func(string) string) string {
	mean := strconv.FormatFloat(c.Mean, 'f', 3, 64)
	if bold != nil {
		mean = bold(mean)
	}
	if c.SingleSeed() {
		if c.Exact {
			return mean
		}
		return mean + " (n=1)"
	}
	return mean + pm + strconv.FormatFloat(c.Std, 'f', 3, 64)
}

// hasSub reports whether t's columns have sub-columns.
func (t *Table) hasSub() bool {
	for _, c := range t.Columns {
		if c.Sub != "" {
			return true
		}
	}
	return false
}

// colGroup is a run of adjacent columns under one top-level header.
type colGroup struct {
	label      string
	start, end int // column indices, end exclusive
}

// headers returns the two header levels: the groups (datasets, or
// dataset-ratio when there are sub-columns, as in the paper's Table 4) and
// one leaf label per column ("Low Ratio", or the sub-column name).
func (t *Table) headers() ([]colGroup, []string) {
	sub := t.hasSub()
	var groups []colGroup
	leaves := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		g, leaf := c.Dataset, ratioTitle(c.Ratio)
		if sub {
			g, leaf = c.Dataset+"-"+c.Ratio, c.Sub
		}
		leaves[i] = leaf
		if n := len(groups); n > 0 && groups[n-1].label == g {
			groups[n-1].end = i + 1
			continue
		}
		groups = append(groups, colGroup{label: g, start: i, end: i + 1})
	}
	return groups, leaves
}

// flatHeader is a column's one-line name: "COIL-DEL low", "MNIST low
// Overall".
func (c Column) Header() string {
	s := c.Dataset + " " + c.Ratio
	if c.Sub != "" {
		s += " " + c.Sub
	}
	return s
}

// ratioTitle is the paper's name of a ratio label.
func ratioTitle(r string) string {
	switch r {
	case "low":
		return "Low Ratio"
	case "high":
		return "High Ratio"
	}
	if _, err := strconv.ParseFloat(r, 64); err == nil {
		return "Ratio " + r
	}
	return r
}

// ruleAfter reports whether a rule separates data row i from row i+1.
func (t *Table) ruleAfter(i int) bool {
	return i+1 < len(t.Rows) && t.Rows[i].Group != t.Rows[i+1].Group
}

// sepFilter wraps a tablewriter renderer with separators between all rows
// and keeps only those keep allows: the n-th between-rows separator follows
// body row n. It also mends the top border above adjacent merged header
// cells.
type sepFilter struct {
	tw.Renderer
	keep func(n int) bool
	n    int
}

// Line drops the between-rows separators keep rejects.
func (s *sepFilter) Line(ctx tw.Formatting) {
	if ctx.Level == tw.LevelHeader && ctx.Row.Location == tw.LocationFirst {
		// tablewriter v1.1.5 gives the columns a merged header cell spans
		// width 0 and then decides each top-border junction from the merge
		// state of the visible column on its left, so it draws no junction
		// between two adjacent merged cells. Every visible column of the
		// header ends a header cell: say so.
		next := make(map[int]tw.CellContext, len(ctx.Row.Next))
		for i, c := range ctx.Row.Next {
			if c.Merge.Horizontal.Present {
				c.Merge.Horizontal.End = true
			}
			next[i] = c
		}
		ctx.Row.Next = next
	}
	if ctx.Row.Position == tw.Row && ctx.Row.Location == tw.LocationMiddle {
		n := s.n
		s.n++
		if !s.keep(n) {
			return
		}
	}
	s.Renderer.Line(ctx)
}

func renderText(w io.Writer, t *Table) error {
	bw := bufio.NewWriter(w)
	if t.Title != "" {
		fmt.Fprintln(bw, t.Title)
	}
	if t.Caption != "" {
		fmt.Fprintln(bw, t.Caption)
	}
	if len(t.Columns) == 0 || len(t.Rows) == 0 {
		fmt.Fprintln(bw, "(no results)")
	} else {
		groups, leaves := t.headers()
		header := []string{t.rowHeader()}
		for _, g := range groups {
			for range g.end - g.start {
				header = append(header, g.label)
			}
		}
		aligns := []tw.Align{tw.AlignLeft}
		for range t.Columns {
			aligns = append(aligns, tw.AlignCenter)
		}
		// The leaf header is body row 0, ruled off from the data; rules
		// also separate row groups.
		r := &sepFilter{
			Renderer: renderer.NewBlueprint(tw.Rendition{
				Settings: tw.Settings{Separators: tw.Separators{BetweenRows: tw.On}},
			}),
			keep: func(n int) bool { return n == 0 || t.ruleAfter(n-1) },
		}
		tbl := tablewriter.NewTable(bw,
			tablewriter.WithRenderer(r),
			tablewriter.WithHeaderAutoFormat(tw.Off),
			tablewriter.WithHeaderMergeMode(tw.MergeHorizontal),
			tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: aligns}),
		)
		tbl.Header(header)
		if err := tbl.Append(append([]string{""}, leaves...)); err != nil {
			return err
		}
		for i, row := range t.Rows {
			line := []string{row.Label}
			for j := range t.Columns {
				line = append(line, textCell(t, i, j))
			}
			if err := tbl.Append(line); err != nil {
				return err
			}
		}
		if err := tbl.Render(); err != nil {
			return err
		}
	}
	for _, note := range t.Notes {
		fmt.Fprintln(bw, "note: "+note)
	}
	for _, warn := range t.Warnings {
		fmt.Fprintln(bw, "warning: "+warn.String())
	}
	return bw.Flush()
}

func textCell(t *Table, i, j int) string {
	c := t.Cells[i][j]
	if c == nil {
		return emptyText
	}
	return cellText(c, "±", nil)
}

var mdEscaper = strings.NewReplacer(`\`, `\\`, `|`, `\|`, `*`, `\*`, `_`, `\_`, "`", "\\`")

func renderMarkdown(w io.Writer, t *Table) error {
	bw := bufio.NewWriter(w)
	if t.Title != "" {
		fmt.Fprintf(bw, "### %s\n\n", mdEscaper.Replace(t.Title))
	}
	if t.Caption != "" {
		fmt.Fprintf(bw, "%s\n\n", mdEscaper.Replace(t.Caption))
	}
	if len(t.Columns) == 0 || len(t.Rows) == 0 {
		fmt.Fprintln(bw, "(no results)")
	} else {
		bw.WriteString("| " + mdEscaper.Replace(t.rowHeader()) + " |")
		for _, c := range t.Columns {
			bw.WriteString(" " + mdEscaper.Replace(c.Header()) + " |")
		}
		bw.WriteString("\n| :--- |")
		for range t.Columns {
			bw.WriteString(" :---: |")
		}
		bw.WriteString("\n")
		bold := func(s string) string { return "**" + s + "**" }
		for i, row := range t.Rows {
			bw.WriteString("| " + mdEscaper.Replace(row.Label) + " |")
			for j := range t.Columns {
				s := emptyText
				if c := t.Cells[i][j]; c != nil {
					var b func(string) string
					if t.IsBest(i, j) {
						b = bold
					}
					s = cellText(c, "±", b)
				}
				bw.WriteString(" " + s + " |")
			}
			bw.WriteString("\n")
		}
	}
	// Each note and warning is its own paragraph, so Markdown keeps the
	// lines apart.
	for _, note := range t.Notes {
		fmt.Fprintf(bw, "\nnote: %s\n", mdEscaper.Replace(note))
	}
	for _, warn := range t.Warnings {
		fmt.Fprintf(bw, "\nwarning: %s\n", mdEscaper.Replace(warn.String()))
	}
	return bw.Flush()
}

var latexEscaper = strings.NewReplacer(
	`\`, `\textbackslash{}`,
	`{`, `\{`, `}`, `\}`, `$`, `\$`, `&`, `\&`, `#`, `\#`, `%`, `\%`, `_`, `\_`,
	`^`, `\textasciicircum{}`, `~`, `\textasciitilde{}`,
	`<`, `\textless{}`, `>`, `\textgreater{}`, `|`, `\textbar{}`,
	"±", `$\pm$`, "–", "--", "—", "---", "−", `$-$`, "×", `$\times$`,
)

// EscapeLaTeX escapes s for LaTeX text mode: the special characters
// \ { } $ & # % _ ^ ~ < > | and the Unicode ± – — − × the tables use.
func EscapeLaTeX(s string) string { return latexEscaper.Replace(s) }

func renderLaTeX(w io.Writer, t *Table) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%% %s (ugbench reports); needs \\usepackage{booktabs} and \\usepackage{graphicx}\n", commentLine(t.Title))
	if len(t.Columns) == 0 || len(t.Rows) == 0 {
		bw.WriteString("% (no results)\n")
	} else {
		groups, leaves := t.headers()
		bw.WriteString("\\begin{table}[t]\n\\centering\n")
		caption := t.Caption
		if caption == "" {
			caption = t.Title
		}
		if caption != "" {
			fmt.Fprintf(bw, "\\caption{%s}\n", EscapeLaTeX(caption))
		}
		if t.Label != "" {
			fmt.Fprintf(bw, "\\label{%s}\n", t.Label)
		}
		// Shrink to the line width when wider, never enlarge.
		bw.WriteString("\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%\n")
		spec := "l"
		for _, g := range groups {
			spec += " " + strings.Repeat("c", g.end-g.start)
		}
		fmt.Fprintf(bw, "\\begin{tabular}{%s}\n\\toprule\n", spec)
		for _, g := range groups {
			fmt.Fprintf(bw, " & \\multicolumn{%d}{c}{\\textbf{%s}}", g.end-g.start, EscapeLaTeX(g.label))
		}
		bw.WriteString(" \\\\\n")
		for i, g := range groups {
			if i > 0 {
				bw.WriteString(" ")
			}
			fmt.Fprintf(bw, "\\cmidrule(lr){%d-%d}", g.start+2, g.end+1)
		}
		bw.WriteString("\n\\textbf{" + EscapeLaTeX(t.rowHeader()) + "}")
		for _, l := range leaves {
			bw.WriteString(" & " + EscapeLaTeX(l))
		}
		bw.WriteString(" \\\\\n\\midrule\n")
		bold := func(s string) string { return `\textbf{` + s + `}` }
		for i, row := range t.Rows {
			bw.WriteString(EscapeLaTeX(row.Label))
			for j := range t.Columns {
				s := emptyLaTeX
				if c := t.Cells[i][j]; c != nil {
					var b func(string) string
					if t.IsBest(i, j) {
						b = bold
					}
					s = cellText(c, `$\pm$`, b)
				}
				bw.WriteString(" & " + s)
			}
			bw.WriteString(" \\\\\n")
			if t.ruleAfter(i) {
				bw.WriteString("\\midrule\n")
			}
		}
		bw.WriteString("\\bottomrule\n\\end{tabular}%\n}\n\\end{table}\n")
	}
	for _, note := range t.Notes {
		fmt.Fprintf(bw, "%% note: %s\n", commentLine(note))
	}
	for _, warn := range t.Warnings {
		fmt.Fprintf(bw, "%% warning: %s\n", commentLine(warn.String()))
	}
	return bw.Flush()
}

// commentLine keeps s on one LaTeX comment line.
func commentLine(s string) string {
	return strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
}

func renderCSV(w io.Writer, t *Table) error {
	cw := csv.NewWriter(w)
	first := "method"
	if t.RowHeader != "" {
		first = t.RowHeader
	}
	if err := cw.Write([]string{first, "dataset", "ratio", "metric", "mean", "std", "n"}); err != nil {
		return err
	}
	for i := range t.Rows {
		for j := range t.Columns {
			c := t.Cells[i][j]
			if c == nil {
				continue
			}
			name := c.Method
			if t.RowHeader != "" {
				name = t.Rows[i].Label
			}
			rec := []string{name, c.Dataset, c.Ratio, c.Metric,
				strconv.FormatFloat(c.Mean, 'g', -1, 64),
				strconv.FormatFloat(c.Std, 'g', -1, 64),
				strconv.Itoa(c.N)}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// MeanStdText is a cell as the plain tables show it: "mean±std" with 3
// decimals, "mean (n=1)" for one seed, "–" for no cell.
func MeanStdText(c *Cell) string {
	if c == nil {
		return emptyText
	}
	return cellText(c, "±", nil)
}

// EscapeMarkdown escapes the characters GitHub Markdown would read as
// markup (\, |, *, _ and `).
func EscapeMarkdown(s string) string { return mdEscaper.Replace(s) }
