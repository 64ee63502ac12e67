package suite

import (
	"reflect"
	"testing"
)

// TestSameValue: numbers by value (text included), bools and strings by
// text.
func TestSameValue(t *testing.T) {
	for _, c := range []struct {
		a, b any
		want bool
	}{
		{0.1, "0.10", true},
		{0.1, 0.10, true},
		{"0.1", "0.10", true},
		{3, 3.0, true},
		{3, "3", true},
		{int64(3), 3.0, true},
		{1e-3, "0.001", true},
		{0.1, "0.2", false},
		{0.1, "x", false},
		{true, "true", true},
		{true, true, true},
		{true, "1", false},
		{false, true, false},
		{"gin", "gin", true},
		{"gin", "sage", false},
		{"NaN", "NaN", true}, // text
	} {
		if got := SameValue(c.a, c.b); got != c.want {
			t.Errorf("SameValue(%#v, %#v) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := SameValue(c.b, c.a); got != c.want {
			t.Errorf("SameValue(%#v, %#v) = %v, want %v (swapped)", c.b, c.a, got, c.want)
		}
	}
}

func TestParamSet(t *testing.T) {
	steps := Int("steps", 0, NonNegative, "steps")
	tau := Float("tau", 0.1, Positive, "temperature").WithLegacy(0.1)
	set := Declare(steps, tau, Bool("swap", false, "").WithLegacy(false), Enum("conv", "gin", "", "gin", "sage"))
	if got, want := set.Defaults(), (Params{"steps": 0, "tau": 0.1, "swap": false, "conv": "gin"}); !reflect.DeepEqual(got, want) {
		t.Errorf("Defaults = %v, want %v", got, want)
	}
	if got, want := set.Legacy(), (Params{"tau": 0.1, "swap": false}); !reflect.DeepEqual(got, want) {
		t.Errorf("Legacy = %v, want %v", got, want)
	}
	if got := tau.Get(Params{"tau": 0.5}); got != 0.5 {
		t.Errorf("tau.Get = %v", got)
	}
	if got := steps.Get(Params{"steps": 7.0}); got != 7 {
		t.Errorf("steps.Get of a float64 = %v", got)
	}
	sp, _ := set.Lookup("swap")
	if v, err := sp.Parse("m.swap", "true"); err != nil || v != true {
		t.Errorf("Parse swap: %v, %v", v, err)
	}
	sp, _ = set.Lookup("steps")
	if v, err := sp.Parse("m.steps", "12"); err != nil || v != 12 {
		t.Errorf("Parse steps: %#v, %v", v, err)
	}
	if _, err := sp.Parse("m.steps", "1.5"); err == nil {
		t.Error("Parse steps 1.5 accepted")
	}
	if got := set.With(Float("lr", 1e-3, Positive, "")).Specs(); len(got) != 5 || len(set.Specs()) != 4 {
		t.Errorf("With: %d specs, set has %d", len(got), len(set.Specs()))
	}
	plus := set.Replace(Enum("conv", "sage", "", "gin", "sage")).WithoutLegacy()
	if got, want := plus.Defaults(), (Params{"steps": 0, "tau": 0.1, "swap": false, "conv": "sage"}); !reflect.DeepEqual(got, want) {
		t.Errorf("Replace: Defaults = %v, want %v", got, want)
	}
	if len(plus.Legacy()) != 0 || len(set.Legacy()) != 2 || set.Defaults()["conv"] != "gin" {
		t.Errorf("WithoutLegacy: %v; the original set changed: %v %v", plus.Legacy(), set.Legacy(), set.Defaults())
	}
	if s, _ := set.Lookup("conv"); s.Valid() != "gin|sage" {
		t.Errorf("Valid = %q", s.Valid())
	}
	if r := (Range{Min: 1, Max: 2147483647}); r.String() != "in [1, 2147483647]" {
		t.Errorf("Range.String = %q", r)
	}
	for name, bad := range map[string]func(){
		"duplicate":       func() { Declare(steps, steps) },
		"replace unknown": func() { set.Replace(Float("lr", 1e-3, Positive, "")) },
		"default range":   func() { Declare(steps.WithDefault(-1)) },
		"default choice":  func() { Declare(Enum("conv", "gcn", "", "gin", "sage")) },
		"legacy type":     func() { Declare(ParamSpec{Name: "x", Kind: KindInt, Default: 1, Legacy: 1.0}) },
		"default of kind": func() { Declare(ParamSpec{Name: "x", Kind: KindInt, Default: 1.0}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Declare did not panic", name)
				}
			}()
			bad()
		}()
	}
}

// TestParamsOfInferred: a method that declares nothing gets a set from its
// Defaults and LegacyParams.
func TestParamsOfInferred(t *testing.T) {
	set := ParamsOf(legacyFake{gridFake{"x", Params{"lr": 0.1, "new_switch": true, "new_count": 3}}})
	if got, want := set.Legacy(), (Params{"new_switch": false, "new_count": 0}); !reflect.DeepEqual(got, want) {
		t.Errorf("Legacy = %v, want %v", got, want)
	}
	if sp, _ := set.Lookup("new_count"); sp.Kind != KindInt {
		t.Errorf("new_count kind %v", sp.Kind)
	}
}
