package suite

import (
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
