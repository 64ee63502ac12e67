package suite

import (
	"testing"
	"time"
)

// TestEpochSeconds checks the epoch timer on a fake clock: each epoch is
// timed from the previous Epoch call (the first from start), and the metric
// is the median, so a slow first epoch (compilation) does not count.
func TestEpochSeconds(t *testing.T) {
	tests := []struct {
		name   string
		steps  []time.Duration // clock advance before each Epoch call
		cached int             // the first cached epochs are restored, not computed
		want   float64
		ok     bool
	}{
		{"no epochs", nil, 0, 0, false},
		{"one", []time.Duration{3 * time.Second}, 0, 3, true},
		{"odd, slow first", []time.Duration{30 * time.Second, 2 * time.Second, 4 * time.Second}, 0, 4, true},
		{"even", []time.Duration{9 * time.Second, time.Second, 2 * time.Second, 3 * time.Second}, 0, 2.5, true},
		// A restored warm-up logs its epochs at once; only the computed
		// epochs after it count (the first of them from the last restored).
		{"cached warm-up", []time.Duration{time.Second, 0, 0, 0, 6 * time.Second, 8 * time.Second}, 4, 7, true},
		{"all cached", []time.Duration{time.Second, 0}, 2, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			l := &curveLog{now: func() time.Time { return clock }}
			l.start()
			for i, d := range tc.steps {
				clock = clock.Add(d)
				values := map[string]float64{"loss": 1}
				if i < tc.cached {
					values[CachedEpochCurve] = 1
				}
				l.Epoch(i+1, len(tc.steps), values)
			}
			got, ok := l.medianEpochSeconds()
			if got != tc.want || ok != tc.ok {
				t.Errorf("median = %v, %v; want %v, %v (epochs %v)", got, ok, tc.want, tc.ok, l.times)
			}
			if want := len(tc.steps) + min(tc.cached, len(tc.steps)); len(l.points) != want {
				t.Errorf("%d curve points, want %d (timing adds no curve)", len(l.points), want)
			}
		})
	}
}

// TestEpochSecondsPhases: a method that names its phases gets one median
// per phase beside the overall one; epochs logged before any Phase call
// count only in the overall median, and a Logger that does not time
// epochs ignores Phase.
func TestEpochSecondsPhases(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := &curveLog{now: func() time.Time { return clock }}
	l.start()
	epoch := func(d time.Duration) {
		clock = clock.Add(d)
		l.Epoch(1, 1, map[string]float64{"loss": 1})
	}
	epoch(100 * time.Millisecond) // before any phase
	Phase(l, "pretrain")
	for _, s := range []int{10, 2, 3} {
		epoch(time.Duration(s) * time.Second)
	}
	Phase(l, "finetune")
	for _, ms := range []int{900, 100, 200, 300} {
		epoch(time.Duration(ms) * time.Millisecond)
	}
	got := l.epochSecondsMetrics()
	want := map[string]float64{EpochSecondsMetric: 0.6, EpochSecondsMetric + "_pretrain": 3, EpochSecondsMetric + "_finetune": 0.25}
	if len(got) != len(want) {
		t.Errorf("metrics %v, want %v", got, want)
	}
	for k, v := range want {
		if g, ok := got[k]; !ok || g < v-1e-9 || g > v+1e-9 {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, v)
		}
	}
	Phase(nopLogger{}, "warmup") // no timer: nothing happens
}

type nopLogger struct{}

func (nopLogger) Epoch(int, int, map[string]float64) {}
