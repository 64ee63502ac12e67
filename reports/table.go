package reports

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/ugbench/ugbench/reports/stats"
	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// ChanceRow is the key and label of the chance row (Options.Chance).
const ChanceRow = "chance"

// Options controls which runs a table shows and how. The zero value is the
// paper's layout with every method and dataset present in the runs.
type Options struct {
	// Title, Caption and Label replace the table's defaults when not "".
	Title, Caption, Label string
	// MethodOrder orders the rows by registry name (nil =
	// the registry's table order, suite.TableOrder); methods not in it come after, sorted.
	MethodOrder []string
	// Methods, when not nil, keeps only these methods (registry names) and
	// shows a row for each of them even when it has no run.
	Methods []string
	// DatasetOrder orders the column groups (nil = DefaultDatasetOrder);
	// datasets not in it come after, sorted.
	DatasetOrder []string
	// Datasets, when not nil, keeps only these datasets.
	Datasets []string
	// Names maps registry names to display names for the row labels, e.g.
	// PaperNames() ("gin-topk (lr=0.01)" → "GIN (lr=0.01)"). CSV output keeps
	// the registry names.
	Names map[string]string
	// Chance adds the chance row: per column, what a random unknown score
	// under the same threshold rule and a majority-class prediction reach
	// on the same test set (suite.ChanceMetrics, stored with every run as
	// chance_<metric>), mean ± std over the column's split seeds.
	Chance bool
	// Score is the unknown score the cells read (issue 28): NativeScore or
	// "" for the methods' own (the unprefixed metrics), else a post-hoc
	// scorer's label, whose metrics are stored as "label:metric"
	// (ScoredMetric). The default title, caption and label say which
	// score; the chance row is the same under every score.
	Score string
}

// subMetric is one sub-column of every dataset × ratio column.
type subMetric struct {
	name   string // "" for a table without sub-columns
	metric string
}

// tableDefaults are a builder's title, caption and label.
type tableDefaults struct {
	title, caption, label string
	methods               []string
	rowPerGroup           bool // each row its own group (ablation table)
}

// AccuracyTable is paper Table 2: the accuracy (docs/protocol.md §4) of every
// method on every dataset × ratio.
func AccuracyTable(rs []runs.Run, opts Options) *table.Table {
	return build(rs, []subMetric{{"", suite.MetricAccuracy}}, opts, tableDefaults{
		title:   "Classification accuracy",
		caption: "Classification accuracy of different labelling ratios (mean ± sample std over seeds).",
		label:   "tab:main_results",
	})
}

// F1Table is paper Table 3: the F1 score of OOD detection (positive =
// unknown) of every method on every dataset × ratio.
func F1Table(rs []runs.Run, opts Options) *table.Table {
	return build(rs, []subMetric{{"", suite.MetricOODF1}}, opts, tableDefaults{
		title:   "OOD detection F1",
		caption: "F1 score of OOD detection, positive = unknown (mean ± sample std over seeds).",
		label:   "tab:main_F1_AUC",
	})
}

// AblationTable is paper Table 4: rows are UGNN and its ablation variants
// (AblationRows, unless opts.Methods says otherwise, each row shown even
// without runs), columns are dataset × ratio, each with the sub-columns
// "Overall" (accuracy) and "Unknown" (unknown_acc).
func AblationTable(rs []runs.Run, opts Options) *table.Table {
	return build(rs, []subMetric{
		{"Overall", suite.MetricAccuracy},
		{"Unknown", suite.MetricUnknownAcc},
	}, opts, tableDefaults{
		title:       "Ablation",
		caption:     "Ablation studies: overall accuracy and accuracy on unknown classes (mean ± sample std over seeds).",
		label:       "tab:ablation",
		methods:     AblationRows(),
		rowPerGroup: true,
	})
}

// MetricTable is a table of any metric in the layout of paper Table 2, e.g.
// suite.MetricOODAUROC or suite.MetricKnownAcc.
func MetricTable(rs []runs.Run, metric string, opts Options) *table.Table {
	return build(rs, []subMetric{{"", metric}}, opts, tableDefaults{
		title:   metric,
		caption: metric + " (mean ± sample std over seeds).",
		label:   "tab:" + metric,
	})
}

// build lays out the cells of subs over the runs kept by opts.
func build(rs []runs.Run, subs []subMetric, opts Options, def tableDefaults) *table.Table {
	if suffix := scoreSuffix(opts.Score); suffix != "" {
		def.title += suffix
		def.caption += " Unknown score: " + opts.Score + "."
		def.label += "_" + opts.Score
		scored := make([]subMetric, len(subs))
		for i, s := range subs {
			scored[i] = subMetric{s.name, ScoredMetric(opts.Score, s.metric)}
		}
		subs = scored
	}
	t := &table.Table{
		Title:   pick(opts.Title, def.title),
		Caption: pick(opts.Caption, def.caption),
		Label:   pick(opts.Label, def.label),
	}
	methods := opts.Methods
	if methods == nil {
		methods = def.methods
	}
	methodOrder := opts.MethodOrder
	if methodOrder == nil {
		methodOrder = defaultMethodOrder()
	}
	datasetOrder := opts.DatasetOrder
	if datasetOrder == nil {
		datasetOrder = DefaultDatasetOrder()
	}

	keepMethod := set(methods)
	keepDataset := set(opts.Datasets)
	var kept []runs.Run
	for _, r := range rs {
		if (keepMethod == nil || keepMethod[r.Spec.Method]) && (keepDataset == nil || keepDataset[r.Spec.Dataset]) {
			kept = append(kept, r)
		}
	}

	// Rows: every label of the kept runs, plus listed methods without runs.
	labels := RowLabels(kept)
	rowSet := map[string]bool{}
	for _, l := range labels {
		rowSet[l] = true
	}
	for _, m := range methods {
		has := false
		for l := range rowSet {
			if baseOf(l) == m {
				has = true
				break
			}
		}
		if !has {
			rowSet[m] = true
		}
	}
	rowKeys := keys(rowSet)
	sort.Slice(rowKeys, func(i, j int) bool { return lessRowLabel(methodOrder)(rowKeys[i], rowKeys[j]) })
	for i, k := range rowKeys {
		base := baseOf(k)
		label := k
		if name, ok := opts.Names[base]; ok {
			label = name + k[len(base):]
		}
		group := family(base)
		if def.rowPerGroup {
			group = i
		}
		t.Rows = append(t.Rows, table.Row{Key: k, Label: label, Method: base, Group: group})
	}

	// Columns: every (dataset, ratio) of the kept runs × subs.
	colSet := map[column]bool{}
	for _, r := range kept {
		colSet[column{r.Spec.Dataset, r.Spec.RatioLabel()}] = true
	}
	cols := make([]column, 0, len(colSet))
	for c := range colSet {
		cols = append(cols, c)
	}
	lessDS := lessByOrder(datasetOrder)
	sort.Slice(cols, func(i, j int) bool {
		if cols[i].dataset != cols[j].dataset {
			return lessDS(cols[i].dataset, cols[j].dataset)
		}
		return lessRatio(cols[i].ratio, cols[j].ratio)
	})
	for _, c := range cols {
		for _, s := range subs {
			t.Columns = append(t.Columns, table.Column{Dataset: c.dataset, Ratio: c.ratio, Sub: s.name, Metric: s.metric})
		}
	}

	// Cells and warnings, per metric.
	cellsBy := map[string]map[table.Key]table.Cell{}
	warnMetrics := map[table.Warning][]string{}
	var warnOrder []table.Warning
	for _, s := range subs {
		if _, done := cellsBy[s.metric]; done {
			continue
		}
		cells, warns := Aggregate(kept, s.metric)
		cellsBy[s.metric] = cells
		for _, w := range warns {
			if _, seen := warnMetrics[w]; !seen {
				warnOrder = append(warnOrder, w)
			}
			warnMetrics[w] = append(warnMetrics[w], s.metric)
		}
	}
	t.Cells = make([][]*table.Cell, len(t.Rows))
	for i, row := range t.Rows {
		t.Cells[i] = make([]*table.Cell, len(t.Columns))
		for j, col := range t.Columns {
			if c, ok := cellsBy[col.Metric][table.Key{Method: row.Key, Dataset: col.Dataset, Ratio: col.Ratio}]; ok {
				t.Cells[i][j] = &c
			}
		}
	}
	// A warning raised for every metric is shown once; one raised for some
	// metrics only names them.
	for _, w := range warnOrder {
		if ms := warnMetrics[w]; len(ms) < len(cellsBy) {
			for _, m := range ms {
				t.Warnings = append(t.Warnings, table.Warning{Key: w.Key, Text: m + ": " + w.Text})
			}
			continue
		}
		t.Warnings = append(t.Warnings, w)
	}
	sortWarnings(t.Warnings, methodOrder, datasetOrder)
	t.Notes = columnConfigNotes(t, kept, labels)
	if scoreSuffix(opts.Score) != "" {
		quietUnscored(t, kept, opts.Score)
	}
	if opts.Chance {
		addChanceRow(t, kept, ChanceRow, ChanceRow, true)
	}
	return t
}

// addChanceRow appends a chance row (Options.Chance) with the given key and
// label, in a group of its own when newGroup (else in the last row's). A
// column's value is the chance_<metric> of its runs (the metric without
// its score: chance figures are the same under every score), one value per
// split seed (every run of a split shares it), mean ± sample std over
// the split seeds; Seeds lists them. Columns without chance figures (runs
// stored before protocol v2) stay empty, and so do columns whose runs of
// one split disagree (different α), with a note.
func addChanceRow(t *table.Table, kept []runs.Run, key, label string, newGroup bool) {
	row := make([]*table.Cell, len(t.Columns))
	for j, col := range t.Columns {
		_, metric := SplitScoredMetric(col.Metric)
		bySplit := map[int64]float64{}
		mixed := false
		for _, r := range kept {
			if r.Status != runs.StatusFinished || r.Spec.Dataset != col.Dataset || r.Spec.RatioLabel() != col.Ratio {
				continue
			}
			if v, ok := r.Metrics[suite.PrefixChance+metric]; ok && !math.IsNaN(v) {
				if old, seen := bySplit[r.Spec.SplitSeed]; seen && math.Abs(old-v) > 1e-12 {
					mixed = true
				}
				bySplit[r.Spec.SplitSeed] = v
			}
		}
		if mixed {
			// Runs of one split with different chance values were run
			// under different protocols (α): no single chance value.
			t.Notes = append(t.Notes, fmt.Sprintf("%s: no %s for %s %s: its runs differ in the protocol (α)", label, metric, col.Dataset, col.Ratio))
			continue
		}
		if len(bySplit) == 0 {
			continue
		}
		splits := sortedSeeds(bySplit)
		xs := make([]float64, len(splits))
		for i, s := range splits {
			xs[i] = bySplit[s]
		}
		mean, std := stats.MeanStd(xs)
		row[j] = &table.Cell{Key: table.Key{Method: key, Dataset: col.Dataset, Ratio: col.Ratio}, Base: ChanceRow, Metric: suite.PrefixChance + metric,
			Mean: mean, Std: std, N: len(xs), Seeds: splits, Exact: len(xs) == 1}
	}
	if !slices.ContainsFunc(row, func(c *table.Cell) bool { return c != nil }) {
		return // a metric without chance figures, e.g. epoch_seconds
	}
	group := 0
	if n := len(t.Rows); n > 0 {
		group = t.Rows[n-1].Group
		if newGroup {
			group++
		}
	}
	t.Rows = append(t.Rows, table.Row{Key: key, Label: label, Group: group, Reference: true})
	t.Cells = append(t.Cells, row)
}

func pick(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

// set is nil for a nil list.
func set(xs []string) map[string]bool {
	if xs == nil {
		return nil
	}
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
