package reports

import (
	"slices"
	"testing"

	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// TestRunListProgress: `bench runs` shows a running run's last epoch of
// its total, and nothing for a finished run or before the first heartbeat.
func TestRunListProgress(t *testing.T) {
	spec := suite.RunSpec{Method: "infograph", Dataset: "COIL-DEL", RatioName: "low", Ratio: 0.5}
	rs := []runs.Run{
		{ID: 1, Status: runs.StatusRunning, Spec: spec, Attempts: 1, Epoch: 12, Epochs: 250},
		{ID: 2, Status: runs.StatusRunning, Spec: spec, Attempts: 1},
		{ID: 3, Status: runs.StatusFinished, Spec: spec, Attempts: 1, Epoch: 249, Epochs: 250, Seconds: 5,
			Metrics: map[string]float64{suite.MetricAccuracy: 0.5}},
	}
	p := RunList(rs)
	col := slices.Index(p.Header, "epoch")
	if col < 0 {
		t.Fatalf("no epoch column in %v", p.Header)
	}
	for i, want := range []string{"12/250", "", ""} {
		if got := p.Rows[i][col]; got != want {
			t.Errorf("run %d: epoch %q, want %q", rs[i].ID, got, want)
		}
	}
}
