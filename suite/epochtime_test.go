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
