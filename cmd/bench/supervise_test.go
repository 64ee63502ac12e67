package main

import (
	"path/filepath"
	"testing"

	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/runs"
)

// TestGridRestartAfterCrash: with --restart-after-crash the grid runs in a
// child process; a child that dies of a runtime fatal error before its
// first run is started again, and the second child runs the grid to the
// end, every run stored. A child that always crashes uses the restarts
// up, and its status (2) is the grid's, with nothing stored.
func TestGridRestartAfterCrash(t *testing.T) {
	dir := datasetstest.DirFor(t, "Letter-high")
	for _, c := range []struct {
		crash    string
		wantCode int
		wantRuns int
	}{{"once", 0, 2}, {"always", 2, 0}} {
		tmp := t.TempDir()
		db := filepath.Join(tmp, "runs.db")
		if c.crash == "once" {
			t.Setenv(crashOnceEnv, filepath.Join(tmp, "crashed"))
		} else {
			t.Setenv(crashOnceEnv, "always")
		}
		args := []string{"--methods", "wl", "--datasets", "Letter-high", "--seeds", "0", "--db", db, "--data-dir", dir, "--quiet", "--restart-after-crash", "1"}
		if got := exitCode(runGrid(args, nil)); got != c.wantCode {
			t.Fatalf("crash %s: exit status %d, want %d", c.crash, got, c.wantCode)
		}
		store, err := runs.Open(db)
		if err != nil {
			t.Fatal(err)
		}
		all, err := store.List(runs.Filter{})
		store.Close()
		if err != nil || len(all) != c.wantRuns {
			t.Errorf("crash %s: %d runs stored (%v), want %d", c.crash, len(all), err, c.wantRuns)
		}
	}
}
