package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ugbench/ugbench/datasets/datasetstest"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
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

// TestGridSignalledTwiceAtOnce: a SIGTERM delivered more than once within
// a moment — Slurm signals every process of a job step, and the
// supervisor of --restart-after-crash passes its own on — stops the grid
// gracefully: the child exits 130 with its run stored as interrupted,
// not killed by a repeat with the run left "running". (Before the repeat
// was ignored for a second, whether this failed depended on how long the
// child took to stop: 3 s into a run it did.)
func TestGridSignalledTwiceAtOnce(t *testing.T) {
	dir := datasetstest.DirFor(t, "Letter-high")
	db := filepath.Join(t.TempDir(), "runs.db")
	args := []string{"--methods", "gin-topk", "--datasets", "Letter-high", "--ratios", "low", "--seeds", "0",
		"--steps", "1000000", "--db", db, "--data-dir", dir, "--quiet", "--restart-after-crash", "1"}
	status := func() (runs.Status, error) {
		store, err := runs.Open(db)
		if err != nil {
			return "", err
		}
		defer store.Close()
		all, err := store.List(runs.Filter{})
		if err != nil || len(all) != 1 {
			return "", err
		}
		return all[0].Status, nil
	}
	// While the run trains: a signal, then the same again 10 times in ~50 ms
	// (well inside the grid's 1 s, also on a loaded machine).
	// burst is closed when the last signal is sent (or none will be: the
	// grid ended first), so that none reaches the next test.
	ended, burst := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(burst)
		for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			select {
			case <-ended:
				return
			default:
			}
			if s, _ := status(); s == runs.StatusRunning {
				time.Sleep(3 * time.Second)
				for range 11 {
					_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
					time.Sleep(5 * time.Millisecond)
				}
				return
			}
		}
	}()
	got := exitCode(runGrid(args, nil))
	close(ended)
	<-burst
	// The runtime hands a signal to its channels after kill returns: let
	// the last ones land here, not in the next test's NotifyContext.
	time.Sleep(200 * time.Millisecond)
	if got != 130 {
		t.Errorf("exit status %d, want 130 (stopped gracefully)", got)
	}
	if s, err := status(); s != runs.StatusInterrupted {
		t.Errorf("run stored as %q (%v), want %q", s, err, runs.StatusInterrupted)
	}
}

// TestGridOutcome: a signal makes the grid exit 130 (errInterrupted) only
// while runs are left to do; one that came after the last run ended does
// not, and a failed run still fails the grid.
func TestGridOutcome(t *testing.T) {
	for _, c := range []struct {
		name string
		sum  suite.Summary
		err  error
		want string // what the error says; "" for none
	}{
		{"all finished", suite.Summary{Finished: 3, Skipped: 1}, nil, ""},
		{"signal, a run interrupted", suite.Summary{Finished: 2, Interrupted: 1, Skipped: 1}, context.Canceled, errInterrupted.Error()},
		{"signal, a run not started", suite.Summary{Finished: 2, Skipped: 1}, context.Canceled, errInterrupted.Error()},
		{"signal, a run in another process", suite.Summary{Finished: 2, Skipped: 1, Elsewhere: 1}, context.Canceled, errInterrupted.Error()},
		{"signal after the last run ended", suite.Summary{Finished: 3, Skipped: 1}, context.Canceled, ""},
		{"signal after the last run failed", suite.Summary{Finished: 2, Failed: 1, Skipped: 1}, context.Canceled, "1 run(s) failed"},
		{"a run failed", suite.Summary{Finished: 3, Failed: 1}, nil, "1 run(s) failed"},
		{"store error", suite.Summary{Finished: 1}, errors.New("disk full"), "disk full"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := gridOutcome(c.sum, 4, c.err, "x.db")
			if (got == nil) != (c.want == "") || got != nil && !strings.Contains(got.Error(), c.want) {
				t.Errorf("got %v, want an error saying %q", got, c.want)
			}
		})
	}
}
