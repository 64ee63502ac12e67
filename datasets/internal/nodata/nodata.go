// Package nodata finds the real datasets for tests and counts the tests
// skipped for lack of them. It imports nothing of the module, so that the
// datasets package's own (internal) tests can use it as well as
// datasetstest, which wraps it.
package nodata

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Dir returns the data directory, or "" if none is found: $UGBENCH_DATA
// when it names a directory (make test sets it to ./data on a fresh clone,
// where it does not exist), else shared/datasets beside the module root.
func Dir() string {
	if d := os.Getenv("UGBENCH_DATA"); d != "" {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
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

var (
	skippedMu sync.Mutex
	skipped   []string
)

// SkipNoData skips tb for lack of data with the reason given (format and
// args, as tb.Skipf) and counts it for Main's summary.
func SkipNoData(tb testing.TB, format string, args ...any) {
	tb.Helper()
	skippedMu.Lock()
	skipped = append(skipped, tb.Name())
	skippedMu.Unlock()
	tb.Skipf(format+" (a full run needs the datasets: `bench data fetch all`, or UGBENCH_DATA)", args...)
}

// SkipLogEnv names the environment variable of a file to which Main
// appends one line per test skipped for lack of data (`make test` sets it
// and prints the count at the end: go test hides a passing package's
// output).
const SkipLogEnv = "UGBENCH_SKIP_LOG"

// Report prints Summary on stderr (shown with -v or a failure) and appends
// the names of the tests skipped for lack of data to the file
// $UGBENCH_SKIP_LOG names, if any (call it once, after m.Run).
func Report() {
	if s := Summary(); s != "" {
		fmt.Fprintln(os.Stderr, s)
	}
	if path := os.Getenv(SkipLogEnv); path != "" {
		skippedMu.Lock()
		var b strings.Builder
		for _, name := range skipped {
			fmt.Fprintf(&b, "%s\n", name)
		}
		skippedMu.Unlock()
		if b.Len() > 0 {
			if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				f.WriteString(b.String())
				f.Close()
			}
		}
	}
}

// Summary is the line Main prints: the number and names of the tests that
// SkipNoData skipped so far, "" if none.
func Summary() string {
	skippedMu.Lock()
	defer skippedMu.Unlock()
	if len(skipped) == 0 {
		return ""
	}
	names := skipped
	if len(names) > 8 {
		names = append(names[:8:8], fmt.Sprintf("… %d more", len(skipped)-8))
	}
	return fmt.Sprintf("SKIPPED for lack of data: %d test(s): %s; a full run needs `bench data fetch all` (or UGBENCH_DATA naming a datasets directory)",
		len(skipped), strings.Join(names, ", "))
}
