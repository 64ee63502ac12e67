package reports

import (
	"bytes"
	"maps"
	"math"
	"testing"

	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// chanceRuns are gin-topk and wl on Letter-high low over split seeds 0, 1
// (run seeds 0, 1 each), every run of split s storing chance_accuracy
// 0.2+0.1·s, and wl on high without chance figures (a run stored before
// protocol v2). wl's accuracy is below chance on low, on purpose.
func chanceRuns() []runs.Run {
	var rs []runs.Run
	id := int64(0)
	add := func(method, ratio string, split, seed int64, acc float64, chance bool) {
		id++
		spec := suite.RunSpec{Method: method, Dataset: "Letter-high", RatioName: ratio, Ratio: 0.2,
			SplitSeed: split, Seed: seed, Params: suite.Params{}, Protocol: suite.DefaultProtocol()}
		m := map[string]float64{suite.MetricAccuracy: acc}
		if chance {
			m[suite.PrefixChance+suite.MetricAccuracy] = 0.2 + 0.1*float64(split)
		}
		rs = append(rs, runs.Run{ID: id, Hash: spec.Hash(), Spec: spec, Status: runs.StatusFinished, Metrics: m})
	}
	for split := int64(0); split < 2; split++ {
		for seed := int64(0); seed < 2; seed++ {
			add("gin-topk", "low", split, seed, 0.5+0.01*float64(seed), true)
			add("wl", "low", split, seed, 0.1, true)
		}
	}
	add("wl", "high", 0, 0, 0.4, false)
	return rs
}

// TestChanceRow: the chance row averages one chance value per split seed
// (mean ± sample std over the splits), is never a column's best, stays
// empty where no run stored chance figures, and is left out of tables of
// metrics without chance figures.
func TestChanceRow(t *testing.T) {
	tbl := AccuracyTable(chanceRuns(), Options{Chance: true})
	last := len(tbl.Rows) - 1
	if r := tbl.Rows[last]; r.Key != ChanceRow || !r.Reference || r.Group == tbl.Rows[last-1].Group {
		t.Fatalf("last row %+v, want the chance row in a group of its own", r)
	}
	var low, high int = -1, -1
	for j, c := range tbl.Columns {
		switch c.Ratio {
		case "low":
			low = j
		case "high":
			high = j
		}
	}
	c := tbl.Cells[last][low]
	if c == nil || math.Abs(c.Mean-0.25) > 1e-12 || math.Abs(c.Std-math.Sqrt(0.005)) > 1e-12 || c.N != 2 || c.Exact {
		t.Errorf("chance cell on low: %+v, want 0.25 ± %.4f over 2 split seeds", c, math.Sqrt(0.005))
	}
	if tbl.Cells[last][high] != nil {
		t.Errorf("chance cell on high: %+v, want none (no chance figures stored)", tbl.Cells[last][high])
	}
	for i := range tbl.Rows {
		if tbl.IsBest(i, low) != (tbl.Rows[i].Key == "gin-topk") {
			t.Errorf("row %s: IsBest on low = %v", tbl.Rows[i].Key, tbl.IsBest(i, low))
		}
	}
	golden(t, "chance.md.golden", render(t, tbl, "md"))

	one := AccuracyTable(chanceRuns()[:2], Options{Chance: true}) // split seed 0 only
	if c := one.Cells[len(one.Rows)-1][0]; c == nil || c.Mean != 0.2 || !c.Exact || table.MeanStdText(c) != "0.200" {
		t.Errorf("chance over one split: %+v, want the exact value 0.200", c)
	}
	if tbl := MetricTable(chanceRuns(), suite.EpochSecondsMetric, Options{Chance: true}); len(tbl.Rows) > 0 && tbl.Rows[len(tbl.Rows)-1].Key == ChanceRow {
		t.Error("a chance row for epoch_seconds, which has no chance figures")
	}
	if tbl := AccuracyTable(chanceRuns(), Options{}); tbl.Rows[len(tbl.Rows)-1].Key == ChanceRow {
		t.Error("chance row without Options.Chance")
	}
}

// TestResultsGolden renders the results document of the fixture runs and
// the chance runs: provenance, protocol and budget, the paper's tables
// with ours, the chance row and the paper's values, the extra tables.
func TestResultsGolden(t *testing.T) {
	rs := fixtureRuns()
	for _, r := range chanceRuns() {
		r.ID += 1000
		r.Provenance.GitCommit = "abc123"
		r.Seconds = 12
		r.Metrics = maps.Clone(r.Metrics)
		r.Metrics[suite.EpochSecondsMetric+"_pretrain"] = 0.5
		rs = append(rs, r)
	}
	var buf bytes.Buffer
	sens := sensitivityRuns()
	for i := range sens {
		sens[i].Provenance.GitCommit = "def456"
	}
	if err := Results(&buf, rs, Options{}, "bench report results --db runs.db --sensitivity-db sens.db", sens); err != nil {
		t.Fatal(err)
	}
	golden(t, "results.md.golden", buf.Bytes())
	for _, want := range []string{"The paper, same layout", "| chance |", "`abc123` (9 runs)", "**0.594**±0.021",
		"## Sensitivity (paper Figure 4)", "`def456` (97 runs)", "### ugnn against tau", "### ugnn against unknown_prototypes", "### ugnn against alpha", "| chance (α=1.2) |", "## Median epoch time, phase pretrain (seconds)", "0.500"} {
		if !bytes.Contains(buf.Bytes(), []byte(want)) {
			t.Errorf("results document lacks %q", want)
		}
	}
}
