package reports

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// PlotFormats are the file extensions SavePlot writes.
var PlotFormats = []string{".svg", ".png", ".pdf"}

// SensitivityPlot draws a SensitivityTable as a panel of the paper's
// Figure 4 (gonum/plot): x = the parameter's values, y = the metric, one
// line with markers per dataset × ratio column and a translucent band of
// mean ± std around it. Rows whose value is not a number, and empty cells,
// are skipped; a table with no plottable point is an error.
func SensitivityPlot(t *Table) (*plot.Plot, error) {
	if t == nil || t.RowHeader == "" {
		return nil, fmt.Errorf("reports: SensitivityPlot needs a SensitivityTable")
	}
	p := plot.New()
	p.Title.Text = t.Title
	p.X.Label.Text = t.RowHeader
	metric := ""
	if len(t.Columns) > 0 {
		metric = t.Columns[0].Metric
	}
	p.Y.Label.Text = metric
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	points := 0
	var ticks []plot.Tick
	for _, row := range t.Rows {
		if x, err := strconv.ParseFloat(row.Label, 64); err == nil {
			ticks = append(ticks, plot.Tick{Value: x, Label: row.Label})
		}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	for j, col := range t.Columns {
		var line, upper, lower plotter.XYs
		for i, row := range t.Rows {
			c := t.Cells[i][j]
			x, err := strconv.ParseFloat(row.Label, 64)
			if c == nil || err != nil || math.IsNaN(c.Mean) {
				continue
			}
			line = append(line, plotter.XY{X: x, Y: c.Mean})
			upper = append(upper, plotter.XY{X: x, Y: c.Mean + c.Std})
			lower = append(lower, plotter.XY{X: x, Y: c.Mean - c.Std})
		}
		if len(line) == 0 {
			continue
		}
		points += len(line)
		col0 := plotutil.Color(j)
		band := append(plotter.XYs{}, upper...)
		for k := len(lower) - 1; k >= 0; k-- {
			band = append(band, lower[k])
		}
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return nil, err
		}
		r, g, b, _ := col0.RGBA()
		poly.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 48}
		poly.LineStyle.Width = 0
		l, s, err := plotter.NewLinePoints(line)
		if err != nil {
			return nil, err
		}
		l.Color = col0
		l.Width = vg.Points(1.5)
		s.Color = col0
		s.Shape = draw.CircleGlyph{}
		s.Radius = vg.Points(2.5)
		p.Add(poly, l, s)
		p.Legend.Add(col.Dataset+" "+col.Ratio, l, s)
	}
	if points == 0 {
		return nil, fmt.Errorf("reports: %s has no value to plot", t.Title)
	}
	return p, nil
}

// SavePlot writes p to file, 12 × 9 cm; the extension chooses the format
// (PlotFormats). An unknown extension is an error naming the file.
func SavePlot(p *plot.Plot, file string) error {
	ext := strings.ToLower(filepath.Ext(file))
	ok := false
	for _, f := range PlotFormats {
		ok = ok || ext == f
	}
	if !ok {
		return fmt.Errorf("plot file %s: want an extension of %s", file, strings.Join(PlotFormats, ", "))
	}
	if err := p.Save(12*vg.Centimeter, 9*vg.Centimeter, file); err != nil {
		return fmt.Errorf("plot file %s: %w", file, err)
	}
	return nil
}
