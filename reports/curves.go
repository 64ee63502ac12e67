package reports

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/ugbench/ugbench/reports/stats"
	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// CurveTables tabulates per-epoch curves (loss, ood_set_precision,
// ood_auroc_subgraph, ...) averaged over seeds: one table per (row label,
// dataset, ratio) group of rs, in the order of the rows of the paper's
// tables, with a row per epoch at which some run of the group has a point
// of one of names, and a column per name holding mean±std over the runs
// that have it (sample std, n−1 denominator). A cell averaging fewer than
// all runs of its group says so, "(n=2)"; NaN points are left out of the
// mean and counted, "(1 NaN)".
//
// curves maps a run id to its points (runs.Store.Curves). With no names,
// every curve name found in the group is tabulated, sorted. A name that
// no run of rs has is an error listing the names they do have; so is a
// selection without any curve point. x names the first column: "epoch",
// or "step" for curves whose Epoch holds optimizer steps (ByStep).
func CurveTables(rs []runs.Run, curves map[int64][]suite.CurvePoint, names []string, x string) ([]*table.Plain, error) {
	if _, err := curveNames(rs, curves, names); err != nil {
		return nil, err
	}
	order, groups := curveGroups(rs)

	var out []*table.Plain
	for _, k := range order {
		idx := groups[k]
		// point[name][epoch][run] = value (the last point a run stored there).
		point := map[string]map[int]map[int64]float64{}
		var seeds []int64
		for _, i := range idx {
			r := rs[i]
			seeds = append(seeds, r.Spec.Seed)
			for _, p := range curves[r.ID] {
				if point[p.Name] == nil {
					point[p.Name] = map[int]map[int64]float64{}
				}
				if point[p.Name][p.Epoch] == nil {
					point[p.Name][p.Epoch] = map[int64]float64{}
				}
				point[p.Name][p.Epoch][r.ID] = p.Value
			}
		}
		cols := names
		if len(cols) == 0 {
			cols = make([]string, 0, len(point))
			for n := range point {
				cols = append(cols, n)
			}
			sort.Strings(cols)
		}
		epochSet := map[int]bool{}
		for _, n := range cols {
			for e := range point[n] {
				epochSet[e] = true
			}
		}
		if len(epochSet) == 0 {
			continue // this group has none of the asked curves
		}
		epochs := make([]int, 0, len(epochSet))
		for e := range epochSet {
			epochs = append(epochs, e)
		}
		sort.Ints(epochs)
		slices.Sort(seeds)
		p := &table.Plain{
			Title:  fmt.Sprintf("%s · %s · %s (%s: %s)", k.label, k.dataset, k.ratio, plural(len(idx), "run"), seedList(seeds)),
			Header: append([]string{x}, cols...),
		}
		for _, e := range epochs {
			row := []string{fmt.Sprint(e)}
			for _, n := range cols {
				row = append(row, curveCell(point[n][e], len(idx)))
			}
			p.Rows = append(p.Rows, row)
		}
		out = append(out, p)
	}
	return out, nil
}

// curveGroup is a (row label, dataset, ratio) group of runs.
type curveGroup struct{ label, dataset, ratio string }

// curveGroups groups rs by (row label, dataset, ratio), in the order of the
// rows of the paper's tables; the map holds the indices in rs of each
// group's runs.
func curveGroups(rs []runs.Run) ([]curveGroup, map[curveGroup][]int) {
	labels := RowLabels(rs)
	groups := map[curveGroup][]int{}
	var order []curveGroup
	for i, r := range rs {
		k := curveGroup{labels[i], r.Spec.Dataset, r.Spec.RatioLabel()}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	lessLabel, lessDataset := lessRowLabel(defaultMethodOrder()), lessByOrder(DefaultDatasetOrder())
	sort.Slice(order, func(a, b int) bool {
		x, y := order[a], order[b]
		switch {
		case x.label != y.label:
			return lessLabel(x.label, y.label)
		case x.dataset != y.dataset:
			return lessDataset(x.dataset, y.dataset)
		}
		return lessRatio(x.ratio, y.ratio)
	})
	return order, groups
}

// curveNames checks names against the curve names of rs's points and
// returns them, or, for no names, every name the points have, sorted. The
// errors: no point at all, or a name no run has.
func curveNames(rs []runs.Run, curves map[int64][]suite.CurvePoint, names []string) ([]string, error) {
	have := map[string]bool{}
	for _, r := range rs {
		for _, p := range curves[r.ID] {
			have[p.Name] = true
		}
	}
	if len(have) == 0 {
		return nil, fmt.Errorf("curves: none of the %d selected run(s) stored a curve point", len(rs))
	}
	for _, n := range names {
		if !have[n] {
			return nil, fmt.Errorf("curve %q: no selected run has it; they have %s", n, strings.Join(sortedKeys(have), ", "))
		}
	}
	if len(names) == 0 {
		return sortedKeys(have), nil
	}
	return names, nil
}

// curveCell is mean±std of the numbers in vals (one per run), or the value
// alone when all runs agree (an integer without decimals), annotated
// with how many of the group's runs it averages when fewer than all, and
// how many NaN values it left out; "" when no run has a point there.
func curveCell(vals map[int64]float64, runsInGroup int) string {
	if len(vals) == 0 {
		return ""
	}
	var xs []float64
	nan := 0
	for _, v := range vals {
		if math.IsNaN(v) {
			nan++
			continue
		}
		xs = append(xs, v)
	}
	sort.Float64s(xs) // summation order independent of map order
	var notes []string
	if len(xs) < runsInGroup && len(xs) > 0 {
		notes = append(notes, fmt.Sprintf("n=%d", len(xs)))
	}
	if nan > 0 {
		notes = append(notes, fmt.Sprintf("%d NaN", nan))
	}
	var s string
	switch {
	case len(xs) == 0:
		s = "NaN"
	case xs[0] == xs[len(xs)-1]: // one value, or all runs agree (a cycle index, a set size)
		s = formatCurveValue(xs[0], xs[0])
		if xs[0] == math.Trunc(xs[0]) && math.Abs(xs[0]) < 1e15 {
			s = fmt.Sprintf("%.0f", xs[0])
		}
	default:
		m, sd := stats.MeanStd(xs)
		s = formatCurveValue(m, m) + "±" + formatCurveValue(sd, m)
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, ", ") + ")"
	}
	return s
}

// formatCurveValue prints v with decimals chosen by the magnitude of ref
// (the mean, so a mean and its std share them): 3 below 10, 1 below 1000,
// none above; curves hold both losses and graph counts in the thousands.
func formatCurveValue(v, ref float64) string {
	switch a := math.Abs(ref); {
	case a < 10:
		return fmt.Sprintf("%.3f", v)
	case a < 1000:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

// seedList is "seed 3" or "seeds 0,1,2".
func seedList(seeds []int64) string {
	s := make([]string, len(seeds))
	for i, v := range seeds {
		s[i] = fmt.Sprint(v)
	}
	if len(s) == 1 {
		return "seed " + s[0]
	}
	return "seeds " + strings.Join(s, ",")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// StepsCurve is the curve of the optimizer steps a method took in each
// epoch (gin-topk & co., UGNN).
const StepsCurve = "steps"

// ByStep re-indexes one run's curve points by optimizer steps: the point of
// epoch e moves to the number of steps taken up to the end of e (the sum of
// the run's StepsCurve over epochs 1..e), so that runs of different batch
// sizes line up. A point of an epoch with no StepsCurve value before or at
// it (e.g. logged before the first epoch) keeps the steps of the last
// epoch before it; a run without StepsCurve is an error.
func ByStep(points []suite.CurvePoint) ([]suite.CurvePoint, error) {
	perEpoch := map[int]float64{}
	for _, p := range points {
		if p.Name == StepsCurve {
			perEpoch[p.Epoch] = p.Value
		}
	}
	if len(perEpoch) == 0 {
		return nil, fmt.Errorf("no %q curve to count optimizer steps by", StepsCurve)
	}
	epochs := slices.Sorted(maps.Keys(perEpoch))
	cum := make(map[int]int, len(epochs))
	total := 0.0
	for _, e := range epochs {
		total += perEpoch[e]
		cum[e] = int(total)
	}
	out := make([]suite.CurvePoint, 0, len(points))
	for _, p := range points {
		steps := 0
		for _, e := range epochs { // the last epoch with steps at or before p's
			if e > p.Epoch {
				break
			}
			steps = cum[e]
		}
		out = append(out, suite.CurvePoint{Epoch: steps, Name: p.Name, Value: p.Value})
	}
	return out, nil
}

// CurvePanel is one curve name's data for a figure: a series per (row
// label, dataset, ratio) group of the runs, in the order of the rows of
// the paper's tables (the same groups, in the same order, for every panel
// of one call to CurvePanels, so that a group keeps its colour).
type CurvePanel struct {
	Name   string
	Series []CurveSeries
}

// CurveSeries is one group's line: at each epoch (ascending) at which a
// run of the group has a finite point, the mean and sample std over the
// runs' last values there (NaN and infinite points left out). A group
// without such a point has no epochs.
type CurveSeries struct {
	// Label is "row label · dataset · ratio".
	Label     string
	Epochs    []int
	Mean, Std []float64
}

// CurvePanels is the data of what CurveTables prints, for figures: one
// panel per curve name (names, or every name the runs have, sorted). Errors
// as CurveTables's: no curve point at all, or a name no run has.
func CurvePanels(rs []runs.Run, curves map[int64][]suite.CurvePoint, names []string) ([]CurvePanel, error) {
	names, err := curveNames(rs, curves, names)
	if err != nil {
		return nil, err
	}
	order, groups := curveGroups(rs)
	var out []CurvePanel
	for _, name := range names {
		panel := CurvePanel{Name: name}
		for _, k := range order {
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
			s := CurveSeries{Label: k.label + " · " + k.dataset + " · " + k.ratio}
			for _, e := range slices.Sorted(maps.Keys(byEpoch)) {
				var vals []float64
				for _, v := range byEpoch[e] {
					if !math.IsNaN(v) && !math.IsInf(v, 0) {
						vals = append(vals, v)
					}
				}
				if len(vals) == 0 {
					continue
				}
				m, sd := stats.MeanStd(vals)
				s.Epochs = append(s.Epochs, e)
				s.Mean = append(s.Mean, m)
				s.Std = append(s.Std, sd)
			}
			panel.Series = append(panel.Series, s)
		}
		out = append(out, panel)
	}
	return out, nil
}
