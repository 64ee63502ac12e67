// Package table is the reports' table model and its rendering: a Table of
// Cells (one metric aggregated over seeds, keyed by row, dataset and
// ratio) with the Warnings of their aggregation, and Render's text,
// GitHub Markdown, LaTeX (booktabs) and long-format CSV; a Plain table of
// ready-made strings renders the same ways (RenderPlain). It knows nothing
// of runs: package reports fills the tables.
package table

import (
	"math"
	"strconv"
	"strings"

	"github.com/ugbench/ugbench/suite"
)

// Key identifies one table cell.
type Key struct {
	// Method is the row label: the method's registry name, followed by the
	// hyper-parameters that tell its configurations apart when runs of the
	// method in one cell differ in Params, e.g. "gin-topk (lr=0.01)".
	Method string
	// Dataset is the dataset's name, e.g. "COIL-DEL".
	Dataset string
	// Ratio is the ratio label of suite.RunSpec.RatioLabel: "low", "high"
	// or a number such as "0.05".
	Ratio string
}

// String is "method/dataset/ratio", the prefix of a cell's warnings.
func (k Key) String() string { return k.Method + "/" + k.Dataset + "/" + k.Ratio }

// Cell is one metric aggregated over the seeds of one (method, dataset,
// ratio). Only finished runs whose metric is a number contribute.
type Cell struct {
	Key
	// Base is the method's registry name (Key.Method without the
	// hyper-parameter suffix); tables order rows by it.
	Base string
	// Metric is the aggregated metric's name, e.g. suite.MetricAccuracy.
	Metric string
	// Mean is the mean over the N contributing seeds.
	Mean float64
	// Std is the sample standard deviation (n−1 denominator); it is 0 when
	// N is 1, which SingleSeed flags.
	Std float64
	// N is the number of contributing seeds (at least 1).
	N int
	// Seeds are the contributing run seeds and SplitSeeds their split
	// seeds, index-aligned, ordered by (split seed, run seed): a seed of a
	// cell is one (split seed, run seed) pair.
	Seeds, SplitSeeds []int64
	// Values are the contributing values, index-aligned with Seeds.
	Values []float64
	// NaN is the number of seeds excluded because their finished run
	// reported NaN for the metric.
	NaN int
	// Exact marks a value that is an expectation, not a sample (the chance
	// row over one split): it is shown without std or seed count.
	Exact bool
}

// SingleSeed reports whether the cell has one seed only, so Std is 0 by
// convention rather than measured.
func (c Cell) SingleSeed() bool { return c.N == 1 }

// Warning is a problem found while aggregating: seeds missing from a cell,
// NaN values, several finished runs of one seed, or one cell pooling runs of
// different configurations or computed by different CPU kernels.
type Warning struct {
	// Key is the cell the warning is about.
	Key Key
	// Text says what is wrong, without the cell prefix.
	Text string
}

// String is "method/dataset/ratio: text", e.g.
// "gin-topk/COIL-DEL/low: 1 of 3 seeds missing (seed 2 failed)".
func (w Warning) String() string {
	if w.Key == (Key{}) {
		return w.Text
	}
	return w.Key.String() + ": " + w.Text
}

// Table is a results table: rows are methods, columns are dataset × ratio
// (× an optional sub-column), and each cell is one metric aggregated over
// seeds. Package reports builds them (AccuracyTable, F1Table, ...); print
// one with Render.
type Table struct {
	// Title is a short name, e.g. "Classification accuracy".
	Title string
	// Caption describes the table; LaTeX uses it as \caption (Title when
	// empty).
	Caption string
	// Label is the LaTeX \label, e.g. "tab:main_results" ("" = none).
	Label string
	// Rows are the table's rows, in display order.
	Rows []Row
	// Columns are the value columns, in display order, grouped by
	// (Dataset, Ratio).
	Columns []Column
	// Cells are indexed [row][column]; nil means no value (no run, or no
	// finished seed).
	Cells [][]*Cell
	// Warnings are the aggregation warnings of the table's cells, in table
	// order. Render prints them below the table in every format but CSV.
	Warnings []Warning
	// RowHeader names the row labels' column ("" = "Method"); the
	// sensitivity table's rows are a parameter's values. CSV output then
	// names its first column so and writes the row labels.
	RowHeader string
	// Notes say which rows' columns were run under different
	// configurations, e.g. a smaller epoch budget on one dataset (see
	// columnConfigNotes). Render prints them below the table, before the
	// warnings, in every format but CSV.
	Notes []string
	// BestPerRow makes IsBest compare a cell with the other cells of its
	// row in the same (dataset, ratio) column group rather than with its
	// column: the best unknown score of a method (ScorersTable).
	BestPerRow bool
}

// Row is one table row: one method configuration.
type Row struct {
	// Key is the row's label in the cells' Key.Method, e.g.
	// "gin-topk (lr=0.01)".
	Key string
	// Label is what the row shows: Key, with the method's name replaced by
	// Options.Names when it has one.
	Label string
	// Method is the registry name, e.g. "gin-topk".
	Method string
	// Group is the row's group; renderers draw a rule between rows of
	// different groups, as the paper does between method families.
	Group int
	// Reference marks a row that is no method's (the chance row): it never
	// counts as a column's best.
	Reference bool
}

// Column is one value column.
type Column struct {
	// Dataset is the dataset's name.
	Dataset string
	// Ratio is the ratio label: "low", "high" or a number.
	Ratio string
	// Sub is the sub-column's name ("" = none), e.g. "Overall" or
	// "Unknown" in the ablation table.
	Sub string
	// Metric is the metric the column shows.
	Metric string
}

// rowHeader is the row labels' column name.
func (t *Table) rowHeader() string {
	if t.RowHeader != "" {
		return t.RowHeader
	}
	return "Method"
}

// IsBest reports whether the cell at (row, col) has the column's best mean
// as displayed (rounded to 3 decimals, so ties are all best): the highest,
// or the lowest when LowerIsBetter(the column's metric). A column with fewer
// than two values has no best. With BestPerRow, the cell competes with its
// row's cells of the same (dataset, ratio) instead of its column's.
func (t *Table) IsBest(row, col int) bool {
	if t.BestPerRow {
		return t.isBestInRow(row, col)
	}
	c := t.Cells[row][col]
	if c == nil {
		return false
	}
	better := math.Max
	best := math.Inf(-1)
	if LowerIsBetter(t.Columns[col].Metric) {
		better, best = math.Min, math.Inf(1)
	}
	if t.Rows[row].Reference {
		return false
	}
	n := 0
	for i := range t.Rows {
		if o := t.Cells[i][col]; o != nil && !t.Rows[i].Reference {
			n++
			best = better(best, round3(o.Mean))
		}
	}
	return n >= 2 && round3(c.Mean) == best
}

// isBestInRow is IsBest among the cells of row in col's (dataset, ratio)
// group.
func (t *Table) isBestInRow(row, col int) bool {
	c := t.Cells[row][col]
	if c == nil || t.Rows[row].Reference {
		return false
	}
	better := math.Max
	best := math.Inf(-1)
	if LowerIsBetter(t.Columns[col].Metric) {
		better, best = math.Min, math.Inf(1)
	}
	n := 0
	for j, o := range t.Cells[row] {
		if o != nil && t.Columns[j].Dataset == t.Columns[col].Dataset && t.Columns[j].Ratio == t.Columns[col].Ratio {
			n++
			best = better(best, round3(o.Mean))
		}
	}
	return n >= 2 && round3(c.Mean) == best
}

// LowerIsBetter reports whether a lower value of metric is the better one,
// so that tables bold the column's lowest mean: true for durations, the
// metrics whose name ends in "_seconds" (suite.EpochSecondsMetric, wall
// seconds per epoch) or contains "_seconds_" (its per-phase medians,
// epoch_seconds_<phase>), and fpr95 and du_fpr95 (the fraction of unknown
// graphs accepted at 95% known recall) under any score, and the peak
// memory (suite.PeakMemoryMetric); false for the scores
// (accuracy, F1, AUROC, …), where higher is better.
func LowerIsBetter(metric string) bool {
	if _, m := suite.SplitScorerMetric(metric); strings.TrimPrefix(m, suite.PrefixDU) == suite.MetricFPR95 {
		return true
	}
	return strings.HasSuffix(metric, "_seconds") || strings.Contains(metric, "_seconds_") || metric == suite.PeakMemoryMetric
}

// round3 rounds to the 3 decimals the tables show, exactly as displayed.
func round3(x float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 3, 64), 64)
	return r
}
