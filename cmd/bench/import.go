package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ugbench/ugbench/reports"
	"github.com/ugbench/ugbench/runs"
)

func runImport(args []string, stdout io.Writer) error {
	fs := newFlags("import", "import --db OUT.db FILE.json[.gz]... (the JSON of bench export)")
	db := fs.String("db", "ugbench.db", "SQLite database file of runs to add the finished runs to (created if missing)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return fmt.Errorf("want at least one export file (bench export --format json)")
	}
	store, err := runs.Open(*db)
	if err != nil {
		return err
	}
	defer store.Close()
	for _, path := range fs.Args() {
		e, err := readExportFile(path)
		if err != nil {
			return err
		}
		t, err := reports.Import(store, e)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, c := range t.Conflicts {
			c.KeptFrom, c.DroppedFrom = *db, path
			fmt.Fprintf(os.Stderr, "import: conflict: %s\n", c)
		}
		fmt.Fprintf(stdout, "%s: %d runs into %s: %d added, %d replaced a failed or interrupted run, %d already there, %d there with other results (kept), %d running there now, %d not finished (skipped)\n",
			path, t.Runs, *db, t.Outcomes[runs.ImportAdded], t.Outcomes[runs.ImportReplaced], t.Outcomes[runs.ImportKept],
			t.Outcomes[runs.ImportConflict], t.Outcomes[runs.ImportBusy], t.NotFinished)
	}
	return nil
}

// readExportFile reads the export at path ("-": standard input), gunzipped
// when its name ends in .gz.
func readExportFile(path string) (reports.Export, error) {
	var r io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return reports.Export{}, err
		}
		defer f.Close()
		r = f
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return reports.Export{}, fmt.Errorf("%s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	e, err := reports.ReadExport(r)
	if err != nil {
		return reports.Export{}, fmt.Errorf("%s: %w", path, err)
	}
	return e, nil
}
