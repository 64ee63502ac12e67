package suite

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	first, err := openResume(cache, time.Minute, spec, "go", "fp", log, nil)
	if err != nil || first == nil {
		t.Fatalf("first attempt: %v, %v", first, err)
	}
	second, err := openResume(cache, time.Minute, spec, "go", "fp", &curveLog{}, nil)
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
	first.Save(func(string) error { return nil })
	if first.Due() {
		t.Error("a save is due right after one")
	}
	first.finish(true)
	third, err := openResume(cache, time.Minute, spec, "go", "fp", &curveLog{}, nil)
	if err != nil || third == nil {
		t.Fatalf("attempt after the first ended: %v, %v", third, err)
	}
	ok, err := third.Restore(func(string) error { return nil })
	if err != nil || !ok {
		t.Fatalf("restore of the kept state: %v, %v", ok, err)
	}
	third.finish(false)
	var none *Resume
	none.Save(nil)
	if ok, err := none.Restore(nil); ok || err != nil || none.Due() {
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

// TestSavedStates: a kept save is listed with its run's hash, the last
// logged epoch and this binary; a save another binary wrote is listed as
// not this binary's; a save without a hash (older binaries) and a
// finished run's deleted state are not listed.
func TestSavedStates(t *testing.T) {
	cache := t.TempDir()
	if got, err := SavedStates(cache); err != nil || len(got) != 0 {
		t.Fatalf("empty cache: %v, %v", got, err)
	}
	specs := []RunSpec{
		{Method: "m", Dataset: "d", Seed: 1, Protocol: DefaultProtocol()},
		{Method: "m", Dataset: "d", Seed: 2, Protocol: DefaultProtocol()},
	}
	var saved []*Resume
	for i, spec := range specs {
		log := &curveLog{now: time.Now}
		r, err := openResume(cache, time.Minute, spec, "go", "fp", log, nil)
		if err != nil || r == nil {
			t.Fatalf("%v: %v, %v", spec, r, err)
		}
		log.Epoch(3+i, 10, map[string]float64{"loss": 1})
		r.Save(func(dir string) error { return os.WriteFile(filepath.Join(dir, "w.bin"), make([]byte, 100), 0o644) })
		saved = append(saved, r)
	}
	saved[0].finish(true)
	// The second was written by "another binary".
	saved[1].exe = "0123"
	saved[1].Save(func(string) error { return nil })
	saved[1].finish(true)
	// An older binary's save: no hash.
	old := filepath.Join(cache, "resume", "m-old", "gen-000000001")
	if err := os.MkdirAll(old, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(old, resumeSuiteFile), []byte(`{"seconds": 5}`), 0o644); err != nil {
		t.Fatal(err)
	}

	got, err := SavedStates(cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d states listed, want 2: %+v", len(got), got)
	}
	byHash := map[string]SavedState{got[0].Hash: got[0], got[1].Hash: got[1]}
	first, second := byHash[specs[0].Hash()], byHash[specs[1].Hash()]
	if first.Epoch != 3 || first.Epochs != 10 || !first.ThisBinary || first.Bytes < 100 || first.Saved.IsZero() {
		t.Errorf("first state %+v: want epoch 3/10, this binary, ≥ 100 bytes", first)
	}
	if second.Epoch != 4 || second.ThisBinary {
		t.Errorf("second state %+v: want epoch 4, another binary's", second)
	}

	// Finishing a run deletes its state: no longer listed.
	r, err := openResume(cache, time.Minute, specs[0], "go", "fp", &curveLog{}, nil)
	if err != nil || r == nil {
		t.Fatalf("reopen: %v, %v", r, err)
	}
	r.finish(false)
	if got, err := SavedStates(cache); err != nil || len(got) != 1 || got[0].Hash != specs[1].Hash() {
		t.Errorf("after the first run finished: %+v, %v; want only the second", got, err)
	}
}

// TestRemoveStaleTemps: temporary directories of a dead process of this
// host and old ones are removed; this process's, a live process's and
// other files are kept.
func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	mine, err := MkdirCacheTemp(dir)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if h, pid, ok := tempOwner(filepath.Base(mine)); !ok || h != host || pid != os.Getpid() {
		t.Fatalf("owner of %s: %q %d %v", mine, h, pid, ok)
	}
	// A dead process: a child that has exited (its pid is free).
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no `true` to start:", err)
	}
	dead := filepath.Join(dir, fmt.Sprintf(".tmp-%s-%d-123", host, cmd.Process.Pid))
	live := filepath.Join(dir, fmt.Sprintf(".tmp-%s-%d-456", host, os.Getppid()))
	otherHost := filepath.Join(dir, fmt.Sprintf(".tmp-elsewhere-%d-789", cmd.Process.Pid))
	old := filepath.Join(dir, ".tmp-1234567") // an older binary's name
	keep := filepath.Join(dir, "gen-000000001")
	for _, d := range []string{dead, live, otherHost, old, keep} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-2 * StaleTempAge)
	if err := os.Chtimes(old, long, long); err != nil {
		t.Fatal(err)
	}
	got := RemoveStaleTemps(dir)
	slices.Sort(got)
	want := []string{dead, old}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("removed %v, want %v", got, want)
	}
	for _, d := range []string{mine, live, otherHost, keep} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s removed: %v", d, err)
		}
	}
}

func TestResumeBackend(t *testing.T) {
	if got := resumeBackend("xla:cpu"); got != "xla:cpu" {
		t.Errorf(`resumeBackend("xla:cpu") = %q, want it unchanged`, got)
	}
	native := resumeBackend("go")
	t.Setenv("GOMLX_GO_SIMD_AVX512", "false")
	t.Setenv("GOMLX_GO_SIMD_AVX2", "false")
	if got := resumeBackend("go"); got != "go kernels=generic" {
		t.Errorf(`resumeBackend("go") without SIMD kernels = %q, want "go kernels=generic"`, got)
	}
	if native != "go kernels=generic" && ResumeKey(RunSpec{Method: "m"}, native, "fp", "exe") == ResumeKey(RunSpec{Method: "m"}, resumeBackend("go"), "fp", "exe") {
		t.Errorf("the resume keys of %q and the portable kernels agree", native)
	}
}
