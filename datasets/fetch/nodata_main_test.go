package fetch

import (
	"os"
	"testing"

	"github.com/ugbench/ugbench/datasets/internal/nodata"
)

// TestMain reports the tests skipped for lack of data.
func TestMain(m *testing.M) {
	code := m.Run()
	nodata.Report()
	os.Exit(code)
}
