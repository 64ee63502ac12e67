package reports

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// Plain is a table of ready-made strings (dataset statistics, run lists):
// no aggregation, no bolding.
type Plain struct {
	Title  string
	Header []string
	Rows   [][]string
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
		return fmt.Errorf("reports: unknown format %q (accepted: %s)", format, strings.Join(Formats, ", "))
	}
	return bw.Flush()
}

// RunList is the table of `bench runs`: one row per stored run with its
// id, status, spec, wall time, attempts, progress (a running run's last
// logged epoch "12/250", as of its last heartbeat), accuracy and error,
// and, for a run that is not finished, its saved state among saved
// (suite.SavedStates): "25/157 Nov 24 14:51", the epoch a rerun continues
// after and when it was saved, with "other binary" when only another bench
// executable can continue it. Of several states of one run the running
// binary's is shown, else the newest.
func RunList(rs []runs.Run, saved []suite.SavedState) *Plain {
	best := map[string]suite.SavedState{}
	for _, s := range saved {
		b, ok := best[s.Hash]
		if !ok || (s.ThisBinary && !b.ThisBinary) || (s.ThisBinary == b.ThisBinary && s.Saved.After(b.Saved)) {
			best[s.Hash] = s
		}
	}
	p := &Plain{Header: []string{"id", "status", "method", "dataset", "ratio", "seed", "hash", "seconds", "attempts", "epoch", "saved", "accuracy", "error"}}
	for _, r := range rs {
		epoch := ""
		if r.Status == runs.StatusRunning && r.Epochs > 0 {
			epoch = fmt.Sprintf("%d/%d", r.Epoch, r.Epochs)
		}
		state := ""
		if s, ok := best[r.Hash]; ok && r.Status != runs.StatusFinished {
			state = fmt.Sprintf("%d/%d %s", s.Epoch, s.Epochs, s.Saved.UTC().Format("Jan 2 15:04"))
			if !s.ThisBinary {
				state += " other binary"
			}
		}
		acc := ""
		if v, ok := r.Metrics[suite.MetricAccuracy]; ok {
			acc = fmt.Sprintf("%.3f", v)
		}
		secs := ""
		if r.Status == runs.StatusFinished {
			secs = fmt.Sprintf("%.1f", r.Seconds)
		}
		errText, _, _ := strings.Cut(r.Error, "\n")
		p.Rows = append(p.Rows, []string{
			fmt.Sprint(r.ID), string(r.Status), r.Spec.Method, r.Spec.Dataset, r.Spec.RatioLabel(),
			fmt.Sprint(r.Spec.Seed), r.Hash, secs, fmt.Sprint(r.Attempts), epoch, state, acc, errText,
		})
	}
	return p
}
