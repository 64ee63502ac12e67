package nodata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportCounts: a skip for lack of data is named in Summary and in
// the $UGBENCH_SKIP_LOG file Report appends to.
func TestReportCounts(t *testing.T) {
	log := filepath.Join(t.TempDir(), "skipped")
	t.Setenv(SkipLogEnv, log)
	t.Run("needs-data", func(t *testing.T) { SkipNoData(t, "dataset %s absent", "X") })
	if s := Summary(); !strings.HasPrefix(s, "SKIPPED for lack of data: 1 test(s): TestReportCounts/needs-data;") {
		t.Errorf("Summary = %q", s)
	}
	Report()
	b, err := os.ReadFile(log)
	if err != nil || string(b) != "TestReportCounts/needs-data\n" {
		t.Errorf("skip log %q (%v)", b, err)
	}
	skippedMu.Lock()
	skipped = nil
	skippedMu.Unlock()
}
