package main

import (
	"fmt"
	"io"
	"os"

	"github.com/ugbench/ugbench/reports"
	"github.com/ugbench/ugbench/runs"
)

func runRuns(args []string, stdout io.Writer) error {
	fs := newFlags("runs", "runs [flags]")
	db := fs.String("db", "ugbench.db", "SQLite database file of runs")
	methods := fs.StringSlice("methods", nil, "only these methods")
	dsets := fs.StringSlice("datasets", nil, "only these datasets")
	status := fs.StringSlice("status", nil, "only these statuses: running, finished, failed, interrupted")
	format := fs.String("format", "text", "output format: text, md, latex, csv")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := os.Stat(*db); err != nil {
		return fmt.Errorf("--db %s: %w", *db, err)
	}
	store, err := runs.Open(*db)
	if err != nil {
		return err
	}
	defer store.Close()
	f := runs.Filter{Methods: *methods, Datasets: *dsets}
	for _, s := range *status {
		f.Status = append(f.Status, runs.Status(s))
	}
	rs, err := store.List(f)
	if err != nil {
		return err
	}
	return reports.RenderPlain(stdout, reports.RunList(rs), *format)
}
