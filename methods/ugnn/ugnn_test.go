package ugnn

import (
	"context"
	"errors"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/methods/gnn"
	"github.com/ugbench/ugbench/suite"
)

// TestVariantsTable: each ablation switches off exactly what its name says.
func TestVariantsTable(t *testing.T) {
	want := map[string]Variant{
		"ugnn":       {SubgraphOOD: true, Prototypes: true, KnownPrototypes: true, UnknownPrototypes: true},
		"ugnn-wo-s":  {SubgraphOOD: false, Prototypes: true, KnownPrototypes: true, UnknownPrototypes: true},
		"ugnn-wo-p":  {SubgraphOOD: true, Prototypes: false, KnownPrototypes: false, UnknownPrototypes: false},
		"ugnn-wo-kp": {SubgraphOOD: true, Prototypes: true, KnownPrototypes: false, UnknownPrototypes: true},
		"ugnn-wo-up": {SubgraphOOD: true, Prototypes: true, KnownPrototypes: true, UnknownPrototypes: false},
	}
	if len(Variants) != len(want) {
		t.Fatalf("%d variants, want %d", len(Variants), len(want))
	}
	for _, v := range Variants {
		w, ok := want[v.Name]
		if !ok {
			t.Errorf("unexpected variant %q", v.Name)
			continue
		}
		got := v
		got.Name, got.Doc = "", ""
		if got != w {
			t.Errorf("%s: switches %+v, want %+v", v.Name, got, w)
		}
		if v.Doc == "" {
			t.Errorf("%s: no doc", v.Name)
		}
	}
}

// TestVariantsRegisteredWithSameDefaults: all five are in the suite's
// registry with the identical docs/protocol.md §5 defaults.
func TestVariantsRegisteredWithSameDefaults(t *testing.T) {
	var first suite.Params
	for _, v := range Variants {
		m, err := suite.Lookup(v.Name)
		if err != nil {
			t.Fatal(err)
		}
		if m.Name() != v.Name || m.Doc() != v.Doc {
			t.Errorf("registered %q / %q for %q", m.Name(), m.Doc(), v.Name)
		}
		d := m.Defaults()
		if first == nil {
			first = d
		} else if !reflect.DeepEqual(d, first) {
			t.Errorf("%s defaults %v differ from ugnn's %v", v.Name, d, first)
		}
	}
	// docs/protocol.md §5 values.
	for k, w := range map[string]any{
		"steps": 0, "warmup_frac": 0.5, "batch_size": 64, "unlabelled_batch_size": 256, "lr": 1e-3, "hidden": 128, "pool_ratio": 0.8,
		"subgraphs": 3, "node_drop": 0.2, "unknown_prototypes": 3, "sinkhorn_eps": 0.05, "sinkhorn_iters": 3,
		"tau": 0.1, "eta": 0.99,
	} {
		if first[k] != w {
			t.Errorf("default %s = %v, want %v", k, first[k], w)
		}
	}
	if _, err := configFrom(first, 10); err != nil {
		t.Errorf("defaults rejected: %v", err)
	}
}

// TestConfigValidation: configFrom rejects inconsistent settings.
func TestConfigValidation(t *testing.T) {
	base := method{Variants[0]}.Defaults()
	for _, c := range []struct {
		k string
		v any
	}{
		{"warmup_frac", 1.01}, {"warmup_frac", -0.1}, {"steps", -1}, {"cycles", 0}, {"cycles", -1}, {"subgraphs", 0},
		{"node_drop", 1.0}, {"edge_drop", -0.1}, {"unknown_prototypes", 0}, {"sinkhorn_eps", 0.0},
		{"tau", 0.0}, {"eta", 1.5}, {"batch_size", 1}, {"hidden", 0}, {"pool_ratio", 0.0},
	} {
		p := base.Clone()
		p[c.k] = c.v
		if _, err := configFrom(p, 10); err == nil {
			t.Errorf("%s = %v accepted", c.k, c.v)
		}
	}
	p := base.Clone()
	p["steps"], p["warmup_frac"], p["cycles"] = 10, 1.0, 5 // no semi-supervised steps: cycles unchecked
	if _, err := configFrom(p, 10); err != nil {
		t.Errorf("warm-up only rejected: %v", err)
	}
}

// TestConfigSteps: the step budget splits into round(warmup_frac·steps)
// warm-up steps and the rest for the cycles; cycles is capped at the semi
// steps, never raised, and left as given when only the warm-up runs; the
// cycles' steps add up to the semi steps, the first ones taking the rest.
func TestConfigSteps(t *testing.T) {
	for _, c := range []struct {
		steps  int
		frac   float64
		cycles int
		warm   int
		semi   int
		want   int // cycles
	}{
		{500, 0.5, 5, 250, 250, 5}, // protocol defaults
		{100, 0.5, 51, 50, 50, 50}, // more cycles than semi steps
		{2, 0.5, 5, 1, 1, 1},
		{5, 0.5, 5, 3, 2, 2}, // 2.5 rounds up
		{9, 0.5, 5, 5, 4, 4},
		{3, 0, 5, 0, 3, 3},   // no warm-up
		{10, 1, 5, 10, 0, 5}, // warm-up only: no cycles run, value untouched
		{0, 0.5, 5, 0, 0, 5},
	} {
		p := method{Variants[0]}.Defaults()
		p["steps"], p["warmup_frac"], p["cycles"] = c.steps, c.frac, c.cycles
		cfg, err := configFrom(p, 10)
		if err != nil {
			t.Errorf("steps %d, warmup_frac %g, cycles %d: %v", c.steps, c.frac, c.cycles, err)
			continue
		}
		if cfg.WarmupSteps != c.warm || cfg.SemiSteps != c.semi || cfg.Cycles != c.want {
			t.Errorf("steps %d, warmup_frac %g, cycles %d: warm-up %d, semi %d, Cycles %d; want %d, %d, %d",
				c.steps, c.frac, c.cycles, cfg.WarmupSteps, cfg.SemiSteps, cfg.Cycles, c.warm, c.semi, c.want)
		}
		if cfg.SemiSteps > 0 {
			sum := 0
			for t := 1; t <= cfg.Cycles; t++ {
				sum += cycleSteps(cfg, t)
			}
			if sum != cfg.SemiSteps {
				t.Errorf("steps %d: cycle steps add up to %d, want %d", c.steps, sum, cfg.SemiSteps)
			}
		}
	}
}

// TestWarmupKey: the warm-up cache key changes with everything the warm-up
// depends on and with nothing else (so the five variants, and runs that
// differ only after the warm-up, share one entry). Through the runner a new
// seed also changes the split, so only this test shows the seed itself is
// in the key.
func TestWarmupKey(t *testing.T) {
	base := func() *run {
		cfg, err := configFrom(method{Variants[0]}.Defaults(), 10)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Layout = gnn.LayoutDense // as newRun resolves auto on these graphs
		return &run{cfg: cfg, v: Variants[0], task: &suite.Task{
			Graphs: make([]datasets.Graph, 10), FeatureDim: 2, NumKnown: 10, Labelled: []int{0, 1, 2}, Labels: []int{0, 1, 0},
			Unlabelled: []int{3, 4, 5, 6, 7, 8, 9}, Seed: 0, Backend: "go", Dataset: "Letter-high", NumUnknown: 3, Alpha: 1,
		}}
	}
	key := base().warmupKey()
	if key != base().warmupKey() {
		t.Fatal("warmupKey is not a function of its inputs")
	}
	changes := map[string]func(r *run){
		"seed":          func(r *run) { r.task.Seed = 1 },
		"labelled":      func(r *run) { r.task.Labelled = []int{0, 1, 3} },
		"labels":        func(r *run) { r.task.Labels = []int{0, 1, 1} },
		"dataset":       func(r *run) { r.task.Dataset = "Letter-low" },
		"graphs":        func(r *run) { r.task.Graphs = make([]datasets.Graph, 11) },
		"graph content": func(r *run) { r.task.Graphs[3] = datasets.Graph{NumNodes: 1, Features: []float32{0, 1}} },
		"feature dim":   func(r *run) { r.task.FeatureDim = 3 },
		"backend":       func(r *run) { r.task.Backend = "xla:cpu" },
		"warm-up steps": func(r *run) { r.cfg.WarmupSteps = 49 },
		"train pool":    func(r *run) { r.task.Unlabelled = []int{3, 4, 5, 6, 7, 8} },
		"batch_size":    func(r *run) { r.cfg.BatchSize = 128 },
		"hidden":        func(r *run) { r.cfg.Hidden = 64 },
		"layers":        func(r *run) { r.cfg.Layers = 3 },
		"size_chunks":   func(r *run) { r.cfg.Chunks = 1 }, // same gradient, other float rounding
		"lr":            func(r *run) { r.cfg.LR = 1e-2 },
		"pool_ratio":    func(r *run) { r.cfg.PoolRatio = 0.5 },
		"supcon_tau":    func(r *run) { r.cfg.SupConTau = 0.2 },
		"supcon_weight": func(r *run) { r.cfg.SupConWeight = 0 },
		"classes":       func(r *run) { r.cfg.Classes = 9 },
		"layout":        func(r *run) { r.cfg.Layout = gnn.LayoutEdges }, // same function, other float rounding
		"batch_norm":    func(r *run) { r.cfg.BatchNorm = true },
	}
	for name, change := range changes {
		r := base()
		change(r)
		if r.warmupKey() == key {
			t.Errorf("changing %s keeps the warm-up key", name)
		}
	}
	same := map[string]func(r *run){
		"variant":            func(r *run) { r.v = Variants[3] },
		"semi steps":         func(r *run) { r.cfg.SemiSteps = 200 },
		"cycles":             func(r *run) { r.cfg.Cycles = 3 },
		"subgraphs":          func(r *run) { r.cfg.Subgraphs = 5 },
		"node/edge drop":     func(r *run) { r.cfg.NodeDrop, r.cfg.EdgeDrop = 0.3, 0.1 },
		"unknown_prototypes": func(r *run) { r.cfg.UnknownPrototypes = 5 },
		"alpha":              func(r *run) { r.cfg.Alpha = 1.4 },
		"sinkhorn":           func(r *run) { r.cfg.SinkhornEps, r.cfg.SinkhornIters = 0.1, 5 },
		"tau/eta":            func(r *run) { r.cfg.Tau, r.cfg.Eta = 0.2, 0.9 },
		"kmeans_iters":       func(r *run) { r.cfg.KMeansIters = 10 },
		"K":                  func(r *run) { r.task.NumUnknown = 4 },
	}
	for name, change := range same {
		r := base()
		change(r)
		if r.warmupKey() != key {
			t.Errorf("changing %s (not used by the warm-up) changes the warm-up key", name)
		}
	}
}

// letterHigh resolves the real Letter-high data directory and low ratio,
// skipping when the data is absent.
func letterHigh(t *testing.T) (dir, ratioName string, ratio float64) {
	t.Helper()
	dir = datasetstest.DirFor(t, "Letter-high")
	ratioName, ratio, err := datasets.ResolveRatio("Letter-high", "low")
	if err != nil {
		t.Fatal(err)
	}
	return dir, ratioName, ratio
}

func runSpec(t *testing.T, r *suite.Runner, methodName string, seed int64, params suite.Params) suite.Result {
	t.Helper()
	_, ratioName, ratio := letterHigh(t)
	res, err := r.Run(context.Background(), suite.RunSpec{
		Method: methodName, Dataset: "Letter-high", RatioName: ratioName, Ratio: ratio, Seed: seed,
		Params: params, Protocol: suite.DefaultProtocol(),
	}, "cpu", nil)
	if err != nil {
		t.Fatalf("%s seed %d: %v", methodName, seed, err)
	}
	return res
}

// curve returns the values of name by epoch.
func curve(res suite.Result, name string) map[int]float64 {
	out := map[int]float64{}
	for _, c := range res.Curves {
		if c.Name == name {
			out[c.Epoch] = c.Value
		}
	}
	return out
}

// points returns the values of name in logged order.
func points(res suite.Result, name string) []float64 {
	var out []float64
	for _, c := range res.Curves {
		if c.Name == name {
			out = append(out, c.Value)
		}
	}
	return out
}

func tinyParams() suite.Params {
	// 8 warm-up steps (2 epochs over Letter-high low's 240 labelled graphs
	// at batch 64), then 2 cycles of 28 steps (a pass over the 1,560
	// unlabelled graphs, 25 steps, and 3 steps of a second pass).
	return suite.Params{"steps": 64, "warmup_frac": 0.125, "cycles": 2, "hidden": 16, "layers": 1, "batch_size": 64, "unlabelled_batch_size": 64, "subgraphs": 2}
}

// tinyRuns runs the five variants once (no warm-up cache) with the tiny
// budget on Letter-high, seed 0, and shares the results between tests
// (skipping t where Letter-high cannot load).
func tinyRuns(t *testing.T) (map[string]suite.Result, error) {
	dir, _, _ := letterHigh(t)
	return tinyRunsOnce(dir)
}

var (
	tinyOnce sync.Once
	tinyRes  map[string]suite.Result
	tinyErr  error
)

// tinyRunsOnce runs the variants from dir on its first call and returns
// that call's results to every call.
func tinyRunsOnce(dir string) (map[string]suite.Result, error) {
	tinyOnce.Do(func() { tinyRes, tinyErr = runTiny(dir) })
	return tinyRes, tinyErr
}

// runTiny runs the five variants with the tiny budget from dir.
func runTiny(dir string) (map[string]suite.Result, error) {
	_, ratio, err := datasets.ResolveRatio("Letter-high", "low")
	if err != nil {
		return nil, err
	}
	name, _, _ := datasets.ResolveRatio("Letter-high", "low")
	r := &suite.Runner{DataDir: dir, Backend: "go"}
	out := map[string]suite.Result{}
	for _, v := range Variants {
		res, err := r.Run(context.Background(), suite.RunSpec{
			Method: v.Name, Dataset: "Letter-high", RatioName: name, Ratio: ratio, Seed: 0,
			Params: tinyParams(), Protocol: suite.DefaultProtocol(),
		}, "cpu", nil)
		if err != nil {
			return nil, err
		}
		out[v.Name] = res
	}
	return out, nil
}

// TestVariantsBehaviour: with a tiny budget on real Letter-high the five
// variants share the warm-up exactly (same seed, split and settings), take
// the same number of optimizer steps in every epoch, only the prototype
// variants log L^u, every variant reports its OOD set once
// per cycle, and the variants that keep subgraph OOD detection select the
// same first OOD set (the prototype switches do not touch detection).
func TestVariantsBehaviour(t *testing.T) {
	letterHigh(t)
	runs, err := tinyRuns(t)
	if err != nil {
		t.Fatal(err)
	}
	ref := runs["ugnn"]
	refWarm := points(ref, "loss")[:2]
	// Optimizer steps per epoch, from the split the runs used: passes of
	// ⌈|D^l|/B⌉ steps over the 8 warm-up steps, then per cycle passes of
	// ⌈|D^u|/B⌉ steps over its 28, the last pass cut short, for every
	// variant (w/o P drops L^u and the prototypes, not steps).
	split := newLetterTask(t).split
	batch := tinyParams().Int("batch_size")
	wantSteps := map[int]float64{}
	ep := 0
	for _, phase := range []struct{ steps, n int }{{8, len(split.Labelled)}, {28, len(split.Unlabelled)}, {28, len(split.Unlabelled)}} {
		per := (phase.n + batch - 1) / batch
		for left := phase.steps; left > 0; left -= per {
			ep++
			wantSteps[ep] = float64(min(per, left))
		}
	}
	if ep != 6 {
		t.Fatalf("the tiny budget gives %d epochs on this split, want 6 (2 warm-up, 2 per cycle)", ep)
	}
	for _, v := range Variants {
		res := runs[v.Name]
		for _, phase := range []string{"warmup", "semi"} { // per-phase epoch times (suite.Phase)
			if sec, ok := res.Metrics[suite.EpochSecondsMetric+"_"+phase]; !ok || !(sec > 0) {
				t.Errorf("%s: %s_%s = %v (present %v), want > 0", v.Name, suite.EpochSecondsMetric, phase, sec, ok)
			}
		}
		if got := curve(res, "steps"); !maps.Equal(got, wantSteps) {
			t.Errorf("%s: steps per epoch %v, want %v", v.Name, got, wantSteps)
		}
		loss := curve(res, "loss")
		if len(loss) != 6 {
			t.Errorf("%s: %d loss points, want 6", v.Name, len(loss))
		}
		for ep := 1; ep <= 2; ep++ {
			if loss[ep] != refWarm[ep-1] || !finite(loss[ep]) {
				t.Errorf("%s: warm-up epoch %d loss %v, ugnn %v", v.Name, ep, loss[ep], refWarm[ep-1])
			}
			if ce := curve(res, "loss_ce"); ce[ep] != curve(ref, "loss_ce")[ep] {
				t.Errorf("%s: warm-up epoch %d loss_ce %v, ugnn %v", v.Name, ep, ce[ep], curve(ref, "loss_ce")[ep])
			}
		}
		lu := curve(res, "loss_u")
		if v.Prototypes {
			if len(lu) != 4 {
				t.Errorf("%s: %d loss_u points, want 4 (one per semi-supervised epoch)", v.Name, len(lu))
			}
			for ep := 3; ep <= 6; ep++ {
				if x, ok := lu[ep]; !ok || !finite(x) || x < 0 {
					t.Errorf("%s: loss_u at epoch %d = %v (present %v)", v.Name, ep, x, ok)
				}
			}
		} else if len(lu) != 0 {
			t.Errorf("%s: logged loss_u %v without prototypes", v.Name, lu)
		}
		cyc := curve(res, "cycle")
		if cyc[3] != 1 || cyc[4] != 1 || cyc[5] != 2 || cyc[6] != 2 || len(cyc) != 4 {
			t.Errorf("%s: cycle curve %v, want epochs 3–4 in cycle 1, 5–6 in cycle 2", v.Name, cyc)
		}
		for _, name := range []string{"ood_set_precision", "ood_set_recall", "ood_set_size"} {
			c := curve(res, name)
			if len(points(res, name)) != 2 || len(c) != 2 {
				t.Errorf("%s: %s logged %v, want once per cycle (epochs 2 and 4)", v.Name, name, points(res, name))
				continue
			}
			for _, ep := range []int{2, 4} {
				x, ok := c[ep]
				if !ok || !finite(x) || x < 0 || (name != "ood_set_size" && x > 1) {
					t.Errorf("%s: %s at epoch %d = %v (present %v)", v.Name, name, ep, x, ok)
				}
			}
		}
		size := curve(res, "ood_set_size")
		if !(size[2] >= 3 && size[2] <= size[4]) {
			t.Errorf("%s: OOD set sizes %v: want ≥ R = 3 and non-decreasing", v.Name, size)
		}
		for _, m := range []string{suite.MetricAccuracy, suite.MetricOODF1, suite.MetricUnknownAcc, suite.MetricKnownAcc, suite.MetricOODAUROC} {
			if x, ok := res.Metrics[m]; !ok || !finite(x) || x < 0 || x > 1 {
				t.Errorf("%s: %s = %v (present %v)", v.Name, m, x, ok)
			}
		}
		if v.SubgraphOOD {
			for _, name := range []string{"ood_set_precision", "ood_set_recall", "ood_set_size"} {
				if curve(res, name)[2] != curve(ref, name)[2] {
					t.Errorf("%s: first %s %v, ugnn %v: same detector after the same warm-up", v.Name, name, curve(res, name)[2], curve(ref, name)[2])
				}
			}
		}
		t.Logf("%s: loss %v, loss_u %v, ood size %v, metrics %v, %.1fs", v.Name, points(res, "loss"), points(res, "loss_u"), points(res, "ood_set_size"), res.Metrics, res.Seconds)
	}
	// w/o P trains L^l (+ contrastive) only after warm-up: its cycle losses
	// differ from the full method's, which adds L^u.
	if curve(runs["ugnn-wo-p"], "loss")[3] == curve(ref, "loss")[3] {
		t.Error("ugnn-wo-p and ugnn have the same loss after the warm-up")
	}
}

// TestWarmupCache: with Runner.CacheDir set, ugnn trains the warm-up and
// stores it; ugnn-wo-up with the same seed restores it (its warm-up points
// carry warmup_cached = 1 and equal the first run's losses), and runs on
// exactly as an uncached ugnn-wo-up does; another seed misses the cache.
// The cache entry must also be complete on disk (the checkpoint and the
// curves, no temporary directory left).
func TestWarmupCache(t *testing.T) {
	dir, _, _ := letterHigh(t)
	r := &suite.Runner{DataDir: dir, Backend: "go", CacheDir: t.TempDir()}
	first := runSpec(t, r, "ugnn", 0, tinyParams())
	if c := curve(first, "warmup_cached"); len(c) != 0 {
		t.Fatalf("first run: warmup_cached %v on an empty cache", c)
	}
	entries, err := filepath.Glob(filepath.Join(r.CacheDir, "ugnn-warmup", "[0-9a-f]*[0-9a-f]")) // not KEY.lock
	if err != nil || len(entries) != 1 {
		t.Fatalf("cache holds %v (%v), want one warm-up entry", entries, err)
	}
	if _, err := os.Stat(filepath.Join(entries[0], "curves.json")); err != nil {
		t.Errorf("cache entry without curves: %v", err)
	}
	if tmp, _ := filepath.Glob(filepath.Join(r.CacheDir, "ugnn-warmup", ".tmp-*")); len(tmp) != 0 {
		t.Errorf("temporary directories left: %v", tmp)
	}
	second := runSpec(t, r, "ugnn-wo-up", 0, tinyParams())
	cached := curve(second, "warmup_cached")
	if len(cached) != 2 || cached[1] != 1 || cached[2] != 1 {
		t.Fatalf("second run: warmup_cached %v, want 1 at epochs 1 and 2 only", cached)
	}
	for _, name := range []string{"loss", "loss_ce"} {
		a, b := curve(first, name), curve(second, name)
		for ep := 1; ep <= 2; ep++ {
			if a[ep] != b[ep] {
				t.Errorf("%s at warm-up epoch %d: %v cached, %v trained", name, ep, b[ep], a[ep])
			}
		}
	}
	// w/o P shares the warm-up key and is the cheapest variant to run.
	other := runSpec(t, r, "ugnn-wo-p", 1, tinyParams())
	if c := curve(other, "warmup_cached"); len(c) != 0 {
		t.Errorf("seed 1 hit the seed-0 cache: warmup_cached %v", c)
	}
	if curve(other, "loss")[1] == curve(first, "loss")[1] {
		t.Errorf("seed 1 warm-up loss equals seed 0's (%v)", curve(first, "loss")[1])
	}
	// The restored checkpoint carries the whole training state (weights,
	// Adam moments, RNG): the rest of the run is the uncached run's.
	runs, err := tinyRuns(t)
	if err != nil {
		t.Fatal(err)
	}
	plain := runs["ugnn-wo-up"]
	for _, name := range []string{"loss", "loss_u", "ood_set_size", "ood_set_precision"} {
		a, b := points(plain, name), points(second, name)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: cached run %v, uncached %v", name, b, a)
		}
	}
	// Every score is equal; only the wall times per epoch may differ (and a
	// cached warm-up has no epoch_seconds_warmup: its epochs are not timed).
	scores := func(m map[string]float64) map[string]float64 {
		out := maps.Clone(m)
		for k := range out {
			if suite.IsMeasurement(k) {
				delete(out, k)
			}
		}
		return out
	}
	if _, ok := second.Metrics[suite.EpochSecondsMetric+"_warmup"]; ok {
		t.Errorf("cached run has %s_warmup: restored epochs must not be timed", suite.EpochSecondsMetric)
	}
	if !reflect.DeepEqual(scores(plain.Metrics), scores(second.Metrics)) {
		t.Errorf("metrics: cached run %v, uncached %v", second.Metrics, plain.Metrics)
	}
}

// TestWarmupCacheLock: the warm-up cache entry's file lock (KEY.lock) is
// what bench grid processes sharing a cache coordinate with. A lock held
// through another file descriptor (as by another process) makes a run wait,
// and the wait ends with the run's context; a lock file left behind after
// it is released does not block. Of two runs racing on an empty cache one
// trains and the other loads; a complete entry is loaded, never deleted or
// replaced, also by a save racing past the lock; an incomplete directory
// in its place is replaced.
func TestWarmupCacheLock(t *testing.T) {
	lt := newLetterTask(t)
	params := lt.params(1)
	cfg, err := configFrom(params, lt.numKnown)
	if err != nil {
		t.Fatal(err)
	}
	cacheDir := t.TempDir()
	newCachedRun := func() (*run, *recordLog) {
		var reported [][]int
		task := lt.task(params, 1, &reported)
		log := &recordLog{}
		task.Log, task.CacheDir = log, cacheDir
		r, err := newRun(task, cfg, Variants[0])
		if err != nil {
			t.Fatal(err)
		}
		return r, log
	}

	// Held by "another process": the run waits until its context ends.
	r0, log0 := newCachedRun()
	dir := filepath.Join(cacheDir, "ugnn-warmup", r0.warmupKey())
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	other := flock.New(dir + ".lock")
	if err := other.Lock(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	err = r0.warmup(ctx)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || log0.count("loss") != 0 {
		t.Fatalf("warm-up with the lock held elsewhere: err %v, %d epochs; want the deadline, none", err, log0.count("loss"))
	}
	if err := other.Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir + ".lock"); err != nil {
		t.Fatalf("no leftover lock file to test with: %v", err)
	}

	// Two runs race on the empty cache (leftover lock file): one trains,
	// the other waits and loads.
	var wg sync.WaitGroup
	logs := make([]*recordLog, 2)
	errs := make([]error, 2)
	for i := range logs {
		r, log := newCachedRun()
		logs[i] = log
		wg.Go(func() { errs[i] = r.warmup(context.Background()) })
	}
	wg.Wait()
	cachedRuns := 0
	for i, log := range logs {
		if errs[i] != nil {
			t.Fatalf("racing run %d: %v", i, errs[i])
		}
		if log.count("loss") != 2 {
			t.Errorf("racing run %d logged %d warm-up epochs, want 2", i, log.count("loss"))
		}
		switch log.count(suite.CachedEpochCurve) {
		case 2:
			cachedRuns++
		case 0:
		default:
			t.Errorf("racing run %d: %d cached epochs", i, log.count(suite.CachedEpochCurve))
		}
	}
	if cachedRuns != 1 {
		t.Errorf("%d of the two racing runs loaded the cache, want 1", cachedRuns)
	}

	// A complete entry is loaded and left in place.
	marker := filepath.Join(dir, "marker")
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r3, log3 := newCachedRun()
	if err := r3.warmup(context.Background()); err != nil {
		t.Fatal(err)
	}
	if log3.count(suite.CachedEpochCurve) != 2 {
		t.Errorf("complete entry not loaded: %d cached epochs", log3.count(suite.CachedEpochCurve))
	}
	curves, ok := readWarmupCurves(dir, 2)
	if !ok {
		t.Fatal("cache entry incomplete after loading")
	}
	if err := r3.saveWarmup(dir, curves); err != nil {
		t.Errorf("saving over a complete entry: %v, want nil (someone else cached it)", err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("complete entry replaced: %v", err)
	}
	// An incomplete directory (no curves.json) is replaced.
	junk := filepath.Join(cacheDir, "ugnn-warmup", "incomplete")
	if err := os.MkdirAll(junk, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(junk, "junk"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r3.saveWarmup(junk, curves); err != nil {
		t.Fatalf("saving over an incomplete entry: %v", err)
	}
	if _, ok := readWarmupCurves(junk, 2); !ok {
		t.Error("incomplete entry not replaced by a complete one")
	}
	if tmp, _ := filepath.Glob(filepath.Join(cacheDir, "ugnn-warmup", ".tmp-*")); len(tmp) != 0 {
		t.Errorf("temporary directories left: %v", tmp)
	}
}

// recordLog counts the epochs that logged each value.
type recordLog struct {
	mu     sync.Mutex
	counts map[string]int
}

func (l *recordLog) Epoch(_, _ int, values map[string]float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.counts == nil {
		l.counts = map[string]int{}
	}
	for k := range values {
		l.counts[k]++
	}
}

func (l *recordLog) count(name string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.counts[name]
}

type nopLog struct{}

func (nopLog) Epoch(int, int, map[string]float64) {}

// protocolTask builds suite.Tasks on a real dataset (low ratio, seed 0,
// protocol split) without the runner, to call a run's steps directly.
type protocolTask struct {
	name                 string
	ds                   *datasets.Dataset
	split                *datasets.Split
	ratio                float64
	numKnown, numUnknown int
	unlabelled           map[int]bool
}

// newLetterTask is the protocolTask of Letter-high.
func newLetterTask(t *testing.T) *protocolTask {
	t.Helper()
	letterHigh(t)
	return newProtocolTask(t, "Letter-high")
}

// newProtocolTask is protocolTask on dataset name, skipping if it is absent.
func newProtocolTask(tb testing.TB, name string) *protocolTask {
	tb.Helper()
	ds := datasetstest.Load(tb, name)
	info, _ := datasets.LookupInfo(name)
	_, ratio, err := datasets.ResolveRatio(name, "low")
	if err != nil {
		tb.Fatal(err)
	}
	split, err := datasets.MakeSplit(ds.Labels, ds.NumClasses, datasets.SplitConfig{Known: info.Known, Ratio: ratio, Seed: 0, ClassSplit: "first", TestFrac: suite.DefaultTestFrac})
	if err != nil {
		tb.Fatal(err)
	}
	lt := &protocolTask{name: name, ds: ds, split: split, ratio: ratio, numKnown: len(split.KnownClasses), unlabelled: map[int]bool{}}
	for _, g := range split.Unlabelled {
		lt.unlabelled[g] = true
		if split.KnownIndex(ds.Labels[g]) < 0 {
			lt.numUnknown++
		}
	}
	return lt
}

// startRun sets up variant v's Fit of task (its Config from task.Params)
// without running it; the network is closed when tb ends.
func startRun(tb testing.TB, task *suite.Task, v Variant) *run {
	tb.Helper()
	cfg, err := configFrom(task.Params, task.NumKnown)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := newRun(task, cfg, v)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(r.net.close)
	return r
}

// params: the defaults with the tiny budget, one subgraph, cycles cycles.
func (lt *protocolTask) params(cycles int) suite.Params {
	p := method{Variants[0]}.Defaults()
	for k, v := range tinyParams() {
		p[k] = v
	}
	p["cycles"], p["subgraphs"] = cycles, 1
	return p
}

// task is a Task with the protocol's alpha whose reported OOD sets are
// appended to reported; its ReportScores drops the scores.
func (lt *protocolTask) task(params suite.Params, alpha float64, reported *[][]int) *suite.Task {
	return &suite.Task{
		Graphs: lt.ds.Graphs, FeatureDim: lt.ds.FeatureDim, NumKnown: lt.numKnown,
		Labelled: lt.split.Labelled, Labels: lt.split.LabelledY, Unlabelled: lt.split.Unlabelled, Eval: lt.split.Unlabelled,
		Params: params, Seed: 0, Device: "cpu", Backend: "go", Log: nopLog{}, Dataset: lt.name,
		Ratio: lt.ratio, NumUnknown: lt.numUnknown, Alpha: alpha,
		ReportOODSet: func(_ int, graphs []int) { *reported = append(*reported, graphs) },
		ReportScores: func(int, []int, map[string][]float64) error { return nil },
	}
}

// TestCurriculumFollowsProtocolAlpha: a grid run with the protocol's OOD
// multiplier α = 1.4 (`bench grid --alpha 1.4`, the paper's sensitivity
// study: "instead of choosing top K samples, we select top αK") should
// make UGNN's last-cycle OOD set hold ⌈1.4·K⌉ graphs.
func TestCurriculumFollowsProtocolAlpha(t *testing.T) {
	lt := newLetterTask(t)
	params := lt.params(1)
	var reported [][]int
	r := startRun(t, lt.task(params, 1.4, &reported), Variants[0])
	if _, err := r.cycleStart(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if want := int(math.Ceil(1.4 * float64(lt.numUnknown))); len(reported[0]) != want {
		t.Errorf("protocol α 1.4, K %d: OOD set of %d graphs, want %d", lt.numUnknown, len(reported[0]), want)
	}
}

// TestCycleStartPrototypes: on real Letter-high with an untrained network
// (same seed, so the same weights for every variant), cycle 1 of 1 builds
// C + R = 13 unit prototypes for ugnn, the same first C for w/o UP, the
// same last R for w/o KP, none for w/o P; all subgraph variants report the
// same OOD set of ⌈αK⌉ unlabelled graphs, and w/o S another one of the
// same size.
func TestCycleStartPrototypes(t *testing.T) {
	lt := newLetterTask(t)
	numUnknown, unlabelled := lt.numUnknown, lt.unlabelled
	params := lt.params(1)
	const C, R, D = 10, 3, 32
	protos := map[string][][]float32{}
	oodSets := map[string][]int{}
	for _, v := range Variants {
		var reported [][]int
		r := startRun(t, lt.task(params, 1, &reported), v)
		p, err := r.cycleStart(context.Background(), 1)
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if len(reported) != 1 {
			t.Fatalf("%s: reported %d OOD sets, want 1", v.Name, len(reported))
		}
		if len(reported[0]) != numUnknown {
			t.Errorf("%s: OOD set of %d graphs, want ⌈αK⌉ = %d", v.Name, len(reported[0]), numUnknown)
		}
		for _, g := range reported[0] {
			if !unlabelled[g] {
				t.Fatalf("%s: OOD set holds graph %d, not unlabelled", v.Name, g)
			}
		}
		protos[v.Name], oodSets[v.Name] = p, reported[0]
		for i, h := range p {
			var n float64
			for _, x := range h {
				n += float64(x) * float64(x)
			}
			if len(h) != D || !near(n, 1, 1e-4) {
				t.Errorf("%s: prototype %d has dimension %d and squared norm %v, want %d and 1", v.Name, i, len(h), n, D)
			}
		}
	}
	wantLen := map[string]int{"ugnn": C + R, "ugnn-wo-s": C + R, "ugnn-wo-p": 0, "ugnn-wo-kp": R, "ugnn-wo-up": C}
	for name, n := range wantLen {
		if len(protos[name]) != n {
			t.Errorf("%s: %d prototypes, want %d", name, len(protos[name]), n)
		}
	}
	if t.Failed() {
		return
	}
	full := protos["ugnn"]
	if !reflect.DeepEqual(protos["ugnn-wo-up"], full[:C]) {
		t.Error("w/o UP's known prototypes differ from ugnn's")
	}
	if !reflect.DeepEqual(protos["ugnn-wo-kp"], full[C:]) {
		t.Error("w/o KP's unknown prototypes differ from ugnn's")
	}
	for _, name := range []string{"ugnn-wo-p", "ugnn-wo-kp", "ugnn-wo-up"} {
		if !reflect.DeepEqual(oodSets[name], oodSets["ugnn"]) {
			t.Errorf("%s selected another OOD set than ugnn", name)
		}
	}
	if reflect.DeepEqual(oodSets["ugnn-wo-s"], oodSets["ugnn"]) {
		t.Error("w/o S selected the same OOD set as the subgraph detector")
	}
	// w/o S's unknown prototypes come from its own OOD set, its known
	// prototypes are ugnn's.
	if !reflect.DeepEqual(protos["ugnn-wo-s"][:C], full[:C]) {
		t.Error("w/o S's known prototypes differ from ugnn's")
	}
}

// TestUnknownScoreParts: on real Letter-high with an untrained network
// (the same weights for both variants), ugnn reports per cycle 1 − s~ and
// its parts 1 − μ and σ over the unlabelled graphs, with 1 − s~ = (1 − μ) + σ
// and the OOD set its ⌈αK⌉ highest; its predictions score 1 − s~ and keep
// 1 − s~, 1 − μ, σ and the whole graph's 1 − max softmax as extra scores.
// w/o S reports only 1 − max softmax, which is also its final unknown
// score, and equals ugnn's.
func TestUnknownScoreParts(t *testing.T) {
	lt := newLetterTask(t)
	params := lt.params(1)
	params["subgraphs"] = 3
	type report struct {
		graphs []int
		scores map[string][]float64
	}
	final := map[string]*suite.Predictions{}
	cycle := map[string]report{}
	for _, v := range []Variant{Variants[0], Variants[1]} {
		var oodSets [][]int
		task := lt.task(params, 1, &oodSets)
		var reports []report
		task.ReportScores = func(_ int, graphs []int, scores map[string][]float64) error {
			reports = append(reports, report{graphs, scores})
			return nil
		}
		r := startRun(t, task, v)
		if _, err := r.cycleStart(context.Background(), 1); err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		p, err := r.predictions(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if len(reports) != 1 || !reflect.DeepEqual(reports[0].graphs, lt.split.Unlabelled) {
			t.Fatalf("%s: %d score reports, want 1 over the unlabelled graphs", v.Name, len(reports))
		}
		rep := reports[0]
		cycle[v.Name], final[v.Name] = rep, p
		// The OOD set of the last cycle is the ⌈αK⌉ highest 1 − s~.
		main := rep.scores[ScoreSubgraph]
		if !v.SubgraphOOD {
			main = rep.scores[ScoreMSP]
		}
		if len(oodSets) != 1 || len(oodSets[0]) != lt.numUnknown {
			t.Fatalf("%s: OOD sets %d, want one of ⌈αK⌉ = %d graphs", v.Name, len(oodSets), lt.numUnknown)
		}
		in := map[int]bool{}
		for _, g := range oodSets[0] {
			in[g] = true
		}
		lowestIn, highestOut := math.Inf(1), math.Inf(-1)
		for i, g := range rep.graphs {
			if in[g] {
				lowestIn = min(lowestIn, main[i])
			} else {
				highestOut = max(highestOut, main[i])
			}
		}
		if lowestIn < highestOut {
			t.Errorf("%s: OOD set's lowest unknown score %v < %v outside it", v.Name, lowestIn, highestOut)
		}
	}
	keys := func(m map[string][]float64) []string { return slices.Sorted(maps.Keys(m)) }
	u, s := cycle["ugnn"].scores, cycle["ugnn-wo-s"].scores
	if got, want := keys(u), []string{ScoreSubgraph, ScoreSubgraphMean, ScoreSubgraphStd}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ugnn reported %v, want %v", got, want)
	}
	if got := keys(s); !reflect.DeepEqual(got, []string{ScoreMSP}) {
		t.Fatalf("w/o S reported %v, want [msp]", got)
	}
	spread := 0
	for i := range u[ScoreSubgraph] {
		mean, std := u[ScoreSubgraphMean][i], u[ScoreSubgraphStd][i]
		if !near(u[ScoreSubgraph][i], mean+std, 1e-12) || std < 0 || mean < 0 || mean > 1 {
			t.Fatalf("graph %d: 1 − s~ %v, 1 − μ %v, σ %v: want 1 − s~ = (1 − μ) + σ, σ ≥ 0, 1 − μ in [0, 1]", i, u[ScoreSubgraph][i], mean, std)
		}
		if std > 0 {
			spread++
		}
	}
	if spread == 0 {
		t.Error("σ = 0 for every graph: the 3 subgraphs are the same")
	}

	pu, ps := final["ugnn"], final["ugnn-wo-s"]
	if got, want := keys(pu.ExtraScores), []string{ScoreMSP, ScoreSubgraph, ScoreSubgraphMean, ScoreSubgraphStd}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ugnn's extra scores %v, want %v", got, want)
	}
	if got := keys(ps.ExtraScores); !reflect.DeepEqual(got, []string{ScoreMSP}) {
		t.Fatalf("w/o S's extra scores %v, want [msp]", got)
	}
	for i := range pu.UnknownScore {
		if !near(pu.UnknownScore[i], pu.ExtraScores[ScoreSubgraphMean][i]+pu.ExtraScores[ScoreSubgraphStd][i], 1e-12) ||
			pu.UnknownScore[i] != pu.ExtraScores[ScoreSubgraph][i] || ps.UnknownScore[i] != ps.ExtraScores[ScoreMSP][i] {
			t.Fatalf("graph %d: ugnn's unknown score %v is not 1 − s~ = (1 − μ) + σ, or w/o S's %v not its msp", i, pu.UnknownScore[i], ps.UnknownScore[i])
		}
		// Whole graphs are not perturbed: the same network gives the same
		// max softmax in the cycle and in the predictions, for both variants.
		if pu.ExtraScores[ScoreMSP][i] != ps.UnknownScore[i] || ps.UnknownScore[i] != s[ScoreMSP][i] {
			t.Fatalf("graph %d: msp %v (ugnn), %v (w/o S final), %v (w/o S cycle) differ", i, pu.ExtraScores[ScoreMSP][i], ps.UnknownScore[i], s[ScoreMSP][i])
		}
	}
}

// TestUGNNLetterHigh runs ugnn end to end through the suite's runner on
// real Letter-high (low ratio, seed 0) with a small budget: every metric is
// present, finite and in [0, 1], and the losses are finite.
func TestUGNNLetterHigh(t *testing.T) {
	dir, _, _ := letterHigh(t)
	r := &suite.Runner{DataDir: dir, Backend: "go"}
	// 40 warm-up steps (10 epochs of 4), then 2 cycles of 51 steps (3
	// epochs of 25, 25 and 1 over the 1,560 unlabelled graphs).
	p := suite.Params{"steps": 142, "warmup_frac": 40.0 / 142, "cycles": 2, "hidden": 32, "batch_size": 64, "unlabelled_batch_size": 64}
	res := runSpec(t, r, "ugnn", 0, p)
	loss := points(res, "loss")
	if len(loss) != 16 {
		t.Fatalf("logged %d loss points, want 16", len(loss))
	}
	for _, name := range []string{"loss", "loss_ce", "loss_u"} {
		for _, x := range points(res, name) {
			if !finite(x) || x < 0 {
				t.Fatalf("%s curve %v", name, points(res, name))
			}
		}
	}
	if len(points(res, "loss_u")) != 6 {
		t.Errorf("%d loss_u points, want 6", len(points(res, "loss_u")))
	}
	if !(loss[9] < loss[0]) {
		t.Errorf("warm-up loss did not fall: %v", loss[:10])
	}
	// The suite scores the extra unknown scores (ood_auroc_subgraph is
	// ood_auroc), and logs the AUROC of the reported ones once per cycle.
	if res.Metrics["ood_auroc_"+ScoreSubgraph] != res.Metrics[suite.MetricOODAUROC] {
		t.Errorf("ood_auroc_subgraph %v ≠ ood_auroc %v", res.Metrics["ood_auroc_"+ScoreSubgraph], res.Metrics[suite.MetricOODAUROC])
	}
	for _, m := range []string{suite.MetricAccuracy, suite.MetricOODF1, suite.MetricUnknownAcc, suite.MetricKnownAcc, suite.MetricOODAUROC,
		suite.MetricClosedAcc, "ood_auroc_" + ScoreMSP, "ood_auroc_" + ScoreSubgraphMean, "ood_auroc_" + ScoreSubgraphStd} {
		v, ok := res.Metrics[m]
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1 {
			t.Errorf("%s = %v (present %v), want in [0, 1]", m, v, ok)
		}
	}
	for _, name := range []string{ScoreSubgraph, ScoreSubgraphMean, ScoreSubgraphStd} {
		if got := points(res, "ood_auroc_"+name); len(got) != 2 {
			t.Errorf("curve ood_auroc_%s = %v, want one point per cycle (2)", name, got)
		}
	}
	t.Logf("loss %v, ood size %v, metrics %v, %.1fs", loss, points(res, "ood_set_size"), res.Metrics, res.Seconds)
}

// TestPredictionsFollowTraining: UGNN predicts between training steps (the
// OOD scoring of every cycle); a prediction after more training must see
// the new weights (gnn.Execs), for the warm-up step and the semi step.
func TestPredictionsFollowTraining(t *testing.T) {
	lt := newLetterTask(t)
	var reported [][]int
	r := startRun(t, lt.task(lt.params(1), 1, &reported), Variants[0])
	ctx := context.Background()
	views := make([]view, 32)
	for i := range views {
		views[i] = r.wholeView(lt.split.Unlabelled[i])
	}
	predict := func() [][]float32 {
		probs, _, err := r.predictViews(ctx, views)
		if err != nil {
			t.Fatal(err)
		}
		return probs
	}
	before := predict()
	rng := rand.New(rand.NewPCG(1, 2))
	if _, err := r.labelledEpoch(ctx, rng, 2); err != nil {
		t.Fatal(err)
	}
	afterWarm := predict()
	protos, err := r.cycleStart(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.semiEpoch(ctx, rng, protos, 2); err != nil {
		t.Fatal(err)
	}
	afterSemi := predict()
	for name, pair := range map[string][2][][]float32{"warm-up": {before, afterWarm}, "semi": {afterWarm, afterSemi}} {
		same := true
		for i := range pair[0] {
			if !slices.Equal(pair[0][i], pair[1][i]) {
				same = false
			}
		}
		if same {
			t.Errorf("predictions unchanged by two %s steps: stale weights", name)
		}
	}
}
