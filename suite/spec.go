package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Protocol holds the evaluation options of PROTOCOL.md that a grid may
// change. Each is stored with every run.
type Protocol struct {
	// ClassSplit is "first" (known classes = the first Known class ids) or
	// "random" (drawn with the seed). PROTOCOL §2.1.
	ClassSplit string `json:"class_split"`
	// TestFrac is the held-out test fraction (0 = transductive only).
	// PROTOCOL §2.4.
	TestFrac float64 `json:"test_frac"`
	// Alpha is the OOD multiplier: the ⌈αK⌉ highest unknown scores are
	// declared unknown. PROTOCOL §3.
	Alpha float64 `json:"alpha"`
}

// DefaultProtocol is PROTOCOL.md's default: first classes known,
// transductive evaluation, α = 1.
func DefaultProtocol() Protocol {
	return Protocol{ClassSplit: "first", TestFrac: 0, Alpha: 1}
}

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
	Ratio    float64  `json:"ratio"`
	Seed     int64    `json:"seed"`
	Params   Params   `json:"params"`
	Protocol Protocol `json:"protocol"`
}

// Hash is the stable config hash of s: the hex SHA-256 (first 16 hex
// digits) of its canonical JSON. It does not include the device or backend,
// which must not change what a run computes.
func (s RunSpec) Hash() string {
	b, err := json.Marshal(struct {
		Method, Dataset string
		Ratio           float64
		Seed            int64
		Params          Params
		Protocol        Protocol
	}{s.Method, s.Dataset, s.Ratio, s.Seed, s.Params, s.Protocol})
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
	return fmt.Sprintf("%s/%s/%s/seed=%d", s.Method, s.Dataset, s.RatioLabel(), s.Seed)
}

// Metric names, PROTOCOL §4.
const (
	MetricAccuracy   = "accuracy"
	MetricOODF1      = "ood_f1"
	MetricUnknownAcc = "unknown_acc"
	MetricKnownAcc   = "known_acc"
	MetricOODAUROC   = "ood_auroc"
	// MetricClosedAcc (beyond PROTOCOL §4, like ood_auroc) is the
	// closed-set accuracy: the fraction of known-class graphs predicted as
	// their class, whether declared unknown or not. It measures the
	// classifier apart from the unknown score.
	MetricClosedAcc = "closed_acc"
)

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
}
