package reports

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// sensitivityRuns is a hand-built Figure 4 grid of ugnn on COIL-DEL and
// Letter-high, low and high, seeds 0–2: a tau sweep (0.05, 0.1, 0.2, 0.5
// at R = 3), an R sweep (2, 3, 4 at tau = 0.1; R = 3, tau = 0.1 is shared)
// and an alpha sweep (0.8, 1.2 at the defaults; 1 is shared), plus a
// gin-topk run that must stay out. Accuracy peaks at tau = 0.1 and R = 3.
func sensitivityRuns() []runs.Run {
	var rs []runs.Run
	add := func(ds, ratio string, seed int64, tau float64, r int, alpha float64) {
		p := suite.Params{"tau": tau, "unknown_prototypes": float64(r), "epochs": 20.0}
		proto := suite.DefaultProtocol()
		proto.Alpha = alpha
		spec := suite.RunSpec{Method: "ugnn", Dataset: ds, RatioName: ratio, Ratio: 0.2, Seed: seed, Params: p, Protocol: proto}
		base := map[string]float64{"COIL-DEL": 0.55, "Letter-high": 0.45}[ds]
		if ratio == "high" {
			base += 0.08
		}
		acc := base - 0.2*(tau-0.1)*(tau-0.1)*10 - 0.01*float64((r-3)*(r-3)) - 0.05*(alpha-1)*(alpha-1) + 0.004*float64(seed)
		rs = append(rs, runs.Run{ID: int64(len(rs) + 1), Spec: spec, Status: runs.StatusFinished,
			Metrics: map[string]float64{suite.MetricAccuracy: acc, suite.PrefixChance + suite.MetricAccuracy: 0.1 * alpha}})
	}
	for _, ds := range []string{"Letter-high", "COIL-DEL"} {
		for _, ratio := range []string{"low", "high"} {
			for seed := int64(0); seed < 3; seed++ {
				for _, tau := range []float64{0.05, 0.1, 0.2, 0.5} {
					add(ds, ratio, seed, tau, 3, 1)
				}
				for _, r := range []int{2, 4} {
					add(ds, ratio, seed, 0.1, r, 1)
				}
				for _, a := range []float64{0.8, 1.2} {
					add(ds, ratio, seed, 0.1, 3, a)
				}
			}
		}
	}
	other := mk("gin-topk", "COIL-DEL", "low", 0, 0.3)
	other.Spec.Params = suite.Params{"tau": 0.3}
	return append(rs, other)
}

func TestSensitivityGolden(t *testing.T) {
	ext := map[string]string{"text": "txt", "md": "md", "latex": "tex", "csv": "csv"}
	for _, param := range []string{"tau", "R", "alpha"} {
		tbl, err := SensitivityTable(sensitivityRuns(), "ugnn", param, suite.MetricAccuracy, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, format := range table.Formats() {
			golden(t, "sensitivity_"+param+"."+ext[format]+".golden", render(t, tbl, format))
		}
	}
}

func TestSensitivityRows(t *testing.T) {
	for _, c := range []struct {
		param string
		rows  string
		notes string
	}{
		{"tau", "0.05 0.1 0.2 0.5", "alpha held at 1, the value every tau was run with | unknown_prototypes held at 3, the value every tau was run with"},
		{"R", "2 3 4", "alpha held at 1, the value every unknown_prototypes was run with | tau held at 0.1, the value every unknown_prototypes was run with"},
		{"α", "0.8 1 1.2", "tau held at 0.1, the value every alpha was run with | unknown_prototypes held at 3, the value every alpha was run with"},
	} {
		tbl, err := SensitivityTable(sensitivityRuns(), "ugnn", c.param, suite.MetricAccuracy, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var rows []string
		for _, r := range tbl.Rows {
			rows = append(rows, r.Label)
		}
		if got := strings.Join(rows, " "); got != c.rows {
			t.Errorf("%s: rows %q, want %q", c.param, got, c.rows)
		}
		if got := strings.Join(tbl.Notes, " | "); got != c.notes {
			t.Errorf("%s: notes %q, want %q", c.param, got, c.notes)
		}
		// Every cell pools 3 seeds of one configuration.
		for i := range tbl.Rows {
			for j := range tbl.Columns {
				if cell := tbl.Cells[i][j]; cell == nil || cell.N != 3 {
					t.Errorf("%s: cell %d,%d = %+v, want 3 seeds", c.param, i, j, cell)
				}
			}
		}
		if len(tbl.Warnings) != 0 {
			t.Errorf("%s: warnings %v", c.param, tbl.Warnings)
		}
	}
	// tau = 0.1 at R = 3, alpha = 1 on COIL-DEL low: 0.55 + 0.004·(0+1+2)/3.
	tbl, _ := SensitivityTable(sensitivityRuns(), "ugnn", "tau", suite.MetricAccuracy, Options{})
	if c := tbl.Cells[1][0]; c.Dataset != "COIL-DEL" || c.Ratio != "low" || abs(c.Mean-0.554) > 1e-12 {
		t.Errorf("tau=0.1 first cell = %+v, want COIL-DEL low mean 0.554", c)
	}
}

// The chance row depends on α (the threshold rule): an α sweep shows one
// chance row per α, any other sweep one chance row.
func TestSensitivityChanceRows(t *testing.T) {
	for _, c := range []struct {
		param string
		rows  string
		want  []float64 // chance rows' value in every column
	}{
		{"tau", "0.05 0.1 0.2 0.5 chance", []float64{0.1}},
		{"alpha", "0.8 1 1.2 chance (α=0.8) chance (α=1) chance (α=1.2)", []float64{0.08, 0.1, 0.12}},
	} {
		tbl, err := SensitivityTable(sensitivityRuns(), "ugnn", c.param, suite.MetricAccuracy, Options{Chance: true})
		if err != nil {
			t.Fatal(err)
		}
		var rows []string
		for _, r := range tbl.Rows {
			rows = append(rows, r.Label)
		}
		if got := strings.Join(rows, " "); got != c.rows {
			t.Errorf("%s: rows %q, want %q", c.param, got, c.rows)
			continue
		}
		first := len(tbl.Rows) - len(c.want)
		for k, want := range c.want {
			i := first + k
			if !tbl.Rows[i].Reference || tbl.Rows[i].Group != tbl.Rows[first].Group || tbl.Rows[first].Group == tbl.Rows[first-1].Group {
				t.Errorf("%s: chance row %q: reference %v, group %d; want reference rows in one group after the values", c.param, tbl.Rows[i].Label, tbl.Rows[i].Reference, tbl.Rows[i].Group)
			}
			for j := range tbl.Columns {
				if cell := tbl.Cells[i][j]; cell == nil || abs(cell.Mean-want) > 1e-12 {
					t.Errorf("%s: %s column %d = %+v, want %g", c.param, tbl.Rows[i].Label, j, cell, want)
				}
			}
		}
	}
}

// A table over runs of several α (an α grid in an accuracy report) has no
// single chance value per split: the chance cells stay empty, with a note.
func TestChanceRowMixedAlpha(t *testing.T) {
	tbl := AccuracyTable(sensitivityRuns(), Options{Chance: true})
	for _, r := range tbl.Rows {
		if r.Label == ChanceRow { // the row exists only with a non-empty cell
			t.Errorf("a chance row over runs of mixed α: %+v", tbl.Cells[len(tbl.Cells)-1])
		}
	}
	if !strings.Contains(strings.Join(tbl.Notes, "\n"), "its runs differ in the protocol (α)") {
		t.Errorf("notes %q lack the mixed-α note", tbl.Notes)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestSensitivityErrors(t *testing.T) {
	rs := sensitivityRuns()
	if _, err := SensitivityTable(rs, "ugnn", "hidden", suite.MetricAccuracy, Options{}); err == nil || !strings.Contains(err.Error(), `no run of ugnn has parameter "hidden"`) {
		t.Errorf("unknown parameter: %v", err)
	}
	// A second epochs budget for tau=0.5 only: no epochs value shared by
	// every tau.
	for i := range rs {
		if rs[i].Spec.Method == "ugnn" && rs[i].Spec.Params["tau"] == 0.5 {
			rs[i].Spec.Params = suite.Params{"tau": 0.5, "unknown_prototypes": 3.0, "epochs": 100.0}
		}
	}
	if _, err := SensitivityTable(rs, "ugnn", "tau", suite.MetricAccuracy, Options{}); err == nil || !errors.As(err, new(*VaryingError)) {
		t.Errorf("no shared epochs: %v", err)
	}
}

// TestSensitivityPerColumnBudget: a budget that differs between datasets
// (protocol v2 resolves steps per dataset) is not a varying field.
func TestSensitivityPerColumnBudget(t *testing.T) {
	rs := sensitivityRuns()
	for i := range rs {
		if rs[i].Spec.Method == "ugnn" {
			p := suite.Params{}
			for k, v := range rs[i].Spec.Params {
				p[k] = v
			}
			p["steps"] = map[string]float64{"COIL-DEL": 1600, "Letter-high": 800}[rs[i].Spec.Dataset]
			rs[i].Spec.Params = p
		}
	}
	tbl, err := SensitivityTable(rs, "ugnn", "tau", suite.MetricAccuracy, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tbl.Rows) != 4 || tbl.Cells[0][0] == nil || tbl.Cells[0][0].N != 3 {
		t.Errorf("rows %d, first cell %+v; want 4 rows of 3 seeds", len(tbl.Rows), tbl.Cells[0][0])
	}
}

// TestSweptParams: the hand-built grid sweeps tau, R and alpha for ugnn;
// a step budget that differs only between datasets is not swept; the
// gin-topk run (one tau value) sweeps nothing.
func TestSweptParams(t *testing.T) {
	rs := sensitivityRuns()
	for i := range rs {
		if rs[i].Spec.Method == "ugnn" {
			p := maps.Clone(rs[i].Spec.Params)
			p["steps"] = map[string]float64{"COIL-DEL": 1600, "Letter-high": 800}[rs[i].Spec.Dataset]
			rs[i].Spec.Params = p
		}
	}
	for _, tc := range []struct {
		method string
		want   []string
	}{{"ugnn", []string{"alpha", "tau", "unknown_prototypes"}}, {"gin-topk", nil}, {"gla", nil}} {
		if got := SweptParams(rs, tc.method); !slices.Equal(got, tc.want) {
			t.Errorf("SweptParams(%s) = %v, want %v", tc.method, got, tc.want)
		}
	}
}
