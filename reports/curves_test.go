package reports

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// curveFixture: ugnn on Letter-high low, seeds 0 and 1, plus gin-topk on
// Letter-high high (seed 0) and low (seed 0), stored in the reverse of the
// paper's order so that CurveTables has to sort.
func curveFixture() ([]runs.Run, map[int64][]suite.CurvePoint) {
	run := func(id int64, method, ratio string, seed int64) runs.Run {
		spec := suite.RunSpec{Method: method, Dataset: "Letter-high", RatioName: ratio, Seed: seed,
			Params: suite.Params{"epochs": 2}, Protocol: suite.DefaultProtocol()}
		return runs.Run{ID: id, Hash: spec.Hash(), Spec: spec, Status: runs.StatusFinished}
	}
	rs := []runs.Run{
		run(1, "ugnn", "low", 0), run(2, "ugnn", "low", 1),
		run(3, "gin-topk", "high", 0), run(4, "gin-topk", "low", 0),
	}
	curves := map[int64][]suite.CurvePoint{
		1: {{Epoch: 1, Name: "loss", Value: 1}, {Epoch: 1, Name: "ood_set_precision", Value: 0.5},
			{Epoch: 2, Name: "loss", Value: 0.5}, {Epoch: 2, Name: "ood_set_size", Value: 3407}},
		2: {{Epoch: 1, Name: "loss", Value: 2}, {Epoch: 2, Name: "loss", Value: math.NaN()},
			{Epoch: 2, Name: "ood_set_size", Value: 3401}},
		3: {{Epoch: 1, Name: "loss", Value: 40}, {Epoch: 2, Name: "loss", Value: 20}},
		4: {{Epoch: 1, Name: "loss", Value: 0.25}},
	}
	return rs, curves
}

func TestCurveTables(t *testing.T) {
	rs, curves := curveFixture()
	tables, err := CurveTables(rs, curves, []string{"loss", "ood_set_precision", "ood_set_size"}, "epoch")
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, p := range tables {
		titles = append(titles, p.Title)
	}
	wantTitles := []string{
		"gin-topk · Letter-high · low (1 run: seed 0)",
		"gin-topk · Letter-high · high (1 run: seed 0)",
		"ugnn · Letter-high · low (2 runs: seeds 0,1)",
	}
	if strings.Join(titles, "\n") != strings.Join(wantTitles, "\n") {
		t.Fatalf("titles:\n%s\nwant:\n%s", strings.Join(titles, "\n"), strings.Join(wantTitles, "\n"))
	}
	ugnn := tables[2]
	if got := strings.Join(ugnn.Header, " | "); got != "epoch | loss | ood_set_precision | ood_set_size" {
		t.Errorf("header %q", got)
	}
	want := [][]string{
		// mean 1.5, sample std √0.5; precision of seed 0 only.
		{"1", "1.500±0.707", "0.500 (n=1)", ""},
		// seed 1's loss is NaN: left out and counted; 3404±4.24 in counts.
		{"2", "0.500 (n=1, 1 NaN)", "", "3404±4"},
	}
	for i, row := range want {
		if got := strings.Join(ugnn.Rows[i], " | "); got != strings.Join(row, " | ") {
			t.Errorf("ugnn row %d: %q, want %q", i, got, strings.Join(row, " | "))
		}
	}
	if len(ugnn.Rows) != len(want) {
		t.Errorf("ugnn: %d rows, want %d", len(ugnn.Rows), len(want))
	}
	// gin-topk high: only loss, magnitudes of 10–1000 print one decimal.
	if got := strings.Join(tables[1].Rows[0], " | "); got != "1 | 40 |  | " {
		t.Errorf("gin-topk high row 1: %q", got)
	}
}

func TestCurveCell(t *testing.T) {
	for _, tc := range []struct {
		vals []float64
		runs int
		want string
	}{
		{[]float64{0.25}, 1, "0.250"},
		{[]float64{40}, 1, "40"}, // an integer prints as one
		{[]float64{40.5}, 1, "40.5"},
		{[]float64{3, 3, 3}, 3, "3"}, // all runs agree: no ±0
		{[]float64{0.4, 0.4}, 2, "0.400"},
		{[]float64{1, 2}, 2, "1.500±0.707"},
		{[]float64{20, 23}, 2, "21.5±2.1"},
		{[]float64{3401, 3407}, 3, "3404±4 (n=2)"},
		{[]float64{1, math.NaN()}, 2, "1 (n=1, 1 NaN)"},
		{[]float64{math.NaN(), math.NaN()}, 2, "NaN (2 NaN)"},
		{nil, 2, ""},
	} {
		vals := map[int64]float64{}
		for i, v := range tc.vals {
			vals[int64(i)] = v
		}
		if got := curveCell(vals, tc.runs); got != tc.want {
			t.Errorf("curveCell(%v, %d runs) = %q, want %q", tc.vals, tc.runs, got, tc.want)
		}
	}
}

func TestCurveTablesAllNames(t *testing.T) {
	rs, curves := curveFixture()
	tables, err := CurveTables(rs[:2], curves, nil, "epoch")
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 1 {
		t.Fatalf("%d tables, want 1", len(tables))
	}
	if got := strings.Join(tables[0].Header, ","); got != "epoch,loss,ood_set_precision,ood_set_size" {
		t.Errorf("header %q: want every curve, sorted", got)
	}
}

// TestCurveTablesSkipsGroupsWithout: a group that has none of the asked
// curves gets no table; all NaN gives "NaN" with the count.
func TestCurveTablesSkipsGroupsWithout(t *testing.T) {
	rs, curves := curveFixture()
	curves[2] = append(curves[2], suite.CurvePoint{Epoch: 3, Name: "ood_auroc_msp", Value: math.NaN()})
	tables, err := CurveTables(rs, curves, []string{"ood_auroc_msp"}, "epoch")
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) != 1 || !strings.HasPrefix(tables[0].Title, "ugnn ·") {
		t.Fatalf("want one ugnn table, got %d", len(tables))
	}
	if got := strings.Join(tables[0].Rows[0], " | "); got != "3 | NaN (1 NaN)" {
		t.Errorf("row %q", got)
	}
}

func TestCurveTablesErrors(t *testing.T) {
	rs, curves := curveFixture()
	for _, tc := range []struct {
		name   string
		rs     []runs.Run
		curves map[int64][]suite.CurvePoint
		names  []string
		want   string
	}{
		{"unknown curve", rs, curves, []string{"loss", "los"}, `curve "los": no selected run has it; they have loss, ood_set_precision, ood_set_size`},
		{"no points", rs, map[int64][]suite.CurvePoint{}, nil, "none of the 4 selected run(s) stored a curve point"},
		{"no runs", nil, curves, nil, "none of the 0 selected run(s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CurveTables(tc.rs, tc.curves, tc.names, "epoch")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestCurveTablesGolden pins the rendered Markdown of the fixture.
func TestCurveTablesGolden(t *testing.T) {
	rs, curves := curveFixture()
	tables, err := CurveTables(rs, curves, []string{"loss", "ood_set_size"}, "epoch")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, p := range tables {
		if err := table.RenderPlain(&buf, p, "md"); err != nil {
			t.Fatal(err)
		}
		buf.WriteString("\n")
	}
	golden(t, "curves.md.golden", buf.Bytes())
}

// TestByStep re-indexes hand-made points by cumulative steps: 4 steps in
// epochs 1-2, 1 in epoch 3; a point without steps at its epoch takes the
// last epoch's count; a run without steps is an error.
func TestByStep(t *testing.T) {
	pts := []suite.CurvePoint{
		{Epoch: 1, Name: "steps", Value: 4}, {Epoch: 1, Name: "loss", Value: 1},
		{Epoch: 2, Name: "steps", Value: 4}, {Epoch: 2, Name: "du_closed_acc", Value: 0.5},
		{Epoch: 3, Name: "steps", Value: 1}, {Epoch: 3, Name: "loss", Value: 0.5},
		{Epoch: 0, Name: "ood_set_size", Value: 7},
	}
	got, err := ByStep(pts)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{4, 4, 8, 8, 9, 9, 0}
	for i, p := range got {
		if p.Epoch != want[i] || p.Name != pts[i].Name || p.Value != pts[i].Value {
			t.Errorf("point %d = %+v, want step %d of %+v", i, p, want[i], pts[i])
		}
	}
	if _, err := ByStep(pts[1:2]); err == nil {
		t.Error("no steps curve: no error")
	}
}

// TestCurvePanels checks the figures' data: the groups in table order in
// every panel, NaN points left out, mean ± the sample std per epoch, an
// empty series for a group without the curve.
func TestCurvePanels(t *testing.T) {
	rs, curves := curveFixture()
	panels, err := CurvePanels(rs, curves, []string{"loss", "ood_set_size"})
	if err != nil {
		t.Fatal(err)
	}
	type series struct {
		label     string
		epochs    []int
		mean, std []float64
	}
	want := map[string][]series{
		"loss": {
			{"gin-topk · Letter-high · low", []int{1}, []float64{0.25}, []float64{0}},
			{"gin-topk · Letter-high · high", []int{1, 2}, []float64{40, 20}, []float64{0, 0}},
			{"ugnn · Letter-high · low", []int{1, 2}, []float64{1.5, 0.5}, []float64{math.Sqrt(0.5), 0}},
		},
		"ood_set_size": {
			{"gin-topk · Letter-high · low", nil, nil, nil},
			{"gin-topk · Letter-high · high", nil, nil, nil},
			{"ugnn · Letter-high · low", []int{2}, []float64{3404}, []float64{math.Sqrt(18)}},
		},
	}
	if len(panels) != 2 || panels[0].Name != "loss" || panels[1].Name != "ood_set_size" {
		t.Fatalf("panels %+v, want loss and ood_set_size", panels)
	}
	close := func(a, b []float64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-9 {
				return false
			}
		}
		return true
	}
	for _, p := range panels {
		w := want[p.Name]
		if len(p.Series) != len(w) {
			t.Fatalf("%s: %d series, want %d", p.Name, len(p.Series), len(w))
		}
		for i, s := range p.Series {
			if s.Label != w[i].label || !slices.Equal(s.Epochs, w[i].epochs) || !close(s.Mean, w[i].mean) || !close(s.Std, w[i].std) {
				t.Errorf("%s series %d: %+v, want %+v", p.Name, i, s, w[i])
			}
		}
	}
	if _, err := CurvePanels(rs, curves, []string{"los"}); err == nil || !strings.Contains(err.Error(), `curve "los"`) {
		t.Errorf("unknown curve: %v", err)
	}
}

// TestBinnedCurveTable: each run's points are averaged within a range,
// then the runs; a range only some runs reach says n; the final column is
// each run's last finite point; bad edges are errors.
func TestBinnedCurveTable(t *testing.T) {
	rs, curves := curveFixture()
	curves[1] = append(curves[1], suite.CurvePoint{Epoch: 5, Name: "loss", Value: 0.25})
	p, err := BinnedCurveTable(rs, curves, "loss", []int{0, 2, 4, 6}, "epoch")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Header, " | "); got != "row | dataset | ratio | n | 0–2 | 2–4 | 4–6 | final" {
		t.Errorf("header %q", got)
	}
	want := []string{
		"gin-topk | Letter-high | low | 1 | 0.250 | – | – | 0.250",
		"gin-topk | Letter-high | high | 1 | 40.000 | 20.000 | – | 20.000",
		// ugnn seed 0: bin 0–2 holds epoch 1 (1), 2–4 epoch 2 (0.5), 4–6 epoch 5
		// (0.25); seed 1: epoch 1 (2), its epoch-2 NaN left out.
		"ugnn | Letter-high | low | 2 | 1.500 | 0.500 (n=1) | 0.250 (n=1) | 1.125",
	}
	for i, w := range want {
		if got := strings.Join(p.Rows[i], " | "); got != w {
			t.Errorf("row %d: %q, want %q", i, got, w)
		}
	}
	for _, edges := range [][]int{{0}, {0, 0, 2}, {4, 2}} {
		if _, err := BinnedCurveTable(rs, curves, "loss", edges, "epoch"); err == nil {
			t.Errorf("edges %v: no error", edges)
		}
	}
	if _, err := BinnedCurveTable(rs, curves, "nope", []int{0, 2}, "epoch"); err == nil {
		t.Error("unknown curve: no error")
	}
}
