package reports

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/runs"
)

// gateRuns are 4 seeds of gin-topk on two cells with accuracy and
// epoch_seconds; shift(cell, seed) is added to the accuracy, slow
// multiplies the seconds.
func gateRuns(seeds int, shift func(dataset string, seed int64) float64, slow float64) []runs.Run {
	base := []float64{0.600, 0.612, 0.595, 0.607, 0.603}
	secs := []float64{2.0, 2.1, 1.9, 2.05, 2.02}
	var rs []runs.Run
	for _, ds := range []string{"COIL-DEL", "Letter-high"} {
		for s := 0; s < seeds; s++ {
			r := mk("gin-topk", ds, "low", int64(s), 0)
			r.ID = int64(len(rs) + 1)
			r.Metrics = map[string]float64{"accuracy": base[s] + shift(ds, int64(s)), "epoch_seconds": secs[s] * slow}
			rs = append(rs, r)
		}
	}
	return rs
}

func noShift(string, int64) float64 { return 0 }

func TestBaselineGoldenAndRoundTrip(t *testing.T) {
	b, warns := NewBaseline(fixtureRuns(), nil, map[string]Threshold{"ood_f1": {Delta: -0.05}}, 0, "")
	var buf bytes.Buffer
	if err := b.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "baseline.json.golden", buf.Bytes())
	if len(warns) == 0 {
		t.Errorf("no warning for the fixture's missing seeds")
	}
	back, err := ReadBaseline(bytes.NewReader(buf.Bytes()), "b.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Check(back, fixtureRuns(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The fixture against itself: nothing regresses, but 3 seeds cannot
	// be judged.
	if res.Code != CheckCannotJudge || len(res.Regressions) != 0 {
		t.Errorf("fixture against its own baseline: code %d, %d regressions; want %d, 0", res.Code, len(res.Regressions), CheckCannotJudge)
	}
}

func TestReadBaselineErrors(t *testing.T) {
	var buf bytes.Buffer
	b, _ := NewBaseline(gateRuns(4, noShift, 1), []string{"accuracy"}, nil, 0, "")
	b.WriteJSON(&buf)
	good := buf.String()
	for _, c := range []struct{ name, edit, want string }{
		{"not json", "{", "b.json: unexpected EOF"},
		{"format", strings.Replace(good, `"ugbench-baseline"`, `"other"`, 1), `format "other"`},
		{"version", strings.Replace(good, `"version": 1`, `"version": 9`, 1), "version 9"},
		{"field", strings.Replace(good, `"alpha"`, `"alpah"`, 1), `unknown field "alpah"`},
		{"threshold", strings.Replace(good, `"-0.02"`, `"0"`, 1), "thresholds.accuracy"},
		{"mean", regexp.MustCompile(`"mean": [0-9.]+`).ReplaceAllString(good, `"mean": 0.7`), "gin-topk/COIL-DEL/low accuracy): mean 0.7"},
		{"n", strings.Replace(good, `"n": 4`, `"n": 3`, 1), "n = 3 with 4 seeds and 4 values"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.edit == good {
				t.Fatalf("edit changed nothing")
			}
			_, err := ReadBaseline(strings.NewReader(c.edit), "b.json")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestThresholds(t *testing.T) {
	for _, c := range []struct {
		s        string
		old, new float64
		reached  bool
	}{
		{"-0.02", 0.60, 0.58, true},
		{"-0.02", 0.60, 0.59, false},
		{"-0.02", 0.60, 0.70, false},
		{"x1.2", 2.0, 2.4, true},
		{"×1.2", 2.0, 2.3, false},
		{"x0.9", 1.0, 0.89, true},
		{"0.5", 1.0, 1.6, true},
	} {
		th, err := ParseThreshold(c.s)
		if err != nil {
			t.Fatal(err)
		}
		if got := th.Reached(c.old, c.new); got != c.reached {
			t.Errorf("%s: %g → %g reached = %v, want %v", c.s, c.old, c.new, got, c.reached)
		}
	}
	for _, bad := range []string{"", "0", "x1", "x-2", "abc", "NaN"} {
		if _, err := ParseThreshold(bad); err == nil {
			t.Errorf("ParseThreshold(%q): no error", bad)
		}
	}
}

// TestCheckCodes plants each outcome in constructed runs.
func TestCheckCodes(t *testing.T) {
	baseline, _ := NewBaseline(gateRuns(4, noShift, 1), []string{"accuracy", "epoch_seconds"}, nil, 0, "")
	three, _ := NewBaseline(gateRuns(3, noShift, 1), []string{"accuracy"}, nil, 0, "")
	drop := func(ds string, seed int64) float64 { // −0.04 ± noise on COIL-DEL
		if ds != "COIL-DEL" {
			return 0.001 * float64(seed)
		}
		return -0.04 + 0.002*float64(seed%2)
	}
	small := func(ds string, seed int64) float64 { return -0.01 + 0.001*float64(seed%2) } // significant, below threshold
	onlyLetter := func(rs []runs.Run) []runs.Run {
		var out []runs.Run
		for _, r := range rs {
			if r.Spec.Dataset == "Letter-high" {
				out = append(out, r)
			}
		}
		return out
	}
	for _, c := range []struct {
		name     string
		b        *Baseline
		current  []runs.Run
		code     int
		summary  string
		statuses string
	}{
		{"pass", baseline, gateRuns(4, func(_ string, s int64) float64 { return 0.002 * float64(s%2) }, 1.01), CheckPass, "check: PASS (4 cells)", "ok ok ok ok"},
		{"small significant drop", baseline, gateRuns(4, small, 1), CheckPass, "check: PASS", "ok ok ok ok"},
		{"regression", baseline, gateRuns(4, drop, 1), CheckRegression,
			"regression: gin-topk/COIL-DEL/low accuracy: 0.603±0.008 → 0.565±0.009 (-0.039 (-6.5%), p=0.000 n=4+4 (paired); threshold -0.02)",
			"REGRESSION ok ok ok"},
		{"slowdown", baseline, gateRuns(4, noShift, 1.5), CheckRegression,
			"regression: gin-topk/Letter-high/low epoch_seconds: 2.013±0.085 → 3.019±0.128 (+1.006 (+50.0%), p=0.000 n=4+4 (paired); threshold x1.2)",
			"ok ok REGRESSION REGRESSION"},
		{"too few seeds", three, gateRuns(3, drop, 1), CheckCannotJudge,
			"cannot judge: gin-topk/COIL-DEL/low accuracy: 0.602±0.009 → 0.563±0.010: too few seeds (need ≥ 4)",
			"too few seeds (need ≥ 4) too few seeds (need ≥ 4)"},
		{"missing cell", baseline, onlyLetter(gateRuns(4, noShift, 1)), CheckCannotJudge,
			"cannot judge: gin-topk/COIL-DEL/low accuracy: baseline 0.603±0.008, no current value",
			"missing ok missing ok"},
		{"regression beats missing", baseline, onlyLetter(gateRuns(4, noShift, 1.5)), CheckRegression, "check: FAIL: 1 regression(s) in 4 cells", "missing ok missing REGRESSION"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Check(c.b, c.current, nil)
			if err != nil {
				t.Fatal(err)
			}
			summary := strings.Join(res.Summary(), "\n")
			if res.Code != c.code || !strings.Contains(summary, c.summary) {
				t.Errorf("code %d, want %d; summary:\n%s\nwant a line containing %q", res.Code, c.code, summary, c.summary)
			}
			var st []string
			for _, cell := range res.Cells {
				st = append(st, cell.Status)
			}
			if got := strings.Join(st, " "); got != c.statuses {
				t.Errorf("statuses %q, want %q", got, c.statuses)
			}
		})
	}
	// A threshold override turns the small significant drop into a
	// regression.
	res, err := Check(baseline, gateRuns(4, small, 1), map[string]Threshold{"accuracy": {Delta: -0.005}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Code != CheckRegression || len(res.Regressions) != 2 {
		t.Errorf("override -0.005: code %d with %d regressions, want 1 with 2", res.Code, len(res.Regressions))
	}
}
