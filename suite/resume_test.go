package suite_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/suite"
)

const resumableEpochs = 6

// resumableFit trains a stand-in model for "epochs" epochs: its state is
// a running sum of squares (a stand-in for weights that depend on every
// epoch before), saved through task.Resume after every epoch and restored
// before the first. Its curve "state" and its predicted classes read the
// state, so a resumed run that lost or repeated an epoch differs from an
// uninterrupted one. resumed reports whether the attempt restored a state;
// gotResume whether the task had a Resume at all.
func resumableFit(resumed, gotResume *bool) func(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
	return func(ctx context.Context, task *suite.Task) (*suite.Predictions, error) {
		type state struct{ Epoch, Sum int }
		var st state
		*gotResume = task.Resume != nil
		ok, err := task.Resume.Restore(func(dir string) error {
			data, err := os.ReadFile(filepath.Join(dir, "state.json"))
			if err != nil {
				return err
			}
			return json.Unmarshal(data, &st)
		})
		if err != nil {
			return nil, err
		}
		*resumed = ok
		n := task.Params.Int("epochs")
		for ep := st.Epoch + 1; ep <= n; ep++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			st = state{ep, st.Sum + ep*ep}
			task.Log.Epoch(ep, n, map[string]float64{"state": float64(st.Sum)})
			if task.Resume.Due() {
				task.Resume.Save(func(dir string) error {
					if failingSaves {
						return errors.New("write state.json: no space left on device")
					}
					data, _ := json.Marshal(st)
					return os.WriteFile(filepath.Join(dir, "state.json"), data, 0o644)
				})
			}
		}
		p := sizePredictions(task, 1)
		for i, g := range task.Eval {
			p.Class[i] = (g + st.Sum) % task.NumKnown
		}
		return p, nil
	}
}

var (
	resumedAttempt, hadResume bool
	registerResumable         = sync.OnceFunc(func() {
		suite.Register(fakeMethod{"test-resumable", suite.Params{"epochs": resumableEpochs},
			resumableFit(&resumedAttempt, &hadResume)})
	})
)

func resumableSpec(t *testing.T) suite.RunSpec {
	t.Helper()
	name, ratio, err := datasets.ResolveRatio(testDataset, "low")
	if err != nil {
		t.Fatal(err)
	}
	return suite.RunSpec{Method: "test-resumable", Dataset: testDataset, RatioName: name, Ratio: ratio,
		Params: suite.Params{}, Protocol: suite.DefaultProtocol()}
}

// resumeEntries lists the state directories under cache/resume.
func resumeEntries(t *testing.T, cache string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(cache, "resume"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	return dirs
}

// TestRunnerResumesInterruptedRun: a run cancelled after epoch k and run
// again continues from the state saved at k, and stores the curves,
// metrics and classes of an uninterrupted run, plus metric "resumed"; its
// state is deleted when it finishes.
func TestRunnerResumesInterruptedRun(t *testing.T) {
	e := newEnv(t)
	registerResumable()
	spec := resumableSpec(t)

	whole, err := e.runner.Run(context.Background(), spec, "cpu", nil)
	if err != nil {
		t.Fatal(err)
	}
	if hadResume {
		t.Fatal("a runner without ResumeEvery gave the task a Resume")
	}

	for _, stop := range []int{1, 3, resumableEpochs - 1} {
		cache := t.TempDir()
		r := &suite.Runner{DataDir: e.runner.DataDir, Backend: testBackend, CacheDir: cache, ResumeEvery: time.Nanosecond}
		ctx, cancel := context.WithCancel(context.Background())
		_, err := r.Run(ctx, spec, "cpu", func(epoch, _ int) {
			if epoch == stop {
				cancel()
			}
		})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("stop at %d: first attempt returned %v, want context.Canceled", stop, err)
		}
		if !hadResume || resumedAttempt {
			t.Fatalf("stop at %d: first attempt had Resume %v, restored %v; want a fresh run with a Resume", stop, hadResume, resumedAttempt)
		}
		if dirs := resumeEntries(t, cache); len(dirs) != 1 {
			t.Fatalf("stop at %d: state directories %v after the interruption, want one", stop, dirs)
		}
		res, err := r.Run(context.Background(), spec, "cpu", nil)
		if err != nil {
			t.Fatal(err)
		}
		if !resumedAttempt {
			t.Fatalf("stop at %d: the second attempt did not restore the saved state", stop)
		}
		if !reflect.DeepEqual(res.Curves, whole.Curves) {
			t.Errorf("stop at %d: curves %v, want the uninterrupted run's %v", stop, res.Curves, whole.Curves)
		}
		checkResumedOnce(t, fmt.Sprintf("stop at %d", stop), whole.Metrics, res.Metrics, cache)
	}
	if _, ok := whole.Metrics[suite.ResumedMetric]; ok {
		t.Errorf("uninterrupted run has metric %s", suite.ResumedMetric)
	}
}

// TestRunnerResumeIgnoresIncompleteSave: a generation without the suite's
// file (a crash mid-save) is not restored.
func TestRunnerResumeIgnoresIncompleteSave(t *testing.T) {
	e := newEnv(t)
	registerResumable()
	spec := resumableSpec(t)
	cache := t.TempDir()
	r := &suite.Runner{DataDir: e.runner.DataDir, Backend: testBackend, CacheDir: cache, ResumeEvery: time.Nanosecond}
	ctx, cancel := context.WithCancel(context.Background())
	_, _ = r.Run(ctx, spec, "cpu", func(epoch, _ int) {
		if epoch == 2 {
			cancel()
		}
	})
	cancel()
	dirs := resumeEntries(t, cache)
	if len(dirs) != 1 {
		t.Fatalf("state directories %v, want one", dirs)
	}
	gens, _ := filepath.Glob(filepath.Join(cache, "resume", dirs[0], "gen-*"))
	if len(gens) != 1 {
		t.Fatalf("generations %v, want the last save only", gens)
	}
	if err := os.Remove(filepath.Join(gens[0], "suite.json")); err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background(), spec, "cpu", nil)
	if err != nil {
		t.Fatal(err)
	}
	if resumedAttempt {
		t.Error("an incomplete save was restored")
	}
	if _, ok := res.Metrics[suite.ResumedMetric]; ok {
		t.Errorf("a fresh run has metric %s", suite.ResumedMetric)
	}
}

// failOnceRecorder is a suite.Recorder whose first Finish fails, as a
// process killed between training and storing a run would leave it.
type failOnceRecorder struct {
	suite.Recorder
	failed atomic.Bool
}

func (r *failOnceRecorder) Finish(id int64, res suite.Result) error {
	if r.failed.CompareAndSwap(false, true) {
		return errors.New("database is locked")
	}
	return r.Recorder.Finish(id, res)
}

// TestSchedulerKeepsStateUntilStored: a run whose training ended but whose
// result was not stored keeps its resume state, so the grid run again
// continues from the last save (metric resumed) to the metrics of an
// uninterrupted run instead of training from the start; once stored, the
// state is deleted.
func TestSchedulerKeepsStateUntilStored(t *testing.T) {
	e := newEnv(t)
	registerResumable()
	spec := resumableSpec(t)
	whole, err := e.runner.Run(context.Background(), spec, "cpu", nil)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	runner := &suite.Runner{DataDir: e.runner.DataDir, Backend: testBackend, CacheDir: cache, ResumeEvery: time.Nanosecond}
	rec := &failOnceRecorder{Recorder: e.rec}
	s := &suite.Scheduler{Runner: runner, Store: rec, Slots: []suite.Slot{{Device: "cpu"}}}
	if _, err := s.Run(context.Background(), []suite.RunSpec{spec}); err == nil || !strings.Contains(err.Error(), "database is locked") {
		t.Fatalf("grid with a failing store returned %v, want the store's error", err)
	}
	if dirs := resumeEntries(t, cache); len(dirs) != 1 {
		t.Fatalf("state directories %v after a failed store, want the run's", dirs)
	}
	if _, err := s.Run(context.Background(), []suite.RunSpec{spec}); err != nil {
		t.Fatal(err)
	}
	if !resumedAttempt {
		t.Error("the second grid did not restore the state the first one saved")
	}
	row := e.rows(t)[spec.Hash()]
	if row.Status != "finished" {
		t.Fatalf("run status %q after the second grid, want finished", row.Status)
	}
	checkResumedOnce(t, "stored run", whole.Metrics, row.Metrics, cache)
}

// checkResumedOnce checks a run that continued one saved state: its
// metrics (got) equal the uninterrupted run's (whole) but for the
// measurements, it has metric "resumed" 1, and nothing is left under
// cache/resume once it finished.
func checkResumedOnce(t *testing.T, label string, whole, got map[string]float64, cache string) {
	t.Helper()
	for k, v := range whole {
		if !suite.IsMeasurement(k) && got[k] != v {
			t.Errorf("%s: metric %s = %v, want the uninterrupted run's %v", label, k, got[k], v)
		}
	}
	if got[suite.ResumedMetric] != 1 {
		t.Errorf("%s: metric %s = %v, want 1", label, suite.ResumedMetric, got[suite.ResumedMetric])
	}
	if left, err := os.ReadDir(filepath.Join(cache, "resume")); err != nil || len(left) != 0 {
		t.Errorf("%s: %v left under resume/ after the run finished (%v), want nothing", label, left, err)
	}
}

// TestResumeKey: the key changes with every part of what a run computes
// and with the executable.
func TestResumeKey(t *testing.T) {
	spec := suite.RunSpec{Method: "m", Dataset: "d", RatioName: "low", Ratio: 0.3, Seed: 1, Params: suite.Params{"lr": 0.01}, Protocol: suite.DefaultProtocol()}
	base := suite.ResumeKey(spec, "go", "fp", "exe")
	if again := suite.ResumeKey(spec, "go", "fp", "exe"); again != base {
		t.Fatalf("key not stable: %s, %s", base, again)
	}
	seed := spec
	seed.Seed = 2
	params := spec
	params.Params = suite.Params{"lr": 0.02}
	for _, tc := range []struct {
		name string
		key  string
	}{
		{"seed", suite.ResumeKey(seed, "go", "fp", "exe")},
		{"params", suite.ResumeKey(params, "go", "fp", "exe")},
		{"backend", suite.ResumeKey(spec, "xla:cpu", "fp", "exe")},
		{"data", suite.ResumeKey(spec, "go", "fp2", "exe")},
		{"executable", suite.ResumeKey(spec, "go", "fp", "exe2")},
	} {
		if tc.key == base {
			t.Errorf("a different %s gives the same key %s", tc.name, base)
		}
	}
}

// failingSaves makes the test-resumable method's saves fail as a full disk
// would, while set.
var failingSaves bool

// warnings collects a runner's warnings.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) add(msg string) { w.mu.Lock(); w.msgs = append(w.msgs, msg); w.mu.Unlock() }

// TestRunnerSaveFailureKeepsTraining: saves that fail (a full disk) warn
// once per run, name the run and the cause, and the run finishes with the
// result of a run without saves.
func TestRunnerSaveFailureKeepsTraining(t *testing.T) {
	e := newEnv(t)
	registerResumable()
	spec := resumableSpec(t)
	whole, err := e.runner.Run(context.Background(), spec, "cpu", nil)
	if err != nil {
		t.Fatal(err)
	}
	var w warnings
	cache := t.TempDir()
	r := &suite.Runner{DataDir: e.runner.DataDir, Backend: testBackend, CacheDir: cache, ResumeEvery: time.Nanosecond, Warn: w.add}
	failingSaves = true
	defer func() { failingSaves = false }()
	res, err := r.Run(context.Background(), spec, "cpu", nil)
	if err != nil {
		t.Fatalf("a run whose saves fail failed: %v", err)
	}
	if !reflect.DeepEqual(res.Curves, whole.Curves) {
		t.Errorf("curves %v, want %v", res.Curves, whole.Curves)
	}
	if len(w.msgs) != 1 || !strings.Contains(w.msgs[0], "no space left on device") || !strings.Contains(w.msgs[0], spec.String()) {
		t.Errorf("warnings %q: want one naming the run and the cause", w.msgs)
	}
	if left, _ := os.ReadDir(filepath.Join(cache, "resume")); len(left) != 0 {
		t.Errorf("%v left under resume/", left)
	}
}

// TestRunnerDamagedStateStartsOver: a saved state whose files were
// damaged after the save (a flipped byte, a truncated or a deleted file)
// is never restored: the rerun warns naming it, starts over and stores
// the uninterrupted run's result.
func TestRunnerDamagedStateStartsOver(t *testing.T) {
	e := newEnv(t)
	registerResumable()
	spec := resumableSpec(t)
	whole, err := e.runner.Run(context.Background(), spec, "cpu", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, damage := range []struct {
		name string
		do   func(path string) error
	}{
		{"flip a byte", func(path string) error {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			b[len(b)/2] ^= 0x01
			return os.WriteFile(path, b, 0o644)
		}},
		{"truncate", func(path string) error { return os.Truncate(path, 3) }},
		{"delete", os.Remove},
	} {
		for _, file := range []string{"method/state.json", "suite.json"} {
			var w warnings
			cache := t.TempDir()
			r := &suite.Runner{DataDir: e.runner.DataDir, Backend: testBackend, CacheDir: cache, ResumeEvery: time.Nanosecond, Warn: w.add}
			ctx, cancel := context.WithCancel(context.Background())
			_, _ = r.Run(ctx, spec, "cpu", func(epoch, _ int) {
				if epoch == 3 {
					cancel()
				}
			})
			cancel()
			gens, _ := filepath.Glob(filepath.Join(cache, "resume", "*", "gen-*"))
			if len(gens) != 1 {
				t.Fatalf("generations %v, want one", gens)
			}
			if err := damage.do(filepath.Join(gens[0], file)); err != nil {
				t.Fatal(err)
			}
			res, err := r.Run(context.Background(), spec, "cpu", nil)
			if err != nil {
				t.Fatalf("%s %s: %v", damage.name, file, err)
			}
			if file == "suite.json" && damage.name == "delete" {
				// An incomplete generation: not restored, no warning.
				if resumedAttempt || len(w.msgs) != 0 {
					t.Errorf("%s %s: restored %v, warnings %q", damage.name, file, resumedAttempt, w.msgs)
				}
				continue
			}
			if resumedAttempt {
				t.Errorf("%s %s: the damaged state was restored", damage.name, file)
			}
			if !reflect.DeepEqual(res.Curves, whole.Curves) || res.Metrics[suite.MetricAccuracy] != whole.Metrics[suite.MetricAccuracy] {
				t.Errorf("%s %s: result differs from the uninterrupted run's", damage.name, file)
			}
			if len(w.msgs) != 1 || !strings.Contains(w.msgs[0], gens[0]) || !strings.Contains(w.msgs[0], "damaged") {
				t.Errorf("%s %s: warnings %q, want one naming %s as damaged", damage.name, file, w.msgs, gens[0])
			}
		}
	}
}
