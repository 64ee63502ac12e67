package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"testing"

	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// exportRuns are four fixture runs: two finished, one with a NaN ood_f1,
// one failed; with provenance and a parameter only some runs have.
func exportRuns() []runs.Run {
	var out []runs.Run
	for _, r := range fixtureRuns() {
		switch {
		case r.Spec.Method == "wl" && r.Spec.Dataset == "COIL-DEL" && r.Spec.RatioName == "low" && r.Spec.Seed < 2,
			r.Spec.Method == "wl" && r.Spec.Dataset == "MNIST" && r.Spec.RatioName == "low" && r.Spec.Seed == 0,
			r.Spec.Method == "gin-topk" && r.Spec.Dataset == "COIL-DEL" && r.Spec.RatioName == "low" && r.Spec.Seed == 2:
			r.Provenance = runs.Provenance{GitCommit: "0123abcd", GoVersion: "go1.26", GoMLXVersion: "v0.28.2", Backend: "go", Device: "cpu:0", Host: "ci"}
			r.Attempts = 1
			out = append(out, r)
		}
	}
	out[0].Spec.Params = suite.Params{"epochs": 100, "tau": 0.1}
	return out
}

func TestExportGolden(t *testing.T) {
	for _, format := range ExportFormats() {
		var buf bytes.Buffer
		if err := WriteExport(&buf, exportRuns(), format); err != nil {
			t.Fatal(err)
		}
		golden(t, "export."+format+".golden", buf.Bytes())
	}
	if err := WriteExport(&bytes.Buffer{}, nil, "xml"); err == nil {
		t.Errorf("format xml: no error")
	}
}

func TestExportReadsBack(t *testing.T) {
	rs := exportRuns()
	var buf bytes.Buffer
	if err := WriteExport(&buf, rs, "json"); err != nil {
		t.Fatal(err)
	}
	var e Export
	if err := json.Unmarshal(buf.Bytes(), &e); err != nil {
		t.Fatal(err)
	}
	if e.Format != ExportFormat || len(e.Runs) != len(rs) {
		t.Fatalf("format %q with %d runs, want %q with %d", e.Format, len(e.Runs), ExportFormat, len(rs))
	}
	for i, x := range e.Runs {
		if x.Spec.Hash() != rs[i].Spec.Hash() {
			t.Errorf("run %d: spec hash %s after the round trip, want %s", x.ID, x.Spec.Hash(), rs[i].Spec.Hash())
		}
		for k, v := range rs[i].Metrics {
			got := x.Metrics[k]
			switch {
			case math.IsNaN(v) && got != nil:
				t.Errorf("run %d %s: %v, want null for NaN", x.ID, k, *got)
			case !math.IsNaN(v) && (got == nil || *got != v):
				t.Errorf("run %d %s: %v, want %v", x.ID, k, got, v)
			}
		}
	}

	buf.Reset()
	if err := WriteExport(&buf, rs, "csv"); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(rs)+1 {
		t.Fatalf("%d CSV records, want %d", len(recs), len(rs)+1)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, name := range []string{"param.tau", "metric.accuracy", "git_commit", "split_seed"} {
		if _, ok := col[name]; !ok {
			t.Errorf("CSV lacks column %s: %v", name, recs[0])
		}
	}
	if got := recs[1][col["param.tau"]]; got != "0.1" {
		t.Errorf("param.tau of the first run = %q, want 0.1", got)
	}
	if got := recs[2][col["param.tau"]]; got != "" {
		t.Errorf("param.tau of a run without it = %q, want empty", got)
	}
}
