package reports

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/ugbench/ugbench/reports/selection"
	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// NativeScore is the name of a method's own unknown score: its metrics are
// the unprefixed ones (accuracy, ood_auroc, …); suite.NativeScore.
const NativeScore = suite.NativeScore

// ScoredMetric is the stored name of metric under unknown score score
// (suite.ScorerMetric: metric itself for NativeScore or "", "score:metric"
// for a post-hoc scorer's label, docs/protocol.md §4.1). The chance
// figures (chance_*) are not stored per scorer, so a chance metric keeps
// its name under every score.
func ScoredMetric(score, metric string) string {
	if strings.HasPrefix(metric, suite.PrefixChance) {
		return metric
	}
	return suite.ScorerMetric(score, metric)
}

// SplitScoredMetric splits a stored metric name into its score and its
// metric (suite.SplitScorerMetric).
func SplitScoredMetric(name string) (score, metric string) { return suite.SplitScorerMetric(name) }

// Scorers lists the unknown scores present in rs: NativeScore first, then
// the labels of every "label:metric" metric some run stores, sorted.
func Scorers(rs []runs.Run) []string {
	set := map[string]bool{}
	for _, r := range rs {
		for name := range r.Metrics {
			if s, _ := SplitScoredMetric(name); s != NativeScore {
				set[s] = true
			}
		}
	}
	return append([]string{NativeScore}, slices.Sorted(maps.Keys(set))...)
}

// CheckScore returns an error naming the scores present when score (a
// command line's --score or score=) is neither NativeScore nor the label
// of a scorer some run of rs stores.
func CheckScore(rs []runs.Run, score string) error {
	if err := selection.ValidScore(score); err != nil {
		return err
	}
	present := Scorers(rs)
	if slices.Contains(present, score) {
		return nil
	}
	return fmt.Errorf("score %q: no selected run stores it; scores present: %s", score, strings.Join(present, ", "))
}

// scoreSuffix is what a table's title adds for a score other than the
// native one: " (unknown score: knn)".
func scoreSuffix(score string) string {
	if score == "" || score == NativeScore {
		return ""
	}
	return " (unknown score: " + score + ")"
}

// ScorersTable is the rows × scores table of one metric (issue 28): rows
// are the methods as in the other tables, each dataset × ratio is a column
// group whose sub-columns are the unknown scores present in the kept runs
// (Scorers: native first; with post-hoc scores, DuChoice next, each run
// under the score its D^u chose), and each cell is the metric under that score,
// mean ± sample std over seeds. The best score of each row within a
// column group is marked (Table.BestPerRow). opts selects rows and
// columns as for AccuracyTable; opts.Score is ignored.
//
// A cell whose runs store no metric of its score at all (a row that was
// not scored with it) stays empty without warnings, and one note says
// so; a cell where only some seeds lack the score warns as usual. A
// warning raised for every score of a cell (a failed seed) is shown once.
func ScorersTable(rs []runs.Run, metric string, opts Options) *table.Table {
	opts.Score = ""
	keepMethod, keepDataset := set(opts.Methods), set(opts.Datasets)
	var kept []runs.Run
	for _, r := range rs {
		if (keepMethod == nil || keepMethod[r.Spec.Method]) && (keepDataset == nil || keepDataset[r.Spec.Dataset]) {
			kept = append(kept, r)
		}
	}
	if len(Scorers(kept)) > 1 { // a column for each run's own choice
		if chosen, _, err := ResolveScore(kept, DuChoice); err == nil {
			kept = chosen
		}
	}
	scores := Scorers(kept)
	var subs []subMetric
	for _, s := range scores {
		subs = append(subs, subMetric{s, ScoredMetric(s, metric)})
	}
	title := "Unknown scores: " + metric
	if len(opts.Datasets) == 1 {
		title += " on " + opts.Datasets[0]
	}
	t := build(kept, subs, opts, tableDefaults{
		title:   title,
		caption: metric + " of each row under each unknown score (native: the method's own; the others post-hoc), mean ± sample std over seeds; the best score of each row and column group is marked.",
		label:   "tab:scorers_" + metric,
	})
	t.BestPerRow = true

	scored := scoredCells(kept)
	// The warnings again, per score, without those of unscored cells; a
	// warning every scored score of its cell raised is shown once.
	type raised struct {
		w      table.Warning
		scores []string
	}
	var order []table.Warning
	by := map[table.Warning]*raised{}
	for _, s := range scores {
		_, ws := Aggregate(kept, ScoredMetric(s, metric))
		for _, w := range ws {
			if w.Key != (table.Key{}) && !scored[w.Key][s] {
				continue
			}
			if by[w] == nil {
				by[w] = &raised{w: w}
				order = append(order, w)
			}
			by[w].scores = append(by[w].scores, s)
		}
	}
	t.Warnings = nil
	for _, w := range order {
		n := len(scored[w.Key])
		if w.Key == (table.Key{}) {
			n = len(scores)
		}
		if len(by[w].scores) == n {
			t.Warnings = append(t.Warnings, w)
			continue
		}
		for _, s := range by[w].scores {
			t.Warnings = append(t.Warnings, table.Warning{Key: w.Key, Text: ScoredMetric(s, metric) + ": " + w.Text})
		}
	}
	sortWarnings(t.Warnings, opts.MethodOrder, opts.DatasetOrder)
	noteUnscored(t, scored)
	return t
}

// ScorersTablesByDataset is ScorersTable once per dataset of rs (those of
// opts.Datasets when set), in opts.DatasetOrder (nil: DefaultDatasetOrder):
// each table has one dataset's ratios × scores as columns (2 × 8 with the
// default scorers) rather than every dataset's, which no page can show.
// Datasets whose table would be empty are left out.
func ScorersTablesByDataset(rs []runs.Run, metric string, opts Options) []*table.Table {
	keep := set(opts.Datasets)
	present := map[string]bool{}
	for _, r := range rs {
		if keep == nil || keep[r.Spec.Dataset] {
			present[r.Spec.Dataset] = true
		}
	}
	order := opts.DatasetOrder
	if order == nil {
		order = DefaultDatasetOrder()
	}
	names := slices.Collect(maps.Keys(present))
	sort.Slice(names, func(i, j int) bool { return lessByOrder(order)(names[i], names[j]) })
	var out []*table.Table
	for _, d := range names {
		o := opts
		o.Datasets = []string{d}
		if t := ScorersTable(rs, metric, o); len(t.Rows) > 0 && len(t.Columns) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// scoredCells maps each cell of rs (row labels as RowLabels makes them)
// to the scores some run of it stores a metric of; NativeScore always.
func scoredCells(rs []runs.Run) map[table.Key]map[string]bool {
	labels := RowLabels(rs)
	scored := map[table.Key]map[string]bool{}
	for i, r := range rs {
		k := table.Key{Method: labels[i], Dataset: r.Spec.Dataset, Ratio: r.Spec.RatioLabel()}
		if scored[k] == nil {
			scored[k] = map[string]bool{NativeScore: true}
		}
		for name := range r.Metrics {
			if s, _ := SplitScoredMetric(name); s != NativeScore {
				scored[k][s] = true
			}
		}
	}
	return scored
}

// unscoredNote is the note of a table with empty cells of a score their
// runs were not scored with.
const unscoredNote = "an empty cell without a warning: the row's runs there store no metric of that score (not scored with it)"

// noteUnscored adds unscoredNote when some method's cell of t is empty
// because its runs store nothing of the column's score .
func noteUnscored(t *table.Table, scored map[table.Key]map[string]bool) {
	for i, row := range t.Rows {
		for j, col := range t.Columns {
			if t.Cells[i][j] == nil && !row.Reference && !scored[table.Key{Method: row.Key, Dataset: col.Dataset, Ratio: col.Ratio}][columnScore(t, j)] {
				t.Notes = append(t.Notes, unscoredNote)
				return
			}
		}
	}
}

// columnScore is the score of column j's metric.
func columnScore(t *table.Table, j int) string {
	s, _ := SplitScoredMetric(t.Columns[j].Metric)
	return s
}

// quietUnscored drops the warnings of the cells whose runs store no metric
// of score (a table of Options.Score: a row not scored with it is empty,
// not missing seeds) and notes it.
func quietUnscored(t *table.Table, kept []runs.Run, score string) {
	scored := scoredCells(kept)
	var ws []table.Warning
	for _, w := range t.Warnings {
		if w.Key == (table.Key{}) || scored[w.Key][score] {
			ws = append(ws, w)
		}
	}
	t.Warnings = ws
	noteUnscored(t, scored)
}
