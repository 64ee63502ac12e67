package table

import (
	"bytes"
	"strings"
	"testing"
)

func TestCellText(t *testing.T) {
	if got := cellText(&Cell{Mean: 0.6, Std: 0.1, N: 3}, "±", nil); got != "0.600±0.100" {
		t.Errorf("cell text %q, want 0.600±0.100", got)
	}
	if got := cellText(&Cell{Mean: 0.42, N: 1}, "±", nil); got != "0.420 (n=1)" {
		t.Errorf("single-seed cell text %q", got)
	}
	if got := MeanStdText(nil); got != "–" {
		t.Errorf("no cell: %q, want –", got)
	}
}

// TestIsBest: the best mean as displayed, ties all best, lower for
// durations, never a reference row, none in a column of one value.
func TestIsBest(t *testing.T) {
	c := func(m float64) *Cell { return &Cell{Mean: m, N: 3} }
	tbl := &Table{
		Rows:    []Row{{Key: "a"}, {Key: "b"}, {Key: "c"}, {Key: "chance", Reference: true}},
		Columns: []Column{{Dataset: "D", Ratio: "low", Metric: "accuracy"}, {Dataset: "D", Ratio: "low", Metric: "epoch_seconds"}, {Dataset: "E", Ratio: "low", Metric: "accuracy"}},
		Cells: [][]*Cell{
			{c(0.5001), c(2), c(0.1)},
			{c(0.5004), c(1), nil},
			{c(0.4), c(3), nil},
			{c(0.9), c(0.1), nil},
		},
	}
	for _, w := range []struct {
		row, col int
		want     bool
	}{{0, 0, true}, {1, 0, true}, {2, 0, false}, {3, 0, false}, {1, 1, true}, {0, 1, false}, {0, 2, false}} {
		if got := tbl.IsBest(w.row, w.col); got != w.want {
			t.Errorf("IsBest(%d, %d) = %v, want %v", w.row, w.col, got, w.want)
		}
	}
}

func TestRenderPlainAndFormats(t *testing.T) {
	p := &Plain{Title: "Runs", Header: []string{"id", "method"}, Rows: [][]string{{"1", "gin_topk|x"}}}
	var b bytes.Buffer
	if err := RenderPlain(&b, p, "md"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `gin\_topk\|x`) {
		t.Errorf("md does not escape the cell:\n%s", b.String())
	}
	// Notes and warnings below the table in every format but CSV.
	p.Notes, p.Warnings = []string{"score_x chosen"}, []string{"a/b/low: 1 of 3 seeds missing"}
	for _, c := range []struct{ format, note, warning string }{
		{"text", "note: score_x chosen\n", "warning: a/b/low: 1 of 3 seeds missing\n"},
		{"md", "\nnote: score\\_x chosen\n", "\nwarning: a/b/low: 1 of 3 seeds missing\n"},
		{"latex", "% note: score_x chosen\n", "% warning: a/b/low: 1 of 3 seeds missing\n"},
		{"csv", "", ""},
	} {
		b.Reset()
		if err := RenderPlain(&b, p, c.format); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if c.format == "csv" {
			if strings.Contains(out, "note") || strings.Contains(out, "warning") {
				t.Errorf("csv has notes or warnings:\n%s", out)
			}
			continue
		}
		if !strings.HasSuffix(out, c.note+c.warning) {
			t.Errorf("%s: does not end with %q%q:\n%s", c.format, c.note, c.warning, out)
		}
	}
	for _, bad := range []func() error{
		func() error { return RenderPlain(&b, p, "html") },
		func() error { return Render(&b, &Table{}, "html") },
	} {
		if err := bad(); err == nil || strings.Contains(err.Error(), "--") {
			t.Errorf("unknown format: %v, want a plain error", err)
		}
	}
}

// TestRenderHTML: each cell's mean, std and n as the other formats show
// them, the CSV's key in data attributes, the best cell marked, the
// paper's value and the difference as displayed, the chance row's exact
// value alone, links, and escaping.
func TestRenderHTML(t *testing.T) {
	tbl := &Table{
		Rows: []Row{{Key: "a<b", Label: "A<B", Method: "a<b"}, {Key: "c", Label: "c", Method: "c", Group: 1}, {Key: "chance", Label: "chance", Reference: true, Group: 2}},
		Columns: []Column{
			{Dataset: "D", Ratio: "low", Metric: "accuracy"},
			{Dataset: "D", Ratio: "high", Metric: "accuracy"},
		},
		Cells: [][]*Cell{
			{{Key: Key{"a<b", "D", "low"}, Metric: "accuracy", Mean: 0.5126, Std: 0.01, N: 3}, nil},
			{{Key: Key{"c", "D", "low"}, Metric: "accuracy", Mean: 0.4, Std: 0.02, N: 2}, {Key: Key{"c", "D", "high"}, Metric: "accuracy", Mean: 0.3, N: 1}},
			{{Key: Key{"chance", "D", "low"}, Metric: "chance_accuracy", Mean: 0.1, N: 1, Exact: true}, nil},
		},
	}
	paper := &Table{Rows: []Row{{Key: "a<b"}}, Columns: tbl.Columns,
		Cells: [][]*Cell{{{Mean: 0.5, Std: 0.02, N: 0}, nil}}}
	var b bytes.Buffer
	err := RenderHTML(&b, tbl, HTMLOptions{Paper: paper, Attrs: ` id="x"`, Link: func(i, j int) string {
		if i == 0 {
			return "#runs-a"
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		`<table class="results" id="x">`,
		`<th colspan="2" class="group">D</th>`,
		`<th class="leaf" data-dataset="D" data-ratio="low" data-metric="accuracy">Low Ratio</th>`,
		`<tr data-i="0" data-row="a&lt;b" class="rule"><th class="label" scope="row">A&lt;B</th>`,
		`<td class="v best"><a href="#runs-a"><span class="m">0.513</span><span class="s">±0.010</span></a> <span class="n">n=3</span><span class="p">paper <span class="pv">0.500±0.020</span> <span class="up">+0.013</span></span></td><td class="e">–</td>`,
		`<span class="m">0.300</span><span class="s">±0.000</span> <span class="n">n=1</span>`,
		`<tr data-i="2" data-row="chance" class="reference"><th class="label" scope="row">chance</th><td class="v"><span class="m">0.100</span></td>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("RenderHTML lacks\n%s\nin\n%s", want, got)
		}
	}
	b.Reset()
	if err := RenderHTML(&b, &Table{}, HTMLOptions{}); err != nil || !strings.Contains(b.String(), "(no results)") {
		t.Errorf("empty table: %v %q", err, b.String())
	}
}
