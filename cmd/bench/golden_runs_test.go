package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/internal/cpukernels"
	"github.com/ugbench/ugbench/suite"
	"github.com/ugbench/ugbench/suite/suitetest"
)

var updateGoldenRuns = flag.Bool("update-golden-runs", false, "rewrite this CPU's testdata/golden-runs-ISA.json from this build instead of comparing with it")

// goldenISA names the vector kernels GoMLX's pure-Go backend computes with
// in this process (cpukernels.Of): its kernels sum in vectors of their own
// width, so the same run rounds differently with the AVX-512 and the AVX2
// kernels (an AVX-512 machine runs the AVX2 ones with
// GOMLX_GO_SIMD_AVX512=false), and each has its own golden file; the
// portable code (no GOEXPERIMENT=simd, another architecture) has none.
func goldenISA() string {
	switch cpukernels.Of("go") {
	case cpukernels.AVX512:
		return "amd64-avx512"
	case cpukernels.AVX2:
		return "amd64-avx2"
	}
	return runtime.GOARCH
}

// goldenRun is what TestGoldenRuns keeps of one run: every metric but the
// timings, and every curve point, as exact bit patterns (float64 bits in
// hex, so that NaN and -0 survive JSON).
type goldenRun struct {
	Hash    string            `json:"hash"`
	Metrics map[string]string `json:"metrics"`
	Curves  []string          `json:"curves"`
}

func bits(v float64) string { return fmt.Sprintf("%016x", math.Float64bits(v)) }

// TestGoldenRuns is the redesign's guard (issue 33): for every registered
// method, a small-budget run (embedded Letter-high, low ratio, split seed
// 0, seed 0, suitetest.TinyParams, the default post-hoc scorers) must store
// the config hash, metrics and curves recorded in
// testdata/golden-runs-ISA.json (ISA: goldenISA), bit for bit; only the timing metrics
// (epoch_seconds*) and peak memory (suite.IsMeasurement) are left out.
// A parameter whose default moved after the files were recorded keeps
// its recorded value (recordedDefaults); where that differs from a
// method's default, a second run at the defaults is kept under
// NAME@default, and an ISA whose file lacks it only logs so, because a new
// default can be recorded on one ISA's machine before the other's. A
// change that moves a number must say so
// and rewrite the files (-update-golden-runs) in the same commit, on a
// machine of each ISA. The amd64-avx512 file was recorded on the project's
// 2-core AVX-512 Xeon, the amd64-avx2 one on its 2-core AMD EPYC (AVX2);
// on a CPU with no file the test is skipped, saying how to record one.
func TestGoldenRuns(t *testing.T) {
	dir := t.TempDir() // empty: Letter-high comes from the embedded copy
	runner := &suite.Runner{DataDir: dir, Backend: "go"}
	var err error
	if runner.Scorers, err = parseScorers(suite.DefaultScorers()); err != nil {
		t.Fatal(err)
	}
	info, _ := datasets.LookupInfo("Letter-high")
	got := map[string]goldenRun{}
	run := func(key, name string, params suite.Params) {
		spec := suite.RunSpec{Method: name, Dataset: "Letter-high", RatioName: "low", Ratio: info.Low, Seed: 0, Params: params, Protocol: suite.DefaultProtocol()}
		res, err := runner.Run(context.Background(), spec, "cpu", nil)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		g := goldenRun{Hash: spec.Hash(), Metrics: map[string]string{}}
		for k, v := range res.Metrics {
			if !suite.IsMeasurement(k) {
				g.Metrics[k] = bits(v)
			}
		}
		for _, c := range res.Curves {
			g.Curves = append(g.Curves, fmt.Sprintf("%d %s %s", c.Epoch, c.Name, bits(c.Value)))
		}
		got[key] = g
	}
	for _, name := range suite.Names() {
		m, _ := suite.Lookup(name)
		tiny := suitetest.TinyParams(m)
		params := suite.Params{}
		for k, v := range tiny {
			if !sameParam(m.Defaults()[k], v) {
				params[k] = v
			}
		}
		stored := params.Clone()
		for k, v := range recordedDefaults {
			if d, ok := m.Defaults()[k]; ok && !sameParam(d, v) {
				stored[k] = v
			}
		}
		run(name, name, stored)
		if len(stored) != len(params) {
			run(name+defaultSuffix, name, params)
		}
	}
	path := filepath.Join("testdata", "golden-runs-"+goldenISA()+".json")
	if *updateGoldenRuns {
		data, _ := json.MarshalIndent(got, "", " ")
		if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("no golden runs for this CPU (%s): `go test -run TestGoldenRuns ./cmd/bench -update-golden-runs` on a build that holds the others records %s", goldenISA(), path)
	}
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]goldenRun
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		w, g := want[name], got[name]
		if g.Hash != w.Hash {
			t.Errorf("%s: config hash %s, recorded %s", name, g.Hash, w.Hash)
		}
		for k, wv := range w.Metrics {
			if gv, ok := g.Metrics[k]; !ok || gv != wv {
				t.Errorf("%s: metric %s = %s, recorded %s", name, k, gv, wv)
			}
		}
		for k := range g.Metrics {
			if _, ok := w.Metrics[k]; !ok {
				t.Errorf("%s: new metric %s (rewrite the file if intended)", name, k)
			}
		}
		if !slices.Equal(g.Curves, w.Curves) {
			t.Errorf("%s: curves differ from the recorded ones (%d points, recorded %d)", name, len(g.Curves), len(w.Curves))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[name]; !ok {
			if strings.HasSuffix(name, defaultSuffix) {
				// A default that differs from the legacy one may be
				// recorded on one ISA before the other can be.
				t.Logf("%s: not recorded for %s (record it on a machine of that ISA with -update-golden-runs)", name, goldenISA())
				continue
			}
			t.Errorf("%s: no recorded run (rewrite the file with -update-golden-runs)", name)
		}
	}
}

// recordedDefaults are the defaults the golden runs were recorded with,
// for the parameters whose default has moved since (to a value that
// changes numbers): the recorded runs keep them, the runs at the new
// defaults are NAME@default. layout moved from auto (the dense layout on
// Letter-high) to edges.
var recordedDefaults = suite.Params{"layout": "auto"}

// defaultSuffix marks a golden run at a method's defaults where they
// differ from its legacy values (TestGoldenRuns).
const defaultSuffix = "@default"

// sameParam compares two parameter values as suite does (numbers by value).
func sameParam(a, b any) bool { return fmt.Sprint(a) == fmt.Sprint(b) }
