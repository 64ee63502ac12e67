package suite

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Unknown marks an evaluation graph of an unknown class in Score's truth.
const Unknown = -1

// DeclaredUnknown applies docs/protocol.md §3: with K the number of unknown-class
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

// Threshold is the decision threshold of docs/protocol.md §3, fixed on the
// unlabelled set D^u: with K_u = numUnknown, the score of the last of the
// ⌈α·K_u⌉ highest scores (the lowest score DeclaredUnknown declares). It is
// +Inf when nothing is declared (⌈α·K_u⌉ = 0 or no scores), so that no test
// graph is declared either.
func Threshold(scores []float64, numUnknown int, alpha float64) float64 {
	return lowestDeclared(scores, DeclaredUnknown(scores, numUnknown, alpha))
}

// lowestDeclared is the lowest score among the declared graphs, +Inf if
// none is declared.
func lowestDeclared(scores []float64, declared []bool) float64 {
	thr := math.Inf(1)
	for i, d := range declared {
		if d && scores[i] < thr {
			thr = scores[i]
		}
	}
	return thr
}

// DeclaredAtThreshold declares unknown every graph whose score is at or
// above threshold (docs/protocol.md §3: a test graph tied with the
// threshold is declared). It returns one flag per score.
func DeclaredAtThreshold(scores []float64, threshold float64) []bool {
	out := make([]bool, len(scores))
	for i, s := range scores {
		out[i] = s >= threshold
	}
	return out
}

// Score computes the metrics of docs/protocol.md §4 for one scored set
// with the top-⌈α·K⌉ rule, K the set's own number of unknown-class graphs:
// the transductive figures of D^u. truth holds, per graph, its known class
// in 0..NumKnown−1 or Unknown; pred is index-aligned with it. See
// ScoreDeclared for the metrics. It returns an error if lengths differ or
// a score is NaN.
func Score(truth []int, pred *Predictions, alpha float64) (map[string]float64, error) {
	if err := checkPredictions(truth, pred); err != nil {
		return nil, err
	}
	numUnknown := 0
	for _, t := range truth {
		if t == Unknown {
			numUnknown++
		}
	}
	return ScoreDeclared(truth, pred, DeclaredUnknown(pred.UnknownScore, numUnknown, alpha))
}

func checkPredictions(truth []int, pred *Predictions) error {
	n := len(truth)
	if len(pred.Class) != n || len(pred.UnknownScore) != n {
		return fmt.Errorf("predictions for %d classes and %d scores, want %d graphs", len(pred.Class), len(pred.UnknownScore), n)
	}
	for i, s := range pred.UnknownScore {
		if math.IsNaN(s) {
			return fmt.Errorf("unknown score of evaluation graph %d is NaN", i)
		}
	}
	return nil
}

// ScoreDeclared computes the metrics of docs/protocol.md §4 for one scored
// set given which graphs were declared unknown (index-aligned with truth):
//
//   - accuracy: a known-class graph is correct iff predicted as its class and
//     not declared unknown; an unknown-class graph iff declared unknown.
//   - ood_f1: F1 of "declared unknown", positive = unknown class.
//   - unknown_acc: fraction of unknown-class graphs declared unknown.
//   - known_acc: accuracy (as above) over known-class graphs only.
//   - ood_auroc: area under the ROC curve of UnknownScore for unknown vs
//     known (ties count ½); independent of K, α and the threshold.
//   - closed_acc: fraction of known-class graphs whose predicted class is
//     right, ignoring what was declared unknown (the classifier alone).
//   - declared_ratio: graphs declared unknown ÷ unknown-class graphs.
//   - the open-set metrics (docs/protocol.md §4.2): aupr_in, aupr_out,
//     fpr95 and oscr of UnknownScore (threshold-free), h_score of
//     known_acc and unknown_acc.
//
// Metrics that are undefined (no unknown-class or no known-class graphs)
// are left out. It returns an error if lengths differ or a score is NaN.
func ScoreDeclared(truth []int, pred *Predictions, declared []bool) (map[string]float64, error) {
	if err := checkPredictions(truth, pred); err != nil {
		return nil, err
	}
	n := len(truth)
	if len(declared) != n {
		return nil, fmt.Errorf("%d decisions for %d graphs", len(declared), n)
	}
	numUnknown := 0
	for _, t := range truth {
		if t == Unknown {
			numUnknown++
		}
	}
	numKnown := n - numUnknown
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
		m[MetricOODF1] = f1(float64(tp), float64(numDeclared), float64(numUnknown))
		m[MetricDeclaredRatio] = float64(numDeclared) / float64(numUnknown)
		if v, ok, _ := OODAUROC(truth, pred.UnknownScore); ok {
			m[MetricOODAUROC] = v
		}
		if numKnown > 0 {
			m[MetricHScore] = HScore(m[MetricKnownAcc], recall)
		}
	}
	for name, f := range map[string]func([]int, []float64) (float64, bool){
		MetricAUPRIn: AUPRIn, MetricAUPROut: AUPROut, MetricFPR95: FPRAt95TPR,
	} {
		if v, ok := f(truth, pred.UnknownScore); ok {
			m[name] = v
		}
	}
	if v, ok := OSCR(truth, pred.Class, pred.UnknownScore); ok {
		m[MetricOSCR] = v
	}
	return m, nil
}

// f1 is the F1 score of tp true positives among declared positives, with
// actual positives; 0 when tp is 0.
func f1(tp, declared, actual float64) float64 {
	if tp == 0 {
		return 0
	}
	precision := tp / declared
	recall := tp / actual
	return 2 * precision * recall / (precision + recall)
}

// ChanceMetrics are the headline metrics that chance reaches on a test set
// under docs/protocol.md §3 (the chance row of every table): every graph of
// D^u and of the test set gets an independent continuous uniform random
// unknown score, and every graph is predicted as majority, the labelled
// set's most frequent known class. testTruth is the test set's truth (as in
// Score); numDU is |D^u| and declaredDU = ⌈α·K_u⌉ the number declared there.
//
// A test graph then scores at or above the threshold (the declaredDU-th
// highest of numDU uniforms) with probability p = declaredDU/(numDU+1), the
// expected declared fraction; unknown_acc = p, closed_acc = the majority
// class's share of the known-class test graphs, known_acc = (1−p)·closed_acc,
// accuracy = (p·U + (1−p)·M)/n (U unknown-class, M majority-class test
// graphs), ood_auroc = ½, declared_ratio = p·n/U (docs/protocol.md §4: above 1
// when D^u holds a larger share of unknowns than the test set), all exact
// expectations. ood_f1 is the F1 of the
// expected counts, 2pU/(p·n + U) (the expectation of the ratio has no closed
// form; the two differ by O(1/n)).
func ChanceMetrics(testTruth []int, majority, numDU, declaredDU int) map[string]float64 {
	n := len(testTruth)
	var numUnknown, numMajority int
	for _, t := range testTruth {
		switch t {
		case Unknown:
			numUnknown++
		case majority:
			numMajority++
		}
	}
	numKnown := n - numUnknown
	p := float64(declaredDU) / float64(numDU+1)
	m := map[string]float64{}
	if n > 0 {
		m[MetricAccuracy] = (p*float64(numUnknown) + (1-p)*float64(numMajority)) / float64(n)
	}
	if numKnown > 0 {
		closed := float64(numMajority) / float64(numKnown)
		m[MetricClosedAcc] = closed
		m[MetricKnownAcc] = (1 - p) * closed
	}
	if numUnknown > 0 {
		m[MetricUnknownAcc] = p
		m[MetricDeclaredRatio] = p * float64(n) / float64(numUnknown)
		m[MetricOODF1] = f1(p*float64(numUnknown), p*float64(n), float64(numUnknown))
		if numKnown > 0 {
			m[MetricOODAUROC] = 0.5
		}
	}
	return m
}

// MajorityClass is the most frequent label of labels (ties: the smallest),
// 0 for none.
func MajorityClass(labels []int) int {
	count := map[int]int{}
	best := 0
	for _, y := range labels {
		count[y]++
	}
	for y, c := range count {
		if c > count[best] || (c == count[best] && y < best) {
			best = y
		}
	}
	return best
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
