package reports

import (
	"slices"
	"testing"
	"time"

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
	p := RunList(rs, nil)
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

// TestRunListSaved: an unfinished run shows its saved state (the epoch a
// rerun continues after, when it was saved, and whether only another
// binary can continue it), preferring this binary's state of several; a
// finished run shows none.
func TestRunListSaved(t *testing.T) {
	spec := suite.RunSpec{Method: "infograph", Dataset: "COIL-DEL", RatioName: "high", Ratio: 0.7}
	at := time.Date(2026, 11, 24, 14, 51, 0, 0, time.UTC)
	rs := []runs.Run{
		{ID: 1, Status: runs.StatusInterrupted, Hash: "a", Spec: spec},
		{ID: 2, Status: runs.StatusRunning, Hash: "b", Spec: spec},
		{ID: 3, Status: runs.StatusFinished, Hash: "c", Spec: spec},
		{ID: 4, Status: runs.StatusInterrupted, Hash: "d", Spec: spec},
	}
	saved := []suite.SavedState{
		{Hash: "a", Epoch: 25, Epochs: 157, Saved: at, ThisBinary: true},
		{Hash: "a", Epoch: 30, Epochs: 157, Saved: at.Add(time.Hour)}, // newer, another binary's
		{Hash: "b", Epoch: 3, Epochs: 10, Saved: at},
		{Hash: "b", Epoch: 4, Epochs: 10, Saved: at.Add(time.Minute)},
		{Hash: "c", Epoch: 9, Epochs: 10, Saved: at, ThisBinary: true},
	}
	p := RunList(rs, saved)
	col := slices.Index(p.Header, "saved")
	if col < 0 {
		t.Fatalf("no saved column in %v", p.Header)
	}
	for i, want := range []string{"25/157 Nov 24 14:51", "4/10 Nov 24 14:52 other binary", "", ""} {
		if got := p.Rows[i][col]; got != want {
			t.Errorf("run %d: saved %q, want %q", rs[i].ID, got, want)
		}
	}
}
