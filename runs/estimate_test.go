package runs

import (
	"math"
	"testing"

	"github.com/ugbench/ugbench/suite"
)

func TestEstimateSeconds(t *testing.T) {
	spec := func(method, ratio string, steps int, seed int64) suite.RunSpec {
		r := 0.1
		if ratio == "high" {
			r = 0.3
		}
		p := suite.Params{"hidden": 64.0}
		if steps > 0 {
			p[suite.StepsParam] = float64(steps) // as the store reads it back
		}
		return suite.RunSpec{Method: method, Dataset: "D", RatioName: ratio, Ratio: r, Seed: seed,
			Params: p, Protocol: suite.DefaultProtocol()}
	}
	run := func(s suite.RunSpec, status Status, secs float64) Run {
		return Run{Spec: s, Status: status, Seconds: secs}
	}
	done := []Run{
		run(spec("gin", "low", 500, 0), StatusFinished, 10),
		run(spec("gin", "low", 500, 1), StatusFinished, 14),
		run(spec("gin", "low", 500, 2), StatusFinished, 30),
		run(spec("gin", "low", 500, 3), StatusFailed, 1000), // not finished: ignored
		run(spec("gin", "high", 1000, 0), StatusFinished, 40),
		run(spec("wl", "low", 0, 0), StatusFinished, 0.5),
		// sage: 2× gin's time per step on dataset E; gin on E 0.01 s/step.
		func() Run { s := spec("gin", "low", 100, 0); s.Dataset = "E"; return run(s, StatusFinished, 1) }(),
		func() Run { s := spec("sage", "low", 100, 0); s.Dataset = "E"; return run(s, StatusFinished, 2) }(),
	}
	// Specs as the grid makes them: ints, not float64s.
	intSpec := func(method, ratio string, steps int) suite.RunSpec {
		s := spec(method, ratio, 0, 9)
		s.Params = suite.Params{"hidden": 64}
		if steps > 0 {
			s.Params[suite.StepsParam] = steps
		}
		return s
	}
	tests := []struct {
		name  string
		spec  suite.RunSpec
		want  float64
		basis string
	}{
		{"same config: median of 10, 14, 30", intSpec("gin", "low", 500), 14, "same config, 3 run(s)"},
		{"same ratio, other steps: 14/500·2000", intSpec("gin", "low", 2000), 56, "gin on D low, scaled by steps, 3 run(s)"},
		{"other ratio: every gin run on D scaled to 250 steps: median of 5, 7, 15, 10", func() suite.RunSpec { s := intSpec("gin", "low", 250); s.Ratio = 0.2; s.RatioName = "0.2"; return s }(), 8.5, "gin on D, scaled by steps, 4 run(s)"},
		{"no steps: plain seconds", intSpec("wl", "low", 0), 0.5, "same config, 1 run(s)"},
		// gin on D: 10/500, 14/500, 30/500, 40/1000 s per step → median 0.034;
		// sage/gin on E = 2 → 0.048 s/step × 500 steps.
		{"relative cost: sage on D from gin on D and sage/gin on E", intSpec("sage", "low", 500), 34, "relative cost to other methods on other datasets, 1 pair(s)"},
		{"unknown method", intSpec("gcn", "low", 500), math.NaN(), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := EstimateSeconds(done, tc.spec)
			if math.IsNaN(tc.want) != math.IsNaN(got.Seconds) || (!math.IsNaN(tc.want) && math.Abs(got.Seconds-tc.want) > 1e-9) {
				t.Errorf("Seconds = %v, want %v", got.Seconds, tc.want)
			}
			if got.Basis != tc.basis {
				t.Errorf("Basis = %q, want %q", got.Basis, tc.basis)
			}
		})
	}
}

// TestEstimateSecondsSplitsFixedPart: with epoch times stored, only a run's
// training part (median epoch × epochs) scales with the step budget; the
// rest (the final prediction) is added once, also in the relative estimate.
func TestEstimateSecondsSplitsFixedPart(t *testing.T) {
	run := func(method, dataset string, steps int, secs float64, epochs int, epochSecs float64) Run {
		r := Run{Spec: suite.RunSpec{Method: method, Dataset: dataset, RatioName: "low", Ratio: 0.1,
			Params: suite.Params{suite.StepsParam: float64(steps)}, Protocol: suite.DefaultProtocol()},
			Status: StatusFinished, Seconds: secs, Epochs: epochs, Metrics: map[string]float64{}}
		if epochSecs > 0 {
			r.Metrics[suite.EpochSecondsMetric] = epochSecs
		}
		return r
	}
	spec := func(method, dataset string, steps int) suite.RunSpec {
		return suite.RunSpec{Method: method, Dataset: dataset, RatioName: "low", Ratio: 0.1,
			Params: suite.Params{suite.StepsParam: steps}, Protocol: suite.DefaultProtocol()}
	}
	tests := []struct {
		name string
		done []Run
		spec suite.RunSpec
		want float64
	}{
		// 10 epochs × 1.4 s = 14 s training of 100 s: 86 + 14/50·2000.
		{"fixed part added once", []Run{run("gin", "F", 50, 100, 10, 1.4)}, spec("gin", "F", 2000), 86 + 560},
		// 10 × 20 s > 100 s: all training, as without the split.
		{"training capped at the run", []Run{run("gin", "F", 50, 100, 10, 20)}, spec("gin", "F", 2000), 4000},
		{"no epochs: all training", []Run{run("gin", "F", 50, 100, 0, 1.4)}, spec("gin", "F", 2000), 4000},
		{"no epoch time: all training", []Run{run("gin", "F", 50, 100, 10, 0)}, spec("gin", "F", 2000), 4000},
		// gin on F: fixed 86, 0.28 s/step. On G gin has fixed 10 and 0.2 s/step
		// (20 of 30 s training), sage fixed 20 and 0.5 s/step (50 of 70 s):
		// sage on F = 86·2 + 0.28·2.5·2000.
		{"relative cost splits too", []Run{
			run("gin", "F", 50, 100, 10, 1.4),
			run("gin", "G", 100, 30, 10, 2),
			run("sage", "G", 100, 70, 10, 5),
		}, spec("sage", "F", 2000), 172 + 1400},
		// A 50-step ugnn run on F, all training (10 epochs × 9 s), would scale
		// to 10 + 90/50·2000 = 3610. gin on F at 2,000 steps: fixed 100,
		// 0.15 s/step; on G gin has fixed 100, 0.05 s/step and ugnn fixed
		// 200, 0.2 s/step: ugnn on F = 100·2 + 0.15·4·2000 = 1400.
		{"a smoke run gives way to the relative cost", []Run{
			run("ugnn", "F", 50, 100, 10, 9),
			run("gin", "F", 2000, 400, 10, 30),
			run("gin", "G", 2000, 200, 10, 10),
			run("ugnn", "G", 2000, 600, 10, 40),
		}, spec("ugnn", "F", 2000), 1400},
		// gin's own 50-step run on F (fixed 9, 0.02 s/step) is left out of
		// its cost there beside its 2,000-step run.
		{"the relative cost leaves smoke runs out", []Run{
			run("ugnn", "F", 50, 100, 10, 9),
			run("gin", "F", 2000, 400, 10, 30),
			run("gin", "F", 50, 10, 10, 0.1),
			run("gin", "G", 2000, 200, 10, 10),
			run("ugnn", "G", 2000, 600, 10, 40),
		}, spec("ugnn", "F", 2000), 1400},
		// On H both rows have only 50-step runs, ugnn's 100 s all training
		// (2 s/step against gin's 0.02): beside sage's 2,000-step run there
		// the pair is left out, and G's alone gives 1400 as above.
		{"a dataset's smoke runs leave the relative cost beside its budget runs", []Run{
			run("gin", "F", 2000, 400, 10, 30),
			run("gin", "G", 2000, 200, 10, 10),
			run("ugnn", "G", 2000, 600, 10, 40),
			run("gin", "H", 50, 10, 10, 0.1),
			run("ugnn", "H", 50, 100, 10, 10),
			run("sage", "H", 2000, 300, 10, 20),
		}, spec("ugnn", "F", 2000), 1400},
		{"a smoke run as the last resort", []Run{run("ugnn", "F", 50, 100, 10, 9)}, spec("ugnn", "F", 2000), 3610},
		// ugnn on F at 1,000 steps: fixed 100, 500 s training → 100 + 1000.
		{"a run near the budget wins over a smoke run", []Run{
			run("ugnn", "F", 50, 100, 10, 9),
			run("ugnn", "F", 1000, 600, 10, 50),
		}, spec("ugnn", "F", 2000), 1100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := EstimateSeconds(tc.done, tc.spec)
			if math.Abs(got.Seconds-tc.want) > 1e-6 {
				t.Errorf("Seconds = %v (%s), want %v", got.Seconds, got.Basis, tc.want)
			}
		})
	}
}

func TestFormatDuration(t *testing.T) {
	for _, tc := range []struct {
		s    float64
		want string
	}{{math.NaN(), "?"}, {0.4, "0s"}, {59.6, "1m00s"}, {750, "12m30s"}, {3*3600 + 5*60 + 20, "3h05m"}} {
		if got := FormatDuration(tc.s); got != tc.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}
