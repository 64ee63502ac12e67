package scorers

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Outputs are a method's outputs for a set of graphs, row-aligned: Logits
// [n][C] over the C known classes (nil if the method has none), Embeddings
// [n][d] (nil if none).
type Outputs struct{ Logits, Embeddings [][]float32 }

// Scorer is one post-hoc scorer instance, fitted or not.
type Scorer interface {
	// Name is the registry name: "msp", "maxlogit", "energy",
	// "mahalanobis", "knn".
	Name() string
	// Label names the scorer in metric names: Name() when every parameter
	// has its default, else Name() followed by "_"+param+value for each
	// non-default parameter in sorted order, the value formatted by
	// strconv.FormatFloat(v, 'g', -1, 64): "knn_k10", "energy_t2",
	// "mahalanobis_shrink0.5".
	Label() string
	// Params returns every parameter in effect, defaults included (a copy).
	Params() map[string]float64
	// Needs says which outputs Fit and Score read.
	Needs() (logits, embeddings bool)
	// Fit fits the scorer on the labelled set D^l only: its outputs and
	// labels in 0..numKnown−1 (logits must be numKnown wide). A second Fit
	// starts over. It keeps no reference to its arguments.
	Fit(labelled Outputs, labels []int, numKnown int) error
	// Score returns one unknown score per row, higher = more unknown. It
	// is an error to call it before Fit or with widths other than Fit's.
	// It does not change the scorer: fitted, it may score concurrently.
	Score(eval Outputs) ([]float64, error)
	// New returns an unfitted scorer of the same name and parameters: one
	// parsed list serves concurrent runs, each fitting its own copy (Fit
	// changes the scorer).
	New() Scorer
}

// Model is the computation of one scorer, built by Def.New. Its methods
// are called by the Scorer that Parse returns, after it checked the
// inputs: the outputs named by Def.Logits and Def.Embeddings are present,
// rectangular and finite, have one row per label (Fit) and the widths
// seen by Fit (Score), logits are numKnown wide, and labels are in
// 0..numKnown−1. Score is called only after a successful Fit and must
// not change the model.
type Model interface {
	Fit(labelled Outputs, labels []int, numKnown int) error
	Score(eval Outputs) []float64
}

// Param declares one parameter of a scorer.
type Param struct {
	Default float64
	// Valid reports whether a finite value is allowed; Range says which
	// for error messages, e.g. "> 0", "an integer ≥ 1", "in [0, 1]".
	Valid func(v float64) bool
	Range string
}

// Def is one registered scorer.
type Def struct {
	// Name is the registry name: lower-case letters, digits and '_'.
	Name string
	// Doc is a one-line description with the source.
	Doc string
	// Params are the parameters, by name (lower-case letters).
	Params map[string]Param
	// Logits and Embeddings say which outputs the scorer reads.
	Logits, Embeddings bool
	// New returns an unfitted model for a full set of valid parameters.
	New func(params map[string]float64) Model
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Def{}
)

// Register adds d to the registry. It panics (a programming error caught
// at init time) if the name is taken or malformed, New is nil, or a
// default is invalid.
func Register(d Def) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if !validName(d.Name, true) || d.New == nil {
		panic(fmt.Sprintf("scorers: bad registration %q", d.Name))
	}
	if _, dup := registry[d.Name]; dup {
		panic(fmt.Sprintf("scorers: %q registered twice", d.Name))
	}
	for k, p := range d.Params {
		if !validName(k, false) || !p.Valid(p.Default) {
			panic(fmt.Sprintf("scorers: %s: bad parameter %q (default %v)", d.Name, k, p.Default))
		}
	}
	registry[d.Name] = d
}

func validName(s string, extra bool) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || extra && (c >= '0' && c <= '9' || c == '_')) {
			return false
		}
	}
	return s != ""
}

// Names lists the registered scorers, sorted.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return slices.Sorted(maps.Keys(registry))
}

// Doc is the one-line description, with source, of the scorer registered
// as name ("" if none).
func Doc(name string) string {
	d, _ := lookup(name)
	return d.Doc
}

// Defaults returns the default parameters of the scorer registered as
// name (empty if it has none, nil if there is no such scorer).
func Defaults(name string) map[string]float64 {
	d, ok := lookup(name)
	if !ok {
		return nil
	}
	out := map[string]float64{}
	for k, p := range d.Params {
		out[k] = p.Default
	}
	return out
}

func lookup(name string) (Def, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	d, ok := registry[name]
	return d, ok
}

// Parse builds an unfitted scorer from a spec "NAME" or
// "NAME:p=v[,p=v]", e.g. "knn:k=10", "energy:t=2",
// "mahalanobis:shrink=0.5". Unset parameters take their defaults. The
// error names the spec and its bad part: an unknown scorer (listing the
// registered ones), an unknown or repeated parameter (listing the valid
// ones), or a value that is not a finite number in the parameter's range
// (stating the range).
func Parse(spec string) (Scorer, error) {
	name, args, hasArgs := strings.Cut(spec, ":")
	name = strings.TrimSpace(name)
	d, ok := lookup(name)
	if !ok {
		return nil, fmt.Errorf("scorer spec %q: unknown scorer %q (registered: %s)", spec, name, strings.Join(Names(), ", "))
	}
	params := Defaults(name)
	valid := "it has none"
	if len(params) > 0 {
		valid = "valid: " + strings.Join(slices.Sorted(maps.Keys(params)), ", ")
	}
	if hasArgs {
		set := map[string]bool{}
		for part := range strings.SplitSeq(args, ",") {
			k, v, ok := strings.Cut(part, "=")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if !ok || k == "" || v == "" {
				return nil, fmt.Errorf("scorer spec %q: %q is not param=value", spec, part)
			}
			p, known := d.Params[k]
			if !known {
				return nil, fmt.Errorf("scorer spec %q: %s has no parameter %q (%s)", spec, name, k, valid)
			}
			if set[k] {
				return nil, fmt.Errorf("scorer spec %q: parameter %q set twice", spec, k)
			}
			set[k] = true
			x, err := strconv.ParseFloat(v, 64)
			if err != nil && !math.IsInf(x, 0) { // ParseFloat reports overflow as ±Inf with an error
				return nil, fmt.Errorf("scorer spec %q: %s=%s is not a number", spec, k, v)
			}
			if math.IsNaN(x) || math.IsInf(x, 0) || !p.Valid(x) {
				return nil, fmt.Errorf("scorer spec %q: %s=%s out of range (want %s)", spec, k, v, p.Range)
			}
			params[k] = x + 0 // -0 → 0, so that labels never read "-0"
		}
	}
	s := &scorer{def: d, params: params, model: d.New(maps.Clone(params)), label: name}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		if params[k] != d.Params[k].Default {
			s.label += "_" + k + strconv.FormatFloat(params[k], 'g', -1, 64)
		}
	}
	return s, nil
}

// ParseList parses each spec as Parse does; two specs with the same label
// (e.g. "knn" and "knn:k=1") are an error.
func ParseList(specs []string) ([]Scorer, error) {
	out := make([]Scorer, 0, len(specs))
	first := map[string]string{}
	for _, spec := range specs {
		s, err := Parse(spec)
		if err != nil {
			return nil, err
		}
		if prev, dup := first[s.Label()]; dup {
			return nil, fmt.Errorf("scorer specs %q and %q are the same scorer %s", prev, spec, s.Label())
		}
		first[s.Label()] = spec
		out = append(out, s)
	}
	return out, nil
}

// scorer wraps a Def's Model with the checks of the Scorer contract.
type scorer struct {
	def    Def
	params map[string]float64
	label  string
	model  Model
	fitted bool
	embW   int // embedding width seen by Fit
	logitW int // numKnown at Fit
}

func (s *scorer) Name() string                     { return s.def.Name }
func (s *scorer) Label() string                    { return s.label }
func (s *scorer) Params() map[string]float64       { return maps.Clone(s.params) }
func (s *scorer) Needs() (logits, embeddings bool) { return s.def.Logits, s.def.Embeddings }
func (s *scorer) New() Scorer {
	return &scorer{def: s.def, params: maps.Clone(s.params), model: s.def.New(maps.Clone(s.params)), label: s.label}
}

func (s *scorer) Fit(labelled Outputs, labels []int, numKnown int) error {
	s.fitted = false
	if numKnown < 1 {
		return fmt.Errorf("%s: %d known classes", s.label, numKnown)
	}
	for i, y := range labels {
		if y < 0 || y >= numKnown {
			return fmt.Errorf("%s: label %d of labelled graph %d not in 0..%d", s.label, y, i, numKnown-1)
		}
	}
	n := len(labels)
	if s.def.Logits {
		if _, err := s.check("labelled logits", labelled.Logits, n, numKnown); err != nil {
			return err
		}
	}
	if s.def.Embeddings {
		w, err := s.check("labelled embeddings", labelled.Embeddings, n, -1)
		if err != nil {
			return err
		}
		s.embW = w
	}
	if err := s.model.Fit(labelled, labels, numKnown); err != nil {
		return fmt.Errorf("%s: %w", s.label, err)
	}
	s.logitW, s.fitted = numKnown, true
	return nil
}

func (s *scorer) Score(eval Outputs) ([]float64, error) {
	if !s.fitted {
		return nil, fmt.Errorf("%s: Score before a successful Fit", s.label)
	}
	n := -1
	if s.def.Logits {
		if _, err := s.check("logits", eval.Logits, -1, s.logitW); err != nil {
			return nil, err
		}
		n = len(eval.Logits)
	}
	if s.def.Embeddings {
		if _, err := s.check("embeddings", eval.Embeddings, n, s.embW); err != nil {
			return nil, err
		}
	}
	return s.model.Score(eval), nil
}

// check returns the width of m after checking that it is present, has
// rows rows and width width (either -1 for any; width -1 takes the first
// row's, which must be positive) and holds finite values only.
func (s *scorer) check(what string, m [][]float32, rows, width int) (int, error) {
	switch {
	case m == nil:
		return 0, fmt.Errorf("%s reads %s, which the method does not give", s.label, what)
	case rows >= 0 && len(m) != rows:
		return 0, fmt.Errorf("%s: %d rows of %s, want %d", s.label, len(m), what, rows)
	case width < 0 && len(m) > 0:
		width = len(m[0])
		if width == 0 {
			return 0, fmt.Errorf("%s: %s have width 0", s.label, what)
		}
	}
	for i, row := range m {
		if len(row) != width {
			return 0, fmt.Errorf("%s: row %d of %s has width %d, want %d", s.label, i, what, len(row), width)
		}
		for j, v := range row {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return 0, fmt.Errorf("%s: %s[%d][%d] is %v", s.label, what, i, j, v)
			}
		}
	}
	return width, nil
}

// float64s converts a row to float64.
func float64s(row []float32) []float64 {
	out := make([]float64, len(row))
	for i, v := range row {
		out[i] = float64(v)
	}
	return out
}
