package reports

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/ugbench/ugbench/reports/stats"
	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
)

// Tests Compare can run on a cell (CompareOptions.Test).
const (
	// TestAuto runs TestPaired when both sides of a cell have the same
	// repetitions (seed pairs: split seed and run seed, PairOf), else
	// TestU.
	TestAuto = "auto"
	// TestU is the two-sided Mann-Whitney U test (exact distribution for
	// small samples), as benchstat's default.
	TestU = "utest"
	// TestPaired is the two-sided paired t-test on the per-repetition
	// differences new − old.
	TestPaired = "paired"
)

// DefaultAlpha is the significance level of Compare and Check.
const DefaultAlpha = 0.05

// Verdict is what a comparison concludes about one cell.
type Verdict int

const (
	// Changed: the test's p-value is below alpha.
	Changed Verdict = iota
	// Unchanged: p ≥ alpha with enough seeds for the test to have
	// reached alpha; printed "~" as benchstat does.
	Unchanged
	// TooFewSeeds: the test could not reach p < alpha with so few seeds
	// whatever the values (3 vs 3 seeds: the U test's smallest p is 0.1).
	TooFewSeeds
	// Missing: one side has no value for the cell.
	Missing
)

// CompareOptions controls Compare.
type CompareOptions struct {
	// Metrics are the metrics compared, one section each (nil =
	// accuracy and ood_f1).
	Metrics []string
	// Alpha is the significance level (0 = DefaultAlpha).
	Alpha float64
	// Test is TestAuto (""), TestU or TestPaired. TestPaired on a cell
	// whose sides do not share their repetitions falls back to TestU
	// with a warning.
	Test string
	// OldScore and NewScore are the unknown scores the sides read (Side.Score;
	// "" = NativeScore): each side aggregates ScoredMetric(its score, m)
	// for every compared metric m. When both sides hold the same runs, a
	// cell's seeds are the same runs on both sides, so the test pairs
	// them run by run.
	OldScore, NewScore string
}

// Comparison is one cell of one metric, old against new.
type Comparison struct {
	// Key is the cell; both sides' runs were aligned (AlignSides) so that
	// the same key names the same cell on both.
	Key table.Key
	// Metric is the compared metric.
	Metric string
	// Old and New are the sides' cells; nil when a side has no value.
	Old, New *table.Cell
	// Delta is New.Mean − Old.Mean (NaN when a side is missing).
	Delta float64
	// Test is the test run: TestU or TestPaired ("" when Missing).
	Test string
	// P is the test's two-sided p-value; NaN when no test ran.
	P float64
	// Verdict is the conclusion at the options' alpha.
	Verdict Verdict
	// Need is, for TooFewSeeds, the seeds per side the test needs.
	Need int
}

// Relative is Delta / |Old.Mean| (NaN when undefined).
func (c Comparison) Relative() float64 {
	if c.Old == nil || c.New == nil || c.Old.Mean == 0 {
		return math.NaN()
	}
	return c.Delta / math.Abs(c.Old.Mean)
}

// Compare compares metric by metric the cells of two selections of runs
// (docs/protocol.md §4 cells: method × dataset × ratio, with row labels as the
// tables make them) and tests each pair of cells, as benchstat does for
// benchmarks. Runs are aligned by the caller (AlignSides) so that the
// cells to compare share a Key. It returns the comparisons of every
// metric in options order, cells in table order, and the warnings: the
// aggregation warnings of each side (prefixed "old:" / "new:") and the
// test fallbacks, after a first warning when the two sides were computed
// by different kernels (ComputeLabel), whose change is then the code's and
// the kernels' together.
func Compare(oldRuns, newRuns []runs.Run, opts CompareOptions) ([]Comparison, []table.Warning, error) {
	alpha := opts.Alpha
	if alpha == 0 {
		alpha = DefaultAlpha
	}
	if !(alpha > 0 && alpha < 1) {
		return nil, nil, fmt.Errorf("alpha %g: want 0 < alpha < 1", alpha)
	}
	switch opts.Test {
	case "", TestAuto, TestU, TestPaired:
	default:
		return nil, nil, fmt.Errorf("test %q: want %s, %s or %s", opts.Test, TestAuto, TestU, TestPaired)
	}
	metrics := opts.Metrics
	if len(metrics) == 0 {
		metrics = DefaultCompareMetrics()
	}
	var out []Comparison
	perMetric := map[string][]table.Warning{}
	for _, m := range metrics {
		oldCells, ow := Aggregate(oldRuns, ScoredMetric(opts.OldScore, m))
		newCells, nw := Aggregate(newRuns, ScoredMetric(opts.NewScore, m))
		perMetric[m] = append(prefixWarnings("old", ow), prefixWarnings("new", nw)...)
		keys := map[table.Key]bool{}
		for k := range oldCells {
			keys[k] = true
		}
		for k := range newCells {
			keys[k] = true
		}
		var cells []Comparison
		for k := range keys {
			var o, n *table.Cell
			if c, ok := oldCells[k]; ok {
				o = &c
			}
			if c, ok := newCells[k]; ok {
				n = &c
			}
			cmp, w := compareCells(k, m, o, n, alpha, opts.Test)
			if w != "" {
				perMetric[m] = append(perMetric[m], table.Warning{Key: k, Text: w})
			}
			cells = append(cells, cmp)
		}
		sortComparisons(cells)
		out = append(out, cells...)
	}
	warns := mergeMetricWarnings(metrics, perMetric)
	if kw := kernelsWarning("old", ComputedWith(oldRuns), "new", ComputedWith(newRuns)); kw != "" {
		warns = append([]table.Warning{{Text: kw}}, warns...)
	}
	return out, warns, nil
}

// mergeMetricWarnings lists the warnings of several metrics once each: a
// warning raised for every metric as is, one raised for some metrics only
// once per metric, prefixed "metric: "; sorted in table order.
func mergeMetricWarnings(metrics []string, perMetric map[string][]table.Warning) []table.Warning {
	count := map[table.Warning]int{}
	var order []table.Warning
	for _, m := range metrics {
		seen := map[table.Warning]bool{}
		for _, w := range perMetric[m] {
			if seen[w] {
				continue
			}
			seen[w] = true
			if count[w] == 0 {
				order = append(order, w)
			}
			count[w]++
		}
	}
	var out []table.Warning
	for _, w := range order {
		if count[w] == len(metrics) {
			out = append(out, w)
			continue
		}
		for _, m := range metrics {
			for _, x := range perMetric[m] {
				if x == w {
					out = append(out, table.Warning{Key: w.Key, Text: m + ": " + w.Text})
					break
				}
			}
		}
	}
	sortWarnings(out, nil, nil)
	return out
}

// DefaultCompareMetrics returns the metrics Compare and Check use when given
// none: the paper's two headline tables.
func DefaultCompareMetrics() []string { return []string{"accuracy", "ood_f1"} }

func prefixWarnings(side string, ws []table.Warning) []table.Warning {
	out := make([]table.Warning, len(ws))
	for i, w := range ws {
		out[i] = table.Warning{Key: w.Key, Text: side + ": " + w.Text}
		if w.Key == (table.Key{}) {
			out[i].Text = side + " runs: " + w.Text
		}
	}
	return out
}

// sortComparisons puts cells in the tables' order: row, dataset, ratio.
func sortComparisons(cs []Comparison) {
	lessRow := lessRowLabel(defaultMethodOrder())
	lessDS := lessByOrder(DefaultDatasetOrder())
	sort.Slice(cs, func(i, j int) bool {
		a, b := cs[i].Key, cs[j].Key
		if a.Method != b.Method {
			return lessRow(a.Method, b.Method)
		}
		if a.Dataset != b.Dataset {
			return lessDS(a.Dataset, b.Dataset)
		}
		return lessRatio(a.Ratio, b.Ratio)
	})
}

// compareCells tests one pair of cells; the string is a warning ("" =
// none).
func compareCells(k table.Key, metric string, o, n *table.Cell, alpha float64, test string) (Comparison, string) {
	c := Comparison{Key: k, Metric: metric, Old: o, New: n, Delta: math.NaN(), P: math.NaN()}
	if o == nil || n == nil {
		c.Verdict = Missing
		return c, ""
	}
	c.Delta = n.Mean - o.Mean
	paired := sameSeeds(o, n)
	var warn string
	switch test {
	case TestU:
		paired = false
	case TestPaired:
		if !paired {
			warn = "the sides do not share their seeds; unpaired U test instead of the paired test"
		}
	}
	if paired {
		c.Test = TestPaired
		c.P = stats.PairedP(o.Values, n.Values)
		if need := stats.PairedNeed(alpha); o.N < need {
			c.Verdict, c.Need = TooFewSeeds, need
			return c, warn
		}
	} else {
		c.Test = TestU
		c.P = stats.UTestP(o.Values, n.Values)
		if stats.MinUTestP(o.N, n.N) > alpha {
			c.Verdict, c.Need = TooFewSeeds, stats.UTestNeed(alpha)
			return c, warn
		}
	}
	if c.P < alpha {
		c.Verdict = Changed
	} else {
		c.Verdict = Unchanged
	}
	return c, warn
}

// sameSeeds reports whether cells a and b (seeds ordered by seed pair, as
// Aggregate makes them) hold the same seed pairs (PairOf: split seed, run
// seed), so that their values pair up index by index. This is where
// Compare decides that two sides share their splits and initialisations.
func sameSeeds(a, b *table.Cell) bool {
	if len(a.Seeds) != len(b.Seeds) || len(a.Seeds) == 0 {
		return false
	}
	for i := range a.Seeds {
		if a.Seeds[i] != b.Seeds[i] || splitOf(a, i) != splitOf(b, i) {
			return false
		}
	}
	return true
}

// splitOf is the split seed of c's i-th seed (0 when c has none recorded).
func splitOf(c *table.Cell, i int) int64 {
	if i < len(c.SplitSeeds) {
		return c.SplitSeeds[i]
	}
	return 0
}

// String is how tables show the verdict: "~", "too few seeds (need ≥ 4)",
// "missing in old|new", or the change "+0.021 (+3.4%)".
func (c Comparison) String() string {
	switch c.Verdict {
	case Unchanged:
		return "~"
	case TooFewSeeds:
		return fmt.Sprintf("too few seeds (need ≥ %d)", c.Need)
	case Missing:
		switch {
		case c.Old == nil && c.New == nil:
			return "missing"
		case c.Old == nil:
			return "missing in old"
		}
		return "missing in new"
	}
	return c.ChangeText()
}

// ChangeColumn is the compare table's change column: String, except that a
// cell too small to judge shows its change too, "+0.090 (+20.3%); too few
// seeds to judge (need ≥ 4)", so that three seeds a side still read as
// numbers next to the test's p.
func (c Comparison) ChangeColumn() string {
	if c.Verdict == TooFewSeeds && !math.IsNaN(c.Delta) {
		return fmt.Sprintf("%s; too few seeds to judge (need ≥ %d)", c.ChangeText(), c.Need)
	}
	return c.String()
}

// ChangeText is the change as "+0.021 (+3.4%)" whatever the verdict.
func (c Comparison) ChangeText() string {
	if math.IsNaN(c.Delta) {
		return ""
	}
	s := signed(c.Delta, 3)
	if rel := c.Relative(); !math.IsNaN(rel) {
		s += " (" + signed(100*rel, 1) + "%)"
	}
	return s
}

// signed formats x with an explicit sign and prec decimals.
func signed(x float64, prec int) string {
	s := strconv.FormatFloat(x, 'f', prec, 64)
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// PText is "p=0.029 n=4+4 (utest)", or "" when no test ran.
func (c Comparison) PText() string {
	if c.Old == nil || c.New == nil {
		return ""
	}
	return fmt.Sprintf("p=%.3f n=%d+%d (%s)", c.P, c.Old.N, c.New.N, c.Test)
}

// CompareTables lays comparisons out as one Plain table per metric:
// method, dataset, ratio, old mean±std, new mean±std, change (or "~", or
// why the cell cannot be judged), and the p-value with the seed counts and
// the test. Titles name the metric and the sides.
func CompareTables(cs []Comparison, oldName, newName string) []*table.Plain {
	var out []*table.Plain
	var cur *table.Plain
	for _, c := range cs {
		if cur == nil || cur.Title != compareTitle(c.Metric, oldName, newName) {
			cur = &table.Plain{
				Title:  compareTitle(c.Metric, oldName, newName),
				Header: []string{"method", "dataset", "ratio", "old", "new", "change", "test"},
			}
			out = append(out, cur)
		}
		cur.Rows = append(cur.Rows, []string{
			c.Key.Method, c.Key.Dataset, c.Key.Ratio,
			table.MeanStdText(c.Old), table.MeanStdText(c.New), c.ChangeColumn(), c.PText(),
		})
	}
	return out
}

func compareTitle(metric, oldName, newName string) string {
	return fmt.Sprintf("%s: old = %s, new = %s", metric, oldName, newName)
}
