package runs

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ugbench/ugbench/suite"
)

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "runs.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func testSpec(method, dataset string, seed int64) suite.RunSpec {
	return suite.RunSpec{
		Method:    method,
		Dataset:   dataset,
		RatioName: "low",
		Ratio:     0.1,
		Seed:      seed,
		Params:    suite.Params{"epochs": 20, "lr": 0.001, "pool": "mean", "bn": true},
		Protocol:  suite.DefaultProtocol(),
	}
}

var testProv = Provenance{
	GitCommit: "0123456789abcdef0123456789abcdef01234567", GitDirty: true,
	GoVersion: "go1.26.8", GoMLXVersion: "v0.28.2", Backend: "go", Kernels: "avx2", Device: "cpu:0", Host: "box",
}

// sameFloat is == with NaN equal to NaN.
func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

func sameMetrics(a, b map[string]float64) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !sameFloat(v, w) {
			return false
		}
	}
	return true
}

func sameCurves(a, b []suite.CurvePoint) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Epoch != b[i].Epoch || a[i].Name != b[i].Name || !sameFloat(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

func listOne(t *testing.T, s *Store, id int64) Run {
	t.Helper()
	all, err := s.List(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range all {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("run %d not listed", id)
	return Run{}
}

func TestOpenPragmas(t *testing.T) {
	s, _ := openTemp(t)
	for _, c := range []struct{ pragma, want string }{
		{"journal_mode", "wal"},
		{"foreign_keys", "1"},
		{"busy_timeout", "10000"},
	} {
		var got string
		if err := s.db.QueryRow("PRAGMA " + c.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("PRAGMA %s = %q, want %q", c.pragma, got, c.want)
		}
	}
	var v int
	if err := s.db.QueryRow(`SELECT version FROM schema_version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v != SchemaVersion() {
		t.Errorf("schema version %d, want %d", v, SchemaVersion())
	}
}

func TestOpenBadPath(t *testing.T) {
	for _, path := range []string{
		filepath.Join(t.TempDir(), "no", "such", "dir", "runs.db"),
		filepath.Join(t.TempDir(), "what?.db"),
		"",
	} {
		s, err := Open(path)
		if err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", path)
			continue
		}
		if path != "" && !strings.Contains(err.Error(), path) {
			t.Errorf("Open(%q) error %q does not name the file", path, err)
		}
	}
}

func TestStartFinishRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		spec suite.RunSpec
		res  suite.Result
	}{
		{
			name: "all metrics and curves",
			spec: testSpec("gcn", "MUTAG", 1),
			res: suite.Result{
				Metrics: map[string]float64{
					suite.MetricAccuracy: 0.8125, suite.MetricOODF1: 0.5, suite.MetricKnownAcc: 0.9,
					suite.MetricUnknownAcc: 0, suite.MetricOODAUROC: 0.75,
				},
				Curves: []suite.CurvePoint{
					{Epoch: 0, Name: "loss", Value: 2.5}, {Epoch: 0, Name: "acc", Value: 0.1},
					{Epoch: 1, Name: "loss", Value: 1.25}, {Epoch: 1, Name: "acc", Value: 0.3},
				},
				Seconds: 12.5,
			},
		},
		{
			name: "NaN and Inf values",
			spec: testSpec("gin", "PROTEINS", 2),
			res: suite.Result{
				Metrics: map[string]float64{
					suite.MetricOODAUROC: math.NaN(), suite.MetricAccuracy: math.Inf(1), "neg": math.Inf(-1),
				},
				Curves:  []suite.CurvePoint{{Epoch: 3, Name: "loss", Value: math.NaN()}, {Epoch: 1, Name: "loss", Value: 1}},
				Seconds: 0.25,
			},
		},
		{
			name: "no metrics no curves nil params",
			spec: suite.RunSpec{Method: "mlp", Dataset: "ENZYMES", Ratio: 0.3, Seed: 7, Protocol: suite.DefaultProtocol()},
			res:  suite.Result{Seconds: 1},
		},
	}
	s, _ := openTemp(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := time.Now()
			id, err := s.Start(c.spec, testProv)
			if err != nil {
				t.Fatal(err)
			}
			r := listOne(t, s, id)
			if r.Status != StatusRunning || r.Metrics != nil || !r.Finished.IsZero() || r.Seconds != 0 {
				t.Errorf("running run = %+v", r)
			}
			if err := s.Finish(id, c.res); err != nil {
				t.Fatal(err)
			}
			r = listOne(t, s, id)
			if r.Status != StatusFinished || r.Error != "" || r.Attempts != 1 {
				t.Errorf("status %s error %q attempts %d", r.Status, r.Error, r.Attempts)
			}
			if r.Hash != c.spec.Hash() || r.Spec.Hash() != c.spec.Hash() {
				t.Errorf("hash %s, decoded spec hash %s, want %s", r.Hash, r.Spec.Hash(), c.spec.Hash())
			}
			if r.Spec.Method != c.spec.Method || r.Spec.Dataset != c.spec.Dataset || r.Spec.RatioName != c.spec.RatioName ||
				r.Spec.Ratio != c.spec.Ratio || r.Spec.Seed != c.spec.Seed || r.Spec.Protocol != c.spec.Protocol {
				t.Errorf("spec %+v, want %+v", r.Spec, c.spec)
			}
			for k, v := range c.spec.Params {
				got := r.Spec.Params[k]
				if i, ok := v.(int); ok {
					v = float64(i) // documented: numbers come back as float64
				}
				if got != v {
					t.Errorf("param %s = %v (%T), want %v", k, got, got, v)
				}
			}
			if len(r.Spec.Params) != len(c.spec.Params) {
				t.Errorf("params %v, want %v", r.Spec.Params, c.spec.Params)
			}
			if r.Provenance != testProv {
				t.Errorf("provenance %+v, want %+v", r.Provenance, testProv)
			}
			if !sameMetrics(r.Metrics, orEmpty(c.res.Metrics)) {
				t.Errorf("metrics %v, want %v", r.Metrics, c.res.Metrics)
			}
			if r.Seconds != c.res.Seconds {
				t.Errorf("seconds %v, want %v", r.Seconds, c.res.Seconds)
			}
			if r.Started.Before(before.Add(-time.Millisecond)) || r.Finished.Before(r.Started) || r.Started.Location() != time.UTC {
				t.Errorf("started %v finished %v (before %v)", r.Started, r.Finished, before)
			}
			curves, err := s.Curves(id)
			if err != nil {
				t.Fatal(err)
			}
			if !sameCurves(curves, c.res.Curves) || curves == nil {
				t.Errorf("curves %v, want %v", curves, c.res.Curves)
			}
		})
	}
}

func orEmpty(m map[string]float64) map[string]float64 {
	if m == nil {
		return map[string]float64{}
	}
	return m
}

func TestTypedParamsReparse(t *testing.T) {
	s, _ := openTemp(t)
	spec := testSpec("gcn", "MUTAG", 1)
	id, err := s.Start(spec, testProv)
	if err != nil {
		t.Fatal(err)
	}
	r := listOne(t, s, id)
	b, err := r.Spec.Params.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	p, err := suite.UnmarshalParams(b, spec.Params)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p, spec.Params) {
		t.Errorf("re-parsed params %#v, want %#v", p, spec.Params)
	}
	if r.Spec.Params.Int("epochs") != 20 {
		t.Errorf("Int(epochs) = %d", r.Spec.Params.Int("epochs"))
	}
}

func TestStartFinishedRefused(t *testing.T) {
	s, _ := openTemp(t)
	spec := testSpec("gcn", "MUTAG", 1)
	id, err := s.Start(spec, testProv)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(id, suite.Result{Metrics: map[string]float64{"accuracy": 1}}); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"start":  func() error { _, err := s.Start(spec, testProv); return err }(),
		"finish": s.Finish(id, suite.Result{}),
		"fail":   s.Fail(id, StatusFailed, "late", nil),
	} {
		if !errors.Is(err, ErrAlreadyFinished) {
			t.Errorf("%s of a finished run: %v, want ErrAlreadyFinished", name, err)
		}
	}
	r := listOne(t, s, id)
	if r.Status != StatusFinished || r.Metrics["accuracy"] != 1 {
		t.Errorf("finished run changed: %+v", r)
	}
}

func TestUnknownRun(t *testing.T) {
	s, _ := openTemp(t)
	for name, err := range map[string]error{
		"finish": s.Finish(42, suite.Result{}),
		"fail":   s.Fail(42, StatusFailed, "x", nil),
		"curves": func() error { _, err := s.Curves(42); return err }(),
	} {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: %v, want ErrNotFound", name, err)
		}
	}
}

func TestFailBadStatus(t *testing.T) {
	s, _ := openTemp(t)
	id, err := s.Start(testSpec("gcn", "MUTAG", 1), testProv)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []Status{StatusRunning, StatusFinished, "bogus"} {
		if err := s.Fail(id, st, "x", nil); err == nil {
			t.Errorf("Fail with status %q accepted", st)
		}
	}
}

func TestFailThenRestart(t *testing.T) {
	for _, st := range []Status{StatusFailed, StatusInterrupted} {
		t.Run(string(st), func(t *testing.T) {
			s, _ := openTemp(t)
			spec := testSpec("gcn", "MUTAG", 1)
			id, err := s.Start(spec, testProv)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Fail(id, st, "boom", nil); err != nil {
				t.Fatal(err)
			}
			r := listOne(t, s, id)
			if r.Status != st || r.Error != "boom" || r.Finished.IsZero() || r.Metrics != nil {
				t.Errorf("after Fail: %+v", r)
			}
			// Leftovers of the failed attempt (Finish is atomic, so only a
			// foreign writer could leave these) must be cleared by Start.
			if _, err := s.db.Exec(`INSERT INTO metrics VALUES (?, 'accuracy', 0.5)`, id); err != nil {
				t.Fatal(err)
			}
			if _, err := s.db.Exec(`INSERT INTO curves VALUES (?, 0, 'loss', 1)`, id); err != nil {
				t.Fatal(err)
			}
			prov2 := testProv
			prov2.Device, prov2.GitDirty, prov2.Kernels = "cuda:1", false, "avx512"
			time.Sleep(2 * time.Millisecond)
			id2, err := s.Start(spec, prov2)
			if err != nil {
				t.Fatal(err)
			}
			if id2 != id {
				t.Fatalf("restart got id %d, want %d", id2, id)
			}
			r2 := listOne(t, s, id)
			if r2.Status != StatusRunning || r2.Error != "" || r2.Attempts != 2 || !r2.Finished.IsZero() ||
				r2.Provenance != prov2 || !r2.Started.After(r.Started) {
				t.Errorf("after restart: %+v", r2)
			}
			var n int
			if err := s.db.QueryRow(`SELECT (SELECT count(*) FROM metrics WHERE run_id = ?) +
				(SELECT count(*) FROM curves WHERE run_id = ?)`, id, id).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				t.Errorf("%d old metrics/curves rows survived the restart", n)
			}
			if err := s.Finish(id, suite.Result{Metrics: map[string]float64{"ood_f1": 0.25}}); err != nil {
				t.Fatal(err)
			}
			r3 := listOne(t, s, id)
			if !sameMetrics(r3.Metrics, map[string]float64{"ood_f1": 0.25}) || r3.Attempts != 2 {
				t.Errorf("after finish: %+v", r3)
			}
			all, _ := s.List(Filter{})
			if len(all) != 1 {
				t.Errorf("%d runs stored, want 1", len(all))
			}
		})
	}
}

func TestFinishedMap(t *testing.T) {
	s, _ := openTemp(t)
	specs := []suite.RunSpec{
		testSpec("gcn", "MUTAG", 1), testSpec("gcn", "MUTAG", 2), testSpec("gcn", "MUTAG", 3), testSpec("gcn", "MUTAG", 4),
	}
	ids := make([]int64, len(specs))
	for i, sp := range specs {
		var err error
		if ids[i], err = s.Start(sp, testProv); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Finish(ids[0], suite.Result{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(ids[2], suite.Result{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Fail(ids[3], StatusFailed, "x", nil); err != nil {
		t.Fatal(err)
	}
	hashes := []string{specs[0].Hash(), specs[1].Hash(), specs[2].Hash(), specs[3].Hash(), "notstored"}
	// Many hashes: more than one chunk.
	for i := 0; i < 2*finishedChunk; i++ {
		hashes = append(hashes, fmt.Sprintf("x%d", i))
	}
	hashes = append(hashes, specs[2].Hash())
	got, err := s.Finished(hashes)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(hashes)-1 {
		t.Errorf("map has %d keys, want %d", len(got), len(hashes)-1)
	}
	for h, want := range map[string]bool{
		specs[0].Hash(): true, specs[1].Hash(): false, specs[2].Hash(): true, specs[3].Hash(): false, "notstored": false,
	} {
		if v, ok := got[h]; !ok || v != want {
			t.Errorf("Finished[%s] = %v, %v; want %v", h, v, ok, want)
		}
	}
	empty, err := s.Finished(nil)
	if err != nil || len(empty) != 0 {
		t.Errorf("Finished(nil) = %v, %v", empty, err)
	}
}

// TestNotFinishedIn: of three finished runs of one store, the one the other
// store holds as finished is left out; the one it holds as failed and the one
// it lacks are kept, in order.
func TestNotFinishedIn(t *testing.T) {
	s, _ := openTemp(t)
	other, _ := openTemp(t)
	specs := []suite.RunSpec{testSpec("gcn", "MUTAG", 1), testSpec("gcn", "MUTAG", 2), testSpec("gcn", "MUTAG", 3)}
	for _, sp := range specs {
		id, err := s.Start(sp, testProv)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Finish(id, suite.Result{}); err != nil {
			t.Fatal(err)
		}
	}
	finished, err := other.Start(specs[1], testProv)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Finish(finished, suite.Result{}); err != nil {
		t.Fatal(err)
	}
	failed, err := other.Start(specs[2], testProv)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Fail(failed, StatusFailed, "x", nil); err != nil {
		t.Fatal(err)
	}
	rs, err := s.List(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := NotFinishedIn(rs, other)
	if err != nil {
		t.Fatal(err)
	}
	var seeds []int64
	for _, r := range got {
		seeds = append(seeds, r.Spec.Seed)
	}
	if want := []int64{1, 3}; fmt.Sprint(seeds) != fmt.Sprint(want) {
		t.Errorf("NotFinishedIn kept seeds %v, want %v", seeds, want)
	}
	if none, err := NotFinishedIn(nil, other); err != nil || len(none) != 0 {
		t.Errorf("NotFinishedIn(nil) = %v, %v", none, err)
	}
}

// TestRunningElsewhere: of four runs, one finished, one running in a live
// process, one running in a dead process and one running here, only the
// live other process's run is reported, as seen from a third process.
func TestRunningElsewhere(t *testing.T) {
	clock := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	s1, path := openTemp(t)
	setProcess(s1, 100, nil, &clock)
	start := func(s *Store, seed int64) (string, int64) {
		t.Helper()
		spec := testSpec("gin", "MUTAG", seed)
		id, err := s.Start(spec, testProv)
		if err != nil {
			t.Fatal(err)
		}
		return spec.Hash(), id
	}
	finished, id := start(s1, 1)
	if err := s1.Finish(id, suite.Result{}); err != nil {
		t.Fatal(err)
	}
	live, _ := start(s1, 2)
	s2 := openAs(t, path, 200, nil, &clock)
	dead, _ := start(s2, 3)
	s3 := openAs(t, path, 300, func(p int) bool { return p == 100 }, &clock)
	mine, _ := start(s3, 4)
	got, err := s3.RunningElsewhere([]string{finished, live, dead, mine, "notstored"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{finished: false, live: true, dead: false, mine: false, "notstored": false}
	if !maps.Equal(got, want) {
		t.Errorf("RunningElsewhere = %v, want %v", got, want)
	}
	// Process 100 stops beating: its run is no longer live.
	clock = clock.Add(StaleAfter + time.Second)
	if got, err := s3.RunningElsewhere([]string{live}); err != nil || got[live] {
		t.Errorf("after StaleAfter without a beat: %v, %v; want false", got, err)
	}
}

func TestReopenKeepsEverything(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	curves := []suite.CurvePoint{{Epoch: 0, Name: "loss", Value: 3}, {Epoch: 1, Name: "loss", Value: math.NaN()}}
	var finishedID int64
	for i := 0; i < 5; i++ {
		id, err := s.Start(testSpec("gcn", "MUTAG", int64(i)), testProv)
		if err != nil {
			t.Fatal(err)
		}
		switch i % 3 {
		case 0:
			finishedID = id
			err = s.Finish(id, suite.Result{Metrics: map[string]float64{"accuracy": float64(i) / 10, "ood_auroc": math.NaN()}, Curves: curves, Seconds: 2})
		case 1:
			err = s.Fail(id, StatusFailed, "panic: oops", nil)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	before, err := s.List(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	after, err := s2.List(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("%d runs after reopen, want %d", len(after), len(before))
	}
	for i := range before {
		b, a := before[i], after[i]
		if !sameMetrics(a.Metrics, b.Metrics) {
			t.Errorf("run %d metrics %v, want %v", b.ID, a.Metrics, b.Metrics)
		}
		a.Metrics, b.Metrics = nil, nil
		if !reflect.DeepEqual(a, b) {
			t.Errorf("run after reopen\n%+v\nwant\n%+v", a, b)
		}
	}
	got, err := s2.Curves(finishedID)
	if err != nil || !sameCurves(got, curves) {
		t.Errorf("curves after reopen %v, %v; want %v", got, err, curves)
	}
}

func TestMarkRunningInterrupted(t *testing.T) {
	s, path := openTemp(t)
	setProcess(s, 100, nil, nil)
	var ids []int64
	for i := 0; i < 5; i++ {
		id, err := s.Start(testSpec("gcn", "MUTAG", int64(i)), testProv)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := s.Finish(ids[0], suite.Result{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Fail(ids[1], StatusFailed, "boom", nil); err != nil {
		t.Fatal(err)
	}
	// s's process (pid 100 on box) is killed; a new grid (pid 200, which
	// sees no process 100) starts.
	s2 := openAs(t, path, 200, nil, nil)
	n, err := s2.MarkRunningInterrupted()
	if err != nil || n != 3 {
		t.Fatalf("MarkRunningInterrupted = %d, %v; want 3", n, err)
	}
	want := []Status{StatusFinished, StatusFailed, StatusInterrupted, StatusInterrupted, StatusInterrupted}
	all, err := s2.List(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range all {
		if r.Status != want[i] {
			t.Errorf("run %d status %s, want %s", r.ID, r.Status, want[i])
		}
		if r.Status == StatusInterrupted && (r.Error == "" || r.Finished.IsZero()) {
			t.Errorf("interrupted run %d: error %q finished %v", r.ID, r.Error, r.Finished)
		}
	}
	if all[1].Error != "boom" {
		t.Errorf("failed run's error overwritten: %q", all[1].Error)
	}
	if n, err := s2.MarkRunningInterrupted(); err != nil || n != 0 {
		t.Errorf("second MarkRunningInterrupted = %d, %v; want 0", n, err)
	}
	// A run that was wrongly marked (still alive elsewhere) can finish.
	if err := s.Finish(ids[2], suite.Result{Metrics: map[string]float64{"accuracy": 0.5}}); err != nil {
		t.Errorf("finish of an interrupted run: %v", err)
	}
	// Restarting an interrupted run counts an attempt.
	if id, err := s2.Start(testSpec("gcn", "MUTAG", 3), testProv); err != nil || id != ids[3] {
		t.Fatalf("restart = %d, %v", id, err)
	}
	if r := listOne(t, s2, ids[3]); r.Attempts != 2 || r.Status != StatusRunning {
		t.Errorf("restarted interrupted run: %+v", r)
	}
}

// setProcess makes s act as process pid (started at tick 1000+pid) in pid
// namespace "ns-test" on host "box" (testProv's host); alive tells which
// pids of that namespace exist (nil: none; each started at 1000+pid) and
// clock is its time (nil: the real clock).
func setProcess(s *Store, pid int, alive func(int) bool, clock *time.Time) {
	s.self = process{host: testProv.Host, ns: "ns-test", pid: pid, start: int64(1000 + pid)}
	s.probe = func(p int) (bool, int64) {
		if alive != nil && alive(p) {
			return true, int64(1000 + p)
		}
		return false, 0
	}
	s.now = time.Now
	if clock != nil {
		s.now = func() time.Time { return *clock }
	}
}

// openAs opens path as another process (see setProcess).
func openAs(t *testing.T, path string, pid int, alive func(int) bool, clock *time.Time) *Store {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	setProcess(s, pid, alive, clock)
	return s
}

func TestStartStaleRunning(t *testing.T) {
	s, path := openTemp(t)
	setProcess(s, 100, nil, nil)
	spec := testSpec("gcn", "MUTAG", 1)
	id, err := s.Start(spec, testProv)
	if err != nil {
		t.Fatal(err)
	}
	// Process 100 died without marking; process 200 restarts the run.
	s2 := openAs(t, path, 200, nil, nil)
	id2, err := s2.Start(spec, testProv)
	if err != nil || id2 != id {
		t.Fatalf("restart of a stale running run = %d, %v; want %d", id2, err, id)
	}
	if r := listOne(t, s2, id); r.Attempts != 2 {
		t.Errorf("attempts %d, want 2", r.Attempts)
	}
}

// TestLiveness checks which running runs another process leaves alone: by
// process existence and start time in the same pid namespace, by heartbeat
// age from another namespace or host.
func TestLiveness(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	owner100 := func(p int) bool { return p == 100 }
	for _, c := range []struct {
		name      string
		ownerHost string // "" = box, the looker's host
		ownerNS   string // "" = the looker's namespace
		alive     func(int) bool
		reused    bool          // pid 100 exists but started at another time
		advance   time.Duration // between the owner's last beat and the look
		beatAfter time.Duration // > 0: the owner beats again at t0 + beatAfter
		nullBeat  bool          // a row written before schema 3
		wantLive  bool
	}{
		{name: "same namespace, owner alive", alive: owner100, wantLive: true},
		{name: "same namespace, owner gone", wantLive: false},
		{name: "same namespace, pid reused", alive: owner100, reused: true, wantLive: false},
		{name: "same namespace, alive but silent", alive: owner100, advance: StaleAfter + time.Second, wantLive: false},
		{name: "other pid namespace, pid not visible, fresh beat", ownerNS: "ns-other", advance: StaleAfter - time.Second, wantLive: true},
		{name: "other pid namespace, stale beat", ownerNS: "ns-other", advance: StaleAfter + time.Second, wantLive: false},
		{name: "other host, fresh beat", ownerHost: "elsewhere", advance: StaleAfter - time.Second, wantLive: true},
		{name: "other host, kept beating", ownerHost: "elsewhere", advance: 2 * StaleAfter, beatAfter: 2*StaleAfter - time.Second, wantLive: true},
		{name: "heartbeat far in the future", ownerNS: "ns-other", advance: -StaleAfter - time.Second, wantLive: false},
		{name: "row from before heartbeats", ownerNS: "ns-other", nullBeat: true, wantLive: false},
	} {
		t.Run(c.name, func(t *testing.T) {
			clock := t0
			s, path := openTemp(t)
			setProcess(s, 100, nil, &clock)
			prov := testProv
			if c.ownerHost != "" {
				s.self.host, prov.Host = c.ownerHost, c.ownerHost
			}
			if c.ownerNS != "" {
				s.self.ns = c.ownerNS
			}
			spec := testSpec("gin", "MUTAG", 7)
			id, err := s.Start(spec, prov)
			if err != nil {
				t.Fatal(err)
			}
			if c.nullBeat {
				if _, err := s.db.Exec(`UPDATE runs SET heartbeat = NULL, pid = 0, pidns = '', pid_start = 0 WHERE id = ?`, id); err != nil {
					t.Fatal(err)
				}
			}
			if c.beatAfter > 0 {
				clock = t0.Add(c.beatAfter)
				if err := s.Heartbeat(); err != nil {
					t.Fatal(err)
				}
			}
			clock = t0.Add(c.advance)
			s2 := openAs(t, path, 200, c.alive, &clock)
			if c.reused {
				s2.probe = func(p int) (bool, int64) { return p == 100, 7 }
			}
			_, err = s2.Start(spec, testProv)
			if c.wantLive {
				if !errors.Is(err, ErrRunningElsewhere) || !errors.Is(err, suite.ErrRunningElsewhere) {
					t.Errorf("Start of a live run: %v, want ErrRunningElsewhere", err)
				}
				if n, err := s2.MarkRunningInterrupted(); err != nil || n != 0 {
					t.Errorf("MarkRunningInterrupted = %d, %v; want 0 (the run is live)", n, err)
				}
				if r := listOne(t, s2, id); r.Status != StatusRunning || r.Attempts != 1 {
					t.Errorf("live run after the second process looked: %s, %d attempts", r.Status, r.Attempts)
				}
				return
			}
			if err != nil {
				t.Fatalf("Start of a stale run: %v, want a restart", err)
			}
			if r := listOne(t, s2, id); r.Status != StatusRunning || r.Attempts != 2 {
				t.Errorf("stale run after restart: %s, %d attempts; want running, 2", r.Status, r.Attempts)
			}
			// Now process 200 owns it: a third process sees it live while
			// 200 exists.
			s3 := openAs(t, path, 300, func(p int) bool { return p == 200 }, &clock)
			if _, err := s3.Start(spec, testProv); !errors.Is(err, ErrRunningElsewhere) {
				t.Errorf("Start by a third process: %v, want ErrRunningElsewhere", err)
			}
		})
	}
}

// TestTakeover checks the ends of a run that a second process restarted
// while the first was in fact still computing it (it was stopped longer
// than StaleAfter, say): the first to finish stores its result, the other's
// Finish reports ErrAlreadyFinished, and a Fail by the process that lost
// the run leaves the new owner's run alone.
func TestTakeover(t *testing.T) {
	clock := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	s1, path := openTemp(t)
	setProcess(s1, 100, func(p int) bool { return p == 200 }, &clock)
	spec := testSpec("gin", "MUTAG", 1)
	id, err := s1.Start(spec, testProv)
	if err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(StaleAfter + time.Second) // 100 stopped beating
	s2 := openAs(t, path, 200, func(p int) bool { return p == 100 }, &clock)
	if id2, err := s2.Start(spec, testProv); err != nil || id2 != id {
		t.Fatalf("takeover Start = %d, %v; want %d", id2, err, id)
	}
	// The old owner's Fail (say it was interrupted) is a no-op.
	if err := s1.Fail(id, StatusInterrupted, "ctrl-c", nil); err != nil {
		t.Fatalf("Fail by the old owner: %v", err)
	}
	if r := listOne(t, s2, id); r.Status != StatusRunning || r.Error != "" {
		t.Errorf("after the old owner's Fail: %s %q, want still running", r.Status, r.Error)
	}
	// The new owner finishes first; the old owner's Finish is refused.
	if err := s2.Finish(id, suite.Result{Metrics: map[string]float64{"accuracy": 0.5}}); err != nil {
		t.Fatal(err)
	}
	if err := s1.Finish(id, suite.Result{Metrics: map[string]float64{"accuracy": 0.4}}); !errors.Is(err, ErrAlreadyFinished) || !errors.Is(err, suite.ErrAlreadyFinished) {
		t.Errorf("second Finish: %v, want ErrAlreadyFinished", err)
	}
	if r := listOne(t, s2, id); r.Metrics["accuracy"] != 0.5 {
		t.Errorf("stored accuracy %v, want the first finisher's 0.5", r.Metrics["accuracy"])
	}
}

// TestThisProcess checks the real process identity: this process exists
// with the start time thisProcess recorded; pid -1 does not.
func TestThisProcess(t *testing.T) {
	self := thisProcess()
	exists, start := probeProcess(self.pid)
	if !exists || start != self.start {
		t.Errorf("probeProcess(self) = %v, %d; thisProcess start %d", exists, start, self.start)
	}
	if exists, _ := probeProcess(-1); exists {
		t.Error("probeProcess(-1) exists")
	}
	if runtime.GOOS == "linux" && (self.ns == "" || self.start == 0) {
		t.Errorf("thisProcess on linux = %+v, want a pid namespace and a start time", self)
	}
}

// manySeeds returns n seeds that include want and otherwise no test seed.
func manySeeds(n int, want int64) []int64 {
	out := []int64{want}
	for i := int64(1000); len(out) < n; i++ {
		out = append(out, i)
	}
	return out
}

func TestListFilters(t *testing.T) {
	s, _ := openTemp(t)
	type row struct {
		method, dataset string
		status          Status
		ratioName       string // testSpec's "low" (0.1) unless set
		ratio           float64
	}
	rows := []row{
		{"gcn", "MUTAG", StatusFinished, "", 0},
		{"gcn", "PROTEINS", StatusFailed, "", 0},
		{"gin", "MUTAG", StatusRunning, "", 0},
		{"gin", "PROTEINS", StatusFinished, "high", 0.3},
		{"mlp", "ENZYMES", StatusInterrupted, "", 0},
		{"gcn", "ENZYMES", StatusFinished, "", 0.05}, // a ratio without a name
	}
	for i, r := range rows {
		spec := testSpec(r.method, r.dataset, int64(i))
		if r.ratio != 0 {
			spec.RatioName, spec.Ratio = r.ratioName, r.ratio
		}
		id, err := s.Start(spec, testProv)
		if err != nil {
			t.Fatal(err)
		}
		switch r.status {
		case StatusFinished:
			err = s.Finish(id, suite.Result{Metrics: map[string]float64{"accuracy": float64(i), "ood_f1": -float64(i)}})
		case StatusFailed, StatusInterrupted:
			err = s.Fail(id, r.status, "x", nil)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name string
		f    Filter
		want []int // indices into rows
	}{
		{"all", Filter{}, []int{0, 1, 2, 3, 4, 5}},
		{"method", Filter{Methods: []string{"gcn"}}, []int{0, 1, 5}},
		{"methods", Filter{Methods: []string{"gin", "mlp"}}, []int{2, 3, 4}},
		{"dataset", Filter{Datasets: []string{"MUTAG"}}, []int{0, 2}},
		{"status", Filter{Status: []Status{StatusFinished}}, []int{0, 3, 5}},
		{"statuses", Filter{Status: []Status{StatusFailed, StatusInterrupted, StatusRunning}}, []int{1, 2, 4}},
		{"method and dataset", Filter{Methods: []string{"gcn"}, Datasets: []string{"PROTEINS", "ENZYMES"}}, []int{1, 5}},
		{"all three", Filter{Methods: []string{"gcn", "gin"}, Datasets: []string{"PROTEINS"}, Status: []Status{StatusFinished}}, []int{3}},
		{"none", Filter{Methods: []string{"nope"}}, nil},
		{"ratio", Filter{Ratios: []string{"high"}}, []int{3}},
		{"ratio number", Filter{Ratios: []string{"0.05"}}, []int{5}},
		{"number of a named ratio", Filter{Ratios: []string{"0.1", "high"}}, []int{0, 1, 2, 3, 4}},
		{"seeds", Filter{Seeds: []int64{1, 4, 9}}, []int{1, 4}},
		{"ratio and seeds", Filter{Ratios: []string{"low"}, Seeds: []int64{0, 3}}, []int{0}},
		// More values than SQLite allows variables (32766).
		{"40000 seeds", Filter{Seeds: manySeeds(40000, 2)}, []int{2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.List(c.f)
			if err != nil {
				t.Fatal(err)
			}
			var idx []int
			for i, r := range got {
				if i > 0 && got[i-1].ID >= r.ID {
					t.Errorf("not ordered by id: %d then %d", got[i-1].ID, r.ID)
				}
				k := int(r.Spec.Seed)
				idx = append(idx, k)
				if r.Status != rows[k].status {
					t.Errorf("run %d status %s, want %s", r.ID, r.Status, rows[k].status)
				}
				if r.Status == StatusFinished {
					want := map[string]float64{"accuracy": float64(k), "ood_f1": -float64(k)}
					if !sameMetrics(r.Metrics, want) {
						t.Errorf("run %d metrics %v, want %v", r.ID, r.Metrics, want)
					}
				} else if r.Metrics != nil {
					t.Errorf("unfinished run %d has metrics %v", r.ID, r.Metrics)
				}
			}
			if !reflect.DeepEqual(idx, c.want) {
				t.Errorf("got rows %v, want %v", idx, c.want)
			}
		})
	}
}

// TestMarkForRerun: only the finished runs among the given ids are marked
// (interrupted, with the reason), they leave Finished at once, and the next
// Start recomputes them as a new attempt; running, failed and interrupted
// runs are left alone.
func TestMarkForRerun(t *testing.T) {
	s, _ := openTemp(t)
	setProcess(s, 100, nil, nil)
	type row struct {
		method string
		status Status
	}
	rows := []row{
		{"ugnn", StatusFinished}, {"ugnn", StatusFinished}, {"ugnn", StatusRunning},
		{"ugnn", StatusFailed}, {"ugnn", StatusInterrupted}, {"gin", StatusFinished},
	}
	var ids []int64
	var hashes []string
	for i, r := range rows {
		spec := testSpec(r.method, "COIL-DEL", int64(i))
		id, err := s.Start(spec, testProv)
		if err != nil {
			t.Fatal(err)
		}
		switch r.status {
		case StatusFinished:
			err = s.Finish(id, suite.Result{Metrics: map[string]float64{"accuracy": 0.5}, Curves: []suite.CurvePoint{{Epoch: 1, Name: "loss", Value: 1}}})
		case StatusFailed, StatusInterrupted:
			err = s.Fail(id, r.status, "x", nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		ids, hashes = append(ids, id), append(hashes, spec.Hash())
	}
	// ids[1:5] are ugnn's seeds 1-4; 999 is no run.
	marked, err := s.MarkForRerun(append(slices.Clone(ids[1:5]), 999), "code changed")
	if err != nil || !slices.Equal(marked, ids[1:2]) {
		t.Fatalf("MarkForRerun = %v, %v; want [%d] (seed 1: the only finished run among them)", marked, err, ids[1])
	}
	want := []Status{StatusFinished, StatusInterrupted, StatusRunning, StatusFailed, StatusInterrupted, StatusFinished}
	for i, id := range ids {
		r := listOne(t, s, id)
		if r.Status != want[i] {
			t.Errorf("run %d (seed %d) status %s, want %s", id, i, r.Status, want[i])
		}
	}
	if r := listOne(t, s, ids[1]); r.Error != "marked for rerun: code changed" {
		t.Errorf("marked run's error %q", r.Error)
	}
	if r := listOne(t, s, ids[4]); r.Error != "x" {
		t.Errorf("interrupted run's error overwritten: %q", r.Error)
	}
	done, err := s.Finished(hashes)
	if err != nil {
		t.Fatal(err)
	}
	if !done[hashes[0]] || done[hashes[1]] || !done[hashes[5]] {
		t.Errorf("Finished = %v: want seeds 0 and 5 only", done)
	}
	id, err := s.Start(testSpec("ugnn", "COIL-DEL", 1), testProv)
	if err != nil || id != ids[1] {
		t.Fatalf("restart of the marked run = %d, %v; want %d", id, err, ids[1])
	}
	if r := listOne(t, s, id); r.Attempts != 2 || r.Status != StatusRunning || r.Error != "" {
		t.Errorf("restarted run: attempts %d status %s error %q", r.Attempts, r.Status, r.Error)
	}
	if c, err := s.Curves(id); err != nil || len(c) != 0 {
		t.Errorf("restarted run keeps curves %v (%v)", c, err)
	}
	if marked, err := s.MarkForRerun(ids[1:5], "again"); err != nil || len(marked) != 0 {
		t.Errorf("MarkForRerun of running, failed and interrupted runs = %v, %v; want none", marked, err)
	}
	if marked, err := s.MarkForRerun(nil, "nothing"); err != nil || len(marked) != 0 {
		t.Errorf("MarkForRerun(nil) = %v, %v", marked, err)
	}
}

func TestMigrateOldVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	old, err := openWith(path, migrations[:1])
	if err != nil {
		t.Fatal(err)
	}
	// A run as schema version 1 stored it (the columns of migration 1).
	spec := testSpec("gcn", "MUTAG", 1)
	specJSON, _ := json.Marshal(spec)
	res, err := old.db.Exec(`INSERT INTO runs (hash, method, dataset, ratio_name, ratio, seed, params, protocol,
			spec, status, started, finished, seconds)
		VALUES (?, 'gcn', 'MUTAG', 'low', 0.1, 1, '{}', '{}', ?, 'finished', ?, ?, 1.5)`,
		spec.Hash(), string(specJSON), formatTime(time.Now()), formatTime(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.LastInsertId()
	if _, err := old.db.Exec(`INSERT INTO metrics (run_id, name, value) VALUES (?, 'accuracy', 0.5)`, id); err != nil {
		t.Fatal(err)
	}
	old.Close()

	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v int
	if err := s.db.QueryRow(`SELECT version FROM schema_version`).Scan(&v); err != nil || v != SchemaVersion() {
		t.Errorf("version after migration %d, %v; want %d", v, err, SchemaVersion())
	}
	var nIndex int
	if err := s.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN
		('runs_method_dataset', 'runs_dataset', 'runs_status', 'curves_run')`).Scan(&nIndex); err != nil || nIndex != 4 {
		t.Errorf("%d indexes after migration (%v), want 4", nIndex, err)
	}
	var nVersions int
	if err := s.db.QueryRow(`SELECT count(*) FROM schema_version`).Scan(&nVersions); err != nil || nVersions != 1 {
		t.Errorf("schema_version has %d rows (%v), want 1", nVersions, err)
	}
	r := listOne(t, s, id)
	if r.Status != StatusFinished || r.Metrics["accuracy"] != 0.5 {
		t.Errorf("run after migration: %+v", r)
	}
}

func TestNewerVersionRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	newer := SchemaVersion() + 7
	if _, err := s.db.Exec(`UPDATE schema_version SET version = ?`, newer); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, err := Open(path)
	if err == nil {
		s2.Close()
		t.Fatal("Open of a newer-version database succeeded")
	}
	for _, want := range []string{path, fmt.Sprint(newer), fmt.Sprint(SchemaVersion())} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	t.Log(err)
}

func TestFailedMigrationRollsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	bad := append(append([]string{}, migrations...),
		`CREATE TABLE extra (x INTEGER)`, `CREATE TABLE runs (x INTEGER)`) // the second step fails
	if s, err := openWith(path, bad); err == nil {
		s.Close()
		t.Fatal("bad migration succeeded")
	} else if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the file", err)
	}
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v, extra int
	if err := s.db.QueryRow(`SELECT version FROM schema_version`).Scan(&v); err != nil || v != SchemaVersion() {
		t.Errorf("version %d, %v; want %d", v, err, SchemaVersion())
	}
	if err := s.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'extra'`).Scan(&extra); err != nil || extra != 0 {
		t.Errorf("partial migration kept: %d, %v", extra, err)
	}
}

// TestConcurrent runs 8 goroutines × 20 runs on one Store (the scheduler's
// slots) while another goroutine reads; run it with -race.
func TestConcurrent(t *testing.T) {
	s, _ := openTemp(t)
	testConcurrent(t, []*Store{s}, 8, 20)
}

// TestConcurrentTwoStores is two processes on one file: two Stores, each
// with 4 goroutines, relying on WAL and the busy timeout.
func TestConcurrentTwoStores(t *testing.T) {
	s1, path := openTemp(t)
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	testConcurrent(t, []*Store{s1, s2}, 4, 20)
}

func testConcurrent(t *testing.T, stores []*Store, workers, perWorker int) {
	var wg sync.WaitGroup
	errs := make(chan error, len(stores)*workers*perWorker+1)
	stop := make(chan struct{})
	var readers sync.WaitGroup
	readers.Add(1)
	go func() {
		defer readers.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := stores[0].List(Filter{Status: []Status{StatusFinished}}); err != nil {
				errs <- err
				return
			}
			if _, err := stores[len(stores)-1].Finished([]string{"a", "b"}); err != nil {
				errs <- err
				return
			}
		}
	}()
	for si, s := range stores {
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(s *Store, si, w int) {
				defer wg.Done()
				for i := 0; i < perWorker; i++ {
					spec := testSpec(fmt.Sprintf("m%d", w), fmt.Sprintf("d%d", si), int64(i))
					id, err := s.Start(spec, testProv)
					if err != nil {
						errs <- err
						return
					}
					if i%5 == 4 {
						err = s.Fail(id, StatusFailed, "x", nil)
					} else {
						err = s.Finish(id, suite.Result{
							Metrics: map[string]float64{"accuracy": float64(i)},
							Curves:  []suite.CurvePoint{{Epoch: 0, Name: "loss", Value: float64(w)}},
						})
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}(s, si, w)
		}
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	all, err := stores[0].List(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	total := len(stores) * workers * perWorker
	if len(all) != total {
		t.Fatalf("%d runs, want %d", len(all), total)
	}
	var finished int
	for _, r := range all {
		if r.Status == StatusFinished {
			finished++
			if r.Metrics["accuracy"] != float64(r.Spec.Seed) {
				t.Errorf("run %d metrics %v", r.ID, r.Metrics)
			}
		}
	}
	if want := total * 4 / 5; finished != want {
		t.Errorf("%d finished, want %d", finished, want)
	}
}

// TestValuesSQL checks the documented storage conventions directly.
func TestValuesSQL(t *testing.T) {
	s, _ := openTemp(t)
	id, err := s.Start(testSpec("gcn", "MUTAG", 1), testProv)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(id, suite.Result{Metrics: map[string]float64{"a": math.NaN(), "b": 1}}); err != nil {
		t.Fatal(err)
	}
	var a sql.NullFloat64
	if err := s.db.QueryRow(`SELECT value FROM metrics WHERE run_id = ? AND name = 'a'`, id).Scan(&a); err != nil || a.Valid {
		t.Errorf("NaN stored as %v, %v; want NULL", a, err)
	}
	var started, finished string
	if err := s.db.QueryRow(`SELECT started, finished FROM runs WHERE id = ?`, id).Scan(&started, &finished); err != nil {
		t.Fatal(err)
	}
	for _, ts := range []string{started, finished} {
		if len(ts) != len(timeLayout) || !strings.HasSuffix(ts, "Z") {
			t.Errorf("timestamp %q not in layout %q", ts, timeLayout)
		}
	}
}

// TestProgress: Progress costs no write; the next Heartbeat stores each
// running run's last epoch and total, a finished run keeps what it had, a
// restart clears it, and another store (process) reads it from the file.
func TestProgress(t *testing.T) {
	s, path := openTemp(t)
	a, err := s.Start(testSpec("m", "d", 0), testProv)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Start(testSpec("m", "d", 1), testProv)
	if err != nil {
		t.Fatal(err)
	}
	progress := func(id int64) [2]int {
		r := listOne(t, s, id)
		return [2]int{r.Epoch, r.Epochs}
	}
	s.Progress(a, 1, 50)
	s.Progress(a, 2, 50)
	s.Progress(b, 7, 9)
	if got := progress(a); got != [2]int{0, 0} {
		t.Fatalf("before a heartbeat: run a at %v, want 0/0", got)
	}
	if err := s.Heartbeat(); err != nil {
		t.Fatal(err)
	}
	if got, got2 := progress(a), progress(b); got != [2]int{2, 50} || got2 != [2]int{7, 9} {
		t.Fatalf("after a heartbeat: %v and %v, want 2/50 and 7/9", got, got2)
	}
	other, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if r := listOne(t, other, a); r.Epoch != 2 || r.Epochs != 50 {
		t.Errorf("another store reads %d/%d, want 2/50", r.Epoch, r.Epochs)
	}
	// A finished run is not overwritten by a late Progress.
	if err := s.Finish(b, suite.Result{Metrics: map[string]float64{"accuracy": 0.5}}); err != nil {
		t.Fatal(err)
	}
	s.Progress(b, 8, 9)
	if err := s.Heartbeat(); err != nil {
		t.Fatal(err)
	}
	if got := progress(b); got != [2]int{7, 9} {
		t.Errorf("finished run's progress %v, want the 7/9 it had", got)
	}
	// A restart starts from 0/0.
	if err := s.Fail(a, StatusInterrupted, "stop", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Start(testSpec("m", "d", 0), testProv); err != nil {
		t.Fatal(err)
	}
	if got := progress(a); got != [2]int{0, 0} {
		t.Errorf("restarted run at %v, want 0/0", got)
	}
}

// TestQuickCheckDamagedFile: a database with a page overwritten (issue 32:
// a grid on it found "0 runs to do") fails QuickCheck with an error naming
// the file; an intact one passes.
func TestQuickCheckDamagedFile(t *testing.T) {
	dir := t.TempDir()
	var rs []mergeRun
	for i := range 300 {
		rs = append(rs, mergeRun{seed: int64(i), status: StatusFinished, acc: float64(i) / 300, curves: 3})
	}
	path := makeDB(t, dir, "runs.db", migrations, rs...)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.QuickCheck(); err != nil {
		t.Fatalf("intact file: %v", err)
	}
	s.Close()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	const page = 4096
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	junk := bytes.Repeat([]byte{0x7f}, page)
	if _, err := f.WriteAt(junk, (info.Size()/page/2)*page); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s, err = Open(path)
	if err != nil {
		if !strings.Contains(err.Error(), path) {
			t.Fatalf("open of the damaged file: %v, want an error naming it", err)
		}
		return
	}
	defer s.Close()
	if err := s.QuickCheck(); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("damaged file: QuickCheck %v, want an error naming %s as damaged", err, path)
	}
}
