package suite

import (
	"fmt"
	"sort"
)

// Open-set metric names (beyond docs/protocol.md §4, like ood_auroc). Each is
// computed by the function of the same name below.
const (
	// MetricAUPRIn is AUPRIn: area under precision–recall, known graphs
	// positive.
	MetricAUPRIn = "aupr_in"
	// MetricAUPROut is AUPROut: area under precision–recall, unknown
	// graphs positive.
	MetricAUPROut = "aupr_out"
	// MetricFPR95 is FPRAt95TPR: the fraction of unknown graphs accepted
	// as known where 95% of the known graphs are.
	MetricFPR95 = "fpr95"
	// MetricOSCR is OSCR: the open-set classification rate, area under
	// correct classification rate against false positive rate.
	MetricOSCR = "oscr"
	// MetricHScore is HScore: the harmonic mean of known_acc and
	// unknown_acc.
	MetricHScore = "h_score"
)

// The functions below take, per graph, its truth (a known class ≥ 0 or
// Unknown) and its unknown score (higher = more likely unknown). They
// assume the caller rejected NaN scores (Score does); they panic if the
// lengths of their slices differ, a programming error.

// AUPROut is the area under the precision–recall curve of detecting the
// unknown graphs: unknown graphs are the positives, ranked by score as is
// (a graph is flagged when its score is at or above a threshold t). The
// curve is integrated with the step rule over the distinct score values,
// as scikit-learn's average_precision_score does:
//
//	AP = Σ_t (R(t) − R(t⁺)) · P(t),
//
// t from the highest score down, t⁺ the previous (higher) value, P and R
// the precision and recall of "score ≥ t" (R = 0 above the highest
// score). Graphs tied at t enter together, so all-equal scores give the
// prevalence of unknown graphs. OpenOOD (Jingkang50/OpenOOD,
// openood/evaluators/metrics.py) integrates the same curve with the
// trapezoid rule (sklearn.metrics.auc), which gives slightly different
// values. ok is false when truth holds no unknown or no known graph.
func AUPROut(truth []int, scores []float64) (v float64, ok bool) {
	checkLens(truth, scores)
	pos := make([]bool, len(truth))
	for i, t := range truth {
		pos[i] = t == Unknown
	}
	return averagePrecision(pos, scores, 1)
}

// AUPRIn is AUPROut with the roles swapped: known graphs are the
// positives, ranked by the negated score (a graph is flagged known when
// its score is at or below a threshold). Same step rule, ties and
// undefined cases as AUPROut.
func AUPRIn(truth []int, scores []float64) (v float64, ok bool) {
	checkLens(truth, scores)
	pos := make([]bool, len(truth))
	for i, t := range truth {
		pos[i] = t != Unknown
	}
	return averagePrecision(pos, scores, -1)
}

// averagePrecision is the step-rule AP of the graphs with pos[i] as
// positives, ranked by sign·scores[i] (higher first); ok is false without
// positives or negatives.
func averagePrecision(pos []bool, scores []float64, sign float64) (float64, bool) {
	numPos := 0
	for _, p := range pos {
		if p {
			numPos++
		}
	}
	if numPos == 0 || numPos == len(pos) {
		return 0, false
	}
	order := sortedBy(scores, func(a, b float64) bool { return sign*a > sign*b })
	var ap float64
	tp, n := 0, 0
	for _, group := range tieGroups(order, scores) {
		prevTP := tp
		for _, i := range group {
			n++
			if pos[i] {
				tp++
			}
		}
		ap += float64(tp-prevTP) / float64(numPos) * float64(tp) / float64(n)
	}
	return ap, true
}

// FPRAt95TPR is the false positive rate at 95% true positive rate with the
// known graphs as positives: over the thresholds t (the distinct score
// values), every graph with score ≤ t is accepted as known; at the
// smallest t that accepts at least 95% of the known graphs (counted
// exactly: 100·accepted ≥ 95·known, so 19 of 20 suffice and 10 of 10 are
// needed), it returns the fraction of unknown graphs accepted. Graphs tied
// at t are accepted together. This is the FPR of the first ROC point with
// TPR ≥ 0.95 of the full ROC curve of known vs unknown with the negated
// score as confidence: OpenOOD's fpr_recall (Jingkang50/OpenOOD,
// openood/evaluators/metrics.py, in-distribution positive). That code
// calls sklearn's roc_curve with drop_intermediate=True, which drops
// collinear ROC points and can then land on a later point when tie groups
// mix known and unknown graphs in equal proportions; this function keeps
// every point. ok is false when truth holds no unknown or no known graph.
func FPRAt95TPR(truth []int, scores []float64) (v float64, ok bool) {
	checkLens(truth, scores)
	numKnown, numUnknown := countKinds(truth)
	if numKnown == 0 || numUnknown == 0 {
		return 0, false
	}
	order := sortedBy(scores, func(a, b float64) bool { return a < b })
	known, unknown := 0, 0
	for _, group := range tieGroups(order, scores) {
		for _, i := range group {
			if truth[i] == Unknown {
				unknown++
			} else {
				known++
			}
		}
		if 100*known >= 95*numKnown {
			break
		}
	}
	return float64(unknown) / float64(numUnknown), true
}

// OSCR is the open-set classification rate of Dhamija et al., "Reducing
// network agnostophobia", NeurIPS 2018: the area under the curve of the
// correct classification rate CCR(θ) against the false positive rate
// FPR(θ) as the threshold θ sweeps the scores. A graph is accepted as
// known when its score is below θ; CCR(θ) is the fraction of known graphs
// accepted with class[i] == truth[i], FPR(θ) the fraction of unknown
// graphs accepted. θ steps over the distinct score values from the lowest
// up, so graphs tied on a score are accepted together and the curve joins
// consecutive points with straight lines (trapezoid rule); it runs from
// (0, 0), nothing accepted, to (1, closed-set accuracy), everything
// accepted. A perfect detector scores the closed-set accuracy, one that
// ranks every unknown graph below every known graph scores 0. class is
// read for known graphs only. ok is false when truth holds no unknown or
// no known graph.
func OSCR(truth, class []int, scores []float64) (v float64, ok bool) {
	checkLens(truth, scores)
	if len(class) != len(truth) {
		panic(fmt.Sprintf("suite: %d classes for %d graphs", len(class), len(truth)))
	}
	numKnown, numUnknown := countKinds(truth)
	if numKnown == 0 || numUnknown == 0 {
		return 0, false
	}
	order := sortedBy(scores, func(a, b float64) bool { return a < b })
	var area, fpr, ccr float64
	correct, unknown := 0, 0
	for _, group := range tieGroups(order, scores) {
		for _, i := range group {
			switch {
			case truth[i] == Unknown:
				unknown++
			case class[i] == truth[i]:
				correct++
			}
		}
		nextFPR := float64(unknown) / float64(numUnknown)
		nextCCR := float64(correct) / float64(numKnown)
		area += (nextFPR - fpr) * (ccr + nextCCR) / 2
		fpr, ccr = nextFPR, nextCCR
	}
	return area, true
}

// HScore is the H-score of Fu et al., "Learning to detect open classes
// for universal domain adaptation", ECCV 2020: the harmonic mean
// 2·Ak·Au/(Ak+Au) of the known-class accuracy Ak, which counts a rejected
// known graph as an error (the suite's known_acc), and the unknown recall
// Au (unknown_acc). It is 0 when both are 0.
func HScore(knownAcc, unknownAcc float64) float64 {
	if knownAcc+unknownAcc == 0 {
		return 0
	}
	return 2 * knownAcc * unknownAcc / (knownAcc + unknownAcc)
}

func checkLens(truth []int, scores []float64) {
	if len(truth) != len(scores) {
		panic(fmt.Sprintf("suite: %d scores for %d graphs", len(scores), len(truth)))
	}
}

// countKinds counts the known and the unknown graphs of truth.
func countKinds(truth []int) (known, unknown int) {
	for _, t := range truth {
		if t == Unknown {
			unknown++
		}
	}
	return len(truth) - unknown, unknown
}

// sortedBy returns the indices of scores ordered by less.
func sortedBy(scores []float64, less func(a, b float64) bool) []int {
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return less(scores[order[a]], scores[order[b]]) })
	return order
}

// tieGroups splits order into runs of equal score.
func tieGroups(order []int, scores []float64) [][]int {
	var groups [][]int
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && scores[order[j]] == scores[order[i]] {
			j++
		}
		groups = append(groups, order[i:j])
		i = j
	}
	return groups
}
