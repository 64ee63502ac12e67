package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// planted is one constructed run: a cell, a seed and its metrics.
type planted struct {
	method, dataset, ratio string
	seed                   int64
	params                 suite.Params
	commit                 string
	metrics                map[string]float64
}

// makeDB stores rs as finished runs in a new database file.
func makeDB(t *testing.T, rs []planted) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "runs.db")
	store, err := runs.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for _, r := range rs {
		ratio := map[string]float64{"low": 0.2, "high": 0.4}[r.ratio]
		spec := suite.RunSpec{Method: r.method, Dataset: r.dataset, RatioName: r.ratio, Ratio: ratio, Seed: r.seed,
			Params: r.params, Protocol: suite.DefaultProtocol()}
		if spec.Params == nil {
			spec.Params = suite.Params{"epochs": 20}
		}
		id, err := store.Start(spec, runs.Provenance{GitCommit: r.commit, Host: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Finish(id, suite.Result{Metrics: r.metrics, Seconds: 1}); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// gate is 4 seeds (or seeds) of gin-topk on Letter-high low and high;
// accDrop is subtracted from the low cell's accuracy (with a little noise
// so that the paired differences vary), slow multiplies epoch_seconds.
func gate(seeds int, accDrop, slow float64) []planted {
	acc := []float64{0.61, 0.63, 0.60, 0.62}
	secs := []float64{1.0, 1.1, 0.95, 1.05}
	var out []planted
	for _, ratio := range []string{"low", "high"} {
		for s := 0; s < seeds; s++ {
			a := acc[s]
			if ratio == "low" && accDrop != 0 {
				a -= accDrop + 0.003*float64(s%2)
			}
			out = append(out, planted{method: "gin-topk", dataset: "Letter-high", ratio: ratio, seed: int64(s),
				metrics: map[string]float64{"accuracy": a, "ood_f1": 0.4 + a/10, "epoch_seconds": secs[s] * slow}})
		}
	}
	return out
}

// exitCode is the status bench would exit with after err.
func exitCode(err error) int {
	var e *exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &e):
		return e.code
	}
	return 1
}

func TestCheckExitCodes(t *testing.T) {
	dir := t.TempDir()
	baseline := filepath.Join(dir, "baseline.json")
	var out bytes.Buffer
	err := runCheck([]string{"--db", makeDB(t, gate(4, 0, 1)), "--baseline", baseline, "--write-baseline",
		"--metrics", "accuracy,epoch_seconds", "--threshold", "epoch_seconds=x1.2"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "wrote "+baseline+": 4 cells") {
		t.Errorf("write-baseline said:\n%s", out.String())
	}
	three := filepath.Join(dir, "three.json")
	if err := runCheck([]string{"--db", makeDB(t, gate(3, 0, 1)), "--baseline", three, "--write-baseline"}, &out); err != nil {
		t.Fatal(err)
	}
	corrupt := filepath.Join(dir, "corrupt.json")
	os.WriteFile(corrupt, []byte(`{"format": "ugbench-baseline", "version": 1, "alpha": 0.05, "cells": [{"method": "x"}]}`), 0o644)

	for _, c := range []struct {
		name     string
		db       []planted
		baseline string
		extra    []string
		code     int
		want     string
	}{
		{"pass", gate(4, 0, 1.02), baseline, nil, 0, "check: PASS (4 cells)"},
		{"planted regression", gate(4, 0.05, 1), baseline, nil, 1,
			"regression: gin-topk/Letter-high/low accuracy: 0.615±0.013 → 0.563±0.011"},
		{"planted slowdown", gate(4, 0, 1.5), baseline, nil, 1,
			"regression: gin-topk/Letter-high/high epoch_seconds: 1.025±0.065 → 1.538±0.097"},
		{"too few seeds", gate(3, 0.05, 1), three, nil, 3, "too few seeds (need ≥ 4)"},
		{"missing cell", gate(4, 0, 1)[:4], baseline, nil, 3,
			"cannot judge: gin-topk/Letter-high/high accuracy: baseline 0.615±0.013, no current value"},
		{"missing baseline", gate(4, 0, 1), filepath.Join(dir, "nope.json"), nil, 2, ""},
		{"corrupt baseline", gate(4, 0, 1), corrupt, nil, 2, ""},
		{"bad threshold", gate(4, 0, 1), baseline, []string{"--threshold", "accuracy=abc"}, 2, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			args := append([]string{"--db", makeDB(t, c.db), "--baseline", c.baseline}, c.extra...)
			err := runCheck(args, &out)
			if got := exitCode(err); got != c.code {
				t.Errorf("exit %d (err %v), want %d; output:\n%s", got, err, c.code, out.String())
			}
			if !strings.Contains(out.String(), c.want) {
				t.Errorf("output lacks %q:\n%s", c.want, out.String())
			}
		})
	}
	if got := exitCode(runCheck([]string{"--db", filepath.Join(dir, "none.db"), "--baseline", baseline}, &out)); got != 2 {
		t.Errorf("missing database: exit %d, want 2", got)
	}
}

func TestCompareCommits(t *testing.T) {
	var rs []planted
	for i, p := range gate(4, 0, 1) {
		p.commit = "aaaa1111"
		rs = append(rs, p)
		q := gate(4, 0.05, 1)[i]
		q.commit = "bbbb2222"
		q.seed += 100 // a different run of the same cell
		rs = append(rs, q)
	}
	db := makeDB(t, rs)
	var out bytes.Buffer
	if err := runCompare([]string{"--db", db, "--metrics", "accuracy", "commit=aaaa", "commit=bbbb"}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"accuracy: old = commit=aaaa, new = commit=bbbb", "-0.052 (-8.4%)", "p=0.029 n=4+4 (utest)", "│ ~ "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("compare output lacks %q:\n%s", want, out.String())
		}
	}
	if err := runCompare([]string{"--db", db, "commit=aaaa", "commit=cccc"}, &out); err == nil || !strings.Contains(err.Error(), `side "commit=cccc" selects no run`) {
		t.Errorf("empty side: error %v", err)
	}
}

// TestCheckScore: --score knn makes --metrics and --threshold name knn's
// metrics; the baseline records them, so checking reads them back.
func TestCheckScore(t *testing.T) {
	db := scoredDB(t)
	baseline := filepath.Join(t.TempDir(), "knn.json")
	var out bytes.Buffer
	if err := runCheck([]string{"--db", db, "--methods", "sage-topk", "--baseline", baseline, "--write-baseline", "--score", "knn",
		"--metrics", "accuracy,ood_auroc", "--threshold", "accuracy=-0.05"}, &out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(baseline)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"knn:accuracy": "-0.05"`, `"knn:ood_auroc": "-0.02"`, `"metric": "knn:accuracy"`} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("baseline lacks %s:\n%s", want, b)
		}
	}
	if bytes.Contains(b, []byte(`"metric": "accuracy"`)) {
		t.Errorf("baseline --score knn records native accuracy:\n%s", b)
	}
	out.Reset()
	if err := runCheck([]string{"--db", db, "--methods", "sage-topk", "--baseline", baseline}, &out); err != nil {
		t.Fatalf("check against its own runs: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "knn:accuracy") || !strings.Contains(out.String(), "check: PASS (4 cells)") {
		t.Errorf("check output:\n%s", out.String())
	}
	err = runCheck([]string{"--db", db, "--baseline", baseline, "--score", "msp"}, &out)
	if want := "--score msp: baseline " + baseline + " records no metric of that score"; exitCode(err) != 2 || !strings.Contains(err.Error(), want) {
		t.Errorf("check --score msp against a knn baseline: %v, want %q (exit 2)", err, want)
	}
	err = runCheck([]string{"--db", db, "--baseline", baseline, "--score", "energy"}, &out)
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "scores present: native, knn, msp") {
		t.Errorf("check --score energy: %v", err)
	}
}
