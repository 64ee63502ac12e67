package suite

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Unknown marks an evaluation graph of an unknown class in Score's truth.
const Unknown = -1

// DeclaredUnknown applies PROTOCOL §3: with K the number of unknown-class
// graphs, the ⌈α·K⌉ highest unknown scores are declared unknown (ties
// broken by position: the lower evaluation index first; Task.Eval is sorted
// by graph index). It returns one flag per score.
func DeclaredUnknown(scores []float64, numUnknown int, alpha float64) []bool {
	n := int(math.Ceil(alpha*float64(numUnknown) - 1e-9))
	n = max(0, min(n, len(scores)))
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return scores[order[a]] > scores[order[b]] })
	out := make([]bool, len(scores))
	for _, i := range order[:n] {
		out[i] = true
	}
	return out
}

// Score computes the metrics of PROTOCOL §4 for one run. truth holds, per
// evaluation graph, its known class in 0..NumKnown−1 or Unknown; pred is
// index-aligned with it. Metrics:
//
//   - accuracy: a known-class graph is correct iff predicted as its class and
//     not declared unknown; an unknown-class graph iff declared unknown.
//   - ood_f1: F1 of "declared unknown", positive = unknown class.
//   - unknown_acc: fraction of unknown-class graphs declared unknown.
//   - known_acc: accuracy (as above) over known-class graphs only.
//   - ood_auroc: area under the ROC curve of UnknownScore for unknown vs
//     known (ties count ½); independent of K and α.
//   - closed_acc: fraction of known-class graphs whose predicted class is
//     right, ignoring what was declared unknown (the classifier alone).
//
// Metrics that are undefined (no unknown-class or no known-class graphs)
// are left out. It returns an error if lengths differ or a score is NaN.
func Score(truth []int, pred *Predictions, alpha float64) (map[string]float64, error) {
	n := len(truth)
	if len(pred.Class) != n || len(pred.UnknownScore) != n {
		return nil, fmt.Errorf("predictions for %d classes and %d scores, want %d graphs", len(pred.Class), len(pred.UnknownScore), n)
	}
	numUnknown := 0
	for i, s := range pred.UnknownScore {
		if math.IsNaN(s) {
			return nil, fmt.Errorf("unknown score of evaluation graph %d is NaN", i)
		}
		if truth[i] == Unknown {
			numUnknown++
		}
	}
	numKnown := n - numUnknown
	declared := DeclaredUnknown(pred.UnknownScore, numUnknown, alpha)
	var correct, knownCorrect, closedCorrect, tp, numDeclared int
	for i, t := range truth {
		if declared[i] {
			numDeclared++
		}
		if t != Unknown && pred.Class[i] == t {
			closedCorrect++
		}
		switch {
		case t == Unknown && declared[i]:
			correct++
			tp++
		case t != Unknown && !declared[i] && pred.Class[i] == t:
			correct++
			knownCorrect++
		}
	}
	m := map[string]float64{}
	if n > 0 {
		m[MetricAccuracy] = float64(correct) / float64(n)
	}
	if numKnown > 0 {
		m[MetricKnownAcc] = float64(knownCorrect) / float64(numKnown)
		m[MetricClosedAcc] = float64(closedCorrect) / float64(numKnown)
	}
	if numUnknown > 0 {
		recall := float64(tp) / float64(numUnknown)
		m[MetricUnknownAcc] = recall
		f1 := 0.0
		if tp > 0 {
			precision := float64(tp) / float64(numDeclared)
			f1 = 2 * precision * recall / (precision + recall)
		}
		m[MetricOODF1] = f1
		if v, ok, _ := OODAUROC(truth, pred.UnknownScore); ok {
			m[MetricOODAUROC] = v
		}
	}
	return m, nil
}

// auroc is the Mann–Whitney statistic U/(n₁n₀) with midranks for ties.
func auroc(truth []int, scores []float64, numPos, numNeg int) float64 {
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return scores[order[a]] < scores[order[b]] })
	var rankSum float64
	for i := 0; i < len(order); {
		j := i
		for j < len(order) && scores[order[j]] == scores[order[i]] {
			j++
		}
		mid := float64(i+j+1) / 2 // ranks i+1..j, averaged
		for k := i; k < j; k++ {
			if truth[order[k]] == Unknown {
				rankSum += mid
			}
		}
		i = j
	}
	u := rankSum - float64(numPos)*float64(numPos+1)/2
	return u / (float64(numPos) * float64(numNeg))
}

// OODAUROC is the ood_auroc metric of Score for any unknown score (higher =
// more likely unknown) of the graphs whose truth is given (Unknown or a
// known class). ok is false, and err nil, if the graphs are not of both
// kinds (the metric is undefined). Otherwise it returns an error if lengths
// differ or a score is NaN.
func OODAUROC(truth []int, scores []float64) (v float64, ok bool, err error) {
	numUnknown := 0
	for _, t := range truth {
		if t == Unknown {
			numUnknown++
		}
	}
	numKnown := len(truth) - numUnknown
	if numUnknown == 0 || numKnown == 0 {
		return 0, false, nil
	}
	if len(truth) != len(scores) {
		return 0, false, fmt.Errorf("%d scores for %d graphs", len(scores), len(truth))
	}
	if i := slices.IndexFunc(scores, math.IsNaN); i >= 0 {
		return 0, false, fmt.Errorf("score %d is NaN", i)
	}
	return auroc(truth, scores, numUnknown, numKnown), true, nil
}

// checkScoreName returns an error unless name is a valid extra-score name
// (Task.ReportScores, Predictions.ExtraScores): non-empty lower-case
// letters, digits and '_', so that ood_auroc_<name> reads as a metric.
func checkScoreName(name string) error {
	if name == "" {
		return fmt.Errorf("empty score name")
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return fmt.Errorf("score name %q: only a-z, 0-9 and _ allowed", name)
		}
	}
	return nil
}
