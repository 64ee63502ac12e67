package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/ugbench/ugbench/suite"
)

// progress shows a grid's progress: a bar with ETA on a terminal (one unit
// per 1% of a run, advanced per epoch), else one line per ended run.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	useBar  bool
	bar     *progressbar.ProgressBar
	done    map[string]int // run → units already added
	running map[string]string
	ended   int
	total   int
}

const unitsPerRun = 100

func newProgress(w io.Writer, quiet bool) *progress {
	p := &progress{w: w, done: map[string]int{}, running: map[string]string{}}
	if f, ok := w.(*os.File); ok && !quiet && term.IsTerminal(int(f.Fd())) {
		p.useBar = true
	}
	return p
}

// Warn prints a run's warning (suite.Runner.Warn) above the bar.
func (p *progress) Warn(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.println("warning: " + msg)
}

// Close ends the bar's line so that what follows starts on a new one.
func (p *progress) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
		fmt.Fprintln(p.w)
	}
}

func (p *progress) GridStart(toRun, skipped int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total = toRun
	fmt.Fprintf(p.w, "grid: %d runs to do, %d already finished\n", toRun, skipped)
	if p.useBar && toRun > 0 {
		p.bar = progressbar.NewOptions(toRun*unitsPerRun,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionFullWidth(),
			progressbar.OptionSetRenderBlankState(true),
		)
	}
}

func (p *progress) RunStart(spec suite.RunSpec, slot string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.running[spec.Hash()] = spec.String()
	p.describe()
}

func (p *progress) RunEpoch(spec suite.RunSpec, epoch, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := spec.Hash()
	p.running[h] = fmt.Sprintf("%s %d/%d", spec, epoch, total)
	if p.bar != nil && total > 0 {
		want := epoch * (unitsPerRun - 1) / total // the last unit comes with RunEnd
		if want > p.done[h] {
			_ = p.bar.Add(want - p.done[h])
			p.done[h] = want
		}
	}
	p.describe()
}

func (p *progress) RunEnd(spec suite.RunSpec, res suite.Result, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := spec.Hash()
	delete(p.running, h)
	p.ended++
	status := fmt.Sprintf("accuracy %.3f", res.Metrics[suite.MetricAccuracy])
	switch {
	case errors.Is(err, context.Canceled):
		status = "interrupted"
	case errors.Is(err, suite.ErrRunningElsewhere):
		status = "skipped: another process is running it"
	case errors.Is(err, suite.ErrAlreadyFinished):
		status = "skipped: another process finished it"
	case err != nil:
		status = "FAILED: " + firstLine(err.Error())
	}
	if p.bar != nil {
		_ = p.bar.Add(unitsPerRun - p.done[h])
		delete(p.done, h)
	}
	p.println(fmt.Sprintf("[%d/%d] %s  %.1fs  %s", p.ended, p.total, spec, res.Seconds, status))
}

// WaitingElsewhere implements suite.ElsewhereObserver.
func (p *progress) WaitingElsewhere(n int, recheck time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.println(fmt.Sprintf("grid: waiting for %d run(s) that other processes are computing (their end is noticed within %s; after %s, those whose process died are run here)", n, suite.DefaultFinishedPoll, recheck))
}

// println prints line above the bar (or alone without one); p.mu is held.
func (p *progress) println(line string) {
	if p.bar != nil {
		_ = p.bar.Clear()
		fmt.Fprintln(p.w, line)
		p.describe()
		return
	}
	fmt.Fprintln(p.w, line)
}

func (p *progress) describe() {
	if p.bar == nil {
		return
	}
	names := make([]string, 0, len(p.running))
	for _, d := range p.running {
		names = append(names, d)
	}
	sort.Strings(names)
	p.bar.Describe(strings.Join(names, " | "))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

var _ suite.ElsewhereObserver = (*progress)(nil)
