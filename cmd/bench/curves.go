package main

import (
	"fmt"
	"io"

	"github.com/ugbench/ugbench/reports"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

func runCurves(args []string, stdout io.Writer) error {
	fs := newFlags("curves", "curves [flags]")
	sel := addSelection(fs, "only runs of these statuses: running, finished, failed, interrupted (default finished)")
	names := fs.StringSlice("curves", nil, "only these curves, e.g. loss,ood_set_precision (default: every curve of the selected runs)")
	format := fs.String("format", "text", "output format: text, md, latex, csv")
	by := fs.String("by", "epoch", "x axis: epoch, or steps (optimizer steps so far, from each run's steps curve), which lines up runs of different batch sizes")
	if err := fs.Parse(args); err != nil {
		return err
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
	if *by != "epoch" && *by != "steps" {
		return fmt.Errorf("--by %q: want epoch or steps", *by)
	}
	curves := make(map[int64][]suite.CurvePoint, len(rs))
	for _, r := range rs {
		if curves[r.ID], err = store.Curves(r.ID); err != nil {
			return err
		}
		if *by == "steps" {
			if curves[r.ID], err = reports.ByStep(curves[r.ID]); err != nil {
				return fmt.Errorf("--by steps: run %d (%s): %w", r.ID, r.Spec, err)
			}
		}
	}
	x := "epoch"
	if *by == "steps" {
		x = "step"
	}
	tables, err := reports.CurveTables(rs, curves, *names, x)
	if err != nil {
		return fmt.Errorf("--curves: %w", err)
	}
	for i, p := range tables {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if err := reports.RenderPlain(stdout, p, *format); err != nil {
			return err
		}
	}
	return nil
}
