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
//  2. same method, dataset and ratio; their seconds per supervised step
//     ("steps" parameter) times spec's steps, or their plain seconds when
//     either side has no steps;
//  3. same method and dataset, likewise;
//  4. relative cost: for another method M′ with runs on spec's dataset and a
//     dataset D′ where both methods have runs, M′'s seconds per step here
//     times the ratio of the two methods' seconds per step on D′, times
//     spec's steps (median over every such M′, D′ pair). This is how a new
//     method's time on COIL-DEL is guessed from gin-topk's time there and
//     the two methods' times on Letter-high.
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
	levels := []struct {
		match func(Run) bool
		basis string
		scale bool
	}{
		{sameConfig, "same config", false},
		{sameRatio, fmt.Sprintf("%s on %s %s", spec.Method, spec.Dataset, spec.RatioLabel()), true},
		{sameDataset, fmt.Sprintf("%s on %s", spec.Method, spec.Dataset), true},
	}
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
					s = s / float64(rs) * steps
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
		return Estimate{Seconds: median(secs), Basis: fmt.Sprintf("%s, %d run(s)", basis, len(secs))}
	}
	return relativeEstimate(done, spec, steps)
}

// relativeEstimate is EstimateSeconds' level 4; NaN when no pair exists.
func relativeEstimate(done []Run, spec suite.RunSpec, steps float64) Estimate {
	if steps <= 0 {
		return Estimate{Seconds: math.NaN()}
	}
	// perStep[method][dataset] = seconds per supervised step of each
	// finished run that has a step budget.
	perStep := map[string]map[string][]float64{}
	for _, r := range done {
		rs := stepsOf(r.Spec.Params)
		if r.Status != StatusFinished || r.Seconds <= 0 || rs <= 0 {
			continue
		}
		if perStep[r.Spec.Method] == nil {
			perStep[r.Spec.Method] = map[string][]float64{}
		}
		perStep[r.Spec.Method][r.Spec.Dataset] = append(perStep[r.Spec.Method][r.Spec.Dataset], r.Seconds/float64(rs))
	}
	mine := perStep[spec.Method]
	var ests []float64
	for other, byDataset := range perStep {
		if other == spec.Method || len(byDataset[spec.Dataset]) == 0 {
			continue
		}
		for d2, theirs := range byDataset {
			if d2 == spec.Dataset || len(mine[d2]) == 0 {
				continue
			}
			ratio := median(slices.Clone(mine[d2])) / median(slices.Clone(theirs))
			ests = append(ests, median(slices.Clone(byDataset[spec.Dataset]))*ratio*steps)
		}
	}
	if len(ests) == 0 {
		return Estimate{Seconds: math.NaN()}
	}
	return Estimate{Seconds: median(ests), Basis: fmt.Sprintf("relative cost to other methods on other datasets, %d pair(s)", len(ests))}
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
