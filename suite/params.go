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

// ParseValue parses s to the type of like (the default value of the same
// parameter). It returns an error naming the parameter on a bad value,
// NaN and ±Inf included (a spec must hash, and JSON has no such numbers).
func ParseValue(name, s string, like any) (any, error) {
	switch like.(type) {
	case float64:
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("param %s: %q is not a number", name, s)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("param %s: %q is not a finite number", name, s)
		}
		return v, nil
	case int:
		v, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("param %s: %q is not an integer", name, s)
		}
		return v, nil
	case bool:
		v, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("param %s: %q is not true/false", name, s)
		}
		return v, nil
	case string:
		return s, nil
	}
	return nil, fmt.Errorf("param %s: unsupported type %T", name, like)
}
