package main

import (
	"fmt"
	"io"

	"github.com/ugbench/ugbench/reports"
	"github.com/ugbench/ugbench/reports/figures"
)

func runPlot(args []string, stdout io.Writer) error {
	if len(args) > 0 && args[0] == "tsne" {
		return runPlotTSNE(args[1:], stdout)
	}
	if len(args) == 0 || args[0] != "curves" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(stdout, "usage: bench plot curves|tsne --out FILE.svg|.png|.pdf [flags]")
			return nil
		}
		return fmt.Errorf("which figure? curves (bench plot curves --out FILE.svg) or tsne (bench plot tsne --out FILE.svg); the sensitivity panel is bench report sensitivity --plot")
	}
	fs := newFlags("plot curves", "plot curves --out FILE.svg|.png|.pdf [flags]")
	sel := addSelection(fs, "only runs of these statuses: running, finished, failed, interrupted (default finished)")
	names := fs.StringSlice("curves", nil, "only these curves, one panel each (default: every curve of the selected runs)")
	out := fs.String("out", "", "the figure file: .svg, .png or .pdf (required)")
	cols := fs.Int("cols", 2, "panels per row")
	by := fs.String("by", "epoch", "x axis: epoch, or steps (optimizer steps so far, from each run's steps curve)")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("--out FILE.svg|.png|.pdf is required")
	}
	store, rs, err := sel.loadMatching()
	if err != nil {
		return err
	}
	defer store.Close()
	curves, x, err := loadCurves(store, rs, *by)
	if err != nil {
		return err
	}
	panels, err := reports.CurvePanels(rs, curves, *names)
	if err != nil {
		return fmt.Errorf("--curves: %w", err)
	}
	plots, err := figures.CurvePlots(panels, x)
	if err != nil {
		return err
	}
	if err := figures.SavePlots(plots, *cols, *out); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s: %d panel(s)\n", *out, len(plots))
	return nil
}
