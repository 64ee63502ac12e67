// Package datasetstest finds the real datasets for tests and benchmarks:
// $UGBENCH_DATA if set, else ../shared/datasets beside the module root
// (where the project's CI and developers keep them).
package datasetstest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ugbench/ugbench/datasets"
)

// Dir returns the data directory, or "" if none is found.
func Dir() string {
	if d := os.Getenv("UGBENCH_DATA"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			d := filepath.Join(dir, "..", "shared", "datasets")
			if _, err := os.Stat(d); err == nil {
				return d
			}
			return ""
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// Load loads the named real dataset, skipping tb when the data directory or
// the dataset is absent, and failing it on any other error.
func Load(tb testing.TB, name string) *datasets.Dataset {
	tb.Helper()
	dir := Dir()
	if dir == "" {
		tb.Skipf("no data directory (set UGBENCH_DATA or keep ../shared/datasets beside the module)")
	}
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		tb.Skipf("dataset %s not in %s", name, dir)
	}
	ds, err := datasets.Load(dir, name)
	if err != nil {
		tb.Fatal(err)
	}
	return ds
}
