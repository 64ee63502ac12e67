package semisup

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/suite"
)

// TestResumeSameRun: on real Letter-high, every row interrupted after an
// epoch (a pretraining epoch or a supervised pass; Ctrl-C, as bench grid
// cancels) and run again continues from the saved state to the same
// curves and metrics as the uninterrupted run — bit for bit, since the
// variables, optimizer moments, generators and pending batches are
// restored exactly and the backend computes the same steps the same way.
func TestResumeSameRun(t *testing.T) {
	dir := datasetstest.Dir()
	_ = datasetstest.Load(t, "Letter-high") // skips if absent
	name, ratio, err := datasets.ResolveRatio("Letter-high", "low")
	if err != nil {
		t.Fatal(err)
	}
	budget := suite.Params{"steps": 18, "batch_size": 64, "hidden": 16, "lr": 0.01, "curve_every": 1, "pretrain_epochs": 2}
	for _, tc := range []struct {
		method string
		// stops are the Epoch calls after which the first attempt is
		// cancelled. After a supervised pass, the D^u report that follows
		// (curve_every 1) then fails, so that pass is not saved and the
		// run resumes from the save before it: its curves include that
		// report's points, which the suite restores with the state.
		stops []int
	}{
		{"infograph", []int{2}},
		{"gla", []int{2}},
		{"graphcl", []int{1, 4}}, // in pretraining, in fine-tuning
		{"rgcl", []int{2}},       // at the end of pretraining
	} {
		t.Run(tc.method, func(t *testing.T) {
			p := params(t, tc.method, nil)
			for k, v := range budget {
				if _, ok := p[k]; ok {
					p[k] = v
				}
			}
			spec := suite.RunSpec{Method: tc.method, Dataset: "Letter-high", RatioName: name, Ratio: ratio, Seed: 3,
				Params: p, Protocol: suite.DefaultProtocol()}
			whole, err := (&suite.Runner{DataDir: dir, Backend: "go"}).Run(context.Background(), spec, "cpu", nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, stop := range tc.stops {
				r := &suite.Runner{DataDir: dir, Backend: "go", CacheDir: t.TempDir(), ResumeEvery: time.Nanosecond}
				ctx, cancel := context.WithCancel(context.Background())
				calls := 0
				_, err := r.Run(ctx, spec, "cpu", func(int, int) {
					if calls++; calls == stop {
						cancel()
					}
				})
				cancel()
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("stop %d: first attempt returned %v, want context.Canceled", stop, err)
				}
				res, err := r.Run(context.Background(), spec, "cpu", nil)
				if err != nil {
					t.Fatal(err)
				}
				if res.Metrics[suite.ResumedMetric] != 1 {
					t.Fatalf("stop %d: metric %s = %v, want 1 (the saved state was not restored)", stop, suite.ResumedMetric, res.Metrics[suite.ResumedMetric])
				}
				if !reflect.DeepEqual(res.Curves, whole.Curves) {
					t.Errorf("stop %d: curves differ from the uninterrupted run's:\n got %v\nwant %v", stop, res.Curves, whole.Curves)
				}
				for k, v := range whole.Metrics {
					if !strings.HasPrefix(k, suite.EpochSecondsMetric) && res.Metrics[k] != v {
						t.Errorf("stop %d: %s = %v, want the uninterrupted run's %v", stop, k, res.Metrics[k], v)
					}
				}
			}
		})
	}
}
