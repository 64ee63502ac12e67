package reports

import (
	"fmt"
	"math"
	"sort"

	"github.com/ugbench/ugbench/reports/stats"
	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// BinnedCurveTable is the table the protocol's step budget is read from
// (docs/protocol.md §5): one curve (e.g. du_closed_acc) of every (row
// label, dataset, ratio) group of rs, binned along x into the ranges
// [edges[i], edges[i+1]). A cell is the mean over the group's runs of each
// run's mean of its finite points in the range, "(n=1)" when fewer runs
// than the group's have one, "–" when none has. The last column is the
// mean of each run's last finite point (its final value). Points outside
// [edges[0], edges[len−1]) fall in no bin.
//
// curves maps a run id to its points, by optimizer steps for a budget
// (ByStep) or by epoch; x names that axis in the title. Errors: fewer than
// two edges or edges not strictly increasing, and CurveTables's for name.
func BinnedCurveTable(rs []runs.Run, curves map[int64][]suite.CurvePoint, name string, edges []int, x string) (*table.Plain, error) {
	if len(edges) < 2 || !sort.SliceIsSorted(edges, func(i, j int) bool { return edges[i] <= edges[j] }) || hasRepeat(edges) {
		return nil, fmt.Errorf("bins %v: want two or more strictly increasing %ss", edges, x)
	}
	if _, err := curveNames(rs, curves, []string{name}); err != nil {
		return nil, err
	}
	header := []string{"row", "dataset", "ratio", "n"}
	for i := 1; i < len(edges); i++ {
		header = append(header, fmt.Sprintf("%d–%d", edges[i-1], edges[i]))
	}
	p := &table.Plain{Title: fmt.Sprintf("%s by %s: mean over runs of each run's mean in the range", name, x),
		Header: append(header, "final")}
	order, groups := curveGroups(rs)
	for _, k := range order {
		bins := make([][]float64, len(edges)-1) // per bin, one mean per run
		var final []float64
		for _, i := range groups[k] {
			sum := make([]float64, len(bins))
			cnt := make([]int, len(bins))
			last, lastX := math.NaN(), math.MinInt
			for _, pt := range curves[rs[i].ID] {
				if pt.Name != name || math.IsNaN(pt.Value) || math.IsInf(pt.Value, 0) {
					continue
				}
				if pt.Epoch >= lastX {
					last, lastX = pt.Value, pt.Epoch
				}
				if b := sort.SearchInts(edges, pt.Epoch+1) - 1; b >= 0 && b < len(bins) {
					sum[b] += pt.Value
					cnt[b]++
				}
			}
			for b := range bins {
				if cnt[b] > 0 {
					bins[b] = append(bins[b], sum[b]/float64(cnt[b]))
				}
			}
			if !math.IsNaN(last) {
				final = append(final, last)
			}
		}
		n := len(groups[k])
		row := []string{k.label, k.dataset, k.ratio, fmt.Sprint(n)}
		for _, vals := range append(bins, final) {
			row = append(row, binCell(vals, n))
		}
		p.Rows = append(p.Rows, row)
	}
	return p, nil
}

// binCell is the mean of vals to 3 decimals, noting how many runs it
// averages when fewer than n; "–" for none.
func binCell(vals []float64, n int) string {
	if len(vals) == 0 {
		return "–"
	}
	m, _ := stats.MeanStd(vals)
	s := fmt.Sprintf("%.3f", m)
	if len(vals) < n {
		s += fmt.Sprintf(" (n=%d)", len(vals))
	}
	return s
}

func hasRepeat(xs []int) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i] == xs[i-1] {
			return true
		}
	}
	return false
}
