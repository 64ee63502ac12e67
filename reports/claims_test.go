package reports

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/suite"
)

// claimTable is a hand-made accuracy table: rows (label, registry name)
// in order, the last one the chance row, and per column the rows' means
// (3 seeds, std 0.01); a row missing from a column's map has no cell.
func claimTable(rows [][2]string, cols []table.Column, means []map[string]float64) *table.Table {
	t := &table.Table{Columns: cols}
	for _, r := range rows {
		t.Rows = append(t.Rows, table.Row{Key: r[0], Label: r[0], Method: r[1], Reference: r[0] == ChanceRow})
	}
	for _, r := range t.Rows {
		cells := make([]*table.Cell, len(cols))
		for j, col := range cols {
			if m, ok := means[j][r.Key]; ok {
				cells[j] = &table.Cell{Key: table.Key{Method: r.Key, Dataset: col.Dataset, Ratio: col.Ratio}, Base: r.Method, Metric: col.Metric, Mean: m, Std: 0.01, N: 3}
			}
		}
		t.Cells = append(t.Cells, cells)
	}
	return t
}

func TestClaims(t *testing.T) {
	baselines := PaperBaselines
	rows := [][2]string{}
	for _, b := range baselines {
		rows = append(rows, [2]string{b, b})
	}
	// The chance row carries rgcl's name, so that only its Reference flag
	// keeps it out of the baselines.
	rows = append(rows, [2]string{"sage-topk (lr=0.01)", "sage-topk"}, [2]string{"ugnn", "ugnn"}, [2]string{"ugnn-plus", "ugnn-plus"}, [2]string{ChanceRow, "rgcl"})
	acc := suite.MetricAccuracy
	cols := []table.Column{
		{Dataset: "COIL-DEL", Ratio: "low", Metric: acc},
		{Dataset: "COIL-DEL", Ratio: "high", Metric: acc},
		{Dataset: "Letter-high", Ratio: "low", Metric: acc},
		{Dataset: "Letter-high", Ratio: "high", Metric: acc},
		{Dataset: "Foo", Ratio: "low", Metric: acc},
		{Dataset: "Foo", Ratio: "high", Metric: acc},                // a dataset the paper lacks
		{Dataset: "COIL-DEL", Ratio: "low", Metric: "knn:accuracy"}, // a post-hoc score: the paper's values are its own score's
	}
	all := map[string]float64{"ugnn": 0.5, "ugnn-plus": 0.7, ChanceRow: 0.9}
	for _, b := range baselines {
		all[b] = 0.3
	}
	all["gla"] = 0.45
	means := []map[string]float64{
		// A configuration of sage-topk above UGNN, rgcl level with it; the
		// chance row above all is no baseline.
		{"wl": 0.1, "sage-topk": 0.5, "sage-topk (lr=0.01)": 0.61, "gin-topk": 0.4, "rgcl": 0.6, "ugnn": 0.6, ChanceRow: 0.9},
		{"wl": 0.1, "gin-topk": 0.3, "ugnn": 0.5, "ugnn-plus": 0.55},
		all,
		{"ugnn": 0.4},
		{"wl": 0.2},
		{"wl": 0.2, "gcn-topk": 0.3, "ugnn": 0.5},
		{"gin-topk": 0.2, "ugnn": 0.3},
	}
	got := Claims(claimTable(rows, cols, means))
	type want struct {
		verdict                ClaimVerdict
		run, above, baselines  int
		best, paperBest        string
		bestMean, paperUGNN    float64
		text                   string
		hasPaperGIN, hasOurGIN bool
	}
	for i, w := range []want{
		{ClaimFails, 4, 2, 12, "sage-topk", "rgcl", 0.61, 0.594, "fails: 2 of 4 baselines run at or above UGNN", true, true},
		{ClaimHoldsSoFar, 2, 0, 12, "gin-topk", "gla", 0.3, 0.630, "holds so far: above the 2 of 12 baselines run", true, true},
		{ClaimHolds, 12, 0, 12, "gla", "gla", 0.45, 0.640, "holds: above all 12 baselines", true, true},
		{ClaimNoBaseline, 0, 0, 12, "", "rgcl", 0, 0.660, "no baseline run", true, false},
		{ClaimNoRun, 1, 0, 12, "wl", "", 0.2, math.NaN(), "UGNN not run", false, false},
		{ClaimHoldsSoFar, 2, 0, 12, "gcn-topk", "", 0.3, math.NaN(), "holds so far: above the 2 of 12 baselines run", false, false},
		{ClaimHoldsSoFar, 1, 0, 12, "gin-topk", "rgcl", 0.2, 0.594, "holds so far: above the 1 of 12 baselines run", true, true},
	} {
		c := got[i]
		name := c.Dataset + "/" + c.Ratio
		if c.Dataset != cols[i].Dataset || c.Ratio != cols[i].Ratio {
			t.Fatalf("claim %d is %s, want column %v", i, name, cols[i])
		}
		if c.Verdict != w.verdict || c.Run != w.run || c.Above != w.above || c.Baselines != w.baselines {
			t.Errorf("%s: verdict %d, run %d, above %d, baselines %d; want %d, %d, %d, %d", name, c.Verdict, c.Run, c.Above, c.Baselines, w.verdict, w.run, w.above, w.baselines)
		}
		if c.String() != w.text {
			t.Errorf("%s: %q, want %q", name, c.String(), w.text)
		}
		if (c.Best == nil) != (w.best == "") || c.Best != nil && (c.Best.Base != w.best || c.Best.Mean != w.bestMean) {
			t.Errorf("%s: best baseline %+v, want %s %.2f", name, c.Best, w.best, w.bestMean)
		}
		if (c.PaperBest == nil) != (w.paperBest == "") || c.PaperBest != nil && c.PaperBest.Base != w.paperBest {
			t.Errorf("%s: the paper's best baseline %+v, want %s", name, c.PaperBest, w.paperBest)
		}
		if math.IsNaN(w.paperUGNN) != (c.PaperUGNN == nil) || c.PaperUGNN != nil && c.PaperUGNN.Mean != w.paperUGNN {
			t.Errorf("%s: the paper's UGNN %+v, want %v", name, c.PaperUGNN, w.paperUGNN)
		}
		if (c.PaperGIN != nil) != w.hasPaperGIN || (c.GIN != nil) != w.hasOurGIN {
			t.Errorf("%s: GIN-TopK cells paper %v ours %v, want %v %v", name, c.PaperGIN != nil, c.GIN != nil, w.hasPaperGIN, w.hasOurGIN)
		}
	}

	// The rendered rows: margins are UGNN's mean minus the other's, UGNN+'s
	// over our best baseline; names through the map, with the
	// configuration's suffix.
	var buf bytes.Buffer
	names := map[string]string{"sage-topk": "GraphSAGE", "rgcl": "RGCL", "gin-topk": "GIN"}
	if err := table.RenderPlain(&buf, ClaimsPlain(got, names), "md"); err != nil {
		t.Fatal(err)
	}
	for _, wantRow := range []string{
		"| COIL-DEL low | 0.594±0.021 | RGCL 0.572±0.004 (UGNN +0.022) | +0.182 | 0.600±0.010 | GraphSAGE (lr=0.01) 0.610±0.010 (UGNN −0.010) | +0.200 | – | fails: 2 of 4 baselines run at or above UGNN |",
		"| COIL-DEL high | 0.630±0.007 | gla 0.610±0.013 (UGNN +0.020) | +0.185 | 0.500±0.010 | GIN 0.300±0.010 (UGNN +0.200) | +0.200 | 0.550±0.010 (+0.250 over GIN) | holds so far",
		"| Letter-high high | 0.660±0.007 | RGCL 0.697±0.012 (UGNN −0.037) | +0.089 | 0.400±0.010 | – | – | – | no baseline run |",
		"| Foo low | – | – | – | – | wl 0.200±0.010 | – | – | UGNN not run |",
	} {
		if !strings.Contains(buf.String(), wantRow) {
			t.Errorf("rendered claims lack\n%s\ngot\n%s", wantRow, buf.String())
		}
	}
}

// TestPaperBaselines: the paper's twelve baselines are the registered
// rows of Table 2's four baseline families, in table order (this
// package's registry mirrors bench's, which cmd/bench's TestTableOrder
// checks against the real registrations).
func TestPaperBaselines(t *testing.T) {
	var fams []string
	for _, m := range suite.TableOrder() {
		switch info, _ := suite.InfoOf(m); info.Family {
		case suite.FamilyKernel, suite.FamilyGNN, suite.FamilyPooling, suite.FamilySemiSupervised:
			fams = append(fams, m)
		}
	}
	if !slices.Equal(fams, PaperBaselines) {
		t.Errorf("PaperBaselines %v, the registry's baseline families %v", PaperBaselines, fams)
	}
	for _, b := range PaperBaselines {
		for _, col := range []table.Key{{Dataset: "COIL-DEL", Ratio: "low"}, {Dataset: "MNIST", Ratio: "high"}} {
			if _, ok := PaperValueOf(suite.MetricAccuracy, table.Key{Method: b, Dataset: col.Dataset, Ratio: col.Ratio}); !ok {
				t.Errorf("%s: no paper accuracy on %s %s", b, col.Dataset, col.Ratio)
			}
		}
	}
}
