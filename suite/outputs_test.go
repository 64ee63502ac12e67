package suite

import (
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/ugbench/ugbench/suite/scorers"
)

// recorder is a scorer that scores each graph by its first logit and
// records what Fit and Score saw. New returns the recorder itself, so a
// test reads what the copy ScoreOutputs fitted saw.
type recorder struct {
	fitLogits [][]float32
	fitLabels []int
	scored    [][]float32
}

func (r *recorder) Name() string               { return "first" }
func (r *recorder) Label() string              { return "first" }
func (r *recorder) Params() map[string]float64 { return map[string]float64{"p": 1} }
func (r *recorder) Needs() (bool, bool)        { return true, false }
func (r *recorder) New() scorers.Scorer        { return r }
func (r *recorder) Fit(l scorers.Outputs, labels []int, _ int) error {
	r.fitLogits, r.fitLabels = l.Logits, labels
	return nil
}
func (r *recorder) Score(e scorers.Outputs) ([]float64, error) {
	r.scored = e.Logits
	out := make([]float64, len(e.Logits))
	for i, row := range e.Logits {
		out[i] = float64(row[0])
	}
	return out, nil
}

// needsEmb is a scorer that reads embeddings.
type needsEmb struct{ recorder }

func (needsEmb) Label() string          { return "emb" }
func (needsEmb) Needs() (bool, bool)    { return false, true }
func (n *needsEmb) New() scorers.Scorer { return n }

func handOutputs() *Outputs {
	// Eval graphs 1..6: D^u = 1, 2, 3 (2 unknown: K_u = 1 of them? see
	// Truth), test = 4, 5, 6.
	return &Outputs{
		NumKnown: 2,
		Eval:     []int{1, 2, 3, 4, 5, 6},
		Test:     []bool{false, false, false, true, true, true},
		Truth:    []int{0, Unknown, 1, Unknown, 1, 0},
		Class:    []int{0, 1, 1, 0, 1, 1},
		Native:   []float64{0, 0, 0, 0, 0, 0},
		Logits:   [][]float32{{0.1, 0}, {0.9, 0}, {0.2, 0}, {0.8, 0}, {0.3, 0}, {0.85, 0}},
		// D^l: two graphs.
		LabelledLabels: []int{1, 0},
		LabelledLogits: [][]float32{{5, 5}, {6, 6}},
	}
}

// TestScoreOutputsProtocol: a scorer is fitted on D^l only and its
// scores go through docs/protocol.md §3 with the method's classes: on
// D^u, K_u = 1 and α = 1 declare the top score (0.9) unknown; the test
// graphs at or above 0.9 are declared: none, so the test unknown graph
// (0.8) is missed and the known graph 0.85, predicted 1 with truth 0, is
// wrong: accuracy 1/3 (graph 5 only), AUROC 1/2 (0.8 above 0.3, below
// 0.85).
func TestScoreOutputsProtocol(t *testing.T) {
	o := handOutputs()
	r := &recorder{}
	m, recs, err := ScoreOutputs(o, []scorers.Scorer{r, &needsEmb{}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.fitLogits, o.LabelledLogits) || !slices.Equal(r.fitLabels, o.LabelledLabels) {
		t.Errorf("Fit saw %v %v, want D^l's outputs and labels", r.fitLogits, r.fitLabels)
	}
	if !reflect.DeepEqual(r.scored, o.Logits) {
		t.Errorf("Score saw %v", r.scored)
	}
	for name, want := range map[string]float64{
		"first:accuracy": 1.0 / 3, "first:ood_auroc": 0.5, "first:closed_acc": 0.5, "first:unknown_acc": 0,
		"first:du_accuracy": 1, "first:du_ood_auroc": 1, "first:du_declared_ratio": 1,
	} {
		if got, ok := m[name]; !ok || math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, want)
		}
	}
	for name := range m {
		if l, _ := SplitScorerMetric(name); l != "first" {
			t.Errorf("metric %s of a scorer that could not run", name)
		}
	}
	if len(recs) != 2 || recs[0].Error != "" || recs[0].Params["p"] != 1 || recs[1].Label != "emb" || recs[1].Error == "" {
		t.Errorf("records %+v: want first without error, emb with one (no embeddings)", recs)
	}

	// The scores never depend on the truth of D^u or the test set: change
	// every evaluation label and the scorer sees the same inputs.
	o2 := handOutputs()
	o2.Truth = []int{1, 0, Unknown, 0, Unknown, 1}
	r2 := &recorder{}
	if _, _, err := ScoreOutputs(o2, []scorers.Scorer{r2}, 1); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r2, r) {
		t.Errorf("a scorer saw different inputs when only evaluation labels changed")
	}
}

// TestOutputsChecksAndRounding: NewOutputs refuses logits without their
// D^l counterpart or of the wrong width; RoundFloat16 rounds to float16
// values and leaves a matrix that overflows float16 as it is.
func TestOutputsChecksAndRounding(t *testing.T) {
	truthOf := func(g int) int { return 0 }
	pred := &Predictions{Class: []int{0, 1}, UnknownScore: []float64{0, 1}, Logits: [][]float32{{1, 2}, {3, 4}}}
	if _, err := NewOutputs([]int{0, 1}, []int{1}, []int{0}, 2, pred, truthOf); err == nil {
		t.Errorf("logits without D^l's accepted")
	}
	pred.LabelledLogits = [][]float32{{1, 2, 3}}
	if _, err := NewOutputs([]int{0, 1}, []int{1}, []int{0}, 2, pred, truthOf); err == nil {
		t.Errorf("D^l logits of width 3 for 2 known classes accepted")
	}
	pred.LabelledLogits = [][]float32{{1e5, 0}} // overflows float16: kept
	pred.Logits = [][]float32{{0.1, 1}, {2049, -3}}
	o, err := NewOutputs([]int{0, 1}, []int{1}, []int{0}, 2, pred, truthOf)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.Test, []bool{false, true}) {
		t.Errorf("test flags %v", o.Test)
	}
	o.RoundFloat16()
	// float16 nearest to 0.1 is 0.0999755859375; 2049 rounds to even 2048.
	if o.Logits[0][0] != 0.0999755859375 || o.Logits[1][0] != 2048 || o.Logits[0][1] != 1 {
		t.Errorf("rounded logits %v", o.Logits)
	}
	if o.LabelledLogits[0][0] != 1e5 {
		t.Errorf("overflowing matrix changed: %v", o.LabelledLogits)
	}
	if pred.Logits[0][0] != 0.1 {
		t.Errorf("RoundFloat16 changed the method's predictions")
	}
}
