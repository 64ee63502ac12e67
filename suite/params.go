package suite

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Params maps hyper-parameter names to values. A value is a float64, an int,
// a string or a bool; its type is fixed by the method's Defaults.
type Params map[string]any

// Clone returns a shallow copy of p.
func (p Params) Clone() Params {
	q := make(Params, len(p))
	for k, v := range p {
		q[k] = v
	}
	return q
}

// Float returns the float64 (or int, converted) value of name; it panics if
// name is missing, since Defaults guarantees every name a method reads.
func (p Params) Float(name string) float64 {
	switch v := p.must(name).(type) {
	case float64:
		return v
	case int:
		return float64(v)
	}
	panic(fmt.Sprintf("param %q is %T, not a number", name, p[name]))
}

// Int returns the int value of name.
func (p Params) Int(name string) int {
	switch v := p.must(name).(type) {
	case int:
		return v
	case float64:
		return int(v)
	}
	panic(fmt.Sprintf("param %q is %T, not an int", name, p[name]))
}

// Str returns the string value of name.
func (p Params) Str(name string) string {
	v, ok := p.must(name).(string)
	if !ok {
		panic(fmt.Sprintf("param %q is %T, not a string", name, p[name]))
	}
	return v
}

// Bool returns the bool value of name.
func (p Params) Bool(name string) bool {
	v, ok := p.must(name).(bool)
	if !ok {
		panic(fmt.Sprintf("param %q is %T, not a bool", name, p[name]))
	}
	return v
}

func (p Params) must(name string) any {
	v, ok := p[name]
	if !ok {
		panic(fmt.Sprintf("param %q not set (missing from the method's Defaults?)", name))
	}
	return v
}

// Keys returns the names in p, sorted.
func (p Params) Keys() []string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Summary renders p as "a=1 b=x", sorted by name, for messages and tables.
func (p Params) Summary() string {
	var b strings.Builder
	for i, k := range p.Keys() {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%v", k, p[k])
	}
	return b.String()
}

// MarshalJSON writes p with sorted keys (encoding/json sorts map keys), so
// the encoding is canonical and can be hashed.
func (p Params) MarshalJSON() ([]byte, error) { return json.Marshal(map[string]any(p)) }

// UnmarshalParams decodes JSON written by MarshalJSON, restoring each value
// to the type of the same name in defaults (JSON numbers are float64).
func UnmarshalParams(data []byte, defaults Params) (Params, error) {
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	p := Params{}
	for k, v := range raw {
		if f, ok := v.(float64); ok {
			if _, isInt := defaults[k].(int); isInt {
				p[k] = int(f)
				continue
			}
		}
		p[k] = v
	}
	return p, nil
}

// SameValue is the one equality of parameter values, used by the config
// hash (LegacyParams), run selection (bench report --param, bench compare
// sides, bench runs) and everywhere else values are matched. Each of a
// and b is a value as stored (int, int64, float64, bool, string) or
// command-line text. Two values that both read as numbers (a number, or
// text that parses as a finite float) are equal when they are equal as
// float64, so 0.10 matches 0.1 and 3 matches 3.0; any other two are equal
// when their texts (%v) are, so a bool matches "true" or "false" and a
// string itself.
func SameValue(a, b any) bool {
	af, aNum := numeric(a)
	bf, bNum := numeric(b)
	if aNum && bNum {
		return af == bf
	}
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// numeric reads v as a finite number: a Go number or text that parses as
// one.
func numeric(v any) (float64, bool) {
	if s, ok := v.(string); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, false
		}
		return f, true
	}
	return number(v)
}
