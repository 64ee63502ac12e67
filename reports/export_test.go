package reports

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
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
			r.Provenance = runs.Provenance{GitCommit: "0123abcd", GoVersion: "go1.26", GoMLXVersion: "v0.28.2", Backend: "go", Kernels: "avx2", Device: "cpu:0", Host: "ci"}
			r.Attempts = 1
			out = append(out, r)
		}
	}
	out[0].Spec.Params = suite.Params{"epochs": 100, "tau": 0.1}
	out[0].Hash = out[0].Spec.Hash()
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

// TestImportRoundTrip exports the fixture runs, reads the JSON back and
// imports it into a store: the finished runs read back as exported (NaN
// metrics included), the failed one is passed by, a second import changes
// nothing, and the store exports the same JSON again.
func TestImportRoundTrip(t *testing.T) {
	rs := exportRuns()
	var buf bytes.Buffer
	if err := WriteExport(&buf, rs, "json"); err != nil {
		t.Fatal(err)
	}
	e, err := ReadExport(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range e.Runs {
		r, err := x.Run()
		if err != nil {
			t.Fatal(err)
		}
		want := rs[i]
		if r.Hash != want.Hash || r.Spec.Hash() != want.Spec.Hash() || r.Status != want.Status || r.Error != want.Error ||
			!r.Started.Equal(want.Started) || !r.Finished.Equal(want.Finished) || r.Seconds != want.Seconds ||
			r.Attempts != want.Attempts || r.Provenance != want.Provenance || len(r.Metrics) != len(want.Metrics) {
			t.Errorf("run %d read back as %+v\nwant %+v", x.ID, r, want)
		}
		for k, v := range want.Metrics {
			if got := r.Metrics[k]; got != v && !(math.IsNaN(got) && math.IsNaN(v)) {
				t.Errorf("run %d %s = %v, want %v", x.ID, k, got, v)
			}
		}
	}

	store, err := runs.Open(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	finished := 0
	for _, r := range rs {
		if r.Status == runs.StatusFinished {
			finished++
		}
	}
	for pass, want := range []runs.ImportOutcome{runs.ImportAdded, runs.ImportKept} {
		tally, err := Import(store, e)
		if err != nil {
			t.Fatal(err)
		}
		if tally.Runs != len(rs) || tally.Outcomes[want] != finished || tally.NotFinished != len(rs)-finished || len(tally.Conflicts) != 0 {
			t.Errorf("import %d: %+v, want %d %s and %d not finished", pass+1, tally, finished, want, len(rs)-finished)
		}
	}
	stored, err := store.List(runs.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := WriteExport(&again, stored, "json"); err != nil {
		t.Fatal(err)
	}
	var finishedOnly []runs.Run
	for _, r := range rs {
		if r.Status == runs.StatusFinished {
			r.ID = int64(len(finishedOnly) + 1) // ids are the store's own
			finishedOnly = append(finishedOnly, r)
		}
	}
	var want bytes.Buffer
	if err := WriteExport(&want, finishedOnly, "json"); err != nil {
		t.Fatal(err)
	}
	if again.String() != want.String() {
		t.Errorf("the imported store exports\n%s\nwant\n%s", again.String(), want.String())
	}
}

func TestReadExportRefuses(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
	}{
		{"not JSON", `{"format": "ugbench-runs",`, "not a JSON export of runs"},
		{"syntax error", `{"format": x}`, "byte 12"},
		{"another format", `{"format": "other", "version": 1, "runs": []}`, `format "other"`},
		{"newer version", `{"format": "ugbench-runs", "version": 2, "runs": []}`, "version 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := ReadExport(strings.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	bad := ExportRun{ID: 7, Hash: "h", Status: "paused"}
	if _, err := bad.Run(); err == nil || !strings.Contains(err.Error(), `unknown status "paused"`) {
		t.Errorf("status paused: error %v", err)
	}
	bad = ExportRun{ID: 7, Hash: "h", Status: "finished", Started: "yesterday"}
	if _, err := bad.Run(); err == nil || !strings.Contains(err.Error(), "started") {
		t.Errorf("started yesterday: error %v", err)
	}
}

func TestBackendLabel(t *testing.T) {
	for _, c := range []struct {
		p    runs.Provenance
		want string
	}{
		{runs.Provenance{Backend: "go", Device: "cpu:1"}, "go on cpu:1"},
		{runs.Provenance{Backend: "go", Device: "cpu:0", Kernels: "avx512"}, "go on cpu:0, avx512 kernels"},
		{runs.Provenance{Backend: "xla:cuda", Device: "cuda:0"}, "xla:cuda on cuda:0"},
	} {
		if got := BackendLabel(c.p); got != c.want {
			t.Errorf("BackendLabel(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
}
