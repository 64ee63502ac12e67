package ugnn

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ugbench/ugbench/suite"
)

// TestWarmupCacheDamaged: a warm-up cache entry whose checkpoint was
// damaged after it was written (a flipped byte, truncated, deleted; also
// in an older binary's entry without a checksum) is never loaded and
// never fails the run: the run warns naming the entry, trains the warm-up
// again, stores the uncached run's result and rewrites the entry, which
// the next run loads. An entry that cannot be written warns and the run
// goes on.
func TestWarmupCacheDamaged(t *testing.T) {
	dir, _, _ := letterHigh(t)
	runs, err := tinyRuns(t)
	if err != nil {
		t.Fatal(err)
	}
	plain := runs["ugnn-wo-p"]
	var mu sync.Mutex
	var warns []string
	r := &suite.Runner{DataDir: dir, Backend: "go", CacheDir: t.TempDir(), Warn: func(msg string) {
		mu.Lock()
		warns = append(warns, msg)
		mu.Unlock()
	}}
	runSpec(t, r, "ugnn-wo-p", 0, tinyParams()) // writes the entry
	entries, _ := filepath.Glob(filepath.Join(r.CacheDir, "ugnn-warmup", "[0-9a-f]*[0-9a-f]"))
	if len(entries) != 1 {
		t.Fatalf("cache holds %v, want one entry", entries)
	}
	entry := entries[0]
	if _, err := os.Stat(filepath.Join(entry, suite.ChecksumFile)); err != nil {
		t.Fatalf("entry without checksum: %v", err)
	}
	flip := func(path string) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		b[len(b)/2] ^= 0x01
		return os.WriteFile(path, b, 0o644)
	}
	for _, c := range []struct {
		name   string
		legacy bool // remove the checksum first, as an older binary's entry
		damage func(string) error
	}{
		{"flip a byte", false, flip},
		{"truncate", false, func(p string) error { return os.Truncate(p, 100) }},
		{"delete", false, os.Remove},
		{"truncate, no checksum", true, func(p string) error { return os.Truncate(p, 1000) }},
		{"delete, no checksum", true, os.Remove},
	} {
		warns = nil
		if c.legacy {
			if err := os.Remove(filepath.Join(entry, suite.ChecksumFile)); err != nil {
				t.Fatal(err)
			}
		}
		bins, _ := filepath.Glob(filepath.Join(entry, "*.bin")) // its name changes with each write
		if len(bins) != 1 {
			t.Fatalf("entry files %v, want one checkpoint .bin", bins)
		}
		if err := c.damage(bins[0]); err != nil {
			t.Fatal(err)
		}
		res := runSpec(t, r, "ugnn-wo-p", 0, tinyParams())
		if cached := curve(res, suite.CachedEpochCurve); len(cached) != 0 {
			t.Errorf("%s: the damaged entry was loaded (warmup_cached %v)", c.name, cached)
		}
		if len(warns) != 1 || !strings.Contains(warns[0], entry) || !strings.Contains(warns[0], "damaged") {
			t.Errorf("%s: warnings %q, want one naming %s as damaged", c.name, warns, entry)
		}
		for _, name := range []string{"loss", "loss_u", "ood_set_size"} {
			if a, b := points(plain, name), points(res, name); !reflect.DeepEqual(a, b) {
				t.Errorf("%s: %s %v, uncached run %v", c.name, name, b, a)
			}
		}
		if res.Metrics[suite.MetricAccuracy] != plain.Metrics[suite.MetricAccuracy] {
			t.Errorf("%s: accuracy %v, uncached run %v", c.name, res.Metrics[suite.MetricAccuracy], plain.Metrics[suite.MetricAccuracy])
		}
		if err := suite.VerifyChecksum(entry); err != nil {
			t.Fatalf("%s: rebuilt entry: %v", c.name, err)
		}
	}
	warns = nil
	res := runSpec(t, r, "ugnn-wo-p", 0, tinyParams())
	if cached := curve(res, suite.CachedEpochCurve); len(cached) == 0 || len(warns) != 0 {
		t.Errorf("the rebuilt entry was not loaded (warmup_cached %v, warnings %q)", cached, warns)
	}

	// An entry that cannot be written (here a file in its place, so the
	// rename fails as on a full disk) warns and the run goes on.
	if err := os.RemoveAll(entry); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(entry, []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	warns = nil
	res = runSpec(t, r, "ugnn-wo-p", 0, tinyParams())
	if len(warns) != 1 || !strings.Contains(warns[0], "not saved") || !strings.Contains(warns[0], entry) {
		t.Errorf("unwritable entry: warnings %q, want one saying %s was not saved", warns, entry)
	}
	if a, b := points(plain, "loss"), points(res, "loss"); !reflect.DeepEqual(a, b) {
		t.Errorf("unwritable entry: loss %v, uncached run %v", b, a)
	}
}
