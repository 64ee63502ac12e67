package table

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Plain is a table of ready-made strings (dataset statistics, run lists):
// no aggregation, no bolding.
type Plain struct {
	Title  string
	Header []string
	Rows   [][]string
	// Notes and Warnings are printed below the table in every format but
	// CSV, as Table's ("note: …", "warning: …"; LaTeX comments).
	Notes, Warnings []string
}

// RenderPlain writes p in format text (tablewriter), md, latex (booktabs
// tabular) or csv. An unknown format is an error naming it.
func RenderPlain(w io.Writer, p *Plain, format string) error {
	bw := bufio.NewWriter(w)
	switch format {
	case "text":
		if p.Title != "" {
			fmt.Fprintln(bw, p.Title)
		}
		tbl := tablewriter.NewTable(bw, tablewriter.WithHeaderAutoFormat(tw.Off))
		tbl.Header(p.Header)
		for _, r := range p.Rows {
			if err := tbl.Append(r); err != nil {
				return err
			}
		}
		if err := tbl.Render(); err != nil {
			return err
		}
	case "md":
		if p.Title != "" {
			fmt.Fprintf(bw, "### %s\n\n", mdEscaper.Replace(p.Title))
		}
		mdRow := func(cells []string) {
			for _, c := range cells {
				bw.WriteString("| " + mdEscaper.Replace(c) + " ")
			}
			bw.WriteString("|\n")
		}
		mdRow(p.Header)
		bw.WriteString(strings.Repeat("| --- ", len(p.Header)) + "|\n")
		for _, r := range p.Rows {
			mdRow(r)
		}
	case "latex":
		fmt.Fprintf(bw, "\\begin{tabular}{l%s}\n\\toprule\n", strings.Repeat("c", len(p.Header)-1))
		texRow := func(cells []string) {
			esc := make([]string, len(cells))
			for i, c := range cells {
				esc[i] = EscapeLaTeX(c)
			}
			bw.WriteString(strings.Join(esc, " & ") + " \\\\\n")
		}
		texRow(p.Header)
		bw.WriteString("\\midrule\n")
		for _, r := range p.Rows {
			texRow(r)
		}
		bw.WriteString("\\bottomrule\n\\end{tabular}\n")
	case "csv":
		cw := csv.NewWriter(bw)
		if err := cw.Write(p.Header); err != nil {
			return err
		}
		if err := cw.WriteAll(p.Rows); err != nil {
			return err
		}
	default:
		return fmt.Errorf("reports: unknown format %q (accepted: %s)", format, strings.Join(Formats(), ", "))
	}
	for _, kind := range []struct {
		name  string
		lines []string
	}{{"note", p.Notes}, {"warning", p.Warnings}} {
		for _, l := range kind.lines {
			switch format {
			case "text":
				fmt.Fprintf(bw, "%s: %s\n", kind.name, l)
			case "md":
				fmt.Fprintf(bw, "\n%s: %s\n", kind.name, mdEscaper.Replace(l))
			case "latex":
				fmt.Fprintf(bw, "%% %s: %s\n", kind.name, commentLine(l))
			}
		}
	}
	return bw.Flush()
}
