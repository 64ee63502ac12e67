package supervisor

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
