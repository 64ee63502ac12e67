package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// TestPlotCurves stores two runs with loss curves and draws them as PNG.
func TestPlotCurves(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "runs.db")
	store, err := runs.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	for seed := int64(0); seed < 2; seed++ {
		spec := suite.RunSpec{Method: "gin-topk", Dataset: "Letter-high", RatioName: "low", Ratio: 0.2, Seed: seed,
			Params: suite.Params{"epochs": 3}, Protocol: suite.DefaultProtocol()}
		id, err := store.Start(spec, runs.Provenance{})
		if err != nil {
			t.Fatal(err)
		}
		var pts []suite.CurvePoint
		for e := 1; e <= 3; e++ {
			pts = append(pts, suite.CurvePoint{Epoch: e, Name: "loss", Value: 2 / float64(e+int(seed))})
		}
		if err := store.Finish(id, suite.Result{Metrics: map[string]float64{"accuracy": 0.5}, Curves: pts}); err != nil {
			t.Fatal(err)
		}
	}
	store.Close()
	out := filepath.Join(dir, "curves.png")
	var buf bytes.Buffer
	if err := runPlot([]string{"curves", "--db", db, "--out", out}, &buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "1 panel(s)") {
		t.Errorf("plot curves said %q", buf.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() < 300 {
		t.Errorf("PNG %v too small", img.Bounds())
	}
	for _, args := range [][]string{{"tsne"}, {"curves", "--db", db}, {"curves", "--db", db, "--out", "x.bmp"},
		{"curves", "--db", db, "--out", out, "--by", "steps"}, {"curves", "--db", db, "--out", out, "--by", "batch"}} {
		if err := runPlot(args, &buf); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
