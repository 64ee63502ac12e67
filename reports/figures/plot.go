// Package figures draws the reports' figures with gonum/plot: the
// sensitivity panel of the paper's Figure 4 (SensitivityPlot), per-epoch
// curves (CurvePlots) and the t-SNE panels of its Figure 6 (TSNE,
// TSNEPlots), and saves panels as SVG, PNG or PDF (SavePlots). The numbers
// come from package reports; this package only maps and draws them.
package figures

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ugbench/ugbench/reports/table"
)

// PlotFormats returns the file extensions SavePlot writes.
func PlotFormats() []string { return []string{".svg", ".png", ".pdf"} }

// SensitivityPlot draws a SensitivityTable as a panel of the paper's
// Figure 4 (gonum/plot): x = the parameter's values, y = the metric, one
// line with markers per dataset × ratio column and a translucent band of
// mean ± std around it. Rows whose value is not a number, and empty cells,
// are skipped; a table with no plottable point is an error.
func SensitivityPlot(t *table.Table) (*plot.Plot, error) {
	if t == nil || t.RowHeader == "" {
		return nil, fmt.Errorf("figures: SensitivityPlot needs a SensitivityTable")
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
		if err := addBand(p, line, upper, lower, j, col.Dataset+" "+col.Ratio, true); err != nil {
			return nil, err
		}
	}
	if points == 0 {
		return nil, fmt.Errorf("figures: %s has no value to plot", t.Title)
	}
	return p, nil
}

// addBand adds to p a line through mean (markers when marks) in the i-th
// colour of plotutil's palette, a translucent band between upper and lower
// (index-aligned with mean), and a legend entry name.
func addBand(p *plot.Plot, mean, upper, lower plotter.XYs, i int, name string, marks bool) error {
	col := plotutil.Color(i)
	band := append(plotter.XYs{}, upper...)
	for k := len(lower) - 1; k >= 0; k-- {
		band = append(band, lower[k])
	}
	poly, err := plotter.NewPolygon(band)
	if err != nil {
		return err
	}
	r, g, b, _ := col.RGBA()
	poly.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 48}
	poly.LineStyle.Width = 0
	l, err := plotter.NewLine(mean)
	if err != nil {
		return err
	}
	l.Color = col
	l.Width = vg.Points(1.5)
	p.Add(poly, l)
	if !marks {
		p.Legend.Add(name, l)
		return nil
	}
	s, err := plotter.NewScatter(mean)
	if err != nil {
		return err
	}
	s.Color = col
	s.Shape = draw.CircleGlyph{}
	s.Radius = vg.Points(2.5)
	p.Add(s)
	p.Legend.Add(name, l, s)
	return nil
}

// SavePlot writes p to file, 12 × 9 cm; the extension chooses the format
// (PlotFormats). An unknown extension is an error naming the file.
func SavePlot(p *plot.Plot, file string) error { return SavePlots([]*plot.Plot{p}, 1, file) }

// SavePlots writes panels to file side by side, cols to a row (12 × 9 cm
// each), aligned on their axes; the extension chooses the format
// (PlotFormats). An unknown extension is an error naming the file.
func SavePlots(panels []*plot.Plot, cols int, file string) error {
	if len(panels) == 0 {
		return fmt.Errorf("plot file %s: no panel to draw", file)
	}
	ext := strings.ToLower(filepath.Ext(file))
	if !slices.Contains(PlotFormats(), ext) {
		return fmt.Errorf("plot file %s: want an extension of %s", file, strings.Join(PlotFormats(), ", "))
	}
	var buf bytes.Buffer
	if err := WritePlots(&buf, panels, cols, ext); err != nil {
		return fmt.Errorf("plot file %s: %w", file, err)
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("plot file %s: %w", file, err)
	}
	return nil
}

// WritePlots draws panels as SavePlots does and writes the figure to w in
// format, one of PlotFormats (".svg", ".png", ".pdf"): the HTML report
// inlines the SVG of a buffer.
func WritePlots(w io.Writer, panels []*plot.Plot, cols int, format string) error {
	if len(panels) == 0 {
		return fmt.Errorf("no panel to draw")
	}
	cols = max(1, min(cols, len(panels)))
	rows := (len(panels) + cols - 1) / cols
	wd, h := vg.Length(cols)*12*vg.Centimeter, vg.Length(rows)*9*vg.Centimeter
	var canvas interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch format {
	case ".svg":
		canvas = vgsvg.New(wd, h)
	case ".png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.New(wd, h)}
	case ".pdf":
		canvas = vgpdf.New(wd, h)
	default:
		return fmt.Errorf("figure format %q: want one of %s", format, strings.Join(PlotFormats(), ", "))
	}
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, cols)
		for c := range grid[r] {
			if i := r*cols + c; i < len(panels) {
				grid[r][c] = panels[i]
			}
		}
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	dc := draw.New(canvas)
	canvases := plot.Align(grid, tiles, dc)
	for r := range grid {
		for c, p := range grid[r] {
			if p != nil {
				p.Draw(canvases[r][c])
			}
		}
	}
	_, err := canvas.WriteTo(w)
	return err
}
