package datasets

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestParseInts(t *testing.T) {
	cases := []struct {
		line string
		want []int64
		err  string
	}{
		{"1, 2", []int64{1, 2}, ""},
		{"1,2", []int64{1, 2}, ""},
		{"  1 ,\t2  \r", []int64{1, 2}, ""},
		{"-1", []int64{-1}, ""},
		{"+7, -0", []int64{7, 0}, ""},
		{"9223372036854775807, -9223372036854775808", []int64{math.MaxInt64, math.MinInt64}, ""},
		{"9223372036854775808", nil, "integer out of range"},
		{"-9223372036854775809", nil, "integer out of range"},
		{"", nil, "empty line"},
		{"   \r", nil, "empty line"},
		{"1,,2", nil, "empty field"},
		{"1, 2,", nil, "empty field"},
		{",1", nil, "empty field"},
		{"1 2", nil, `not an integer: "1 2"`},
		{"1.0", nil, `not an integer: "1.0"`},
		{"-", nil, `not an integer: "-"`},
		{"0x10", nil, "not an integer"},
		{"1_000", nil, "not an integer"},
	}
	for _, c := range cases {
		got, err := parseInts([]byte(c.line), nil)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parseInts(%q) error %v, want %q", c.line, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseInts(%q) = %v, %v; want %v", c.line, got, err, c.want)
		}
	}
}

func TestParseFloats(t *testing.T) {
	cases := []struct {
		line string
		want []float64
		err  string
	}{
		{"7.0, 29.0", []float64{7, 29}, ""},
		{"0.9890689849853516, 0.010930799879133701, 0.0", []float64{0.9890689849853516, 0.010930799879133701, 0}, ""},
		{"1e3,-2.5E-2, +.5, 5.", []float64{1000, -0.025, 0.5, 5}, ""},
		{"123456789012345678901234567890", []float64{1.2345678901234568e29}, ""},
		{"0.000000000000000000000000000001", []float64{1e-30}, ""},
		{"1e-400", []float64{0}, ""},
		{"4.9e-324", []float64{5e-324}, ""},
		{"1.7976931348623157e308", []float64{math.MaxFloat64}, ""},
		{"1e309", nil, "number out of range"},
		{"NaN", nil, `not a number: "NaN"`},
		{"inf", nil, "not a number"},
		{"0x1p3", nil, "not a number"},
		{".", nil, "not a number"},
		{"1e", nil, "not a number"},
		{"1.2.3", nil, "not a number"},
		{"1, ", nil, "empty field"},
		{"", nil, "empty line"},
	}
	for _, c := range cases {
		got, err := parseFloats([]byte(c.line), nil)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parseFloats(%q) error %v, want %q", c.line, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseFloats(%q) = %v, %v; want %v", c.line, got, err, c.want)
		}
	}
	if v, err := parseFloats([]byte("-0"), nil); err != nil || !math.Signbit(v[0]) {
		t.Errorf("parseFloats(-0) = %v, %v; want negative zero", v, err)
	}
}

// oracleFields splits line the way the parsers do, for the fuzz oracle.
func oracleFields(line []byte) []string {
	fields := strings.Split(string(line), ",")
	for i, f := range fields {
		fields[i] = strings.Trim(f, " \t\r")
	}
	return fields
}

// FuzzParseLine checks that the line parsers never panic, agree with
// strconv field by field, and that successful parses round-trip: formatting
// the numbers and parsing again gives the same numbers (bit for bit).
// Plain `go test` runs the seed corpus below.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		"1, 2", "10519, 10518", "-1", "1,2,3", " 4 ,5 ", "1, 2\r",
		"0, 1, 0, 0", "7.0, 29.0", "0.9890689849853516, 0.010930799879133701",
		"1e-5, -2.5E+3", "+.5, 5.", "9223372036854775807", "-9223372036854775808",
		"9223372036854775808", "1e400", "123456789012345678901234567890.5e-7",
		"", " ", ",", "1,,2", "1, 2,", "x", "1 2", "NaN", "inf", "0x1p3", "--1", "1e", ".",
		"\x00", "1\n2",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		fields := oracleFields(line)

		ints, intErr := parseInts(line, nil)
		err := intErr
		oracleOK := true
		for _, fs := range fields {
			if _, e := strconv.ParseInt(fs, 10, 64); e != nil || strings.Contains(fs, "_") {
				oracleOK = false
			}
		}
		if (err == nil) != oracleOK {
			t.Fatalf("parseInts(%q) error %v, strconv per field ok=%v", line, err, oracleOK)
		}
		if err == nil {
			if len(ints) != len(fields) {
				t.Fatalf("parseInts(%q) = %v for %d fields", line, ints, len(fields))
			}
			parts := make([]string, len(ints))
			for i, v := range ints {
				if w, _ := strconv.ParseInt(fields[i], 10, 64); w != v {
					t.Fatalf("parseInts(%q)[%d] = %d, strconv %d", line, i, v, w)
				}
				parts[i] = strconv.FormatInt(v, 10)
			}
			again, err := parseInts([]byte(strings.Join(parts, ", ")), nil)
			if err != nil || !reflect.DeepEqual(again, ints) {
				t.Fatalf("round trip of %v gave %v, %v", ints, again, err)
			}
		}

		floats, err := parseFloats(line, nil)
		if intErr == nil && err != nil { // every integer line is also a number line
			t.Fatalf("parseInts(%q) ok but parseFloats failed: %v", line, err)
		}
		if err == nil {
			if len(floats) != len(fields) {
				t.Fatalf("parseFloats(%q) = %v for %d fields", line, floats, len(fields))
			}
			parts := make([]string, len(floats))
			for i, v := range floats {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("parseFloats(%q)[%d] = %v", line, i, v)
				}
				w, e := strconv.ParseFloat(fields[i], 64)
				if e != nil || math.Float64bits(w) != math.Float64bits(v) {
					t.Fatalf("parseFloats(%q)[%d] = %v, strconv %v (%v)", line, i, v, w, e)
				}
				parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
			}
			again, err := parseFloats([]byte(strings.Join(parts, ", ")), nil)
			if err != nil || len(again) != len(floats) {
				t.Fatalf("round trip of %v gave %v, %v", floats, again, err)
			}
			for i := range again {
				if math.Float64bits(again[i]) != math.Float64bits(floats[i]) {
					t.Fatalf("round trip of %v gave %v", floats, again)
				}
			}
		}
	})
}
