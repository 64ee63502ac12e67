package main

import (
	"fmt"
	"io"

	"github.com/ugbench/ugbench/reports"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

func runPlot(args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "curves" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(stdout, "usage: bench plot curves --out FILE.svg|.png|.pdf [flags]")
			return nil
		}
		return fmt.Errorf("which figure? curves (bench plot curves --out FILE.svg); the sensitivity panel is bench report sensitivity --plot")
	}
	fs := newFlags("plot curves", "plot curves --out FILE.svg|.png|.pdf [flags]")
	sel := addSelection(fs, "only runs of these statuses: running, finished, failed, interrupted (default finished)")
	names := fs.StringSlice("curves", nil, "only these curves, one panel each (default: every curve of the selected runs)")
	out := fs.String("out", "", "the figure file: .svg, .png or .pdf (required)")
	cols := fs.Int("cols", 2, "panels per row")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("--out FILE.svg|.png|.pdf is required")
	}
	f, want, err := sel.parse()
	if err != nil {
		return err
	}
	if len(f.Status) == 0 {
		f.Status = []runs.Status{runs.StatusFinished}
	}
	store, rs, err := sel.load(f, want)
	if err != nil {
		return err
	}
	defer store.Close()
	if len(rs) == 0 {
		return fmt.Errorf("no run matches; check the flags against bench runs")
	}
	curves := make(map[int64][]suite.CurvePoint, len(rs))
	for _, r := range rs {
		if curves[r.ID], err = store.Curves(r.ID); err != nil {
			return err
		}
	}
	plots, err := reports.CurvePlots(rs, curves, *names)
	if err != nil {
		return fmt.Errorf("--curves: %w", err)
	}
	if err := reports.SavePlots(plots, *cols, *out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %d panel(s)\n", *out, len(plots))
	return nil
}
