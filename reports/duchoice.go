package reports

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// DuChoice is the unknown score that each run chooses on its own D^u: of
// the scores the run stores (native and every post-hoc scorer), the one
// with the highest DuChoiceMetric. It is not stored; ResolveScore adds its
// metrics to the runs in memory, so every table, comparison and check
// reads it as a scorer's label ("du_choice:accuracy"). docs/protocol.md
// §4.1: scores are chosen on D^u, never on the test set.
const DuChoice = "du_choice"

// DuChoiceMetric is the D^u figure DuChoice maximises: the accuracy of
// D^u under the protocol's threshold rule (§3–4 on D^u), the headline
// metric's training-pool counterpart.
const DuChoiceMetric = suite.PrefixDU + suite.MetricAccuracy

// ResolveScore prepares runs rs to be read under unknown score score: for
// NativeScore or a stored scorer's label it checks the label (CheckScore)
// and returns rs as they are; for DuChoice it returns copies of rs whose
// Metrics also hold "du_choice:METRIC" for every metric of the score each
// run chose (chooseDu), and notes saying which scores were chosen, per
// method, dataset and ratio, in rs's order. Runs with no finite
// DuChoiceMetric under any score get no du_choice metric (a missing value
// in the tables); it is an error when none of rs has one.
func ResolveScore(rs []runs.Run, score string) (out []runs.Run, notes []string, err error) {
	if score != DuChoice {
		if score == "" || score == NativeScore {
			return rs, nil, nil
		}
		return rs, nil, CheckScore(rs, score)
	}
	type cell struct{ method, dataset, ratio string }
	var order []cell
	picks := map[cell]map[string]int{}
	out = make([]runs.Run, len(rs))
	found := false
	for i, r := range rs {
		out[i] = r
		label, ok := chooseDu(r.Metrics)
		if !ok {
			continue
		}
		found = true
		m := maps.Clone(r.Metrics)
		for name, v := range r.Metrics {
			if l, metric := SplitScoredMetric(name); l == label && !strings.HasPrefix(metric, suite.PrefixChance) {
				m[suite.ScorerMetric(DuChoice, metric)] = v
			}
		}
		out[i].Metrics = m
		c := cell{r.Spec.Method, r.Spec.Dataset, r.Spec.RatioName}
		if picks[c] == nil {
			picks[c] = map[string]int{}
			order = append(order, c)
		}
		picks[c][label]++
	}
	if !found {
		return nil, nil, fmt.Errorf("score %s: no selected run stores %s under any score", DuChoice, DuChoiceMetric)
	}
	for _, c := range order {
		var parts []string
		for _, l := range slices.Sorted(maps.Keys(picks[c])) {
			parts = append(parts, fmt.Sprintf("%s ×%d", l, picks[c][l]))
		}
		notes = append(notes, fmt.Sprintf("%s: %s %s %s: %s", DuChoice, c.method, c.dataset, c.ratio, strings.Join(parts, ", ")))
	}
	return out, notes, nil
}

// chooseDu returns the score label of metrics with the highest finite
// DuChoiceMetric: NativeScore's is the unprefixed metric, a scorer's
// "label:du_accuracy". Ties go to NativeScore, then to the label first in
// lexical order, so the choice never depends on map order. DuChoice's own
// metrics, if present, are not candidates.
func chooseDu(metrics map[string]float64) (label string, ok bool) {
	best := math.Inf(-1)
	for _, name := range slices.Sorted(maps.Keys(metrics)) {
		l, metric := SplitScoredMetric(name)
		v := metrics[name]
		if metric != DuChoiceMetric || l == DuChoice || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		better := v > best || (v == best && l == NativeScore)
		if better {
			label, best, ok = l, v, true
		}
	}
	return label, ok
}
