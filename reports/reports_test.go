package reports

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it)\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}

func render(t *testing.T, tbl *table.Table, format string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := table.Render(&buf, tbl, format); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestGolden(t *testing.T) {
	rs := fixtureRuns()
	tables := map[string]*table.Table{
		"accuracy": AccuracyTable(rs, Options{}),
		"f1":       F1Table(rs, Options{}),
		"ablation": AblationTable(rs, Options{}),
		"auroc":    MetricTable(rs, suite.MetricOODAUROC, Options{Names: PaperNames()}),
	}
	ext := map[string]string{"text": "txt", "md": "md", "latex": "tex", "csv": "csv"}
	for name, tbl := range tables {
		for _, format := range table.Formats() {
			t.Run(name+"/"+format, func(t *testing.T) {
				golden(t, name+"."+ext[format]+".golden", render(t, tbl, format))
			})
		}
	}
	t.Run("document", func(t *testing.T) {
		golden(t, "document.tex.golden", standalone(t, tables["accuracy"], tables["ablation"]))
	})
}

func standalone(t *testing.T, tables ...*table.Table) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := table.RenderLaTeXDocument(&buf, tables...); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// mk is a finished run with one accuracy value.
func mk(method, dataset, ratio string, seed int64, acc float64) runs.Run {
	spec := suite.RunSpec{Method: method, Dataset: dataset, RatioName: ratio, Ratio: 0.1, Seed: seed,
		Params: suite.Params{}, Protocol: suite.DefaultProtocol()}
	return runs.Run{Spec: spec, Status: runs.StatusFinished, Metrics: map[string]float64{suite.MetricAccuracy: acc}}
}

func warningStrings(ws []table.Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.String()
	}
	return out
}

func TestAggregate(t *testing.T) {
	cells, warns := Aggregate(fixtureRuns(), suite.MetricAccuracy)
	gin := cells[table.Key{Method: "gin-topk", Dataset: "COIL-DEL", Ratio: "low"}]
	if gin.N != 2 || !reflect.DeepEqual(gin.Seeds, []int64{0, 1}) || gin.Base != "gin-topk" {
		t.Errorf("gin-topk/COIL-DEL/low = %+v, want seeds 0,1", gin)
	}
	// The later re-run of ugnn/COIL-DEL/high seed 0 (0.655) replaces the
	// first: seeds 0.655, 0.64+0.003·2.5, 0.64+0.009·2.5 (ugnn's noise
	// scale is 2.5).
	ugnn := cells[table.Key{Method: "ugnn", Dataset: "COIL-DEL", Ratio: "high"}]
	if want := (0.655 + 0.6475 + 0.6625) / 3; ugnn.N != 3 || math.Abs(ugnn.Mean-want) > 1e-12 {
		t.Errorf("ugnn/COIL-DEL/high mean = %v (n=%d), want %v (n=3)", ugnn.Mean, ugnn.N, want)
	}
	if _, ok := cells[table.Key{Method: "ugnn-wo-s", Dataset: "COIL-DEL", Ratio: "low"}]; ok {
		t.Error("ugnn-wo-s has a COIL-DEL cell without runs")
	}
	rs := fixtureRuns()
	rerun := rs[len(rs)-1].ID
	want := []string{
		"gin-topk/COIL-DEL/low: 1 of 3 seeds missing (seed 2 failed)",
		"graphcl/MNIST/high: 1 of 3 seeds missing (seed 1 not run)",
		fmt.Sprintf("ugnn/COIL-DEL/high: seed 0 has 2 finished runs; using the latest (run %d)", rerun),
	}
	if got := warningStrings(warns); !reflect.DeepEqual(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// NaN values are excluded, counted and warned about.
	cells, warns = Aggregate(fixtureRuns(), suite.MetricOODF1)
	wl := cells[table.Key{Method: "wl", Dataset: "MNIST", Ratio: "low"}]
	if wl.N != 2 || wl.NaN != 1 {
		t.Errorf("wl/MNIST/low ood_f1: n=%d NaN=%d, want n=2 NaN=1", wl.N, wl.NaN)
	}
	if got := warningStrings(warns); !contains(got, "wl/MNIST/low: 1 of 3 seeds missing (seed 0 NaN)") {
		t.Errorf("no NaN warning in %q", got)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestAggregateStatuses(t *testing.T) {
	rs := []runs.Run{
		mk("gcn-topk", "MNIST", "low", 0, 0.5),
		mk("gcn-topk", "MNIST", "low", 1, 0.6),
		mk("gcn-topk", "MNIST", "low", 2, 0.7),
		mk("gin-sag", "MNIST", "low", 0, 0.4),
		mk("gin-sag", "MNIST", "low", 1, 0.4),
		mk("gin-sag", "MNIST", "low", 2, 0.4),
		mk("gin-sag", "MNIST", "low", 3, 0.4),
	}
	rs[1].Status, rs[1].Metrics = runs.StatusRunning, nil
	rs[2].Status, rs[2].Metrics = runs.StatusInterrupted, nil
	delete(rs[5].Metrics, suite.MetricAccuracy)
	cells, warns := Aggregate(rs, suite.MetricAccuracy)
	if c := cells[table.Key{Method: "gcn-topk", Dataset: "MNIST", Ratio: "low"}]; c.N != 1 || !c.SingleSeed() || c.Std != 0 || c.Mean != 0.5 {
		t.Errorf("gcn-topk cell %+v, want one seed 0.5", c)
	}
	want := []string{
		"gcn-topk/MNIST/low: 3 of 4 seeds missing (seed 1 running, seed 2 interrupted, seed 3 not run)",
		"gin-sag/MNIST/low: 1 of 4 seeds missing (seed 2 has no accuracy)",
	}
	if got := warningStrings(warns); !reflect.DeepEqual(got, want) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestRowLabelsParams(t *testing.T) {
	var rs []runs.Run
	for _, lr := range []float64{0.01, 0.001} {
		for seed := int64(0); seed < 2; seed++ {
			for _, ds := range []string{"COIL-DEL", "MNIST"} {
				r := mk("gin-topk", ds, "low", seed, 0.5+lr)
				// hidden is the same everywhere; epochs is tuned per
				// dataset: neither splits the row.
				epochs := 100
				if ds == "MNIST" {
					epochs = 50
				}
				r.Spec.Params = suite.Params{"lr": lr, "hidden": 64, "epochs": epochs}
				rs = append(rs, r)
			}
		}
	}
	for seed := int64(0); seed < 2; seed++ {
		other := mk("gcn-topk", "MNIST", "low", seed, 0.3)
		other.Spec.Params = suite.Params{"lr": 0.5}
		rs = append(rs, other)
	}

	labels := RowLabels(rs)
	if labels[0] != "gin-topk (lr=0.01)" || labels[4] != "gin-topk (lr=0.001)" || labels[len(labels)-1] != "gcn-topk" {
		t.Errorf("labels = %q", labels)
	}
	tbl := AccuracyTable(rs, Options{Names: PaperNames()})
	var got []string
	for _, r := range tbl.Rows {
		got = append(got, r.Key+" => "+r.Label)
	}
	want := []string{"gcn-topk => GCN", "gin-topk (lr=0.001) => GIN (lr=0.001)", "gin-topk (lr=0.01) => GIN (lr=0.01)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	if len(tbl.Warnings) != 0 {
		t.Errorf("unexpected warnings %v", warningStrings(tbl.Warnings))
	}
	if c := tbl.Cells[2][0]; c == nil || c.N != 2 || math.Abs(c.Mean-0.51) > 1e-12 {
		t.Errorf("gin-topk (lr=0.01)/COIL-DEL/low = %+v, want 2 seeds of 0.51", c)
	}
}

func TestUnknownMetric(t *testing.T) {
	cells, warns := Aggregate(fixtureRuns(), "acuracy")
	want := []string{`no finished run reports metric "acuracy"`}
	if got := warningStrings(warns); len(cells) != 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("cells %d, warnings %q; want none and %q", len(cells), got, want)
	}
}

func TestMixedConfigWarning(t *testing.T) {
	rs := []runs.Run{mk("ugnn", "MNIST", "low", 0, 0.5), mk("ugnn", "MNIST", "low", 1, 0.6)}
	rs[1].Spec.Protocol.Alpha = 2
	_, warns := Aggregate(rs, suite.MetricAccuracy)
	want := []string{"ugnn/MNIST/low: seeds pool 2 different configs (differing in alpha); a cell should aggregate one config only"}
	if got := warningStrings(warns); !reflect.DeepEqual(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
}

func TestBoldTies(t *testing.T) {
	var rs []runs.Run
	for seed := int64(0); seed < 2; seed++ {
		rs = append(rs,
			mk("gin-topk", "MNIST", "low", seed, 0.5941), // shows 0.594
			mk("graphcl", "MNIST", "low", seed, 0.5939),  // shows 0.594 too: a tie
			mk("ugnn", "MNIST", "low", seed, 0.5),
			mk("ugnn", "MNIST", "high", seed, 0.7),
			mk("gla", "MNIST", "high", seed, 0.6),
		)
	}
	tbl := AccuracyTable(rs, Options{})
	md := string(render(t, tbl, "md"))
	for _, want := range []string{
		"| gin-topk | **0.594**±0.000 | – |",
		"| graphcl | **0.594**±0.000 | – |",
		"| gla | – | 0.600±0.000 |",
		"| ugnn | 0.500±0.000 | **0.700**±0.000 |",
	} {
		if !strings.Contains(md, want+"\n") {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	tex := string(render(t, tbl, "latex"))
	if strings.Count(tex, `\textbf{0.594}$\pm$0.000`) != 2 || !strings.Contains(tex, `\textbf{0.700}$\pm$0.000`) {
		t.Errorf("latex bolding wrong:\n%s", tex)
	}
	// A column with a single value has no best.
	one := AccuracyTable(rs[:1], Options{})
	if one.IsBest(0, 0) {
		t.Error("single value marked best")
	}
}

// TestBoldLowestSeconds: for epoch_seconds (and any *_seconds metric) the
// fastest method is bold, not the slowest; scores keep the highest.
func TestBoldLowestSeconds(t *testing.T) {
	for metric, want := range map[string]bool{
		suite.EpochSecondsMetric: true, "warmup_seconds": true, suite.EpochSecondsMetric + "_pretrain": true,
		suite.MetricAccuracy: false, suite.MetricOODAUROC: false, "seconds_total": false, "seconds": false,
	} {
		if got := table.LowerIsBetter(metric); got != want {
			t.Errorf("LowerIsBetter(%q) = %v, want %v", metric, got, want)
		}
	}
	var rs []runs.Run
	for seed := int64(0); seed < 2; seed++ {
		for m, sec := range map[string]float64{"gin-topk": 3.9, "graphcl": 1.25, "ugnn": 7.5} {
			r := mk(m, "MNIST", "low", seed, 0.5)
			r.Metrics[suite.EpochSecondsMetric] = sec
			rs = append(rs, r)
		}
	}
	tbl := MetricTable(rs, suite.EpochSecondsMetric, Options{})
	md := string(render(t, tbl, "md"))
	for _, want := range []string{
		"| gin-topk | 3.900±0.000 |",
		"| graphcl | **1.250**±0.000 |",
		"| ugnn | 7.500±0.000 |",
	} {
		if !strings.Contains(md, want+"\n") {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	// The same runs' accuracy (all 0.5) is a tie: every cell best.
	acc := MetricTable(rs, suite.MetricAccuracy, Options{})
	for i := range acc.Rows {
		if !acc.IsBest(i, 0) {
			t.Errorf("accuracy tie: row %s not best", acc.Rows[i].Key)
		}
	}
}

func TestOrdering(t *testing.T) {
	var rs []runs.Run
	for _, m := range []string{"zzz", "ugnn", "aaa", "gin-topk", "wl", "ugnn-wo-s"} {
		for _, ds := range []string{"ZINC", "MNIST", "AIDS", "COIL-DEL"} {
			for _, r := range []string{"0.5", "high", "0.05", "low"} {
				run := mk(m, ds, r, 0, 0.5)
				if r[0] == '0' {
					run.Spec.RatioName = ""
					run.Spec.Ratio = map[string]float64{"0.5": 0.5, "0.05": 0.05}[r]
				}
				rs = append(rs, run)
			}
		}
	}
	rowsOf := func(tbl *table.Table) []string {
		var out []string
		for _, r := range tbl.Rows {
			out = append(out, r.Key)
		}
		return out
	}
	tbl := AccuracyTable(rs, Options{})
	if got, want := rowsOf(tbl), []string{"wl", "gin-topk", "ugnn", "ugnn-wo-s", "aaa", "zzz"}; !reflect.DeepEqual(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	var cols []string
	for _, c := range tbl.Columns {
		cols = append(cols, c.Dataset+"/"+c.Ratio)
	}
	want := []string{
		"COIL-DEL/low", "COIL-DEL/high", "COIL-DEL/0.05", "COIL-DEL/0.5",
		"MNIST/low", "MNIST/high", "MNIST/0.05", "MNIST/0.5",
		"AIDS/low", "AIDS/high", "AIDS/0.05", "AIDS/0.5",
		"ZINC/low", "ZINC/high", "ZINC/0.05", "ZINC/0.5",
	}
	if !reflect.DeepEqual(cols, want) {
		t.Errorf("columns %q, want %q", cols, want)
	}
	if g := tbl.Rows; g[0].Group == g[1].Group || g[4].Group != g[5].Group {
		t.Errorf("row groups %+v", g)
	}

	// A given order, and restrictions.
	tbl = AccuracyTable(rs, Options{
		MethodOrder:  []string{"zzz", "ugnn"},
		DatasetOrder: []string{"ZINC"},
		Datasets:     []string{"ZINC", "AIDS"},
	})
	if got, want := rowsOf(tbl), []string{"zzz", "ugnn", "aaa", "gin-topk", "ugnn-wo-s", "wl"}; !reflect.DeepEqual(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	if tbl.Columns[0].Dataset != "ZINC" || tbl.Columns[4].Dataset != "AIDS" || len(tbl.Columns) != 8 {
		t.Errorf("columns %+v", tbl.Columns)
	}

	// The ablation table shows its variants only, each in its own group,
	// with empty rows for variants without runs.
	tbl = AblationTable(rs, Options{})
	if got, want := rowsOf(tbl), AblationRows(); !reflect.DeepEqual(got, want) {
		t.Errorf("ablation rows %q, want %q", got, want)
	}
	for j := range tbl.Columns {
		if tbl.Cells[2][j] != nil {
			t.Fatalf("ugnn-wo-p has a cell without runs")
		}
	}
	if tbl.Columns[0].Sub != "Overall" || tbl.Columns[1].Sub != "Unknown" || tbl.Columns[1].Metric != suite.MetricUnknownAcc {
		t.Errorf("ablation sub-columns %+v", tbl.Columns[:2])
	}
}

func TestEscapeLaTeX(t *testing.T) {
	for in, want := range map[string]string{
		"gin-topk (hidden_dim=64)": `gin-topk (hidden\_dim=64)`,
		"R&D 50% #1 $x$":           `R\&D 50\% \#1 \$x\$`,
		`a\b {c} ^ ~`:              `a\textbackslash{}b \{c\} \textasciicircum{} \textasciitilde{}`,
		"mean ± std – n":           `mean $\pm$ std -- n`,
	} {
		if got := table.EscapeLaTeX(in); got != want {
			t.Errorf("EscapeLaTeX(%q) = %q, want %q", in, got, want)
		}
	}
	// Row labels and captions are escaped in the table.
	r := mk("my_method", "A&B", "low", 0, 0.5)
	tex := string(render(t, AccuracyTable([]runs.Run{r}, Options{Caption: "100% done"}), "latex"))
	for _, want := range []string{`my\_method & 0.500 (n=1) \\`, `\textbf{A\&B}`, `\caption{100\% done}`} {
		if !strings.Contains(tex, want) {
			t.Errorf("latex lacks %q:\n%s", want, tex)
		}
	}
}

func TestRenderErrors(t *testing.T) {
	err := table.Render(&bytes.Buffer{}, AccuracyTable(nil, Options{}), "xml")
	if err == nil || !strings.Contains(err.Error(), `"xml"`) || !strings.Contains(err.Error(), "text, md, latex, csv") {
		t.Errorf("error %v, want one naming xml and the formats", err)
	}
	// An empty table renders without failing.
	for _, f := range table.Formats() {
		render(t, AccuracyTable(nil, Options{}), f)
	}
}

func TestWarningsPlacement(t *testing.T) {
	tbl := AccuracyTable(fixtureRuns(), Options{})
	w := "gin-topk/COIL-DEL/low: 1 of 3 seeds missing (seed 2 failed)"
	if s := string(render(t, tbl, "text")); !strings.Contains(s, "\nwarning: "+w+"\n") {
		t.Errorf("text lacks the warning:\n%s", s)
	}
	if s := string(render(t, tbl, "md")); !strings.Contains(s, "\nwarning: "+w+"\n") {
		t.Errorf("md lacks the warning:\n%s", s)
	}
	if s := string(render(t, tbl, "latex")); !strings.Contains(s, "\n% warning: "+w+"\n") {
		t.Errorf("latex lacks the warning:\n%s", s)
	}
	if s := string(render(t, tbl, "csv")); strings.Contains(s, "warning") {
		t.Errorf("csv has warnings:\n%s", s)
	}
}

// TestPDFLaTeX compiles, with a real pdflatex, every table bench report
// --standalone writes: accuracy, F1, ablation, a metric table and the three
// sensitivity tables (.ci/run installs a minimal TeX from Debian).
func TestPDFLaTeX(t *testing.T) {
	pdflatex, err := exec.LookPath("pdflatex")
	if err != nil {
		t.Skip("pdflatex not on PATH, LaTeX tables not compiled (.ci/run installs texlive-latex-base and texlive-latex-recommended)")
	}
	rs := fixtureRuns()
	docs := map[string][]*table.Table{
		"tables": {AccuracyTable(rs, Options{Names: PaperNames()}), F1Table(rs, Options{}), AblationTable(rs, Options{}),
			MetricTable(rs, suite.MetricKnownAcc, Options{})},
	}
	for _, param := range []string{"tau", "R", "alpha"} {
		tbl, err := SensitivityTable(sensitivityRuns(), "ugnn", param, suite.MetricAccuracy, Options{})
		if err != nil {
			t.Fatal(err)
		}
		docs["sensitivity_"+param] = []*table.Table{tbl}
	}
	for name, tables := range docs {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, name+".tex"), standalone(t, tables...), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(pdflatex, "-interaction=nonstopmode", "-halt-on-error", name+".tex")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("pdflatex: %v\n%s", err, out)
			}
			if fi, err := os.Stat(filepath.Join(dir, name+".pdf")); err != nil || fi.Size() < 1000 {
				t.Fatalf("no PDF of substance: %v", err)
			}
		})
	}
}

func TestCellsWithMetric(t *testing.T) {
	const phase = "epoch_seconds_warmup"
	timed := func(r runs.Run) runs.Run { r.Metrics[phase] = 1.5; return r }
	rs := []runs.Run{
		timed(mk("ugnn", "MNIST", "high", 0, 0.5)),
		mk("ugnn", "MNIST", "high", 1, 0.5),   // resumed after its warmup: kept
		mk("ugnn", "COIL-DEL", "low", 0, 0.5), // a cell stored before phases were timed: dropped
		mk("wl", "MNIST", "high", 0, 0.3),     // no phases at all: dropped
	}
	got := cellsWithMetric(rs, phase)
	if len(got) != 2 || got[0].Spec.Seed != 0 || got[1].Spec.Seed != 1 || got[1].Spec.Dataset != "MNIST" {
		t.Fatalf("cellsWithMetric kept %d runs: %+v", len(got), got)
	}
	_, warns := Aggregate(got, phase)
	want := []string{"ugnn/MNIST/high: 1 of 2 seeds missing (seed 1 has no " + phase + ")"}
	if w := warningStrings(warns); !reflect.DeepEqual(w, want) {
		t.Errorf("warnings %q, want %q", w, want)
	}
}
