package figures

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"

	"github.com/ugbench/ugbench/reports"
	"github.com/ugbench/ugbench/reports/table"
)

// TestCurvePlots checks the panels' data ranges (every series drawn with
// its band of ± the std, an empty series skipped) and that they save as
// SVG.
func TestCurvePlots(t *testing.T) {
	panels := []reports.CurvePanel{
		{Name: "loss", Series: []reports.CurveSeries{
			{Label: "gin-topk · Letter-high · low", Epochs: []int{1}, Mean: []float64{0.25}, Std: []float64{0}},
			{Label: "gin-topk · Letter-high · high", Epochs: []int{1, 2}, Mean: []float64{40, 20}, Std: []float64{0, 0}},
			{Label: "ugnn · Letter-high · low", Epochs: []int{1, 2}, Mean: []float64{1.5, 0.5}, Std: []float64{math.Sqrt(0.5), 0}},
		}},
		{Name: "ood_set_size", Series: []reports.CurveSeries{
			{Label: "gin-topk · Letter-high · low"},
			{Label: "ugnn · Letter-high · low", Epochs: []int{2}, Mean: []float64{3404}, Std: []float64{math.Sqrt(18)}},
		}},
	}
	plots, err := CurvePlots(panels, "epoch")
	if err != nil {
		t.Fatal(err)
	}
	if len(plots) != 2 {
		t.Fatalf("%d panels, want 2", len(plots))
	}
	for i, want := range [][4]float64{{1, 2, 0.25, 40}, {2, 2, 3404 - math.Sqrt(18), 3404 + math.Sqrt(18)}} {
		p := plots[i]
		got := [4]float64{p.X.Min, p.X.Max, p.Y.Min, p.Y.Max}
		for j := range got {
			if math.Abs(got[j]-want[j]) > 1e-9 {
				t.Errorf("panel %s: x [%g, %g] y [%g, %g], want x [%g, %g] y [%g, %g]", p.Title.Text,
					got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3])
				break
			}
		}
	}
	file := t.TempDir() + "/curves.svg"
	if err := SavePlots(plots, 2, file); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "ugnn · Letter-high · low", "gin-topk · Letter-high · high", "ood_set_size"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

// sensitivityTable is a SensitivityTable's layout by hand: tau on the
// rows, two dataset × ratio columns of accuracy, one empty cell and a
// chance row whose label is not a number.
func sensitivityTable() *table.Table {
	cell := func(m, s float64) *table.Cell { return &table.Cell{Mean: m, Std: s, N: 3} }
	return &table.Table{
		Title:     "Sensitivity to tau",
		RowHeader: "tau",
		Columns: []table.Column{
			{Dataset: "Letter-high", Ratio: "low", Metric: "accuracy"},
			{Dataset: "COIL-DEL", Ratio: "high", Metric: "accuracy"},
		},
		Rows: []table.Row{{Key: "0.05", Label: "0.05"}, {Key: "0.1", Label: "0.1"}, {Key: "0.2", Label: "0.2"},
			{Key: reports.ChanceRow, Label: reports.ChanceRow, Reference: true, Group: 1}},
		Cells: [][]*table.Cell{
			{cell(0.40, 0.02), cell(0.30, 0.01)},
			{cell(0.45, 0.03), nil},
			{cell(0.43, 0.01), cell(0.35, 0.02)},
			{cell(0.10, 0), cell(0.05, 0)},
		},
	}
}

// TestSensitivityPlot writes the tau panel as SVG and PNG and checks each
// is a well-formed file of its format with the panel's content.
func TestSensitivityPlot(t *testing.T) {
	p, err := SensitivityPlot(sensitivityTable())
	if err != nil {
		t.Fatal(err)
	}
	if p.X.Min != 0.05 || p.X.Max != 0.2 || math.Abs(p.Y.Min-0.29) > 1e-9 || math.Abs(p.Y.Max-0.48) > 1e-9 {
		t.Errorf("x [%g, %g] y [%g, %g], want x [0.05, 0.2] y [0.29, 0.48] (the chance row is no point)", p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
	}
	dir := t.TempDir()
	svg := filepath.Join(dir, "sens.svg")
	if err := SavePlot(p, svg); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "Letter-high low", "COIL-DEL high", "tau", "accuracy"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	pngFile := filepath.Join(dir, "sens.png")
	if err := SavePlot(p, pngFile); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(pngFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w < 300 || h < 200 {
		t.Errorf("PNG is %d×%d; want a full panel", w, h)
	}
	if err := SavePlot(p, filepath.Join(dir, "sens.gif")); err == nil || !strings.Contains(err.Error(), "sens.gif") {
		t.Errorf("unknown extension: %v", err)
	}
	if err := SavePlots([]*plot.Plot{}, 1, filepath.Join(dir, "none.svg")); err == nil {
		t.Error("SavePlots of no panel: no error")
	}
	if _, err := SensitivityPlot(&table.Table{Title: "Classification accuracy"}); err == nil {
		t.Errorf("SensitivityPlot of an accuracy table: no error")
	}
}
