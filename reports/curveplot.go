package reports

import (
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/ugbench/ugbench/reports/stats"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// CurvePlots draws what CurveTables prints (gonum/plot): one panel per
// curve name (names, or every name the runs have, sorted), x = the points'
// Epoch, labelled x ("epoch", or "step" after ByStep), a
// line per (row label, dataset, ratio) group with the mean over the
// group's runs at each epoch and a band of ± the sample std (NaN points
// left out). Errors as CurveTables's: no curve point at all, or a name no
// run has.
func CurvePlots(rs []runs.Run, curves map[int64][]suite.CurvePoint, names []string, x string) ([]*plot.Plot, error) {
	names, err := curveNames(rs, curves, names)
	if err != nil {
		return nil, err
	}
	order, groups := curveGroups(rs)

	var out []*plot.Plot
	for _, name := range names {
		p := plot.New()
		p.Title.Text = name
		p.X.Label.Text = x
		p.Y.Label.Text = name
		p.Legend.Top = true
		p.Add(plotter.NewGrid())
		for gi, k := range order {
			// byEpoch[epoch][run] = the last value a run stored there.
			byEpoch := map[int]map[int64]float64{}
			for _, i := range groups[k] {
				for _, pt := range curves[rs[i].ID] {
					if pt.Name != name {
						continue
					}
					if byEpoch[pt.Epoch] == nil {
						byEpoch[pt.Epoch] = map[int64]float64{}
					}
					byEpoch[pt.Epoch][rs[i].ID] = pt.Value
				}
			}
			epochs := make([]int, 0, len(byEpoch))
			for e := range byEpoch {
				epochs = append(epochs, e)
			}
			sort.Ints(epochs)
			var mean, upper, lower plotter.XYs
			for _, e := range epochs {
				var vals []float64
				for _, v := range byEpoch[e] {
					if !math.IsNaN(v) && !math.IsInf(v, 0) {
						vals = append(vals, v)
					}
				}
				if len(vals) == 0 {
					continue
				}
				m, s := stats.MeanStd(vals)
				at := float64(e)
				mean = append(mean, plotter.XY{X: at, Y: m})
				upper = append(upper, plotter.XY{X: at, Y: m + s})
				lower = append(lower, plotter.XY{X: at, Y: m - s})
			}
			if len(mean) == 0 {
				continue
			}
			if err := addBand(p, mean, upper, lower, gi, k.label+" · "+k.dataset+" · "+k.ratio, len(mean) <= 20); err != nil {
				return nil, err
			}
		}
		out = append(out, p)
	}
	return out, nil
}
