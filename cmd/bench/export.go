package main

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ugbench/ugbench/reports"
	"github.com/ugbench/ugbench/runs"
)

func runExport(args []string, stdout io.Writer) error {
	fs := newFlags("export", "export --format json|csv [flags]")
	sel := addSelection(fs, "only these statuses: running, finished, failed, interrupted (default: all)")
	format := fs.String("format", "json", "json (spec, params, provenance, metrics per run) or csv (one row per run, param.* and metric.* columns)")
	out := fs.String("out", "", "write to this file instead of standard output; gzipped when the name ends in .gz (bench import reads it back)")
	notIn := fs.String("not-in", "", "leave out the runs whose config hash is finished in this database, e.g. the archive's (make runs-db): a session's new runs")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *format != "json" && *format != "csv" {
		return fmt.Errorf("--format %q: want json or csv", *format)
	}
	pick, err := sel.parse()
	if err != nil {
		return err
	}
	store, rs, err := sel.load(pick)
	if err != nil {
		return err
	}
	store.Close()
	if *notIn != "" {
		if rs, err = notFinishedIn(rs, *notIn); err != nil {
			return err
		}
	}
	if *out == "" {
		return reports.WriteExport(stdout, rs, *format)
	}
	file, err := os.Create(*out)
	if err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	bw := bufio.NewWriter(file)
	var w io.Writer = bw
	var zw *gzip.Writer
	if strings.HasSuffix(*out, ".gz") {
		zw = gzip.NewWriter(bw)
		w = zw
	}
	if err := reports.WriteExport(w, rs, *format); err != nil {
		file.Close()
		return err
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			file.Close()
			return fmt.Errorf("--out %s: %w", *out, err)
		}
	}
	if err := bw.Flush(); err != nil {
		file.Close()
		return fmt.Errorf("--out %s: %w", *out, err)
	}
	return file.Close()
}

// notFinishedIn is runs.NotFinishedIn against the database at path, which
// must exist (a typo must not export every run as new).
func notFinishedIn(rs []runs.Run, path string) ([]runs.Run, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("--not-in %s: %w", path, err)
	}
	other, err := runs.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--not-in: %w", err)
	}
	defer other.Close()
	return runs.NotFinishedIn(rs, other)
}
