package suite

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A method declares each of its hyper-parameters once, as a typed handle
// (IntParam, FloatParam, BoolParam, StringParam) that carries the name,
// default, valid values, doc and legacy value, and reads the parameter
// from Params with its Go type:
//
//	var tau = suite.Float("tau", 0.1, suite.Positive, "Sinkhorn temperature τ")
//	var params = suite.Declare(gnn.Steps, gnn.LR, tau)
//	func (m method) Defaults() suite.Params     { return params.Defaults() }
//	func (m method) ParamSet() suite.ParamSet   { return params }
//	... tau.Get(task.Params) ...
//
// The suite derives from the ParamSet (ParamsOf) the defaults, the parsing
// of --set values, the range checks (CheckSpec) and the legacy values of
// the config hash; bench methods --params prints it. Parameters that
// several methods share are declared once (e.g. methods/gnn's Steps) and
// reused, with a method's own default or range where it differs
// (WithDefault, WithRange).

// Kind is the type of a hyper-parameter's values.
type Kind int

// The kinds of hyper-parameters and the Go type of their values.
const (
	KindInt    Kind = iota + 1 // int
	KindFloat                  // float64
	KindBool                   // bool
	KindString                 // string
)

func (k Kind) String() string {
	switch k {
	case KindInt:
		return "int"
	case KindFloat:
		return "float"
	case KindBool:
		return "bool"
	case KindString:
		return "string"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParamSpec declares one hyper-parameter.
type ParamSpec struct {
	Name string
	Kind Kind
	// Default is the value of a spec that does not set the parameter, of
	// Kind's Go type.
	Default any
	// Range bounds a number (KindInt, KindFloat); nil accepts every finite
	// number.
	Range *Range
	// Choices, if any, are the valid values of a KindString parameter.
	Choices []string
	// Doc is a one-line description for bench methods --params.
	Doc string
	// Legacy, if not nil, is the value that runs stored before the
	// parameter existed had in effect: a spec whose value equals it hashes
	// as if the parameter did not exist (see LegacyParams).
	Legacy any
}

// Spec returns s itself, so that a ParamSpec can be declared directly.
func (s ParamSpec) Spec() ParamSpec { return s }

// Declared is a typed parameter handle (or a ParamSpec) that Declare
// collects.
type Declared interface{ Spec() ParamSpec }

// Check returns an error naming the parameter if v is not a valid value of
// it: of its kind (an int may come as an integral float64, as stored JSON
// decodes it), a finite number in Range, one of Choices.
func (s ParamSpec) Check(v any) error {
	switch s.Kind {
	case KindInt, KindFloat:
		f, ok := number(v)
		if !ok {
			return fmt.Errorf("%s %v: want a number, not %T", s.Name, v, v)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%s %v: not a finite number", s.Name, v)
		}
		if s.Kind == KindInt && f != math.Trunc(f) {
			return fmt.Errorf("%s %v: not an integer", s.Name, v)
		}
		if s.Range != nil && !s.Range.Contains(f) {
			return fmt.Errorf("%s %v: must be %s", s.Name, v, s.Range)
		}
	case KindBool:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s %v: want true or false, not %T", s.Name, v, v)
		}
	case KindString:
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s %v: want a string, not %T", s.Name, v, v)
		}
		if len(s.Choices) > 0 && !slices.Contains(s.Choices, str) {
			return fmt.Errorf("%s %q: want %s", s.Name, str, orList(s.Choices))
		}
	}
	return nil
}

// Parse reads text (a --set value) as a value of the parameter's kind; it
// does not check the range (Check does). NaN and ±Inf are refused (a spec
// must hash, and JSON has no such numbers). Errors name the parameter as
// name (e.g. "ugnn.tau").
func (s ParamSpec) Parse(name, text string) (any, error) {
	switch s.Kind {
	case KindFloat:
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("param %s: %q is not a number", name, text)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("param %s: %q is not a finite number", name, text)
		}
		return v, nil
	case KindInt:
		v, err := strconv.Atoi(text)
		if err != nil {
			return nil, fmt.Errorf("param %s: %q is not an integer", name, text)
		}
		return v, nil
	case KindBool:
		v, err := strconv.ParseBool(text)
		if err != nil {
			return nil, fmt.Errorf("param %s: %q is not true/false", name, text)
		}
		return v, nil
	case KindString:
		return text, nil
	}
	return nil, fmt.Errorf("param %s: unsupported kind %v", name, s.Kind)
}

// Valid describes the valid values: "≥ 0", "in (0, 1]", "scale|count",
// "" for any value of the kind.
func (s ParamSpec) Valid() string {
	switch {
	case s.Range != nil:
		return s.Range.String()
	case len(s.Choices) > 0:
		return strings.Join(s.Choices, "|")
	}
	return ""
}

func orList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = strconv.Quote(x)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// IntParam is the handle of an int hyper-parameter.
type IntParam struct{ s ParamSpec }

// Int declares an int parameter valid in r.
func Int(name string, def int, r Range, doc string) IntParam {
	return IntParam{ParamSpec{Name: name, Kind: KindInt, Default: def, Range: &r, Doc: doc}}
}

// Spec returns the declaration.
func (p IntParam) Spec() ParamSpec { return p.s }

// Name returns the parameter's name.
func (p IntParam) Name() string { return p.s.Name }

// Get returns the parameter's value in ps.
func (p IntParam) Get(ps Params) int { return ps.Int(p.s.Name) }

// WithDefault returns p with default def.
func (p IntParam) WithDefault(def int) IntParam { p.s.Default = def; return p }

// WithRange returns p valid in r.
func (p IntParam) WithRange(r Range) IntParam { p.s.Range = &r; return p }

// WithLegacy returns p with legacy value v (ParamSpec.Legacy).
func (p IntParam) WithLegacy(v int) IntParam { p.s.Legacy = v; return p }

// FloatParam is the handle of a float64 hyper-parameter.
type FloatParam struct{ s ParamSpec }

// Float declares a float64 parameter valid in r.
func Float(name string, def float64, r Range, doc string) FloatParam {
	return FloatParam{ParamSpec{Name: name, Kind: KindFloat, Default: def, Range: &r, Doc: doc}}
}

// Spec returns the declaration.
func (p FloatParam) Spec() ParamSpec { return p.s }

// Name returns the parameter's name.
func (p FloatParam) Name() string { return p.s.Name }

// Get returns the parameter's value in ps.
func (p FloatParam) Get(ps Params) float64 { return ps.Float(p.s.Name) }

// WithDefault returns p with default def.
func (p FloatParam) WithDefault(def float64) FloatParam { p.s.Default = def; return p }

// WithRange returns p valid in r.
func (p FloatParam) WithRange(r Range) FloatParam { p.s.Range = &r; return p }

// WithLegacy returns p with legacy value v (ParamSpec.Legacy).
func (p FloatParam) WithLegacy(v float64) FloatParam { p.s.Legacy = v; return p }

// BoolParam is the handle of a bool hyper-parameter.
type BoolParam struct{ s ParamSpec }

// Bool declares a bool parameter.
func Bool(name string, def bool, doc string) BoolParam {
	return BoolParam{ParamSpec{Name: name, Kind: KindBool, Default: def, Doc: doc}}
}

// Spec returns the declaration.
func (p BoolParam) Spec() ParamSpec { return p.s }

// Name returns the parameter's name.
func (p BoolParam) Name() string { return p.s.Name }

// Get returns the parameter's value in ps.
func (p BoolParam) Get(ps Params) bool { return ps.Bool(p.s.Name) }

// WithDefault returns p with default def.
func (p BoolParam) WithDefault(def bool) BoolParam { p.s.Default = def; return p }

// WithLegacy returns p with legacy value v (ParamSpec.Legacy).
func (p BoolParam) WithLegacy(v bool) BoolParam { p.s.Legacy = v; return p }

// StringParam is the handle of a string hyper-parameter.
type StringParam struct{ s ParamSpec }

// Enum declares a string parameter whose valid values are choices (def
// among them).
func Enum(name, def, doc string, choices ...string) StringParam {
	return StringParam{ParamSpec{Name: name, Kind: KindString, Default: def, Choices: choices, Doc: doc}}
}

// Spec returns the declaration.
func (p StringParam) Spec() ParamSpec { return p.s }

// Name returns the parameter's name.
func (p StringParam) Name() string { return p.s.Name }

// Get returns the parameter's value in ps.
func (p StringParam) Get(ps Params) string { return ps.Str(p.s.Name) }

// WithDefault returns p with default def.
func (p StringParam) WithDefault(def string) StringParam { p.s.Default = def; return p }

// WithLegacy returns p with legacy value v (ParamSpec.Legacy).
func (p StringParam) WithLegacy(v string) StringParam { p.s.Legacy = v; return p }

// ParamSet is a method's declared hyper-parameters, in declaration order.
// The zero value declares none.
type ParamSet struct{ specs []ParamSpec }

// Declare collects the declarations ps. It panics (a programming error,
// caught at init) on a repeated name, a default of the wrong type or out
// of its range, or a legacy value of the wrong type.
func Declare(ps ...Declared) ParamSet { return ParamSet{}.With(ps...) }

// With returns s with ps added (s is unchanged); a name of s that ps
// repeats panics, as in Declare.
func (s ParamSet) With(ps ...Declared) ParamSet {
	out := ParamSet{specs: slices.Clip(slices.Clone(s.specs))}
	for _, p := range ps {
		sp := p.Spec()
		if _, dup := out.Lookup(sp.Name); dup {
			panic(fmt.Sprintf("suite: parameter %q declared twice", sp.Name))
		}
		if !ofKind(sp.Default, sp.Kind) {
			panic(fmt.Sprintf("suite: parameter %q: default %v is %T, not %v", sp.Name, sp.Default, sp.Default, sp.Kind))
		}
		if err := sp.Check(sp.Default); err != nil {
			panic(fmt.Sprintf("suite: parameter %q: default: %v", sp.Name, err))
		}
		if sp.Legacy != nil && !ofKind(sp.Legacy, sp.Kind) {
			panic(fmt.Sprintf("suite: parameter %q: legacy %v is %T, not %v", sp.Name, sp.Legacy, sp.Legacy, sp.Kind))
		}
		out.specs = append(out.specs, sp)
	}
	return out
}

func ofKind(v any, k Kind) bool {
	switch v.(type) {
	case int:
		return k == KindInt
	case float64:
		return k == KindFloat
	case bool:
		return k == KindBool
	case string:
		return k == KindString
	}
	return false
}

// Replace returns s with each declaration of ps in place of s's of the same
// name (s is unchanged), e.g. a variant of a method with other defaults;
// a name s does not declare panics.
func (s ParamSet) Replace(ps ...Declared) ParamSet {
	out := ParamSet{specs: slices.Clone(s.specs)}
	for _, p := range ps {
		sp := p.Spec()
		i := slices.IndexFunc(out.specs, func(o ParamSpec) bool { return o.Name == sp.Name })
		if i < 0 {
			panic(fmt.Sprintf("suite: parameter %q replaced but not declared", sp.Name))
		}
		if err := sp.Check(sp.Default); err != nil {
			panic(fmt.Sprintf("suite: parameter %q: default: %v", sp.Name, err))
		}
		out.specs[i] = sp
	}
	return out
}

// WithoutLegacy returns s with no legacy values: the set of a new method,
// which no stored run predates.
func (s ParamSet) WithoutLegacy() ParamSet {
	out := ParamSet{specs: slices.Clone(s.specs)}
	for i := range out.specs {
		out.specs[i].Legacy = nil
	}
	return out
}

// Specs returns the declarations in declaration order.
func (s ParamSet) Specs() []ParamSpec { return slices.Clone(s.specs) }

// Lookup returns the declaration of name.
func (s ParamSet) Lookup(name string) (ParamSpec, bool) {
	for _, sp := range s.specs {
		if sp.Name == name {
			return sp, true
		}
	}
	return ParamSpec{}, false
}

// Defaults returns every parameter at its default.
func (s ParamSet) Defaults() Params {
	p := make(Params, len(s.specs))
	for _, sp := range s.specs {
		p[sp.Name] = sp.Default
	}
	return p
}

// Legacy returns the parameters that have a legacy value, at it.
func (s ParamSet) Legacy() Params {
	p := Params{}
	for _, sp := range s.specs {
		if sp.Legacy != nil {
			p[sp.Name] = sp.Legacy
		}
	}
	return p
}

// Check returns an error naming the first parameter of p, in sorted order,
// whose value is not valid (ParamSpec.Check); names s does not declare are
// skipped.
func (s ParamSet) Check(p Params) error {
	for _, k := range p.Keys() {
		if sp, ok := s.Lookup(k); ok {
			if err := sp.Check(p[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// ParamSetter is implemented by a method that declares its parameters; its
// Defaults must equal ParamSet().Defaults().
type ParamSetter interface {
	ParamSet() ParamSet
}

// ParamsOf returns m's declared parameters, or for a method that declares
// none, a set inferred from its Defaults (the kind of each value, any
// value valid, no doc) and its LegacyParams.
func ParamsOf(m Method) ParamSet {
	if d, ok := m.(ParamSetter); ok {
		return d.ParamSet()
	}
	defaults := m.Defaults()
	var legacy Params
	if lp, ok := m.(LegacyParams); ok {
		legacy = lp.LegacyParams()
	}
	var s ParamSet
	for _, k := range defaults.Keys() {
		sp := ParamSpec{Name: k, Default: defaults[k], Legacy: legacy[k]}
		switch defaults[k].(type) {
		case int:
			sp.Kind = KindInt
		case float64:
			sp.Kind = KindFloat
		case bool:
			sp.Kind = KindBool
		case string:
			sp.Kind = KindString
		}
		s.specs = append(s.specs, sp)
	}
	return s
}
