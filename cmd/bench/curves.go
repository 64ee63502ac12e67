package main

import (
	"fmt"
	"io"

	"github.com/ugbench/ugbench/reports"
	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

func runCurves(args []string, stdout io.Writer) error {
	fs := newFlags("curves", "curves [flags]")
	sel := addSelection(fs, "only runs of these statuses: running, finished, failed, interrupted (default finished)")
	names := fs.StringSlice("curves", nil, "only these curves, e.g. loss,ood_set_precision (default: every curve of the selected runs)")
	format := fs.String("format", "text", "output format: text, md, latex, csv")
	by := fs.String("by", "epoch", "x axis: epoch, or steps (optimizer steps so far, from each run's steps curve), which lines up runs of different batch sizes")
	bins := fs.IntSlice("bins", nil, "bin one curve (--curves NAME) into these ranges of the x axis, e.g. 0,100,200,400: the table the step budget is read from (docs/protocol.md §5)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if len(*bins) > 0 && len(*names) != 1 {
		return fmt.Errorf("--bins: name exactly one curve with --curves")
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
	if len(*bins) > 0 {
		p, err := reports.BinnedCurveTable(rs, curves, (*names)[0], *bins, x)
		if err != nil {
			return fmt.Errorf("--bins: %w", err)
		}
		return table.RenderPlain(stdout, p, *format)
	}
	tables, err := reports.CurveTables(rs, curves, *names, x)
	if err != nil {
		return fmt.Errorf("--curves: %w", err)
	}
	for i, p := range tables {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if err := table.RenderPlain(stdout, p, *format); err != nil {
			return err
		}
	}
	return nil
}

// loadCurves reads the curves of rs from store, re-indexed by optimizer
// steps when by is "steps" (else by is "epoch"), and returns them with the
// x axis's name: "epoch" or "step". bench curves and bench plot curves
// share it.
func loadCurves(store *runs.Store, rs []runs.Run, by string) (map[int64][]suite.CurvePoint, string, error) {
	if by != "epoch" && by != "steps" {
		return nil, "", fmt.Errorf("--by %q: want epoch or steps", by)
	}
	curves := make(map[int64][]suite.CurvePoint, len(rs))
	for _, r := range rs {
		var err error
		if curves[r.ID], err = store.Curves(r.ID); err != nil {
			return nil, "", err
		}
		if by == "steps" {
			if curves[r.ID], err = reports.ByStep(curves[r.ID]); err != nil {
				return nil, "", fmt.Errorf("--by steps: run %d (%s): %w", r.ID, r.Spec, err)
			}
		}
	}
	if by == "steps" {
		return curves, "step", nil
	}
	return curves, "epoch", nil
}
