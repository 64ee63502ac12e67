package html

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	stdhtml "html"

	"github.com/ugbench/ugbench/reports"
	"github.com/ugbench/ugbench/reports/html/htmltest"
	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// fixture is a small grid: wl, gin-topk, ugnn and ugnn-wo-s on
// Letter-high and MNIST, low and high, seeds 0–2, with the chance
// figures, closed-set accuracy, AUROC and epoch time; gin-topk and ugnn
// also scored with knn. Deviations: gin-topk/MNIST/low seed 2 failed;
// ugnn/Letter-high/high seed 0 was rerun later (the rerun counts);
// ugnn-wo-s ran on Letter-high only. sens is ugnn on Letter-high low
// with tau 0.1, 0.5 and 1, seeds 0–1. Curves: a loss per epoch for every
// finished gin-topk and ugnn run.
func fixture() (rs, sens []runs.Run, curves map[int64][]suite.CurvePoint) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	prov := runs.Provenance{GitCommit: "0123456789abcdef0123456789abcdef01234567", GoVersion: "go1.27.3", GoMLXVersion: "v0.28.16", Backend: "go", Device: "cpu:0", Host: "test"}
	base := map[string]float64{"wl": 0.31, "gin-topk": 0.45, "ugnn": 0.52, "ugnn-wo-s": 0.47}
	noise := []float64{-0.011, 0.004, 0.008}
	curves = map[int64][]suite.CurvePoint{}
	id := int64(0)
	run := func(method, dataset, ratio string, seed int64, params suite.Params, acc float64) runs.Run {
		id++
		spec := suite.RunSpec{Method: method, Dataset: dataset, RatioName: ratio, Ratio: map[string]float64{"low": 0.2, "high": 0.4}[ratio],
			Seed: seed, Params: params, Protocol: suite.DefaultProtocol()}
		m := map[string]float64{
			suite.MetricAccuracy: acc, suite.MetricOODF1: acc*0.7 + 0.02, suite.MetricUnknownAcc: acc * 0.8,
			suite.MetricClosedAcc: acc + 0.1, suite.MetricOODAUROC: 0.5 + acc/2, suite.EpochSecondsMetric: 0.5 + float64(seed)*0.01,
			suite.PrefixChance + suite.MetricAccuracy: 0.15, suite.PrefixChance + suite.MetricOODF1: 0.2,
			suite.PrefixChance + suite.MetricUnknownAcc: 0.1, suite.PrefixChance + suite.MetricOODAUROC: 0.5,
			suite.PrefixChance + suite.MetricClosedAcc: 0.12,
		}
		if method == "gin-topk" || method == "ugnn" {
			for _, k := range []string{suite.MetricAccuracy, suite.MetricOODF1, suite.MetricUnknownAcc, suite.MetricOODAUROC} {
				m["knn:"+k] = m[k] + 0.02 + 0.005*float64(seed)
			}
			for e := 1; e <= 4; e++ {
				curves[id] = append(curves[id], suite.CurvePoint{Epoch: e, Name: "loss", Value: 2/float64(e) + acc + 0.01*float64(seed)})
			}
		}
		return runs.Run{ID: id, Hash: spec.Hash(), Spec: spec, Status: runs.StatusFinished, Attempts: 1,
			Started: t0.Add(time.Duration(id) * time.Minute), Finished: t0.Add(time.Duration(id)*time.Minute + 30*time.Second),
			Seconds: 30 + float64(id%7), Provenance: prov, Metrics: m}
	}
	for _, method := range []string{"wl", "gin-topk", "ugnn", "ugnn-wo-s"} {
		for di, ds := range []string{"Letter-high", "MNIST"} {
			if method == "ugnn-wo-s" && ds == "MNIST" {
				continue
			}
			for ri, ratio := range []string{"low", "high"} {
				for seed := int64(0); seed < 3; seed++ {
					r := run(method, ds, ratio, seed, suite.Params{"epochs": 10}, base[method]-0.05*float64(di)+0.03*float64(ri)+noise[seed])
					if method == "gin-topk" && ds == "MNIST" && ratio == "low" && seed == 2 {
						r.Status, r.Error, r.Metrics, r.Seconds = runs.StatusFailed, "loss is NaN at epoch 3", nil, 0
						r.Attempts = 2
						delete(curves, r.ID)
					}
					rs = append(rs, r)
				}
			}
		}
	}
	for _, r := range rs {
		if r.Spec.Method == "ugnn" && r.Spec.Dataset == "Letter-high" && r.Spec.RatioName == "high" && r.Spec.Seed == 0 {
			r2 := run("ugnn", "Letter-high", "high", 0, suite.Params{"epochs": 10}, 0.61)
			r2.Finished = r.Finished.Add(time.Hour)
			rs = append(rs, r2)
			break
		}
	}
	for _, tau := range []float64{0.1, 0.5, 1} {
		for seed := int64(0); seed < 2; seed++ {
			sens = append(sens, run("ugnn", "Letter-high", "low", seed, suite.Params{"epochs": 10, "tau": tau}, 0.4+tau/10+noise[seed]))
		}
	}
	return rs, sens, curves
}

func fixtureInput() Input {
	rs, sens, curves := fixture()
	return Input{Runs: rs, Options: reports.Options{Chance: true}, DB: "runs.db", Command: "bench report html --db runs.db -o report.html --sensitivity-db sens.db",
		Sens: sens, SensDBs: []string{"sens.db"}, Curves: curves}
}

var (
	svgBlock  = regexp.MustCompile(`(?s)<svg role="img" aria-label="([^"]*)".*?</svg>`)
	bestCell  = regexp.MustCompile(`<td class="[^"]*\bbest\b[^"]*">`)
	hiddenDiv = regexp.MustCompile(`<div class="(score|metric)-view"[^>]*data-(score|metric)="([^"]*)"[^>]*>`)
	cellStart = regexp.MustCompile(`<t[dh]\b[^>]*>`)
	blockTag  = regexp.MustCompile(`</?(h1|h2|h3|p|li|ul|summary|details|div|section|figure|figcaption|table|thead|tbody|tr|header|nav|main|footer|label|select)\b[^>]*>`)
	anyTag    = regexp.MustCompile(`<[^>]+>`)
	spaces    = regexp.MustCompile(`[ \t]+`)
)

// normalise is the page as text, for a golden file that checks structure
// and numbers, not pixels: no style or script, each SVG figure as
// "[svg: caption]", a score or metric view as "[view score=…]", table
// cells separated by " | ", the best cells starred, one block per line.
func normalise(page string) string {
	s := htmltest.ScriptOrStyle.ReplaceAllString(page, "")
	s = svgBlock.ReplaceAllString(s, "\n[svg: $1]\n")
	s = hiddenDiv.ReplaceAllString(s, "\n[view $2=$3]\n")
	s = bestCell.ReplaceAllString(s, " | *")
	s = cellStart.ReplaceAllString(s, " | ")
	s = strings.ReplaceAll(s, "<option", "\n<option")
	s = blockTag.ReplaceAllString(s, "\n")
	s = anyTag.ReplaceAllString(s, "")
	s = stdhtml.UnescapeString(s)
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(spaces.ReplaceAllString(l, " "))
		l = strings.TrimPrefix(l, "| ")
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n") + "\n"
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it)\n--- got:\n%s", path, got)
	}
}

// TestPageGolden is the fixture's page as normalised text.
func TestPageGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, fixtureInput()); err != nil {
		t.Fatal(err)
	}
	golden(t, "page.txt.golden", normalise(b.String()))
}

// element is a parsed element of the page (htmltest.Parse).
type element = htmltest.Element

// parse checks that the page is well-formed XHTML and returns its
// elements in document order (htmltest.Parse).
func parse(t *testing.T, page string) []*element { return htmltest.Parse(t, page) }

// TestPageStructure: well-formed, self-contained (no external resource),
// unique ids, every in-page link lands on an element, every table names
// its command, every cell of a table links to its runs, the failed and
// replaced runs are in the drill-downs with why, and every paper value
// shown is the paper's.
func TestPageStructure(t *testing.T) {
	in := fixtureInput()
	var b bytes.Buffer
	if err := Write(&b, in); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<link", " src=", "@import", "url(", `href="http`, "<iframe", "<img"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page is not self-contained: it has %q", bad)
		}
	}
	els := parse(t, page)
	ids := map[string]bool{}
	for _, e := range els {
		if id := e.Attrs["id"]; id != "" {
			if ids[id] {
				t.Errorf("id %q twice", id)
			}
			ids[id] = true
		}
	}
	tables, links := 0, 0
	for _, e := range els {
		if h := e.Attrs["href"]; strings.HasPrefix(h, "#") {
			links++
			if !ids[h[1:]] {
				t.Errorf("link %s: no such id", h)
			}
		}
		if e.Name == "table" && e.Attrs["class"] == "results" {
			tables++
			var args []string
			if err := json.Unmarshal([]byte(e.Attrs["data-args"]), &args); err != nil || len(args) < 2 || args[0] != "report" {
				t.Errorf("table without its command: %q (%v)", e.Attrs["data-args"], err)
			}
		}
	}
	// accuracy, F1, ablation, AUROC × 2 scores; closed-set accuracy and
	// epoch time; scorers × 3 metrics (accuracy, ood_auroc, ood_f1);
	// one sensitivity table.
	if want := 4*2 + 2 + 3 + 1; tables != want {
		t.Errorf("%d result tables, want %d", tables, want)
	}
	if links < 50 {
		t.Errorf("%d in-page links: the cells do not link to their runs", links)
	}
	for _, want := range []string{
		"loss is NaN at epoch 3",
		"replaced by run 43 (a later finished run of the same seeds)",
		"warning: gin-topk/MNIST/low: 1 of 3 seeds missing (seed 2 failed)",
		`<svg role="img" aria-label="ugnn: accuracy against tau"`,
		`<svg role="img" aria-label="loss on Letter-high (low, high), mean ± std over runs"`,
		`<select id="score"><option value="native">native</option><option value="knn">knn</option></select>`,
		`<div class="score-view" data-score="knn" hidden="hidden">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// The paper's values shown are the paper's.
	cells := cellsOf(els, "pv")
	if len(cells) == 0 {
		t.Error("no paper value on the page")
	}
	for _, c := range cells {
		v, ok := reports.PaperValueOf(c.metric, c.key)
		want := fmt.Sprintf("%.3f", v.Mean)
		if v.Std >= 0 {
			want += fmt.Sprintf("±%.3f", v.Std)
		}
		if !ok || c.text != want {
			t.Errorf("%s %v: paper value %q, the paper's %q (%v)", c.metric, c.key, c.text, want, ok)
		}
	}
}

// shownCell is a value shown in a table cell, with the cell's key.
type shownCell struct {
	args   string // the table's data-args
	row    string // the row's data-row
	metric string
	key    table.Key
	text   string
}

// cellsOf returns, for each element of class class inside a value cell of
// a result table, the cell's key and the element's text.
func cellsOf(els []*element, class string) []shownCell {
	var out []shownCell
	var args, row string
	var leaves []*element
	var col int
	for _, e := range els {
		switch {
		case e.Name == "table":
			args, leaves = e.Attrs["data-args"], nil
		case e.Name == "th" && strings.HasPrefix(e.Attrs["class"], "leaf"):
			leaves = append(leaves, e)
		case e.Name == "tr":
			row, col = e.Attrs["data-row"], -1
		case e.Name == "td":
			col++
		case e.Attrs["class"] == class && col >= 0 && col < len(leaves):
			l := leaves[col]
			out = append(out, shownCell{args: args, row: row, metric: l.Attrs["data-metric"],
				key: table.Key{Method: row, Dataset: l.Attrs["data-dataset"], Ratio: l.Attrs["data-ratio"]}, text: e.Text})
		}
	}
	return out
}

// TestPageNoOptional: without curves, embeddings and sensitivity runs,
// their sections are absent, and a database of one score has no switch.
func TestPageNoOptional(t *testing.T) {
	rs, _, _ := fixture()
	for i := range rs {
		for k := range rs[i].Metrics {
			if strings.HasPrefix(k, "knn:") {
				delete(rs[i].Metrics, k)
			}
		}
	}
	var b bytes.Buffer
	if err := Write(&b, Input{Runs: rs, DB: "runs.db", Command: "bench report html"}); err != nil {
		t.Fatal(err)
	}
	for _, absent := range []string{`id="curves"`, `id="tsne"`, `id="sensitivity"`, `id="scorers"`, `id="score"`, "<svg"} {
		if strings.Contains(b.String(), absent) {
			t.Errorf("the page has %q", absent)
		}
	}
	parse(t, b.String())
}
