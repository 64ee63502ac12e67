// Package stats holds the statistics of the reports: the mean and sample
// std of a cell's seeds and the two-sided hypothesis tests bench compare
// and bench check judge a change with (go-moremath), with the number of
// seeds each needs to reach a significance level. It knows nothing of
// runs or tables.
package stats

import (
	"errors"
	"math"

	"github.com/aclements/go-moremath/stats"
)

// MeanStd returns the mean and the sample standard deviation (n−1
// denominator) of xs; the std of a single value is 0, and both are NaN for
// no value.
func MeanStd(xs []float64) (mean, std float64) {
	n := len(xs)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(n)
	if n == 1 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		d := x - mean
		ss += d * d
	}
	return mean, math.Sqrt(ss / float64(n-1))
}

// UTestP is the two-sided Mann-Whitney U p-value (go-moremath; exact
// distribution for small samples, as benchstat's default); 1 when every
// value of both samples is equal, NaN when the test fails.
func UTestP(x, y []float64) float64 {
	r, err := stats.MannWhitneyUTest(x, y, stats.LocationDiffers)
	if errors.Is(err, stats.ErrSamplesEqual) {
		return 1
	}
	if err != nil {
		return math.NaN()
	}
	return r.P
}

// MinUTestP is the smallest two-sided p-value the U test can give for
// samples of n1 and n2 distinct values: every value of one sample below
// every value of the other, 2 / C(n1+n2, n1).
func MinUTestP(n1, n2 int) float64 {
	return math.Min(1, 2/binomial(n1+n2, n1))
}

// UTestNeed is the smallest n for which n vs n seeds can reach alpha.
func UTestNeed(alpha float64) int {
	n := 1
	for MinUTestP(n, n) > alpha {
		n++
	}
	return n
}

// PairedNeed is the number of shared seeds below which a change is not
// judged with the paired t-test: the number the U test needs (4 at α =
// 0.05). A t-test on 3 differences can reach any p, but only by trusting
// their normality, which 3 values cannot show; holding both tests to one
// count keeps a verdict from hinging on which test ran.
func PairedNeed(alpha float64) int { return UTestNeed(alpha) }

// PairedP is the two-sided paired t-test p-value of new − old
// (go-moremath). Differences that are all equal give 1 when they are 0
// (no change) and 0 otherwise (a constant shift: the t statistic is
// infinite); NaN for fewer than 2 pairs.
func PairedP(old, new []float64) float64 {
	r, err := stats.PairedTTest(new, old, 0, stats.LocationDiffers)
	switch {
	case errors.Is(err, stats.ErrZeroVariance):
		if new[0] == old[0] {
			return 1
		}
		return 0
	case err != nil:
		return math.NaN()
	}
	return r.P
}

// binomial is C(n, k) as a float64.
func binomial(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}
