// Package supervisor reruns a command whose process died of a Go runtime
// fatal error, so that one crash does not end an unattended grid.
//
// A Go program cannot recover from a runtime fatal error (a fault inside a
// SIMD kernel, a concurrent map write, running out of memory): the process
// prints "fatal error: …" and a goroutine dump to standard error and exits
// with status 2. `bench grid` resumes by config hash, so running the same
// command again loses nothing but the runs in flight (README, "If a grid
// dies"). Run does that rerun, a bounded number of times, and nothing else:
// a process that ends any other way (success, a failed run, bad flags, an
// interrupt) ends Run.
package supervisor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
)

// Command is the process Run supervises.
type Command struct {
	// Path and Args are the program and its arguments (Args without the
	// program name).
	Path string
	Args []string
	// Env is the child's environment (nil: the parent's).
	Env []string
	// Stdout and Stderr receive the child's output as it comes; Stderr is
	// also scanned for the marks of a fatal error (Crashed).
	Stdout, Stderr io.Writer
}

// Run runs c and, each time its process dies of a runtime fatal error
// (Crashed), runs it again, at most maxRestarts times, saying so on log.
// It returns the exit status of the last process (0 on success). Each
// SIGINT or SIGTERM the supervisor receives is passed on to the child and
// ends the supervision (a child that ends after it is not restarted), so
// that `kill -INT PID` of the supervisor reaches the child. The child stays
// in the supervisor's process group, so that what signals or kills the
// group (a terminal's Ctrl-C, Slurm, `kill -- -PGID`) reaches it too: it
// then gets the signal twice within a moment, which `bench grid` takes as
// one (it stops gracefully, and only a repeat a second later kills it).
// Once a signal has come, Run leaves SIGINT and SIGTERM caught when it
// returns, so that repeats of it do not kill the caller before it exits
// with the child's status.
// The error is non-nil only when a process could not be started.
func Run(ctx context.Context, c Command, maxRestarts int, log io.Writer) (int, error) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	stopped := false
	defer func() {
		if !stopped { // after a signal its repeats stay caught (and dropped) until the caller exits
			signal.Stop(sigs)
		}
	}()
	for attempt := 0; ; attempt++ {
		mark := &fatalMark{}
		cmd := exec.CommandContext(ctx, c.Path, c.Args...)
		cmd.Env = c.Env
		cmd.Stdout = c.Stdout
		cmd.Stderr = io.MultiWriter(c.Stderr, mark)
		if err := cmd.Start(); err != nil {
			return 1, fmt.Errorf("supervisor: start %s: %w", c.Path, err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
	wait:
		for {
			select {
			case err = <-done:
				break wait
			case s := <-sigs:
				stopped = true
				_ = cmd.Process.Signal(s)
			}
		}
		// A signal that came as the child ended (select picks at random
		// when both are ready) still ends the supervision: no restart.
		select {
		case <-sigs:
			stopped = true
		default:
		}
		code := 0
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			code = ee.ExitCode()
			if code < 0 { // killed by a signal
				code = 128 + int(ee.Sys().(syscall.WaitStatus).Signal())
			}
		case err != nil:
			return 1, fmt.Errorf("supervisor: %s: %w", c.Path, err)
		}
		if stopped || ctx.Err() != nil || !Crashed(code, mark.seen()) {
			return code, nil
		}
		if attempt >= maxRestarts {
			fmt.Fprintf(log, "supervisor: the process died of a runtime fatal error (exit status %d); %d restart(s) used, giving up\n", code, maxRestarts)
			return code, nil
		}
		fmt.Fprintf(log, "supervisor: the process died of a runtime fatal error (exit status %d); restarting it (%d of %d)\n", code, attempt+1, maxRestarts)
	}
}

// Crashed reports whether a process that exited with status code, having
// written a line starting with one of fatalMarks to standard error
// (sawFatal), died of a Go runtime fatal error: status 2 with the mark,
// or killed by SIGSEGV or SIGBUS (128 + signal number) whatever it wrote.
func Crashed(code int, sawFatal bool) bool {
	switch code {
	case 2:
		return sawFatal
	case 128 + int(syscall.SIGSEGV), 128 + int(syscall.SIGBUS):
		return true
	}
	return false
}

// fatalMarks start the lines by which the Go runtime announces a fatal
// error (runtime.throw and runtime.fatal: "fatal error: …"; a fault it
// cannot attribute to a nil dereference: "unexpected fault address …").
// An unrecovered panic ("panic: …", also status 2) is a bug of the
// program, which a rerun would repeat, so it is not among them.
var fatalMarks = [][]byte{[]byte("fatal error: "), []byte("unexpected fault address ")}

// fatalMark is an io.Writer that records whether a line of what it is
// given starts with one of fatalMarks, across writes.
type fatalMark struct {
	mu   sync.Mutex
	line []byte // the start of the current line, up to the longest mark
	hit  bool
}

func (m *fatalMark) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, b := range p {
		if b == '\n' {
			m.line = m.line[:0]
			continue
		}
		if len(m.line) < 32 {
			m.line = append(m.line, b)
			for _, f := range fatalMarks {
				if bytes.Equal(m.line, f) {
					m.hit = true
				}
			}
		}
	}
	return len(p), nil
}

func (m *fatalMark) seen() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.hit
}
