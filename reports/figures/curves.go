package figures

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/ugbench/ugbench/reports"
)

// CurvePlots draws what reports.CurveTables prints: one panel per
// reports.CurvePanel, x = the points' Epoch, labelled x ("epoch", or
// "step" after reports.ByStep), a line per series with the mean over the
// group's runs at each epoch and a band of ± the sample std; a series
// keeps its colour across panels.
func CurvePlots(panels []reports.CurvePanel, x string) ([]*plot.Plot, error) {
	var out []*plot.Plot
	for _, panel := range panels {
		p := plot.New()
		p.Title.Text = panel.Name
		p.X.Label.Text = x
		p.Y.Label.Text = panel.Name
		p.Legend.Top = true
		p.Add(plotter.NewGrid())
		for i, s := range panel.Series {
			if len(s.Epochs) == 0 {
				continue
			}
			var mean, upper, lower plotter.XYs
			for k, e := range s.Epochs {
				at, m, sd := float64(e), s.Mean[k], s.Std[k]
				mean = append(mean, plotter.XY{X: at, Y: m})
				upper = append(upper, plotter.XY{X: at, Y: m + sd})
				lower = append(lower, plotter.XY{X: at, Y: m - sd})
			}
			if err := addBand(p, mean, upper, lower, i, s.Label, len(mean) <= 20); err != nil {
				return nil, err
			}
		}
		out = append(out, p)
	}
	return out, nil
}
