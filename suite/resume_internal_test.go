package suite

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestResumeLockAndDue: a second attempt at a config whose state another
// attempt holds gets no Resume; a save is due every ResumeEvery.
func TestResumeLockAndDue(t *testing.T) {
	cache := t.TempDir()
	spec := RunSpec{Method: "m", Dataset: "d", Seed: 1, Protocol: DefaultProtocol()}
	clock := time.Unix(0, 0)
	log := &curveLog{now: func() time.Time { return clock }}
	first, err := openResume(cache, time.Minute, spec, "go", "fp", log)
	if err != nil || first == nil {
		t.Fatalf("first attempt: %v, %v", first, err)
	}
	second, err := openResume(cache, time.Minute, spec, "go", "fp", &curveLog{})
	if err != nil || second != nil {
		t.Fatalf("second attempt while the first holds the lock: %v, %v; want no Resume", second, err)
	}
	if first.Due() {
		t.Error("a save is due at the start")
	}
	clock = clock.Add(time.Minute)
	if !first.Due() {
		t.Error("no save due after ResumeEvery")
	}
	if err := first.Save(func(string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if first.Due() {
		t.Error("a save is due right after one")
	}
	first.finish(true)
	third, err := openResume(cache, time.Minute, spec, "go", "fp", &curveLog{})
	if err != nil || third == nil {
		t.Fatalf("attempt after the first ended: %v, %v", third, err)
	}
	ok, err := third.Restore(func(string) error { return nil })
	if err != nil || !ok {
		t.Fatalf("restore of the kept state: %v, %v", ok, err)
	}
	third.finish(false)
	var none *Resume
	if ok, err := none.Restore(nil); ok || err != nil || none.Due() || none.Save(nil) != nil {
		t.Error("a nil Resume restored, was due or saved")
	}
}

// TestProbeResume: a writable directory with file locks passes and leaves
// no probe file; a cache path under a regular file fails.
func TestProbeResume(t *testing.T) {
	cache := t.TempDir()
	if err := ProbeResume(cache); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(filepath.Join(cache, "resume")); len(left) != 0 {
		t.Errorf("probe left %v", left)
	}
	file := filepath.Join(cache, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ProbeResume(filepath.Join(file, "cache")); err == nil {
		t.Error("no error for a cache directory under a regular file")
	}
}
