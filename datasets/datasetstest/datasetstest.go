// Package datasetstest finds the real datasets for tests and benchmarks:
// $UGBENCH_DATA if it is a directory, else the datasets directory of a
// "shared" folder beside the module root (where the project's CI and
// developers keep them; docs/datasets.md). Tests
// that need only the embedded Letter-high run without them (DirFor, Load);
// those that need others skip through SkipNoData, and a package's
// TestMain (Main) reports how many did, so that a `make test` on a fresh
// clone says what it did not test.
package datasetstest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/datasets/internal/nodata"
)

// Dir returns the data directory, or "" if none is found: $UGBENCH_DATA
// when it names a directory (make test sets it to ./data on a fresh clone,
// where it does not exist), else shared/datasets beside the module root.
func Dir() string { return nodata.Dir() }

// SkipNoData skips tb for lack of data with the reason given (format and
// args, as tb.Skipf) and counts it for Main's summary.
func SkipNoData(tb testing.TB, format string, args ...any) {
	tb.Helper()
	nodata.SkipNoData(tb, format, args...)
}

// SkipLogEnv names the environment variable of a file to which Main
// appends one line per test skipped for lack of data (`make test` sets it
// and prints the count at the end: go test hides a passing package's
// output).
const SkipLogEnv = nodata.SkipLogEnv

// Main runs the package's tests (call it from TestMain), then prints how
// many were skipped for lack of data, and which, on stderr (shown with -v
// or a failure) and appends them to the file $UGBENCH_SKIP_LOG names, if
// any; it returns m.Run's exit code. It counts the skips of the package's
// internal tests too (they call nodata.SkipNoData).
func Main(m *testing.M) int {
	code := m.Run()
	nodata.Report()
	return code
}

// Summary is the line Main prints: the number and names of the tests that
// SkipNoData skipped so far, "" if none.
func Summary() string { return nodata.Summary() }

// DirFor returns a data directory from which every named dataset loads
// (datasets.Load, or a Runner's DataDir): Dir() when it holds them, or
// when those it lacks are all embedded (datasets.IsEmbedded: Load falls
// back to the copy in the binary); with no data directory and only
// embedded names, an empty temporary directory of tb. Otherwise it skips
// tb through SkipNoData, naming what is missing. So a test that needs only
// Letter-high runs on a fresh clone.
func DirFor(tb testing.TB, names ...string) string {
	tb.Helper()
	dir := Dir()
	var missing []string
	for _, name := range names {
		if dir != "" && onDisk(dir, name) {
			continue
		}
		if !datasets.IsEmbedded(name) {
			missing = append(missing, name)
		}
	}
	switch {
	case len(missing) > 0 && dir == "":
		SkipNoData(tb, "no data directory for %s (set UGBENCH_DATA, or fetch them: bench data fetch all)", strings.Join(missing, ", "))
	case len(missing) > 0:
		SkipNoData(tb, "dataset(s) %s not in %s", strings.Join(missing, ", "), dir)
	case dir == "":
		return tb.TempDir()
	}
	return dir
}

// onDisk reports whether dir/name exists.
func onDisk(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

// Load loads the named real dataset from DirFor(tb, name) — the embedded
// copy where the data directory lacks it and it is embedded — skipping tb
// when it is absent, and failing it on any other error.
func Load(tb testing.TB, name string) *datasets.Dataset {
	tb.Helper()
	dir := DirFor(tb, name)
	ds, err := datasets.Load(dir, name)
	if err != nil {
		tb.Fatal(err)
	}
	return ds
}
