package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Protocol holds the evaluation options of docs/protocol.md that a grid may
// change. Each is stored with every run.
type Protocol struct {
	// ClassSplit is "first" (known classes = the first Known class ids) or
	// "random" (drawn with the seed). docs/protocol.md §2, item 1.
	ClassSplit string `json:"class_split"`
	// TestFrac is the held-out test fraction, in (0, 1): that share of
	// every class is drawn first, and the headline metrics are the test
	// set's (docs/protocol.md §2, item 2, §4). Default 0.2.
	TestFrac float64 `json:"test_frac"`
	// Alpha is the OOD multiplier: the ⌈αK⌉ highest unknown scores are
	// declared unknown. docs/protocol.md §3.
	Alpha float64 `json:"alpha"`
}

// DefaultProtocol is the protocol's default (docs/protocol.md): the first
// class ids known, a 20% stratified held-out test set, α = 1.
func DefaultProtocol() Protocol {
	return Protocol{ClassSplit: "first", TestFrac: DefaultTestFrac, Alpha: 1}
}

// DefaultTestFrac is the default held-out test fraction (docs/protocol.md
// §2: 20% of every class, the split of the paper authors' related work).
const DefaultTestFrac = 0.2

// RunSpec fully describes one run: one method on one split with one set of
// hyper-parameters. Two runs with the same Hash compute the same thing.
type RunSpec struct {
	Method  string `json:"method"`
	Dataset string `json:"dataset"`
	// RatioName is "low", "high", or the number's shortest decimal form
	// (e.g. "0.3") for a ratio given as a number (datasets.ResolveRatio).
	RatioName string `json:"ratio_name"`
	// Ratio is the labelled ratio: the fraction of each known class's
	// graphs that is labelled.
	Ratio float64 `json:"ratio"`
	// SplitSeed draws the split (test set, labelled set, random class
	// split); every run seed and every method of one split seed sees the
	// same index lists (docs/protocol.md §2, item 5).
	SplitSeed int64 `json:"split_seed"`
	// Seed is the run seed: initialisation, batching, augmentations,
	// sampling; never the split.
	Seed     int64    `json:"seed"`
	Params   Params   `json:"params"`
	Protocol Protocol `json:"protocol"`
}

// Hash is the stable config hash of s: the hex SHA-256 (first 16 hex
// digits) of its canonical JSON. It does not include the device or backend,
// which must not change what a run computes. A parameter whose value equals
// the legacy value its method declares for it (LegacyParams) is left out,
// so runs stored before the parameter existed keep their hash.
func (s RunSpec) Hash() string {
	params := s.Params
	if m, err := Lookup(s.Method); err == nil {
		params = withoutLegacy(m, params)
	}
	b, err := json.Marshal(struct {
		Method, Dataset string
		Ratio           float64
		SplitSeed       int64
		Seed            int64
		Params          Params
		Protocol        Protocol
	}{s.Method, s.Dataset, s.Ratio, s.SplitSeed, s.Seed, params, s.Protocol})
	if err != nil {
		panic(err) // Params holds only JSON-encodable scalars.
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// RatioLabel is how tables name the ratio: "low", "high" or the number.
func (s RunSpec) RatioLabel() string {
	if s.RatioName != "" {
		return s.RatioName
	}
	return fmt.Sprintf("%g", s.Ratio)
}

// String is a short human description for progress lines and errors.
func (s RunSpec) String() string {
	return fmt.Sprintf("%s/%s/%s/split=%d/seed=%d", s.Method, s.Dataset, s.RatioLabel(), s.SplitSeed, s.Seed)
}

// Metric names, docs/protocol.md §4.
const (
	MetricAccuracy   = "accuracy"
	MetricOODF1      = "ood_f1"
	MetricUnknownAcc = "unknown_acc"
	MetricKnownAcc   = "known_acc"
	MetricOODAUROC   = "ood_auroc"
	// MetricClosedAcc (beyond docs/protocol.md §4, like ood_auroc) is the
	// closed-set accuracy: the fraction of known-class graphs predicted as
	// their class, whether declared unknown or not. It measures the
	// classifier apart from the unknown score.
	MetricClosedAcc = "closed_acc"
	// MetricDeclaredRatio is the number of test graphs declared unknown
	// (score at or above the threshold fixed on D^u) divided by the test
	// set's true number of unknown-class graphs K_test, which the decision
	// never reads (docs/protocol.md §3). 1 means the threshold transferred
	// the right count.
	MetricDeclaredRatio = "declared_ratio"
)

// HeadlineMetrics are the metrics of the paper's tables, computed on the
// held-out test set.
var HeadlineMetrics = []string{MetricAccuracy, MetricOODF1, MetricUnknownAcc, MetricKnownAcc, MetricClosedAcc, MetricOODAUROC}

// PrefixDU prefixes the transductive figures: the same metrics computed on
// the unlabelled training set D^u, where the ⌈αK_u⌉ highest scores are
// declared unknown (docs/protocol.md §4). They are figures of the training
// pool, for diagnosis and for choosing budgets, never the headline.
const PrefixDU = "du_"

// PrefixChance prefixes the chance figures of a run's test set: the
// expected value of each headline metric for a random unknown score under
// the same threshold rule and a prediction of the labelled set's majority
// class (ChanceMetrics). They depend on the split only.
const PrefixChance = "chance_"

// CurvePoint is one logged value of a training curve.
type CurvePoint struct {
	Epoch int     `json:"epoch"`
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// Result is what a finished run produced.
type Result struct {
	Metrics map[string]float64
	Curves  []CurvePoint
	// Seconds is the wall time of Fit, in seconds.
	Seconds float64
	// Embeddings are the test set's rows of Predictions.Embeddings, nil
	// if the method handed over none.
	Embeddings *Embeddings
	// Scorers are the post-hoc scorers applied (Runner.Scorers), with
	// their parameters; their metrics are in Metrics under
	// ScorerMetric(label, ·).
	Scorers []ScorerRecord
	// Outputs are what the scorers read, kept for rescoring
	// (Runner.KeepOutputs); nil when not kept or the method has none.
	Outputs *Outputs
}

// Embeddings are a run's final graph embeddings of its held-out test set
// (the graphs of the paper's Figure 6), with what a plot needs to colour
// them, so that a figure needs neither the dataset nor the split.
type Embeddings struct {
	// Graphs are the test graphs' indices into the dataset, ascending
	// (the split's Test).
	Graphs []int
	// Truth is, per graph, its known class index in 0..NumKnown−1 (the
	// split's order of known classes) or Unknown.
	Truth []int
	// Dim is the width d of every row.
	Dim int
	// Data are the rows, row-major: [len(Graphs)·Dim] float32.
	Data []float32
}

// Row returns the embedding of the i-th graph, Data[i·Dim : (i+1)·Dim].
func (e *Embeddings) Row(i int) []float32 { return e.Data[i*e.Dim : (i+1)*e.Dim] }
