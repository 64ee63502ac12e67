package supervisor

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCrashed: status 2 counts as a crash only with the runtime's mark;
// SIGSEGV and SIGBUS always; any other status never.
func TestCrashed(t *testing.T) {
	for _, c := range []struct {
		code  int
		fatal bool
		want  bool
	}{
		{2, true, true}, {2, false, false}, {0, true, false}, {1, true, false},
		{130, true, false}, {139, false, true}, {135, false, true}, {137, false, false},
	} {
		if got := Crashed(c.code, c.fatal); got != c.want {
			t.Errorf("Crashed(%d, %v) = %v, want %v", c.code, c.fatal, got, c.want)
		}
	}
}

// TestFatalMark: the mark is found at the start of a line only, also when
// it is split across writes.
func TestFatalMark(t *testing.T) {
	for _, c := range []struct {
		name   string
		writes []string
		want   bool
	}{
		{"fault", []string{"unexpected fault address 0x2361\nfatal error: fault\n[signal SIGSEGV"}, true},
		{"split", []string{"goroutine 1\nfatal er", "ror: concurrent map writes\n"}, true},
		{"mid-line", []string{"run failed: fatal error: no\n"}, false},
		{"panic", []string{"panic: runtime error: index out of range\n"}, false},
		{"nothing", []string{"grid: 3 finished\n"}, false},
	} {
		m := &fatalMark{}
		for _, w := range c.writes {
			m.Write([]byte(w))
		}
		if m.seen() != c.want {
			t.Errorf("%s: seen = %v, want %v", c.name, m.seen(), c.want)
		}
	}
}

// script runs body under /bin/sh; $1 is a counter file that each process
// increments, so a script can crash on its first runs only.
func script(t *testing.T, body string) (Command, string) {
	t.Helper()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	counter := filepath.Join(t.TempDir(), "count")
	os.WriteFile(counter, []byte("0"), 0o644)
	pre := `n=$(($(cat "$1") + 1)); echo $n > "$1"; `
	return Command{Path: "/bin/sh", Args: []string{"-c", pre + body, "sh", counter}}, counter
}

// TestRun: a process that dies of a fatal error is run again until it
// succeeds or the restarts are used; any other failure ends Run at once.
func TestRun(t *testing.T) {
	for _, c := range []struct {
		name      string
		body      string
		restarts  int
		wantCode  int
		wantRuns  string
		wantInLog string
	}{
		{"crash-once", `if [ $n -lt 2 ]; then echo "fatal error: fault" >&2; exit 2; fi; echo done`, 3, 0, "2", "restarting it (1 of 3)"},
		{"crash-always", `echo "fatal error: fault" >&2; exit 2`, 2, 2, "3", "2 restart(s) used, giving up"},
		{"bad-flags", `echo "bench grid: --steps -1: want ≥ 0" >&2; exit 2`, 3, 2, "1", ""},
		{"failed-run", `echo "1 failed" >&2; exit 1`, 3, 1, "1", ""},
		{"segv", `if [ $n -lt 2 ]; then kill -SEGV $$; fi; exit 0`, 1, 0, "2", "restarting it (1 of 1)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd, counter := script(t, c.body)
			var out, errOut, log bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			code, err := Run(context.Background(), cmd, c.restarts, &log)
			if err != nil {
				t.Fatal(err)
			}
			runs, _ := os.ReadFile(counter)
			if code != c.wantCode || strings.TrimSpace(string(runs)) != c.wantRuns {
				t.Errorf("exit %d after %s run(s), want %d after %s", code, strings.TrimSpace(string(runs)), c.wantCode, c.wantRuns)
			}
			if c.wantInLog == "" && log.Len() > 0 || !strings.Contains(log.String(), c.wantInLog) {
				t.Errorf("log %q, want %q", log.String(), c.wantInLog)
			}
		})
	}
}

// TestRunPassesSignalsOnOnce: SIGINT or SIGTERM sent to the supervisor's
// process alone (`kill -INT PID`) reaches the child once (before, a SIGINT
// did not), and the child that ends after it is not restarted even when it
// ends as a crash would.
// The child counts the signals it receives and ends 0.5 s after the first
// (or after 5 s without one).
func TestRunPassesSignalsOnOnce(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			got, ready := filepath.Join(dir, "got"), filepath.Join(dir, "ready")
			body := `c=0; trap 'c=$((c+1)); echo $c > "$2"' INT TERM; echo > "$3"; ` +
				`i=0; while [ $c -eq 0 ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; sleep 0.5; echo "fatal error: fault" >&2; exit 2`
			cmd, counter := script(t, body)
			cmd.Args = append(cmd.Args, got, ready)
			var errOut, log bytes.Buffer
			cmd.Stdout, cmd.Stderr = &bytes.Buffer{}, &errOut
			go func() {
				for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
					if _, err := os.Stat(ready); err == nil {
						_ = syscall.Kill(os.Getpid(), sig)
						return
					}
				}
			}()
			code, err := Run(context.Background(), cmd, 3, &log)
			if err != nil {
				t.Fatal(err)
			}
			n, _ := os.ReadFile(got)
			runs, _ := os.ReadFile(counter)
			if strings.TrimSpace(string(n)) != "1" || strings.TrimSpace(string(runs)) != "1" || code != 2 {
				t.Errorf("child got %q signal(s) in %q run(s), exit %d; want 1 signal, 1 run, exit 2 (log %q)",
					strings.TrimSpace(string(n)), strings.TrimSpace(string(runs)), code, log.String())
			}
		})
	}
}
