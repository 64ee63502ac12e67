package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ugbench/ugbench/reports"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

func runRuns(args []string, stdout io.Writer) error {
	fs := newFlags("runs", "runs [flags]")
	db := fs.String("db", "ugbench.db", "SQLite database file of runs")
	methods := fs.StringSlice("methods", nil, "only these methods")
	dsets := fs.StringSlice("datasets", nil, "only these datasets")
	ratios := fs.StringSlice("ratios", nil, "only these labelled ratios (low, high or a number)")
	seeds := fs.String("seeds", "", "only these seeds: list and/or ranges, e.g. 0,1,2 or 0-4")
	status := fs.StringSlice("status", nil, "only these statuses: running, finished, failed, interrupted")
	format := fs.String("format", "text", "output format: text, md, latex, csv")
	rerun := fs.String("rerun", "", "mark the selected finished runs for rerun, giving the reason (e.g. \"loss fix in 1a2b3c\"); the next bench grid that includes them recomputes them; needs --methods or --datasets")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := os.Stat(*db); err != nil {
		return fmt.Errorf("--db %s: %w", *db, err)
	}
	f := runs.Filter{Methods: *methods, Datasets: *dsets, Ratios: *ratios}
	if *seeds != "" {
		var err error
		if f.Seeds, err = suite.ParseSeeds(*seeds); err != nil {
			return fmt.Errorf("--seeds: %w", err)
		}
	}
	for _, s := range *status {
		switch st := runs.Status(s); st {
		case runs.StatusRunning, runs.StatusFinished, runs.StatusFailed, runs.StatusInterrupted:
			f.Status = append(f.Status, st)
		default:
			return fmt.Errorf("--status %q: want running, finished, failed or interrupted", s)
		}
	}
	if fs.Changed("rerun") {
		if strings.TrimSpace(*rerun) == "" {
			return fmt.Errorf("--rerun: give the reason, e.g. --rerun \"loss fix in 1a2b3c\"")
		}
		if len(f.Methods) == 0 && len(f.Datasets) == 0 {
			return fmt.Errorf("--rerun: select the runs with --methods or --datasets (and --ratios, --seeds); marking a whole database is refused")
		}
	}
	store, err := runs.Open(*db)
	if err != nil {
		return err
	}
	defer store.Close()
	if fs.Changed("rerun") {
		reason := fmt.Sprintf("%s (bench runs --rerun, %s)", *rerun, time.Now().UTC().Format(time.DateTime))
		n, err := store.MarkForRerun(f, reason)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "marked %d finished run(s) for rerun; a bench grid that includes them recomputes them\n", n)
		return nil
	}
	rs, err := store.List(f)
	if err != nil {
		return err
	}
	return reports.RenderPlain(stdout, reports.RunList(rs), *format)
}
