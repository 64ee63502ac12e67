package suite

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gomlx/compute/dtypes/float16"

	"github.com/ugbench/ugbench/suite/scorers"
)

// NativeScore names the method's own unknown score (Predictions.UnknownScore)
// among the scores of a run: its metrics are stored unprefixed, as before
// the post-hoc scorers existed.
const NativeScore = "native"

// ScorerSep separates a post-hoc scorer's label from a metric name in the
// stored metrics: "knn:ood_auroc" is the test set's OOD AUROC of the
// scorer labelled knn, "knn:du_accuracy" its D^u accuracy.
const ScorerSep = ":"

// ScorerMetric is the stored name of metric under the score labelled
// label: metric itself for NativeScore (or ""), label:metric otherwise.
func ScorerMetric(label, metric string) string {
	if label == "" || label == NativeScore {
		return metric
	}
	return label + ScorerSep + metric
}

// SplitScorerMetric splits a stored metric name into its score label and
// metric: ("native", name) for a name without ScorerSep.
func SplitScorerMetric(name string) (label, metric string) {
	if l, m, ok := strings.Cut(name, ScorerSep); ok {
		return l, m
	}
	return NativeScore, name
}

// DefaultScorers are the post-hoc scorers `bench grid` and `bench rescore`
// apply when none are named (suite/scorers.Parse specs), a new slice each
// call. knn runs with k = 1, best on D^u, and k = 10, the smoothed
// alternative (docs/protocol.md §4.1).
func DefaultScorers() []string {
	return []string{"msp", "maxlogit", "energy", "mahalanobis", "knn", "knn:k=10"}
}

// Outputs are what the post-hoc scorers read of one finished run, kept so
// that a stored run can be rescored without retraining (bench rescore):
// the method's classes, native score, logits and embeddings of the
// evaluation graphs, and its logits and embeddings of D^l with D^l's
// labels, plus the truth the suite scores against. Rows of Logits and
// Embeddings are float16 values (RoundFloat16) whenever they fit, so that
// a fresh run and a rescored one read the same numbers.
type Outputs struct {
	// NumKnown is |C^l|, the width of the logits.
	NumKnown int
	// Eval are the evaluation graphs' indices into the dataset
	// (Task.Eval, ascending).
	Eval []int
	// Test flags, per evaluation graph, the held-out test set (false: D^u).
	Test []bool
	// Truth is, per evaluation graph, its known class index or Unknown.
	Truth []int
	// Class is the method's predicted known class per evaluation graph.
	Class []int
	// Native is the method's own unknown score per evaluation graph.
	Native []float64
	// Logits [len(Eval)][NumKnown] and Embeddings [len(Eval)][d] are
	// Predictions.Logits and .Embeddings; either may be nil.
	Logits, Embeddings [][]float32
	// LabelledLabels are D^l's labels (Task.Labels); LabelledLogits and
	// LabelledEmbeddings its outputs, nil exactly when their Eval
	// counterparts are.
	LabelledLabels                     []int
	LabelledLogits, LabelledEmbeddings [][]float32
}

// NewOutputs collects the outputs of pred (a method's Predictions of
// eval) with the truth of each evaluation graph; test is the sorted test
// set. It returns an error when pred's logits or embeddings disagree in
// length or width with eval and labels, or come without their D^l
// counterpart.
func NewOutputs(eval, test []int, labels []int, numKnown int, pred *Predictions, truthOf func(int) int) (*Outputs, error) {
	n := len(eval)
	o := &Outputs{
		NumKnown: numKnown, Eval: slices.Clone(eval), Test: make([]bool, n), Truth: make([]int, n),
		Class: slices.Clone(pred.Class), Native: slices.Clone(pred.UnknownScore),
		Logits: pred.Logits, Embeddings: pred.Embeddings,
		LabelledLabels: slices.Clone(labels), LabelledLogits: pred.LabelledLogits, LabelledEmbeddings: pred.LabelledEmbeddings,
	}
	for i, g := range eval {
		_, o.Test[i] = slices.BinarySearch(test, g)
		o.Truth[i] = truthOf(g)
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	return o, nil
}

// check verifies the shapes of o.
func (o *Outputs) check() error {
	n, m := len(o.Eval), len(o.LabelledLabels)
	if len(o.Test) != n || len(o.Truth) != n || len(o.Class) != n || len(o.Native) != n {
		return fmt.Errorf("outputs: %d evaluation graphs but %d test flags, %d truths, %d classes, %d scores", n, len(o.Test), len(o.Truth), len(o.Class), len(o.Native))
	}
	for _, p := range []struct {
		name          string
		eval, lab     [][]float32
		width, labels int
	}{{"logits", o.Logits, o.LabelledLogits, o.NumKnown, m}, {"embeddings", o.Embeddings, o.LabelledEmbeddings, 0, m}} {
		if (p.eval == nil) != (p.lab == nil) {
			return fmt.Errorf("outputs: %s of the evaluation graphs and of D^l: one is missing", p.name)
		}
		if p.eval == nil {
			continue
		}
		if len(p.eval) != n || len(p.lab) != m {
			return fmt.Errorf("outputs: %s: %d and %d rows for %d evaluation and %d labelled graphs", p.name, len(p.eval), len(p.lab), n, m)
		}
		w := p.width
		if w == 0 && n > 0 {
			w = len(p.eval[0])
		}
		for i, r := range slices.Concat(p.eval, p.lab) {
			if len(r) != w || w == 0 {
				return fmt.Errorf("outputs: %s: row %d has width %d, want %d ≥ 1", p.name, i, len(r), w)
			}
		}
	}
	return nil
}

// RoundFloat16 rounds every logit and embedding value to the nearest
// float16 (IEEE 754 binary16, round to nearest even) in new rows, leaving
// a matrix as it is when a value would overflow float16 (|x| > 65504) or
// is not finite, so that storing them as float16 loses nothing the
// scorers read. About 3 significant digits are kept: enough for distances
// and softmax scores, and it halves the stored bytes.
func (o *Outputs) RoundFloat16() {
	for _, p := range []*[][]float32{&o.Logits, &o.Embeddings, &o.LabelledLogits, &o.LabelledEmbeddings} {
		*p = roundRows16(*p)
	}
}

func roundRows16(rows [][]float32) [][]float32 {
	if rows == nil {
		return nil
	}
	for _, r := range rows {
		for _, v := range r {
			if math.IsNaN(float64(v)) || math.Abs(float64(v)) > 65504 {
				return rows
			}
		}
	}
	out := make([][]float32, len(rows))
	for i, r := range rows {
		out[i] = make([]float32, len(r))
		for j, v := range r {
			out[i][j] = float16.FromFloat32(v).Float32()
		}
	}
	return out
}

// ScorerRecord is what a run stores of one post-hoc scorer: its metric
// label, registry name and parameters in effect, and why it produced no
// metrics ("" when it did).
type ScorerRecord struct {
	Label  string
	Name   string
	Params map[string]float64
	Error  string
}

// noInputs starts the Error of a scorer whose inputs the method does not
// hand over (ScorerRecord.Unavailable).
const noInputs = "the method hands over no"

// Unavailable reports whether the scorer could not run because the
// method hands over none of its inputs (e.g. knn on a kernel row): an
// expected gap, not a failure.
func (r ScorerRecord) Unavailable() bool { return strings.HasPrefix(r.Error, noInputs) }

// ScoreOutputs applies each scorer to o under docs/protocol.md §3–4: fit
// on D^l's outputs and labels only, score every evaluation graph, declare
// the ⌈α·K_u⌉ highest on D^u unknown and transfer that threshold to the
// test set. The class of every graph stays the method's (o.Class): a
// scorer changes the unknown score alone. It returns every metric of
// ScoreRun but the chance figures and extra scores, each under
// ScorerMetric(label, ·), and one record per scorer. A scorer whose
// inputs the run lacks (no embeddings for knn, no logits for energy), or
// that fails to fit or score (a singular covariance), gets a record with
// its Error and no metrics: the run itself stays valid.
func ScoreOutputs(o *Outputs, list []scorers.Scorer, alpha float64) (map[string]float64, []ScorerRecord, error) {
	if err := o.check(); err != nil {
		return nil, nil, err
	}
	du, test := o.split()
	out := map[string]float64{}
	var recs []ScorerRecord
	for _, sc := range list {
		sc = sc.New() // list may serve concurrent runs; Fit changes a scorer
		rec := ScorerRecord{Label: sc.Label(), Name: sc.Name(), Params: sc.Params()}
		scores, err := scoreWith(o, sc)
		if err != nil {
			rec.Error = err.Error()
			recs = append(recs, rec)
			continue
		}
		m, err := scoreProtocol(pick(o, du, scores), pick(o, test, scores), alpha)
		if err != nil {
			return nil, nil, fmt.Errorf("scorer %s: %w", rec.Label, err)
		}
		for k, v := range m.metrics {
			out[ScorerMetric(rec.Label, k)] = v
		}
		recs = append(recs, rec)
	}
	return out, recs, nil
}

// ScoreNative computes the metrics of the method's own score o.Native as
// ScoreOutputs does for a scorer's, unprefixed: the test set's and D^u's
// protocol metrics, neither the chance figures nor the extra scores'
// AUROCs. For a run stored before a metric existed, it is how bench
// rescore adds that metric to the native score (the values it shares
// with the run's stored metrics are the same: same scores, same code).
func ScoreNative(o *Outputs, alpha float64) (map[string]float64, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	du, test := o.split()
	p, err := scoreProtocol(pick(o, du, o.Native), pick(o, test, o.Native), alpha)
	if err != nil {
		return nil, fmt.Errorf("native score: %w", err)
	}
	return p.metrics, nil
}

// split returns the positions in o.Eval of D^u's graphs and of the test
// set's.
func (o *Outputs) split() (du, test []int) {
	for i, t := range o.Test {
		if t {
			test = append(test, i)
		} else {
			du = append(du, i)
		}
	}
	return du, test
}

// scoreWith fits sc on o's D^l outputs and scores the evaluation graphs.
func scoreWith(o *Outputs, sc scorers.Scorer) ([]float64, error) {
	needLogits, needEmb := sc.Needs()
	if needLogits && o.Logits == nil {
		return nil, fmt.Errorf("%s logits", noInputs)
	}
	if needEmb && o.Embeddings == nil {
		return nil, fmt.Errorf("%s embeddings", noInputs)
	}
	if err := sc.Fit(scorers.Outputs{Logits: o.LabelledLogits, Embeddings: o.LabelledEmbeddings}, o.LabelledLabels, o.NumKnown); err != nil {
		return nil, fmt.Errorf("fit: %w", err)
	}
	s, err := sc.Score(scorers.Outputs{Logits: o.Logits, Embeddings: o.Embeddings})
	if err != nil {
		return nil, fmt.Errorf("score: %w", err)
	}
	if len(s) != len(o.Eval) {
		return nil, fmt.Errorf("score: %d values for %d graphs", len(s), len(o.Eval))
	}
	if i := slices.IndexFunc(s, func(v float64) bool { return math.IsNaN(v) }); i >= 0 {
		return nil, fmt.Errorf("score of evaluation graph %d is NaN", o.Eval[i])
	}
	return s, nil
}

// pick is the scored set of the positions at in o, with scores.
func pick(o *Outputs, at []int, scores []float64) *scored {
	s := &scored{pred: &Predictions{Class: make([]int, len(at)), UnknownScore: make([]float64, len(at))}, truth: make([]int, len(at))}
	for i, j := range at {
		s.truth[i], s.pred.Class[i], s.pred.UnknownScore[i] = o.Truth[j], o.Class[j], scores[j]
	}
	return s
}

// ScorerLabels are the labels of list in order.
func ScorerLabels(list []scorers.Scorer) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s.Label()
	}
	return out
}
