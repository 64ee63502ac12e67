package main

import (
	"fmt"
	"io"
	"os"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/reports"
	"github.com/ugbench/ugbench/reports/table"
)

func runDatasets(args []string, stdout io.Writer) error {
	fs := newFlags("datasets", "datasets [--data-dir DIR] [NAME...]")
	dataDir := fs.String("data-dir", "", "dataset directory (default $UGBENCH_DATA, else ./data)")
	format := fs.String("format", "text", "output format: text, md, latex, csv")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	dir := datasets.DataDir(*dataDir)
	if _, err := datasets.RegisterUserDatasets(dir); err != nil {
		return err
	}
	names := fs.Args()
	if len(names) == 0 {
		names = datasets.Present(dir)
		if len(names) == 0 {
			return fmt.Errorf("no datasets in %s (set --data-dir or UGBENCH_DATA)", dir)
		}
	}
	var rows []reports.DatasetRow
	for _, name := range datasets.OrderNames(names) {
		ds, err := datasetLoader(os.Stderr).Load(dir, name)
		if err != nil {
			return err
		}
		info, _ := datasets.LookupInfo(name)
		rows = append(rows, reports.DatasetRow{Stats: datasets.ComputeStats(ds), Info: info})
	}
	return table.RenderPlain(stdout, reports.DatasetsTable(rows), *format)
}
