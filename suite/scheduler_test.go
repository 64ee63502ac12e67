package suite_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

const (
	testDataset = "Letter-high"
	testBackend = "test-backend"
)

// fakeMethod is a cheap deterministic method for the scheduler tests.
type fakeMethod struct {
	name     string
	defaults suite.Params
	fit      func(ctx context.Context, task *suite.Task) (*suite.Predictions, error)
}

func (f fakeMethod) Name() string           { return f.name }
func (f fakeMethod) Doc() string            { return "scheduler test fake" }
func (f fakeMethod) Defaults() suite.Params { return f.defaults.Clone() }
func (f fakeMethod) Fit(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
	return f.fit(ctx, task)
}

// checkTask returns an error if task breaks the Task contract, so a broken
// Runner makes the fake's run fail.
func checkTask(task *suite.Task) error {
	if len(task.Graphs) == 0 || task.NumKnown < 1 || task.Log == nil {
		return fmt.Errorf("bad task: %d graphs, %d known classes, log %v", len(task.Graphs), task.NumKnown, task.Log)
	}
	if len(task.Labels) != len(task.Labelled) || len(task.Labelled) == 0 {
		return fmt.Errorf("bad task: %d labels for %d labelled graphs", len(task.Labels), len(task.Labelled))
	}
	for _, y := range task.Labels {
		if y < 0 || y >= task.NumKnown {
			return fmt.Errorf("bad task: label %d not in 0..%d", y, task.NumKnown-1)
		}
	}
	if len(task.Labelled)+len(task.Eval) != len(task.Graphs) || len(task.Eval) <= len(task.Unlabelled) {
		return fmt.Errorf("bad task: %d labelled + %d evaluation graphs (%d unlabelled) != %d graphs, or no test graphs",
			len(task.Labelled), len(task.Eval), len(task.Unlabelled), len(task.Graphs))
	}
	if !slices.IsSorted(task.Eval) {
		return fmt.Errorf("bad task: Eval is not sorted")
	}
	for _, g := range task.Unlabelled {
		if _, ok := slices.BinarySearch(task.Eval, g); !ok {
			return fmt.Errorf("bad task: unlabelled graph %d is not in Eval", g)
		}
	}
	if task.Device != "cpu" || task.Backend != testBackend || task.Dataset != testDataset {
		return fmt.Errorf("bad task: device %q backend %q dataset %q", task.Device, task.Backend, task.Dataset)
	}
	return nil
}

// logEpochs logs n epochs of the fake curves "acc" and "loss", stopping with
// ctx's error when it is cancelled.
func logEpochs(ctx context.Context, task *suite.Task, n int, sleep time.Duration) error {
	for ep := 1; ep <= n; ep++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if sleep > 0 {
			time.Sleep(sleep)
		}
		task.Log.Epoch(ep, n, map[string]float64{"loss": 1 / float64(ep), "acc": 0.1 * float64(ep)})
	}
	return ctx.Err()
}

// wantCurves is what logEpochs(n) stores (names sorted within an epoch).
func wantCurves(n int) []suite.CurvePoint {
	var out []suite.CurvePoint
	for ep := 1; ep <= n; ep++ {
		out = append(out,
			suite.CurvePoint{Epoch: ep, Name: "acc", Value: 0.1 * float64(ep)},
			suite.CurvePoint{Epoch: ep, Name: "loss", Value: 1 / float64(ep)})
	}
	return out
}

// sizePredictions predicts class 0 and a score from the graph's size.
func sizePredictions(task *suite.Task, scale float64) *suite.Predictions {
	p := &suite.Predictions{Class: make([]int, len(task.Eval)), UnknownScore: make([]float64, len(task.Eval))}
	for i, g := range task.Eval {
		p.UnknownScore[i] = scale * float64(task.Graphs[g].NumNodes+task.Graphs[g].NumEdges())
	}
	return p
}

const (
	freeEpochs = 3
	failEpochs = 2
	slowEpochs = 20
	slowSleep  = 5 * time.Millisecond
)

var registerFakes = sync.OnceFunc(func() {
	suite.Register(fakeMethod{"test-oracle-free", suite.Params{"epochs": freeEpochs, "scale": 1.0},
		func(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
			if err := checkTask(task); err != nil {
				return nil, err
			}
			if err := logEpochs(ctx, task, task.Params.Int("epochs"), 0); err != nil {
				return nil, err
			}
			return sizePredictions(task, task.Params.Float("scale")), nil
		}})
	suite.Register(fakeMethod{"test-oracle-mod", suite.Params{"epochs": freeEpochs},
		func(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
			if err := checkTask(task); err != nil {
				return nil, err
			}
			if err := logEpochs(ctx, task, task.Params.Int("epochs"), 0); err != nil {
				return nil, err
			}
			p := sizePredictions(task, -1)
			for i, g := range task.Eval {
				p.Class[i] = g % task.NumKnown
			}
			return p, nil
		}})
	suite.Register(fakeMethod{"test-fail", suite.Params{"epochs": failEpochs},
		func(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
			if err := logEpochs(ctx, task, task.Params.Int("epochs"), 0); err != nil {
				return nil, err
			}
			return nil, errors.New("test-fail: deliberate failure")
		}})
	suite.Register(fakeMethod{"test-panic", suite.Params{},
		func(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
			panic("test-panic: deliberate")
		}})
	suite.Register(fakeMethod{"test-nan", suite.Params{},
		func(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
			p := sizePredictions(task, 1)
			p.UnknownScore[len(p.UnknownScore)/2] = math.NaN()
			return p, nil
		}})
	suite.Register(fakeMethod{"test-slow", suite.Params{"epochs": slowEpochs},
		func(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
			if err := logEpochs(ctx, task, task.Params.Int("epochs"), slowSleep); err != nil {
				return nil, err
			}
			return sizePredictions(task, 1), nil
		}})
})

// env is a store and runner on the real data directory.
type env struct {
	store  *runs.Store
	runner *suite.Runner
	rec    *countingRecorder
}

func newEnv(t *testing.T) *env {
	t.Helper()
	registerFakes()
	dir := datasetstest.DirFor(t, testDataset)
	store, err := runs.Open(filepath.Join(t.TempDir(), "runs.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return &env{
		store:  store,
		runner: &suite.Runner{DataDir: dir, Backend: testBackend},
		rec:    &countingRecorder{Recorder: runs.Recorder{Store: store, Backend: testBackend}},
	}
}

// scheduler returns a scheduler on n CPU slots with a fresh start count.
func (e *env) scheduler(t *testing.T, n int, obs suite.Observer) *suite.Scheduler {
	t.Helper()
	slots, err := suite.ParseDevices(fmt.Sprintf("cpu:%d", n), 1)
	if err != nil {
		t.Fatal(err)
	}
	e.rec.starts.Store(0)
	return &suite.Scheduler{Runner: e.runner, Store: e.rec, Slots: slots, Observer: obs}
}

// rows returns the stored runs by hash.
func (e *env) rows(t *testing.T) map[string]runs.Run {
	t.Helper()
	all, err := e.store.List(runs.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]runs.Run{}
	for _, r := range all {
		if _, dup := out[r.Hash]; dup {
			t.Errorf("hash %s stored twice", r.Hash)
		}
		out[r.Hash] = r
	}
	return out
}

func expand(t *testing.T, methods, ratios []string, seeds []int64) []suite.RunSpec {
	t.Helper()
	specs, err := suite.Expand(suite.GridConfig{
		Methods: methods, Datasets: []string{testDataset}, Ratios: ratios, Seeds: seeds,
		Protocol: suite.DefaultProtocol(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return specs
}

// countingRecorder counts Start calls.
type countingRecorder struct {
	suite.Recorder
	starts atomic.Int64
}

func (r *countingRecorder) Start(spec suite.RunSpec, device string) (int64, error) {
	r.starts.Add(1)
	return r.Recorder.Start(spec, device)
}

// fakeObserver records what the scheduler tells it.
type fakeObserver struct {
	mu      sync.Mutex
	grids   [][2]int
	starts  []string // hashes, in order
	devices []string
	epochs  map[string][]int
	ends    map[string][]error
	results map[string]suite.Result
	onEpoch func(spec suite.RunSpec, epoch int) // called outside mu
}

func newObserver() *fakeObserver {
	return &fakeObserver{epochs: map[string][]int{}, ends: map[string][]error{}, results: map[string]suite.Result{}}
}

func (o *fakeObserver) GridStart(toRun, skipped int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.grids = append(o.grids, [2]int{toRun, skipped})
}

func (o *fakeObserver) RunStart(spec suite.RunSpec, device string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.starts = append(o.starts, spec.Hash())
	o.devices = append(o.devices, device)
}

func (o *fakeObserver) RunEpoch(spec suite.RunSpec, epoch, total int) {
	o.mu.Lock()
	o.epochs[spec.Hash()] = append(o.epochs[spec.Hash()], epoch)
	f := o.onEpoch
	o.mu.Unlock()
	if f != nil {
		f(spec, epoch)
	}
}

func (o *fakeObserver) RunEnd(spec suite.RunSpec, res suite.Result, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ends[spec.Hash()] = append(o.ends[spec.Hash()], err)
	o.results[spec.Hash()] = res
}

func (o *fakeObserver) started() map[string]bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	m := map[string]bool{}
	for _, h := range o.starts {
		m[h] = true
	}
	return m
}

var allMetrics = []string{suite.MetricAccuracy, suite.MetricOODF1, suite.MetricUnknownAcc, suite.MetricKnownAcc, suite.MetricOODAUROC, suite.MetricClosedAcc}

// openSetMetrics are the open-set metrics of docs/protocol.md §4.2, stored
// for the test set and D^u but not as chance figures.
var openSetMetrics = []string{suite.MetricAUPRIn, suite.MetricAUPROut, suite.MetricFPR95, suite.MetricOSCR, suite.MetricHScore}

// numMetrics is what a run of a fake stores: the test set's scores and
// declared_ratio, the same on D^u (du_) and as chance figures (chance_),
// the open-set metrics of the test set and D^u, the epoch time (every
// fake logs epochs) and the peak memory.
var numMetrics = 3*(len(allMetrics)+1) + 2*len(openSetMetrics) + 2

func TestSchedulerRunsGrid(t *testing.T) {
	e := newEnv(t)
	specs := expand(t, []string{"test-oracle-free", "test-oracle-mod"}, []string{"low", "high"}, []int64{0, 1})
	if len(specs) != 8 {
		t.Fatalf("%d specs, want 8", len(specs))
	}
	sum, err := e.scheduler(t, 2, nil).Run(context.Background(), specs)
	if err != nil {
		t.Fatal(err)
	}
	if want := (suite.Summary{Finished: 8}); sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
	if n := e.rec.starts.Load(); n != 8 {
		t.Errorf("%d Start calls, want 8", n)
	}
	rows := e.rows(t)
	if len(rows) != len(specs) {
		t.Fatalf("%d stored runs, want %d", len(rows), len(specs))
	}
	for _, sp := range specs {
		r, ok := rows[sp.Hash()]
		if !ok {
			t.Errorf("%s not stored", sp)
			continue
		}
		if r.Status != runs.StatusFinished || r.Error != "" || r.Attempts != 1 {
			t.Errorf("%s: status %s error %q attempts %d, want finished, no error, 1 attempt", sp, r.Status, r.Error, r.Attempts)
		}
		if r.Spec.Method != sp.Method || r.Spec.Seed != sp.Seed || r.Spec.Ratio != sp.Ratio || r.Spec.RatioName != sp.RatioName {
			t.Errorf("stored spec %+v, want %+v", r.Spec, sp)
		}
		for _, name := range allMetrics {
			v, ok := r.Metrics[name]
			if !ok || !(v >= 0 && v <= 1) {
				t.Errorf("%s: metric %s = %v (present %v), want a value in [0, 1]", sp, name, v, ok)
			}
		}
		if v, ok := r.Metrics[suite.EpochSecondsMetric]; !ok || v < 0 || v > r.Seconds {
			t.Errorf("%s: %s = %v (present %v), want in [0, %v]", sp, suite.EpochSecondsMetric, v, ok, r.Seconds)
		}
		if v, ok := r.Metrics[suite.PeakMemoryMetric]; !ok || !(v > 1) {
			t.Errorf("%s: %s = %v MiB (present %v), want > 1", sp, suite.PeakMemoryMetric, v, ok)
		}
		p := r.Provenance
		if p.GoVersion != runtime.Version() || p.Backend != testBackend || p.Device != "cpu" || p.GoMLXVersion == "" {
			t.Errorf("%s: provenance %+v, want Go %s, backend %s, device cpu", sp, p, runtime.Version(), testBackend)
		}
		if r.Started.IsZero() || r.Finished.Before(r.Started) || r.Seconds < 0 {
			t.Errorf("%s: started %v finished %v seconds %v", sp, r.Started, r.Finished, r.Seconds)
		}
		curves, err := e.store.Curves(r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(curves, wantCurves(freeEpochs)) {
			t.Errorf("%s: curves %v, want %v", sp, curves, wantCurves(freeEpochs))
		}
	}
	// The stored metrics are what the runner computes for the spec (a
	// deterministic function of it), not another run's.
	for _, sp := range []suite.RunSpec{specs[0], specs[len(specs)-1]} {
		res, err := e.runner.Run(context.Background(), sp, "cpu", nil)
		if err != nil {
			t.Fatal(err)
		}
		got := rows[sp.Hash()].Metrics
		for _, name := range allMetrics {
			if got[name] != res.Metrics[name] {
				t.Errorf("%s: stored %s = %v, a direct run gives %v", sp, name, got[name], res.Metrics[name])
			}
		}
	}
	// Different methods and seeds give different results on this data.
	a, b := rows[specs[0].Hash()].Metrics, rows[specs[2].Hash()].Metrics
	if specs[0].Method == specs[2].Method || a[suite.MetricOODAUROC] == b[suite.MetricOODAUROC] {
		t.Errorf("%s and %s have the same ood_auroc %v: metrics not per run?", specs[0], specs[2], a[suite.MetricOODAUROC])
	}

	// Rerunning is a no-op.
	obs := newObserver()
	sum, err = e.scheduler(t, 2, obs).Run(context.Background(), specs)
	if err != nil {
		t.Fatal(err)
	}
	if want := (suite.Summary{Skipped: 8}); sum != want {
		t.Errorf("rerun summary %+v, want %+v", sum, want)
	}
	if n := e.rec.starts.Load(); n != 0 {
		t.Errorf("rerun: %d Start calls, want 0", n)
	}
	if len(obs.starts) != 0 || !slices.Equal(obs.grids, [][2]int{{0, 8}}) {
		t.Errorf("rerun: observer saw grids %v and %d run starts, want [[0 8]] and none", obs.grids, len(obs.starts))
	}
	for h, r := range e.rows(t) {
		if r.Attempts != 1 || r.Status != runs.StatusFinished || r.Finished != rows[h].Finished {
			t.Errorf("rerun touched %s: attempts %d status %s", r.Spec, r.Attempts, r.Status)
		}
	}
}

func TestSchedulerFailures(t *testing.T) {
	e := newEnv(t)
	specs := expand(t, []string{"test-oracle-free", "test-fail", "test-panic", "test-nan"}, []string{"low"}, []int64{0, 1})
	obs := newObserver()
	sum, err := e.scheduler(t, 2, obs).Run(context.Background(), specs)
	if err != nil {
		t.Fatalf("failing runs must not stop the grid: %v", err)
	}
	if want := (suite.Summary{Finished: 2, Failed: 6}); sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
	wantMsg := map[string][]string{
		"test-fail":  {"test-fail: deliberate failure"},
		"test-panic": {"panic", "test-panic: deliberate"},
		"test-nan":   {"NaN"},
	}
	check := func(attempts int) {
		t.Helper()
		rows := e.rows(t)
		if len(rows) != len(specs) {
			t.Fatalf("%d stored runs, want %d", len(rows), len(specs))
		}
		for _, sp := range specs {
			r := rows[sp.Hash()]
			if sp.Method == "test-oracle-free" {
				if r.Status != runs.StatusFinished || r.Attempts != 1 || len(r.Metrics) != numMetrics {
					t.Errorf("%s: status %s attempts %d metrics %v, want finished once", sp, r.Status, r.Attempts, r.Metrics)
				}
				continue
			}
			if r.Status != runs.StatusFailed || r.Attempts != attempts || r.Metrics != nil {
				t.Errorf("%s: status %s attempts %d metrics %v, want failed, %d attempts, no metrics", sp, r.Status, r.Attempts, r.Metrics, attempts)
			}
			for _, s := range wantMsg[sp.Method] {
				if !strings.Contains(r.Error, s) {
					t.Errorf("%s: error %q does not contain %q", sp, r.Error, s)
				}
			}
			curves, err := e.store.Curves(r.ID)
			if err != nil {
				t.Fatal(err)
			}
			want := []suite.CurvePoint{}
			if sp.Method == "test-fail" {
				want = wantCurves(failEpochs) // logged before the failure
			}
			if !slices.Equal(curves, want) {
				t.Errorf("%s: curves %v, want %v", sp, curves, want)
			}
		}
	}
	check(1)
	for _, sp := range specs {
		ends := obs.ends[sp.Hash()]
		if len(ends) != 1 || (ends[0] == nil) != (sp.Method == "test-oracle-free") {
			t.Errorf("%s: observer RunEnd errors %v", sp, ends)
		}
	}

	// A rerun retries the failed runs only; they fail again.
	obs = newObserver()
	sum, err = e.scheduler(t, 2, obs).Run(context.Background(), specs)
	if err != nil {
		t.Fatal(err)
	}
	if want := (suite.Summary{Skipped: 2, Failed: 6}); sum != want {
		t.Errorf("rerun summary %+v, want %+v", sum, want)
	}
	if n := e.rec.starts.Load(); n != 6 {
		t.Errorf("rerun: %d Start calls, want 6", n)
	}
	if !slices.Equal(obs.grids, [][2]int{{6, 2}}) {
		t.Errorf("rerun: GridStart %v, want [[6 2]]", obs.grids)
	}
	check(2)
}

func TestSchedulerCancelAndResume(t *testing.T) {
	e := newEnv(t)
	// In queue order: free s0, free s1, slow s0, slow s1 (low), then the
	// same for high. The grid is cancelled at the first epoch of a slow run.
	specs := expand(t, []string{"test-oracle-free", "test-slow"}, []string{"low", "high"}, []int64{0, 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	obs := newObserver()
	var trigger atomic.Value // hash of the run whose epoch cancelled the grid
	var once sync.Once
	obs.onEpoch = func(sp suite.RunSpec, epoch int) {
		if sp.Method == "test-slow" {
			once.Do(func() { trigger.Store(sp.Hash()); cancel() })
		}
	}
	done := make(chan struct{})
	var sum suite.Summary
	var err error
	go func() {
		defer close(done)
		sum, err = e.scheduler(t, 2, obs).Run(ctx, specs)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Scheduler.Run did not return after cancellation")
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run returned %v, want context.Canceled", err)
	}
	if trigger.Load() == nil {
		t.Fatal("no test-slow epoch observed")
	}
	started := obs.started()
	rows := e.rows(t)
	var finished, interrupted int
	for _, sp := range specs {
		h := sp.Hash()
		r, stored := rows[h]
		if stored != started[h] {
			t.Errorf("%s: stored %v but started %v", sp, stored, started[h])
		}
		if !stored {
			continue
		}
		switch r.Status {
		case runs.StatusFinished:
			finished++
		case runs.StatusInterrupted:
			interrupted++
			if !strings.Contains(r.Error, context.Canceled.Error()) {
				t.Errorf("%s: interrupted with message %q, want it to say %q", sp, r.Error, context.Canceled)
			}
		default:
			t.Errorf("%s: status %s after cancellation, want finished or interrupted", sp, r.Status)
		}
	}
	if r := rows[trigger.Load().(string)]; r.Status != runs.StatusInterrupted {
		t.Errorf("the run that was running at cancellation is %q, want interrupted", r.Status)
	} else if curves, err := e.store.Curves(r.ID); err != nil || len(curves) == 0 || len(curves) >= 2*slowEpochs {
		t.Errorf("interrupted run: curves %v (%v), want the epochs logged before cancellation", curves, err)
	}
	if len(rows) >= len(specs) {
		t.Errorf("%d of %d runs stored: runs queued after cancellation were started", len(rows), len(specs))
	}
	if want := (suite.Summary{Finished: finished, Interrupted: interrupted}); sum != want {
		t.Errorf("summary %+v, want %+v (from the store)", sum, want)
	}

	// Resume with a fresh context: only the unfinished runs run.
	obs2 := newObserver()
	sum, err = e.scheduler(t, 2, obs2).Run(context.Background(), specs)
	if err != nil {
		t.Fatal(err)
	}
	if want := (suite.Summary{Skipped: finished, Finished: len(specs) - finished}); sum != want {
		t.Errorf("resume summary %+v, want %+v", sum, want)
	}
	if n := e.rec.starts.Load(); n != int64(len(specs)-finished) {
		t.Errorf("resume: %d Start calls, want %d", n, len(specs)-finished)
	}
	after := e.rows(t)
	for _, sp := range specs {
		h := sp.Hash()
		r := after[h]
		wantAttempts := 1
		if rows[h].Status == runs.StatusInterrupted {
			wantAttempts = 2
		}
		if r.Status != runs.StatusFinished || r.Attempts != wantAttempts || r.Error != "" {
			t.Errorf("%s after resume: status %s attempts %d error %q, want finished after %d attempts", sp, r.Status, r.Attempts, r.Error, wantAttempts)
		}
		if rows[h].Status == runs.StatusFinished && !r.Finished.Equal(rows[h].Finished) {
			t.Errorf("%s: finished before the cancellation but rerun", sp)
		}
	}
}

func TestSchedulerObserver(t *testing.T) {
	e := newEnv(t)
	// Finish seed 0 first, then run seeds 0 and 1.
	first := expand(t, []string{"test-oracle-free", "test-oracle-mod"}, []string{"low"}, []int64{0})
	if _, err := e.scheduler(t, 1, nil).Run(context.Background(), first); err != nil {
		t.Fatal(err)
	}
	specs := expand(t, []string{"test-oracle-free", "test-oracle-mod"}, []string{"low"}, []int64{0, 1, 2})
	obs := newObserver()
	if _, err := e.scheduler(t, 2, obs).Run(context.Background(), specs); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(obs.grids, [][2]int{{4, 2}}) {
		t.Errorf("GridStart calls %v, want one with toRun 4, skipped 2", obs.grids)
	}
	toRun := map[string]bool{}
	for _, sp := range specs {
		if sp.Seed != 0 {
			toRun[sp.Hash()] = true
		}
	}
	if len(obs.starts) != len(toRun) {
		t.Errorf("%d RunStart calls, want %d", len(obs.starts), len(toRun))
	}
	for i, h := range obs.starts {
		if !toRun[h] {
			t.Errorf("RunStart for %s, which was not to run", h)
		}
		if d := obs.devices[i]; d != "cpu#0" && d != "cpu#1" {
			t.Errorf("RunStart device %q, want cpu#0 or cpu#1", d)
		}
	}
	for h := range toRun {
		if ends := obs.ends[h]; len(ends) != 1 || ends[0] != nil {
			t.Errorf("run %s: RunEnd errors %v, want one nil", h, ends)
		}
		if res := obs.results[h]; len(res.Metrics) != numMetrics || len(res.Curves) != 2*freeEpochs {
			t.Errorf("run %s: RunEnd result %+v, want all metrics and curves", h, res)
		}
		if eps := obs.epochs[h]; !slices.Equal(eps, []int{1, 2, 3}) {
			t.Errorf("run %s: RunEpoch epochs %v, want [1 2 3]", h, eps)
		}
	}
	if len(obs.ends) != len(toRun) || len(obs.epochs) != len(toRun) {
		t.Errorf("RunEnd for %d runs, RunEpoch for %d, want %d each", len(obs.ends), len(obs.epochs), len(toRun))
	}
}

func TestSchedulerDuplicates(t *testing.T) {
	e := newEnv(t)
	specs := expand(t, []string{"test-oracle-free"}, []string{"low"}, []int64{0, 1, 2})
	// The same specs twice, and "low" spelled as its number (same hash).
	numeric := specs[0]
	numeric.RatioName = ""
	input := append(append(slices.Clone(specs), specs...), numeric)
	obs := newObserver()
	sum, err := e.scheduler(t, 3, obs).Run(context.Background(), input)
	if err != nil {
		t.Fatal(err)
	}
	if want := (suite.Summary{Finished: 3, Skipped: 4}); sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
	if n := e.rec.starts.Load(); n != 3 {
		t.Errorf("%d Start calls, want 3", n)
	}
	if !slices.Equal(obs.grids, [][2]int{{3, 4}}) {
		t.Errorf("GridStart %v, want [[3 4]]", obs.grids)
	}
	rows := e.rows(t)
	if len(rows) != 3 {
		t.Errorf("%d stored runs, want 3", len(rows))
	}
	for _, r := range rows {
		if r.Attempts != 1 || r.Status != runs.StatusFinished {
			t.Errorf("%s: attempts %d status %s, want finished once", r.Spec, r.Attempts, r.Status)
		}
	}
}

// memRecorder is an in-memory suite.ProgressRecorder.
type memRecorder struct {
	mu       sync.Mutex
	starts   int
	failOn   int // Start number (1-based) that fails; 0 = never
	statuses map[int64]string
	progress map[int64][][2]int // (epoch, total) per Progress call
}

func (r *memRecorder) Progress(id int64, epoch, total int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.progress == nil {
		r.progress = map[int64][][2]int{}
	}
	r.progress[id] = append(r.progress[id], [2]int{epoch, total})
}

// TestSchedulerReportsProgress: a ProgressRecorder hears every epoch of
// every run under the run's own id, with or without an Observer.
func TestSchedulerReportsProgress(t *testing.T) {
	e := newEnv(t)
	specs := expand(t, []string{"test-oracle-free"}, []string{"low", "high"}, []int64{0})
	rec := &memRecorder{}
	s := &suite.Scheduler{Runner: e.runner, Store: rec, Slots: []suite.Slot{{Device: "cpu", Index: 0}, {Device: "cpu", Index: 1}}}
	if _, err := s.Run(context.Background(), specs); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.progress) != len(specs) {
		t.Fatalf("progress of %d runs, want %d: %v", len(rec.progress), len(specs), rec.progress)
	}
	for id, p := range rec.progress {
		if want := [][2]int{{1, 3}, {2, 3}, {3, 3}}; !slices.Equal(p, want) || rec.statuses[id] != "finished" {
			t.Errorf("run %d: progress %v (%s), want %v", id, p, rec.statuses[id], want)
		}
	}
}

var errStore = errors.New("store is broken")

func (r *memRecorder) Finished(hashes []string) (map[string]bool, error) { return nil, nil }
func (r *memRecorder) Start(spec suite.RunSpec, device string) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.starts++
	if r.starts == r.failOn {
		return 0, errStore
	}
	if r.statuses == nil {
		r.statuses = map[int64]string{}
	}
	r.statuses[int64(r.starts)] = "running"
	return int64(r.starts), nil
}
func (r *memRecorder) Finish(id int64, res suite.Result) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.statuses[id] = "finished"
	return nil
}
func (r *memRecorder) Fail(id int64, interrupted bool, msg string, res suite.Result) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.statuses[id] = fmt.Sprintf("failed(interrupted=%v)", interrupted)
	return nil
}

func TestSchedulerStoreError(t *testing.T) {
	e := newEnv(t)
	specs := expand(t, []string{"test-oracle-free"}, []string{"low", "high"}, []int64{0, 1, 2, 3, 4})
	rec := &memRecorder{failOn: 3}
	s := &suite.Scheduler{Runner: e.runner, Store: rec, Slots: []suite.Slot{{Device: "cpu", Index: 0}, {Device: "cpu", Index: 1}}}
	done := make(chan struct{})
	var err error
	go func() {
		defer close(done)
		_, err = s.Run(context.Background(), specs)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Scheduler.Run did not return after a store error")
	}
	if !errors.Is(err, errStore) {
		t.Errorf("Run returned %v, want the store error", err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.statuses) < 2 {
		t.Errorf("%d runs recorded, want at least the 2 before the failing Start", len(rec.statuses))
	}
	for id, st := range rec.statuses {
		if st != "finished" {
			t.Errorf("run %d is %s, want finished (a store error must not abandon running runs)", id, st)
		}
	}
}

func TestSchedulerStopsAfterStoreError(t *testing.T) {
	e := newEnv(t)
	specs := expand(t, []string{"test-oracle-free"}, []string{"low", "high"}, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	slots := []suite.Slot{{Device: "cpu", Index: 0}, {Device: "cpu", Index: 1}}
	const failOn = 3
	for trial := 0; trial < 300; trial++ {
		rec := &memRecorder{failOn: failOn}
		s := &suite.Scheduler{Runner: e.runner, Store: rec, Slots: slots}
		if _, err := s.Run(context.Background(), specs); !errors.Is(err, errStore) {
			t.Fatalf("trial %d: Run returned %v, want the store error", trial, err)
		}
		// Besides the failing Start, each other slot may have received one
		// more spec before the error: no run starts after that.
		if max := failOn + len(slots) - 1; rec.starts > max {
			t.Fatalf("trial %d: %d of %d runs started after Start %d failed, want at most %d", trial, rec.starts, len(specs), failOn, max)
		}
	}
}

func TestSchedulerNoStartAfterCancel(t *testing.T) {
	e := newEnv(t)
	specs := expand(t, []string{"test-oracle-free"}, []string{"low", "high"}, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for trial := 0; trial < 50; trial++ {
		rec := &memRecorder{}
		s := &suite.Scheduler{Runner: e.runner, Store: rec, Slots: []suite.Slot{{Device: "cpu", Index: 0}}}
		_, err := s.Run(ctx, specs)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("trial %d: Run returned %v, want context.Canceled", trial, err)
		}
		if rec.starts != 0 {
			t.Fatalf("trial %d: %d of %d runs started with an already cancelled context, want 0", trial, rec.starts, len(specs))
		}
	}
}

func TestSchedulerNoSlots(t *testing.T) {
	e := newEnv(t)
	specs := expand(t, []string{"test-oracle-free"}, []string{"low"}, []int64{0})
	s := &suite.Scheduler{Runner: e.runner, Store: &memRecorder{}}
	done := make(chan error, 1)
	go func() {
		_, err := s.Run(context.Background(), specs)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("Run with no slots returned nil, want an error")
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Run with no slots did not return")
	}
}

// otherProcessRecorder answers Start as if another grid process on the
// same database had some specs: running[h] more Starts of spec h are
// refused as running elsewhere; after them, a spec in finishedAfter is
// finished (the other process finished it), any other is started here (the
// other process abandoned it). Specs in finished are finished from the
// first Start (finished since this grid listed its work).
type otherProcessRecorder struct {
	suite.Recorder
	mu            sync.Mutex
	running       map[string]int
	finishedAfter map[string]bool
	finished      map[string]bool
}

func (r *otherProcessRecorder) Start(spec suite.RunSpec, device string) (int64, error) {
	r.mu.Lock()
	h := spec.Hash()
	switch {
	case r.finished[h]:
		r.mu.Unlock()
		return 0, fmt.Errorf("start %s: %w", spec, suite.ErrAlreadyFinished)
	case r.running[h] > 0:
		r.running[h]--
		r.mu.Unlock()
		return 0, fmt.Errorf("start %s: %w", spec, suite.ErrRunningElsewhere)
	case r.finishedAfter[h]:
		r.mu.Unlock()
		return 0, fmt.Errorf("start %s: %w", spec, suite.ErrAlreadyFinished)
	}
	r.mu.Unlock()
	return r.Recorder.Start(spec, device)
}

// waitObserver is a fakeObserver that counts WaitingElsewhere calls and may
// cancel a context on the first.
type waitObserver struct {
	*fakeObserver
	waits   atomic.Int64
	recheck atomic.Int64 // the last recheck interval, ns
	cancel  context.CancelFunc
}

func (o *waitObserver) WaitingElsewhere(n int, recheck time.Duration) {
	o.waits.Add(1)
	o.recheck.Store(int64(recheck))
	if o.cancel != nil {
		o.cancel()
	}
}

// TestSchedulerSharesWithOtherProcesses checks specs that another process
// runs or finished: a spec finished meanwhile is skipped; a spec running
// elsewhere is put aside, waited for and offered again until the other
// process finishes it (skipped) or abandons it (run here); the rest runs at
// once. Ctrl-C while waiting counts the put-aside specs as Elsewhere.
func TestSchedulerSharesWithOtherProcesses(t *testing.T) {
	e := newEnv(t)
	specs := expand(t, []string{"test-oracle-free"}, []string{"low", "high"}, []int64{0, 1})
	h := func(i int) string { return specs[i].Hash() }
	rec := &otherProcessRecorder{Recorder: e.rec,
		running:       map[string]int{h(0): 2, h(1): 1}, // 0: finished elsewhere after 2 refusals; 1: abandoned after 1
		finishedAfter: map[string]bool{h(0): true},
		finished:      map[string]bool{h(3): true}}
	obs := &waitObserver{fakeObserver: newObserver()}
	sched := e.scheduler(t, 2, obs)
	sched.Store, sched.ElsewhereWait = rec, time.Millisecond
	sum, err := sched.Run(context.Background(), specs)
	if err != nil {
		t.Fatal(err)
	}
	if want := (suite.Summary{Finished: 2, Skipped: 2}); sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
	if n := obs.waits.Load(); n != 2 {
		t.Errorf("%d WaitingElsewhere calls, want 2 (spec 0 is refused twice)", n)
	}
	if r := time.Duration(obs.recheck.Load()); r != time.Millisecond {
		t.Errorf("WaitingElsewhere recheck %v, want the scheduler's ElsewhereWait 1ms", r)
	}
	started := obs.started()
	rows := e.rows(t)
	for i, sp := range specs {
		ends := obs.ends[sp.Hash()]
		switch i {
		case 0, 3: // finished by the other process
			if started[sp.Hash()] || len(ends) != 1 || !errors.Is(ends[0], suite.ErrAlreadyFinished) {
				t.Errorf("%s: started %v, RunEnd errors %v; want no start and one ErrAlreadyFinished", sp, started[sp.Hash()], ends)
			}
			if _, ok := rows[sp.Hash()]; ok {
				t.Errorf("%s: stored here although another process finished it", sp)
			}
		default: // 1 (abandoned, then run here) and 2
			if !started[sp.Hash()] || len(ends) != 1 || ends[0] != nil || rows[sp.Hash()].Status != runs.StatusFinished {
				t.Errorf("%s: started %v, RunEnd %v, status %s; want one finished run", sp, started[sp.Hash()], ends, rows[sp.Hash()].Status)
			}
		}
	}

	// Ctrl-C while waiting for a run elsewhere.
	e2 := newEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec2 := &otherProcessRecorder{Recorder: e2.rec, running: map[string]int{h(0): 1000}}
	obs2 := &waitObserver{fakeObserver: newObserver(), cancel: cancel}
	sched2 := e2.scheduler(t, 1, obs2)
	sched2.Store, sched2.ElsewhereWait = rec2, time.Hour
	sum, err = sched2.Run(ctx, specs[:2])
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run cancelled while waiting: %v, want context.Canceled", err)
	}
	if want := (suite.Summary{Finished: 1, Elsewhere: 1}); sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
	if ends := obs2.ends[h(0)]; len(ends) != 1 || !errors.Is(ends[0], suite.ErrRunningElsewhere) {
		t.Errorf("spec running elsewhere: RunEnd errors %v, want one ErrRunningElsewhere", ends)
	}
}

// finishingRecorder is an otherProcessRecorder whose other process
// finishes every spec it runs once the scheduler has asked Finished a few
// times.
type finishingRecorder struct {
	*otherProcessRecorder
	polls atomic.Int64
}

func (r *finishingRecorder) Finished(hashes []string) (map[string]bool, error) {
	if r.polls.Add(1) < 3 {
		return r.otherProcessRecorder.Finished(hashes)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]bool{}
	for _, h := range hashes {
		if r.running[h] > 0 {
			out[h] = true
			r.finished[h] = true
			r.running[h] = 0
		}
	}
	return out, nil
}

// TestSchedulerNoticesFinishedElsewhereAtOnce: a grid waiting for a spec
// that another process runs ends as soon as the store says it finished
// (polled every FinishedPoll), not after ElsewhereWait (an hour here).
func TestSchedulerNoticesFinishedElsewhereAtOnce(t *testing.T) {
	e := newEnv(t)
	specs := expand(t, []string{"test-oracle-free"}, []string{"low"}, []int64{0})
	rec := &finishingRecorder{otherProcessRecorder: &otherProcessRecorder{Recorder: e.rec,
		running: map[string]int{specs[0].Hash(): 1000}, finished: map[string]bool{}}}
	sched := e.scheduler(t, 1, newObserver())
	sched.Store, sched.ElsewhereWait, sched.FinishedPoll = rec, time.Hour, 5*time.Millisecond
	start := time.Now()
	sum, err := sched.Run(context.Background(), specs)
	if err != nil {
		t.Fatal(err)
	}
	if want := (suite.Summary{Skipped: 1}); sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("the grid waited %v for a run finished elsewhere", d)
	}
}
