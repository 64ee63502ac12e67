package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/suite"
)

// TestReportSensitivityAndExport drives bench report sensitivity (table
// and --plot) and bench export on a constructed tau sweep.
func TestReportSensitivityAndExport(t *testing.T) {
	var rs []planted
	for _, ratio := range []string{"low", "high"} {
		for seed := int64(0); seed < 3; seed++ {
			for i, tau := range []float64{0.05, 0.1, 0.2} {
				rs = append(rs, planted{method: "ugnn", dataset: "Letter-high", ratio: ratio, seed: seed,
					params:  suite.Params{"tau": tau, "epochs": 20},
					metrics: map[string]float64{"accuracy": 0.4 + 0.01*float64(i) + 0.002*float64(seed)}})
			}
		}
	}
	rs = append(rs, planted{method: "gin-topk", dataset: "Letter-high", ratio: "low", metrics: map[string]float64{"accuracy": 0.3}})
	db := makeDB(t, rs)
	svg := filepath.Join(t.TempDir(), "sens.svg")
	var out bytes.Buffer
	if err := runReport([]string{"sensitivity", "τ", "--db", db, "--plot", svg}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Sensitivity of ugnn to tau", "│ 0.05 │", "0.412±0.002", "Letter-high"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
	if b, err := os.ReadFile(svg); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Errorf("--plot wrote no SVG (%v)", err)
	}
	// The results document with the sweep's database as --sensitivity-db.
	mainDB := makeDB(t, []planted{{method: "gin-topk", dataset: "Letter-high", ratio: "low", metrics: map[string]float64{"accuracy": 0.3}}})
	out.Reset()
	if err := runReport([]string{"results", "--db", mainDB, "--sensitivity-db", db}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Sensitivity (paper Figure 4)", "### ugnn against tau", "| 0.05 |", "0.412±0.002"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("results document lacks %q:\n%s", want, out.String())
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"results", "--db", mainDB, "--sensitivity-db", filepath.Join(t.TempDir(), "none.db")}, "--sensitivity-db"},
		{[]string{"accuracy", "--db", db, "--sensitivity-db", db}, "--sensitivity-db: only with report results"},
		{[]string{"sensitivity", "hidden", "--db", db}, `no run of ugnn has parameter "hidden"`},
		{[]string{"accuracy", "--db", db, "--plot", svg}, "--plot: only with report sensitivity"},
		{[]string{"sensitivity", "tau", "--db", db, "--plot", "x.gif"}, "x.gif"},
		{[]string{"sensitivity", "tau", "--db", db, "--methods", "ugnn,gin-topk"}, "one method"},
	} {
		if err := runReport(c.args, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.args, err, c.want)
		}
	}

	out.Reset()
	if err := runExport([]string{"--db", db, "--methods", "ugnn", "--format", "json"}, &out); err != nil {
		t.Fatal(err)
	}
	var e struct {
		Runs []struct {
			Spec    suite.RunSpec      `json:"spec"`
			Metrics map[string]float64 `json:"metrics"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &e); err != nil {
		t.Fatal(err)
	}
	if len(e.Runs) != 18 || e.Runs[0].Spec.Method != "ugnn" || e.Runs[0].Metrics["accuracy"] != 0.4 {
		t.Errorf("export: %d runs, first %+v", len(e.Runs), e.Runs[0])
	}
	out.Reset()
	if err := runExport([]string{"--db", db, "--format", "csv"}, &out); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != 20 {
		t.Errorf("csv export has %d lines, want 20 (header + 19 runs)", n)
	}
	if err := runExport([]string{"--db", db, "--format", "xml"}, &out); err == nil {
		t.Errorf("--format xml: no error")
	}
}
