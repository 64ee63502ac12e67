// Package suitetest holds test helpers for methods run through the suite.
package suitetest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ugbench/ugbench/suite"
)

// CheckResume runs spec on the data in dataDir three ways — in one go;
// cancelled (as Ctrl-C cancels bench grid) after the stop-th
// Logger.Epoch call; then again — for every stop, and fails t unless the
// second attempt restored the state the first saved (metric
// suite.ResumedMetric = 1) and stored the curves and metrics of the
// uninterrupted run exactly (all but the epoch times). Saves are due
// after every epoch. When the method runs something cancellable right
// after an epoch (a D^u report, curve_every), the cancellation makes it
// fail before that epoch's save, and the run resumes from the save
// before.
func CheckResume(t *testing.T, dataDir string, spec suite.RunSpec, stops ...int) {
	t.Helper()
	whole, err := (&suite.Runner{DataDir: dataDir, Backend: "go"}).Run(context.Background(), spec, "cpu", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := whole.Metrics[suite.ResumedMetric]; ok {
		t.Fatalf("a run in one go has metric %s", suite.ResumedMetric)
	}
	for _, stop := range stops {
		r := &suite.Runner{DataDir: dataDir, Backend: "go", CacheDir: t.TempDir(), ResumeEvery: time.Nanosecond}
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		_, err := r.Run(ctx, spec, "cpu", func(int, int) {
			if calls++; calls == stop {
				cancel()
			}
		})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("stop %d: first attempt returned %v, want context.Canceled", stop, err)
		}
		res, err := r.Run(context.Background(), spec, "cpu", nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Metrics[suite.ResumedMetric] != 1 {
			t.Fatalf("stop %d: metric %s = %v, want 1 (the saved state was not restored)", stop, suite.ResumedMetric, res.Metrics[suite.ResumedMetric])
		}
		if !reflect.DeepEqual(res.Curves, whole.Curves) {
			t.Errorf("stop %d: curves differ from the uninterrupted run's:\n got %v\nwant %v", stop, res.Curves, whole.Curves)
		}
		for k, v := range whole.Metrics {
			if !suite.IsMeasurement(k) && res.Metrics[k] != v {
				t.Errorf("stop %d: %s = %v, want the uninterrupted run's %v", stop, k, res.Metrics[k], v)
			}
		}
	}
}

// CheckDamagedResume runs spec on the data in dataDir in one go, then
// cancelled after the stop-th Logger.Epoch call (leaving a saved state),
// then, after flipping one byte in the middle of the largest file of the
// saved state (a method's checkpoint), again: it fails t unless the rerun
// warned naming the state as damaged, did not restore it (no metric
// suite.ResumedMetric) and stored the uninterrupted run's curves and
// metrics (all but the epoch times).
func CheckDamagedResume(t *testing.T, dataDir string, spec suite.RunSpec, stop int) {
	t.Helper()
	whole, err := (&suite.Runner{DataDir: dataDir, Backend: "go"}).Run(context.Background(), spec, "cpu", nil)
	if err != nil {
		t.Fatal(err)
	}
	var warns []string
	r := &suite.Runner{DataDir: dataDir, Backend: "go", CacheDir: t.TempDir(), ResumeEvery: time.Nanosecond,
		Warn: func(msg string) { warns = append(warns, msg) }}
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	_, err = r.Run(ctx, spec, "cpu", func(int, int) {
		if calls++; calls == stop {
			cancel()
		}
	})
	cancel()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("first attempt returned %v, want context.Canceled", err)
	}
	var largest string
	var size int64
	_ = filepath.WalkDir(filepath.Join(r.CacheDir, "resume"), func(path string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil && fi.Size() > size {
				largest, size = path, fi.Size()
			}
		}
		return nil
	})
	if largest == "" {
		t.Fatal("no saved state after the interruption")
	}
	b, err := os.ReadFile(largest)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x40
	if err := os.WriteFile(largest, b, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background(), spec, "cpu", nil)
	if err != nil {
		t.Fatalf("rerun after damaging %s: %v", largest, err)
	}
	if _, ok := res.Metrics[suite.ResumedMetric]; ok {
		t.Errorf("the damaged state %s was restored", largest)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "damaged") || !strings.Contains(warns[0], filepath.Dir(filepath.Dir(largest))) {
		t.Errorf("warnings %q: want one naming the damaged state of %s", warns, largest)
	}
	if !reflect.DeepEqual(res.Curves, whole.Curves) {
		t.Errorf("curves differ from the uninterrupted run's")
	}
	for k, v := range whole.Metrics {
		if !suite.IsMeasurement(k) && res.Metrics[k] != v {
			t.Errorf("%s = %v, want the uninterrupted run's %v", k, res.Metrics[k], v)
		}
	}
}
