package suite

import (
	"fmt"
	"math"
	"strconv"
)

// Range is the valid interval of a numeric parameter, Min to Max; an open
// end excludes its bound. Max = +Inf has no upper bound.
type Range struct {
	Min, Max         float64
	MinOpen, MaxOpen bool
}

// Common ranges of hyper-parameters.
var (
	// Positive is (0, ∞): learning rates, temperatures, costs.
	Positive = Range{Min: 0, Max: math.Inf(1), MinOpen: true}
	// NonNegative is [0, ∞): step budgets, epochs, weights.
	NonNegative = Range{Min: 0, Max: math.Inf(1)}
	// AtLeastOne is [1, ∞): sizes and counts that cannot be empty.
	AtLeastOne = Range{Min: 1, Max: math.Inf(1)}
	// UnitInterval is [0, 1]: probabilities and fractions.
	UnitInterval = Range{Min: 0, Max: 1}
	// Ratio is (0, 1]: fractions that must keep something.
	Ratio = Range{Min: 0, Max: 1, MinOpen: true}
	// DropRate is [0, 1): fractions that must not drop everything.
	DropRate = Range{Min: 0, Max: 1, MaxOpen: true}
	// AnyFinite is every finite number: seeds, offsets.
	AnyFinite = Range{Min: math.Inf(-1), Max: math.Inf(1)}
)

// Contains reports whether v lies in r (never for NaN or ±Inf).
func (r Range) Contains(v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	lo := v > r.Min || (!r.MinOpen && v == r.Min)
	hi := v < r.Max || (!r.MaxOpen && v == r.Max)
	return lo && hi
}

// String renders r as "> 0", "≥ 1", "in (0, 1]" or "finite".
func (r Range) String() string {
	if math.IsInf(r.Max, 1) {
		switch {
		case math.IsInf(r.Min, -1):
			return "finite"
		case r.MinOpen:
			return "> " + bound(r.Min)
		}
		return "≥ " + bound(r.Min)
	}
	l, h := "[", "]"
	if r.MinOpen {
		l = "("
	}
	if r.MaxOpen {
		h = ")"
	}
	return fmt.Sprintf("in %s%s, %s%s", l, bound(r.Min), bound(r.Max), h)
}

// bound formats an end of a Range: integers in full, others as %g.
func bound(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprintf("%g", v)
}

// CheckSpec reports whether s can run: its method is registered, every
// number of its parameters and protocol is finite, and the method accepts
// its parameters (ParamsOf(m).Check: kinds, ranges, choices). Errors name
// the method and the parameter.
func CheckSpec(s RunSpec) error {
	m, err := Lookup(s.Method)
	if err != nil {
		return err
	}
	for _, k := range s.Params.Keys() {
		if v, ok := number(s.Params[k]); ok && (math.IsNaN(v) || math.IsInf(v, 0)) {
			return fmt.Errorf("%s.%s %v: not a finite number", s.Method, k, v)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"ratio", s.Ratio}, {"alpha", s.Protocol.Alpha}, {"test_frac", s.Protocol.TestFrac}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%s %v: not a finite number", f.name, f.v)
		}
	}
	if err := ParamsOf(m).Check(s.Params); err != nil {
		return fmt.Errorf("%s: %w", s.Method, err)
	}
	return nil
}
