package runs

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/ugbench/ugbench/suite"
)

// Estimate is the predicted wall time of one run spec, taken from finished
// runs that are comparable to it (EstimateSeconds).
type Estimate struct {
	// Seconds is the predicted wall time of Fit in seconds; NaN when no
	// stored run is comparable.
	Seconds float64
	// Basis says which runs it came from, e.g. "same config, 3 runs" or
	// "ugnn on COIL-DEL low, scaled by steps, 2 runs"; "" when Seconds is
	// NaN.
	Basis string
}

// EstimateSeconds predicts the wall time of spec from the finished runs in
// done (Run.Seconds, the wall time of Fit as measured, on whatever machine
// and under whatever load they ran). It takes the median of the first
// level that has runs:
//
//  1. same method, dataset, ratio, parameters and protocol (any seeds);
//  2. same method, dataset and ratio, scaled to spec's supervised steps
//     ("steps" parameter; their plain seconds when either side has no
//     steps): a run's training part (split) times spec's steps over the
//     run's, plus its fixed part — only runs of at least 1/NearSteps of
//     spec's steps;
//  3. same method and dataset, likewise;
//  4. relative cost: for another method M′ with runs on spec's dataset and a
//     dataset D′ where both methods have runs, M′'s training seconds per
//     step here times the ratio of the two methods' training seconds per
//     step on D′, times spec's steps, plus M′'s fixed part here times the
//     ratio of the two methods' fixed parts on D′ (median over every such
//     M′, D′ pair; on each dataset only the runs of at least 1/NearSteps
//     of the steps of its longest run, of any method). This is how a new
//     method's time on COIL-DEL is guessed from gin-topk's time there and
//     the two methods' times on Letter-high;
//  5. levels 2 and 3 with runs of any steps.
//
// The split matters for runs of few steps on large datasets: a 50-step
// gin-topk run on MNIST spent 14 of its 103 s training and the rest
// predicting 44k graphs, which a budget of 2,000 steps does not repeat 40
// times. It is not enough for a row whose epochs hold work that does not
// grow with the steps: every epoch of a 50-step UGNN run on MNIST is a
// cycle that scores 43,700 D^u graphs' subgraphs, and scaling its median
// epoch to 2,000 steps put one run at 23 h. Hence the step floor: such a
// run is used only where nothing nearer the budget says more.
//
// A run's time depends on the machine and on what else ran beside it, so the
// figure is a planning number, not a measurement.
func EstimateSeconds(done []Run, spec suite.RunSpec) Estimate {
	steps := float64(stepsOf(spec.Params))
	sameConfig := func(r Run) bool {
		return r.Spec.Method == spec.Method && r.Spec.Dataset == spec.Dataset && r.Spec.Ratio == spec.Ratio &&
			r.Spec.Protocol == spec.Protocol && sameParams(r.Spec.Params, spec.Params)
	}
	sameRatio := func(r Run) bool {
		return r.Spec.Method == spec.Method && r.Spec.Dataset == spec.Dataset && r.Spec.Ratio == spec.Ratio
	}
	sameDataset := func(r Run) bool { return r.Spec.Method == spec.Method && r.Spec.Dataset == spec.Dataset }
	// near reports whether r's steps are at least 1/NearSteps of spec's
	// (always, where either side has none).
	near := func(r Run) bool {
		rs := stepsOf(r.Spec.Params)
		return steps <= 0 || rs <= 0 || float64(rs)*NearSteps >= steps
	}
	ratioBasis := fmt.Sprintf("%s on %s %s", spec.Method, spec.Dataset, spec.RatioLabel())
	datasetBasis := fmt.Sprintf("%s on %s", spec.Method, spec.Dataset)
	if e, ok := fromLevels(done, steps, []level{
		{sameConfig, "same config", false},
		{func(r Run) bool { return sameRatio(r) && near(r) }, ratioBasis, true},
		{func(r Run) bool { return sameDataset(r) && near(r) }, datasetBasis, true},
	}); ok {
		return e
	}
	if e := relativeEstimate(done, spec, steps); !math.IsNaN(e.Seconds) {
		return e
	}
	if e, ok := fromLevels(done, steps, []level{{sameRatio, ratioBasis, true}, {sameDataset, datasetBasis, true}}); ok {
		return e
	}
	return Estimate{Seconds: math.NaN()}
}

// level is one of EstimateSeconds' levels: the runs it takes, how it
// names them, and whether their training part is scaled to the steps.
type level struct {
	match func(Run) bool
	basis string
	scale bool
}

// fromLevels is the median estimate of the first of levels with a
// finished run in done, scaled to steps where the level says so; false
// when none has one.
func fromLevels(done []Run, steps float64, levels []level) (Estimate, bool) {
	for _, l := range levels {
		var secs []float64
		scaled := false
		for _, r := range done {
			if r.Status != StatusFinished || r.Seconds <= 0 || !l.match(r) {
				continue
			}
			s := r.Seconds
			if l.scale {
				if rs := stepsOf(r.Spec.Params); steps > 0 && rs > 0 {
					fixed, train := split(r)
					s = fixed + train/float64(rs)*steps
					scaled = true
				}
			}
			secs = append(secs, s)
		}
		if len(secs) == 0 {
			continue
		}
		basis := l.basis
		if scaled {
			basis += ", scaled by steps"
		}
		return Estimate{Seconds: median(secs), Basis: fmt.Sprintf("%s, %d run(s)", basis, len(secs))}, true
	}
	return Estimate{}, false
}

// NearSteps bounds how far EstimateSeconds scales a run's training time
// before it prefers other evidence: a run of fewer than 1/NearSteps of the
// steps it is scaled to (a 50-step smoke run against a 2,000-step budget)
// is used only when no nearer run, of this method or another, is stored.
const NearSteps = 4

// relativeEstimate is EstimateSeconds' level 4; NaN when no pair exists.
func relativeEstimate(done []Run, spec suite.RunSpec, steps float64) Estimate {
	if steps <= 0 {
		return Estimate{Seconds: math.NaN()}
	}
	// cost[method][dataset] = the fixed part and the training seconds per
	// supervised step (split) of each finished run that has a step budget.
	type cost struct{ fixed, perStep []float64 }
	costs := map[string]map[string]*cost{}
	// longest[dataset] is the most steps of a finished run of any method
	// there, about its budget: runs of under 1/NearSteps of it (smoke runs
	// beside budget runs) are left out.
	longest := map[string]int{}
	for _, r := range done {
		if rs := stepsOf(r.Spec.Params); r.Status == StatusFinished && r.Seconds > 0 && rs > 0 {
			longest[r.Spec.Dataset] = max(longest[r.Spec.Dataset], rs)
		}
	}
	for _, r := range done {
		rs := stepsOf(r.Spec.Params)
		if r.Status != StatusFinished || r.Seconds <= 0 || rs <= 0 || rs*NearSteps < longest[r.Spec.Dataset] {
			continue
		}
		if costs[r.Spec.Method] == nil {
			costs[r.Spec.Method] = map[string]*cost{}
		}
		c := costs[r.Spec.Method][r.Spec.Dataset]
		if c == nil {
			c = &cost{}
			costs[r.Spec.Method][r.Spec.Dataset] = c
		}
		fixed, train := split(r)
		c.fixed, c.perStep = append(c.fixed, fixed), append(c.perStep, train/float64(rs))
	}
	mine := costs[spec.Method]
	// ratio is a/b, 1 where both are 0 (no fixed part on either side).
	ratio := func(a, b []float64) float64 {
		ma, mb := median(slices.Clone(a)), median(slices.Clone(b))
		if mb == 0 {
			if ma == 0 {
				return 1
			}
			return math.Inf(1)
		}
		return ma / mb
	}
	var ests []float64
	for other, byDataset := range costs {
		here := byDataset[spec.Dataset]
		if other == spec.Method || here == nil {
			continue
		}
		for d2, theirs := range byDataset {
			m := mine[d2]
			if d2 == spec.Dataset || m == nil {
				continue
			}
			fixed := median(slices.Clone(here.fixed)) * ratio(m.fixed, theirs.fixed)
			if math.IsInf(fixed, 0) { // mine has a fixed part where theirs has none: no scale
				fixed = median(slices.Clone(m.fixed))
			}
			ests = append(ests, fixed+median(slices.Clone(here.perStep))*ratio(m.perStep, theirs.perStep)*steps)
		}
	}
	if len(ests) == 0 {
		return Estimate{Seconds: math.NaN()}
	}
	return Estimate{Seconds: median(ests), Basis: fmt.Sprintf("relative cost to other methods on other datasets, %d pair(s)", len(ests))}
}

// split divides a finished run's wall time into a fixed part and a training
// part that grows with the step budget: training is the run's median epoch
// time (suite.EpochSecondsMetric) times its epochs (Run.Epochs), at most
// the whole run; the rest (loading, the final prediction and scoring) is
// fixed. A run without epochs or without the metric is all training, as
// the estimate scaled whole runs before the split.
func split(r Run) (fixed, train float64) {
	ep, ok := r.Metrics[suite.EpochSecondsMetric]
	if !ok || r.Epochs <= 0 || !(ep > 0) {
		return 0, r.Seconds
	}
	train = min(r.Seconds, ep*float64(r.Epochs))
	return r.Seconds - train, train
}

// stepsOf is p's supervised step budget, 0 when p has none (kernels) or
// it is not a number.
func stepsOf(p suite.Params) int {
	switch v := p[suite.StepsParam].(type) {
	case int:
		return v
	case float64:
		return int(v)
	}
	return 0
}

// sameParams reports whether two parameter sets hold the same names with
// equal values (suite.SameValue: a stored float64 equals the int of a new
// spec).
func sameParams(a, b suite.Params) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !suite.SameValue(v, w) {
			return false
		}
	}
	return true
}

// median of a non-empty slice (sorted in place).
func median(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// FormatDuration renders seconds for a person: "45s", "12m30s", "3h05m".
// NaN gives "?".
func FormatDuration(seconds float64) string {
	if math.IsNaN(seconds) {
		return "?"
	}
	d := time.Duration(math.Round(seconds)) * time.Second
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
