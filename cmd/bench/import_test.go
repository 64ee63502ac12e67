package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/internal/cpukernels"
)

// TestExportImportResume is the archive round trip on real Letter-high: a
// grid's runs (wl and a 12-step gin-topk) exported to a gzipped JSON file
// and imported into a fresh database give the same tables, the same grid
// run on that database runs nothing, and a second import adds nothing.
func TestExportImportResume(t *testing.T) {
	dir := datasetstest.DirFor(t, "Letter-high")
	tmp := t.TempDir()
	computed, imported := filepath.Join(tmp, "computed.db"), filepath.Join(tmp, "imported.db")
	archive := filepath.Join(tmp, "runs.json.gz")
	grid := []string{"--methods", "wl,gin-topk", "--datasets", "Letter-high", "--ratios", "low",
		"--seeds", "0-1", "--steps", "12", "--set", "gin-topk.hidden=32", "--data-dir", dir, "--quiet"}
	var out bytes.Buffer
	if err := runGrid(append(grid, "--db", computed), &out); err != nil {
		t.Fatal(err)
	}
	if err := runExport([]string{"--db", computed, "--out", archive}, &out); err != nil {
		t.Fatal(err)
	}
	for pass, want := range []string{"4 runs into " + imported + ": 4 added, 0 replaced", "0 added, 0 replaced a failed or interrupted run, 4 already there"} {
		out.Reset()
		if err := runImport([]string{"--db", imported, archive}, &out); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), want) {
			t.Errorf("import %d said %q, want %q", pass+1, out.String(), want)
		}
	}
	report := func(db string) string {
		var b bytes.Buffer
		for _, table := range [][]string{{"accuracy"}, {"f1"}, {"metric", "ood_auroc"}, {"scorers"}} {
			if err := runReport(append(table, "--db", db, "--format", "csv"), &b); err != nil {
				t.Fatal(err)
			}
		}
		return b.String()
	}
	if got, want := report(imported), report(computed); got != want {
		t.Errorf("tables of the imported runs\n%s\nwant those of the computed ones\n%s", got, want)
	}
	export := func(db string) string {
		var b bytes.Buffer
		if err := runExport([]string{"--db", db}, &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	before := export(imported)
	// Each run records the pure-Go backend's CPU kernels, and keeps them
	// through the archive.
	if want := `"kernels": "` + cpukernels.Of("go") + `"`; strings.Count(before, want) != 4 {
		t.Errorf("the imported runs do not all record %s:\n%s", want, before)
	}
	if err := runGrid(append(grid, "--db", imported), &out); err != nil {
		t.Fatal(err)
	}
	if after := export(imported); after != before || strings.Count(after, `"status": "finished"`) != 4 {
		t.Errorf("the grid on the imported runs changed them:\n%s\nwas\n%s", after, before)
	}

	// --not-in: against an archive of seed 0's runs, the export is seed 1's.
	partial, seed0 := filepath.Join(tmp, "partial.db"), filepath.Join(tmp, "seed0.json")
	if err := runExport([]string{"--db", computed, "--seeds", "0", "--out", seed0}, &out); err != nil {
		t.Fatal(err)
	}
	if err := runImport([]string{"--db", partial, seed0}, &out); err != nil {
		t.Fatal(err)
	}
	var fresh bytes.Buffer
	if err := runExport([]string{"--db", computed, "--status", "finished", "--not-in", partial}, &fresh); err != nil {
		t.Fatal(err)
	}
	if n, n1 := strings.Count(fresh.String(), `"hash":`), strings.Count(fresh.String(), `"seed": 1`); n != 2 || n1 != 2 {
		t.Errorf("export --not-in %s has %d runs, %d of seed 1; want seed 1's 2:\n%s", partial, n, n1, fresh.String())
	}
	if err := runExport([]string{"--db", computed, "--not-in", filepath.Join(tmp, "typo.db")}, &fresh); err == nil || !strings.Contains(err.Error(), "--not-in") {
		t.Errorf("export --not-in a missing database: error %v, want it to name --not-in", err)
	}

	// Bad input names the file and loses nothing.
	bad := filepath.Join(tmp, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"format": "ugbench-runs", "version": 1, "runs": [{"id": 9, "hash": "h", "status": "finished", "spec": {"method": "wl"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file, want string
	}{
		{filepath.Join(tmp, "missing.json"), "missing.json"},
		{bad, "bad.json: run #1 (id 9)"},
		{bad, "is not its spec's config hash"},
	} {
		err := runImport([]string{"--db", imported, c.file}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("import %s: error %v, want it to mention %q", c.file, err, c.want)
		}
	}
	if got := report(imported); got != report(computed) {
		t.Errorf("a refused import changed the database:\n%s", got)
	}
}
