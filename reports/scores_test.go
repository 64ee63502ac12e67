package reports

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/reports/stats"
	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

func TestScoredMetric(t *testing.T) {
	for _, c := range []struct{ score, metric, want string }{
		{"", "accuracy", "accuracy"},
		{NativeScore, "ood_auroc", "ood_auroc"},
		{"knn", "ood_auroc", "knn:ood_auroc"},
		{"mahalanobis_shrink0.5", "du_accuracy", "mahalanobis_shrink0.5:du_accuracy"},
		{"knn", "chance_accuracy", "chance_accuracy"}, // chance figures are not stored per scorer
	} {
		if got := ScoredMetric(c.score, c.metric); got != c.want {
			t.Errorf("ScoredMetric(%q, %q) = %q, want %q", c.score, c.metric, got, c.want)
		}
		s, m := SplitScoredMetric(c.want)
		if c.want != c.metric && (s != c.score || m != c.metric) {
			t.Errorf("SplitScoredMetric(%q) = %q, %q", c.want, s, m)
		}
	}
	if s, m := SplitScoredMetric("accuracy"); s != NativeScore || m != "accuracy" {
		t.Errorf("SplitScoredMetric(accuracy) = %q, %q", s, m)
	}
	if !table.LowerIsBetter("fpr95") || !table.LowerIsBetter("knn:fpr95") || table.LowerIsBetter("knn:aupr_out") {
		t.Error("LowerIsBetter: fpr95 is lower-is-better under every score, aupr_out is not")
	}
}

func TestScorers(t *testing.T) {
	if got, want := Scorers(scoredFixtureRuns()), []string{"native", "knn", "mahalanobis", "msp"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Scorers = %v, want %v", got, want)
	}
	if got := Scorers(fixtureRuns()); !reflect.DeepEqual(got, []string{"native"}) {
		t.Errorf("Scorers of unscored runs = %v, want [native]", got)
	}
	if err := CheckScore(scoredFixtureRuns(), "knn"); err != nil {
		t.Errorf("CheckScore(knn): %v", err)
	}
	if err := CheckScore(fixtureRuns(), NativeScore); err != nil {
		t.Errorf("CheckScore(native): %v", err)
	}
	err := CheckScore(scoredFixtureRuns(), "energy")
	if want := `score "energy": no selected run stores it; scores present: native, knn, mahalanobis, msp`; err == nil || err.Error() != want {
		t.Errorf("CheckScore(energy) = %v, want %q", err, want)
	}
}

// TestScoreOption: a table with Options.Score reads LABEL:METRIC, says so
// in its title, caption and label, and the native tables of scored runs
// are the tables of the same runs without scores.
func TestScoreOption(t *testing.T) {
	rs := scoredFixtureRuns()
	tbl := AccuracyTable(rs, Options{Score: "knn"})
	if tbl.Title != "Classification accuracy (unknown score: knn)" || tbl.Label != "tab:main_results_knn" || !strings.HasSuffix(tbl.Caption, " Unknown score: knn.") {
		t.Errorf("title %q, label %q, caption %q", tbl.Title, tbl.Label, tbl.Caption)
	}
	// gin-topk/COIL-DEL/high under knn, by hand: the runs' knn:accuracy.
	var want []float64
	for _, r := range rs {
		if r.Spec.Method == "gin-topk" && r.Spec.Dataset == "COIL-DEL" && r.Spec.RatioName == "high" {
			want = append(want, r.Metrics["knn:accuracy"])
		}
	}
	mean, std := stats.MeanStd(want)
	c := cellOf(t, tbl, "gin-topk", "COIL-DEL", "high")
	if c == nil || c.Metric != "knn:accuracy" || math.Abs(c.Mean-mean) > 1e-12 || math.Abs(c.Std-std) > 1e-12 || c.N != 3 {
		t.Errorf("gin-topk/COIL-DEL/high under knn: %+v, want %.4f±%.4f over 3", c, mean, std)
	}
	if c := cellOf(t, tbl, "wl", "COIL-DEL", "high"); c != nil {
		t.Errorf("wl has no knn score, got a cell %+v", c)
	}
	golden(t, "accuracy_knn.md.golden", render(t, tbl, "md"))

	plain := fixtureRuns()
	for name, build := range map[string]func([]runs.Run, Options) *table.Table{
		"accuracy": AccuracyTable, "f1": F1Table, "ablation": AblationTable,
		"auroc": func(rs []runs.Run, o Options) *table.Table { return MetricTable(rs, suite.MetricOODAUROC, o) },
	} {
		for _, score := range []string{"", NativeScore} {
			if a, b := render(t, build(rs, Options{Score: score}), "md"), render(t, build(plain, Options{}), "md"); !bytes.Equal(a, b) {
				t.Errorf("%s with score %q differs from the unscored runs' table:\n%s\nwant\n%s", name, score, a, b)
			}
		}
	}
}

// TestScoreChanceRow: the chance row is the same under every score.
func TestScoreChanceRow(t *testing.T) {
	rs := chanceRuns()
	for i := range rs {
		rs[i].Metrics["knn:accuracy"] = rs[i].Metrics[suite.MetricAccuracy] + 0.1
	}
	native := AccuracyTable(rs, Options{Chance: true})
	knn := AccuracyTable(rs, Options{Chance: true, Score: "knn"})
	last := len(knn.Rows) - 1
	if knn.Rows[last].Key != ChanceRow || !reflect.DeepEqual(knn.Cells[last], native.Cells[len(native.Rows)-1]) {
		t.Errorf("chance row under knn: %+v, want the native table's", knn.Cells[last])
	}
}

func cellOf(t *testing.T, tbl *table.Table, method, dataset, ratio string) *table.Cell {
	t.Helper()
	for i, r := range tbl.Rows {
		if r.Key != method {
			continue
		}
		for j, c := range tbl.Columns {
			if c.Dataset == dataset && c.Ratio == ratio {
				return tbl.Cells[i][j]
			}
		}
	}
	t.Fatalf("no cell %s/%s/%s", method, dataset, ratio)
	return nil
}

func TestScorersGolden(t *testing.T) {
	rs := scoredFixtureRuns()
	tbl := ScorersTable(rs, suite.MetricOODAUROC, Options{})
	ext := map[string]string{"text": "txt", "md": "md", "latex": "tex", "csv": "csv"}
	for _, format := range table.Formats() {
		t.Run(format, func(t *testing.T) {
			golden(t, "scorers."+ext[format]+".golden", render(t, tbl, format))
		})
	}
}

// TestScorersTable: columns are dataset-ratio × score (native first), the
// best score of each row within a group is marked, cells are the scored
// metric, and unscored cells stay quiet.
func TestScorersTable(t *testing.T) {
	tbl := ScorersTable(scoredFixtureRuns(), suite.MetricAccuracy, Options{Datasets: []string{"COIL-DEL"}})
	var heads []string
	for _, c := range tbl.Columns {
		heads = append(heads, c.Header()+"="+c.Metric)
	}
	want := []string{
		"COIL-DEL low native=accuracy", "COIL-DEL low du_choice=du_choice:accuracy", "COIL-DEL low knn=knn:accuracy", "COIL-DEL low mahalanobis=mahalanobis:accuracy", "COIL-DEL low msp=msp:accuracy",
		"COIL-DEL high native=accuracy", "COIL-DEL high du_choice=du_choice:accuracy", "COIL-DEL high knn=knn:accuracy", "COIL-DEL high mahalanobis=mahalanobis:accuracy", "COIL-DEL high msp=msp:accuracy",
	}
	if !reflect.DeepEqual(heads, want) {
		t.Errorf("columns %v, want %v", heads, want)
	}
	best := map[string]string{}
	for i, r := range tbl.Rows {
		for j, c := range tbl.Columns {
			if tbl.IsBest(i, j) {
				best[r.Key+" "+c.Ratio] += c.Sub
			}
		}
	}
	// gin-topk: knn above native; ugnn: mahalanobis; wl, gcn-topk and
	// graphcl have native only: no best. Every run's D^u picks the same
	// score (the fixture's D^u accuracy follows the test one), so
	// du_choice ties with it.
	wantBest := map[string]string{"gin-topk low": "du_choiceknn", "gin-topk high": "du_choiceknn", "ugnn low": "du_choicemahalanobis", "ugnn high": "du_choicemahalanobis"}
	if !reflect.DeepEqual(best, wantBest) {
		t.Errorf("best per row %v, want %v", best, wantBest)
	}
	var warns []string
	for _, w := range tbl.Warnings {
		warns = append(warns, w.String())
	}
	wantWarns := []string{
		"gin-topk/COIL-DEL/low: 1 of 3 seeds missing (seed 2 failed)",
		"ugnn/COIL-DEL/high: seed 0 has 2 finished runs; using the latest (run 66)",
	}
	if !reflect.DeepEqual(warns, wantWarns) {
		t.Errorf("warnings %q, want %q", warns, wantWarns)
	}
	if len(tbl.Notes) != 1 || !strings.Contains(tbl.Notes[0], "not scored") {
		t.Errorf("notes %q, want the not-scored note", tbl.Notes)
	}
	// The re-run of ugnn/COIL-DEL/high seed 0 replaces the first run under
	// every score: its mahalanobis accuracy is 0.655+0.05.
	if c := cellOf(t, tbl, "ugnn", "COIL-DEL", "high"); c == nil || c.Values[0] != 0.655 {
		t.Errorf("ugnn/COIL-DEL/high native: %+v", c)
	}
	j := slicesIndex(tbl.Columns, func(c table.Column) bool { return c.Ratio == "high" && c.Sub == "mahalanobis" })
	i := slicesIndex(tbl.Rows, func(r table.Row) bool { return r.Key == "ugnn" })
	if c := tbl.Cells[i][j]; c == nil || math.Abs(c.Values[0]-0.705) > 1e-12 {
		t.Errorf("ugnn/COIL-DEL/high mahalanobis: %+v, want seed 0 = 0.705", c)
	}
}

func slicesIndex[T any](xs []T, f func(T) bool) int {
	for i, x := range xs {
		if f(x) {
			return i
		}
	}
	return -1
}

// TestResultsScores: the results document of scored runs is the document
// of the same runs without scores plus the "Unknown scores" section,
// between the OOD AUROC and the wall time.
func TestResultsScores(t *testing.T) {
	doc := func(rs []runs.Run) string {
		var buf bytes.Buffer
		if err := Results(&buf, rs, Options{}, "bench report results --db runs.db", nil); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	plain, scored := doc(fixtureRuns()), doc(scoredFixtureRuns())
	if strings.Contains(plain, "Unknown scores") {
		t.Error("a document of unscored runs has an Unknown scores section")
	}
	start := strings.Index(scored, "## Unknown scores\n")
	end := strings.Index(scored, "## Wall time per run")
	if start < 0 || end < start || !strings.Contains(scored[:start], "## OOD AUROC") {
		t.Fatalf("no Unknown scores section between OOD AUROC and the wall time:\n%s", scored)
	}
	section := scored[start:end]
	if rest := scored[:start] + scored[end:]; rest != plain {
		t.Errorf("the rest of the document differs from the unscored runs' document:\n%s", rest)
	}
	golden(t, "results_scores.md.golden", []byte(section))
	for _, want := range []string{"### accuracy", "### ood_auroc", "(knn, mahalanobis, msp)",
		"The paper's UGNN (its own score): COIL-DEL low 0.594±0.021"} {
		if !strings.Contains(section, want) {
			t.Errorf("section lacks %q", want)
		}
	}
}

// TestSensitivityScore: the sensitivity table reads the score too.
func TestSensitivityScore(t *testing.T) {
	rs := sensitivityRuns()
	for i := range rs {
		if v, ok := rs[i].Metrics[suite.MetricAccuracy]; ok {
			rs[i].Metrics["knn:accuracy"] = v + 0.1
		}
	}
	native, err := SensitivityTable(rs, "ugnn", "tau", suite.MetricAccuracy, Options{})
	if err != nil {
		t.Fatal(err)
	}
	knn, err := SensitivityTable(rs, "ugnn", "tau", suite.MetricAccuracy, Options{Score: "knn"})
	if err != nil {
		t.Fatal(err)
	}
	if knn.Title != native.Title+" (unknown score: knn)" || len(knn.Rows) != len(native.Rows) {
		t.Fatalf("title %q, %d rows; native %q, %d rows", knn.Title, len(knn.Rows), native.Title, len(native.Rows))
	}
	n := 0
	for i := range knn.Rows {
		for j := range knn.Columns {
			a, b := native.Cells[i][j], knn.Cells[i][j]
			if (a == nil) != (b == nil) {
				t.Fatalf("cell %d,%d: native %v, knn %v", i, j, a, b)
			}
			if a == nil || knn.Rows[i].Reference {
				continue
			}
			n++
			if b.Metric != "knn:accuracy" || math.Abs(b.Mean-a.Mean-0.1) > 1e-9 {
				t.Errorf("cell %d,%d: %s %.4f, want knn:accuracy %.4f", i, j, b.Metric, b.Mean, a.Mean+0.1)
			}
		}
	}
	if n == 0 {
		t.Error("no cell compared")
	}
}

// TestScorersTablesByDataset: one table per dataset, in the dataset order,
// each with that dataset's columns only and the cells of the all-dataset
// table; Datasets and DatasetOrder are obeyed.
func TestScorersTablesByDataset(t *testing.T) {
	rs := scoredFixtureRuns()
	all := ScorersTable(rs, suite.MetricAccuracy, Options{})
	cellsOf := func(tbl *table.Table) map[string]string {
		m := map[string]string{}
		for i, r := range tbl.Rows {
			for j, c := range tbl.Columns {
				if cell := tbl.Cells[i][j]; cell != nil {
					m[r.Key+"/"+c.Dataset+"/"+c.Ratio+"/"+c.Sub] = fmt.Sprint(cell.Values)
				}
			}
		}
		return m
	}
	want := cellsOf(all)
	var datasets []string
	for _, c := range all.Columns {
		if len(datasets) == 0 || datasets[len(datasets)-1] != c.Dataset {
			datasets = append(datasets, c.Dataset)
		}
	}
	if len(datasets) < 2 {
		t.Fatalf("the fixture has %d datasets, want at least 2", len(datasets))
	}
	tables := ScorersTablesByDataset(rs, suite.MetricAccuracy, Options{})
	if len(tables) != len(datasets) {
		t.Fatalf("%d tables, want one per dataset %v", len(tables), datasets)
	}
	got := map[string]string{}
	for k, tbl := range tables {
		for _, c := range tbl.Columns {
			if c.Dataset != datasets[k] {
				t.Errorf("table %d has a column of %s, want only %s", k, c.Dataset, datasets[k])
			}
		}
		if !strings.HasSuffix(tbl.Title, " on "+datasets[k]) {
			t.Errorf("table %d title %q does not name %s", k, tbl.Title, datasets[k])
		}
		maps.Copy(got, cellsOf(tbl))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cells of the per-dataset tables differ from the whole table's:\n got %v\nwant %v", got, want)
	}
	reversed := slices.Clone(datasets)
	slices.Reverse(reversed)
	tables = ScorersTablesByDataset(rs, suite.MetricAccuracy, Options{DatasetOrder: reversed})
	if tables[0].Columns[0].Dataset != reversed[0] {
		t.Errorf("with DatasetOrder %v the first table is %s", reversed, tables[0].Columns[0].Dataset)
	}
	tables = ScorersTablesByDataset(rs, suite.MetricAccuracy, Options{Datasets: datasets[1:2]})
	if len(tables) != 1 || tables[0].Columns[0].Dataset != datasets[1] {
		t.Errorf("Datasets %v: %d tables", datasets[1:2], len(tables))
	}
	if tables := ScorersTablesByDataset(rs, suite.MetricAccuracy, Options{Datasets: []string{"no-such"}}); len(tables) != 0 {
		t.Errorf("a dataset without runs gives %d tables, want none", len(tables))
	}
}
