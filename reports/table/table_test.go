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
	for _, bad := range []func() error{
		func() error { return RenderPlain(&b, p, "html") },
		func() error { return Render(&b, &Table{}, "html") },
	} {
		if err := bad(); err == nil || strings.Contains(err.Error(), "--") {
			t.Errorf("unknown format: %v, want a plain error", err)
		}
	}
}
