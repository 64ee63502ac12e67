package suite

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// ErrAlreadyFinished is returned (wrapped) by Recorder.Start for a spec
// whose run is already finished, e.g. by another grid process on the same
// database since this grid listed what to do. The scheduler skips it.
var ErrAlreadyFinished = errors.New("run already finished")

// ErrRunningElsewhere is returned (wrapped) by Recorder.Start for a spec
// that another live process is running right now. The scheduler skips it,
// so several grid processes can share one database and split the work.
var ErrRunningElsewhere = errors.New("run is running in another process")

// Recorder is where the scheduler records runs; runs.Store implements it
// through runs.Recorder. Every call must be safe for concurrent use.
type Recorder interface {
	// Finished reports which config hashes already have a finished run.
	Finished(hashes []string) (map[string]bool, error)
	// Start records spec as running on device and returns its run id; its
	// error wraps ErrAlreadyFinished or ErrRunningElsewhere when another
	// process finished or is running the spec (the scheduler skips it).
	Start(spec RunSpec, device string) (int64, error)
	// Finish stores a finished run's metrics and curves atomically.
	Finish(id int64, res Result) error
	// Fail marks a run failed (or interrupted) with its message and any
	// curves logged before the failure.
	Fail(id int64, interrupted bool, msg string, res Result) error
}

// ProgressRecorder is a Recorder that also keeps each running run's
// progress (the last epoch it logged, of total), e.g. so that another
// terminal can see how far an overnight grid's runs are. The scheduler
// reports every epoch to it.
type ProgressRecorder interface {
	Recorder
	Progress(id int64, epoch, total int)
}

// Observer is told what the scheduler does (progress bars, logs). Calls
// come from several goroutines.
type Observer interface {
	GridStart(toRun, skipped int)
	RunStart(spec RunSpec, device string)
	RunEpoch(spec RunSpec, epoch, total int)
	// RunEnd reports a run's end; err is nil for a finished run. A spec
	// that another process finished or is running ends without a RunStart,
	// with an err wrapping ErrAlreadyFinished or ErrRunningElsewhere.
	RunEnd(spec RunSpec, res Result, err error)
}

// Slot is one place a run can execute: a device and a slot index on it.
type Slot struct {
	Device string // e.g. "cpu", "cuda:1"
	Index  int
}

// String names the slot for progress lines, e.g. "cpu#1" or "cuda:0#0".
func (s Slot) String() string { return fmt.Sprintf("%s#%d", s.Device, s.Index) }

// ParseDevices parses --devices: "cpu:N" is N concurrent CPU slots,
// "cpu:auto" is AutoCPUSlots(runtime.NumCPU(), TotalMemory()) of them; "cuda:I"
// (comma-separated, e.g. "cuda:0,cuda:1") is device I with perDevice
// slots each. "cpu" alone is cpu:1.
func ParseDevices(s string, perDevice int) ([]Slot, error) {
	if perDevice < 1 {
		return nil, inputErrorf("per-device", strconv.Itoa(perDevice), "must be ≥ 1")
	}
	var slots []Slot
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		kind, num, hasNum := strings.Cut(part, ":")
		n := 1
		if kind == "cpu" && num == "auto" {
			n = AutoCPUSlots(runtime.NumCPU(), TotalMemory())
		} else if hasNum {
			v, err := strconv.Atoi(num)
			if err != nil || v < 0 {
				return nil, inputErrorf("devices", strconv.Quote(s), "%q is not kind:number", part)
			}
			n = v
		}
		switch kind {
		case "cpu":
			if n < 1 {
				return nil, inputErrorf("devices", strconv.Quote(s), "cpu needs ≥ 1 slot")
			}
			for i := 0; i < n; i++ {
				slots = append(slots, Slot{Device: "cpu", Index: i})
			}
		case "cuda", "gpu":
			if !hasNum {
				return nil, inputErrorf("devices", strconv.Quote(s), "%s needs a device number, e.g. cuda:0", kind)
			}
			for i := 0; i < perDevice; i++ {
				slots = append(slots, Slot{Device: fmt.Sprintf("cuda:%d", n), Index: i})
			}
		default:
			return nil, inputErrorf("devices", strconv.Quote(s), "unknown device kind %q (want cpu:N or cuda:I)", kind)
		}
	}
	return slots, nil
}

// DefaultDevices is --devices' default: "cpu:auto" (AutoCPUSlots).
const DefaultDevices = "cpu:auto"

// AutoCPUSlots is the number of concurrent CPU runs of "cpu:auto" on a
// machine with cpus logical CPUs and memBytes bytes of RAM (0: unknown):
// one slot per CPU, but no more than one per SlotMemory of RAM, and at
// least one. Measured (docs/speed.md, "Scaling on 16 cores"): one run
// cannot use a wide machine — a gin-topk epoch on COIL-DEL stops getting
// faster at 4–8 cores (GOMAXPROCS 8: 0.43 s, 16: 0.45 s) and a small
// Letter-high run keeps ~2.7 of 16 cores busy — while concurrent runs
// scale: 16 gin-topk runs on Letter-high took 77.6 s with cpu:1, 38.4 s
// with cpu:4, 20.3 s with cpu:8 and 13.2 s with cpu:16 on 16 cores; on 2
// cores two slots finished 1.4–1.7× sooner than one. The memory cap keeps
// a wide machine with little RAM from swapping: each slot holds its own
// compiled graphs and batches. A run's results do not depend on the
// number of slots (the same metrics bit for bit with cpu:1 and cpu:16).
func AutoCPUSlots(cpus int, memBytes uint64) int {
	n := cpus
	if memBytes > 0 {
		n = min(n, int(memBytes/SlotMemory))
	}
	return max(1, n)
}

// SlotMemory is the RAM AutoCPUSlots allows each concurrent CPU run:
// 4 GiB. The heaviest runs measured, UGNN's ablations on MNIST, peaked at
// 5,507–5,726 MiB for a process holding two runs and MNIST's superpixel
// graphs (docs/notes/2026-11-measurements.md), under 3 GiB a slot.
const SlotMemory = 4 << 30

// Scheduler runs specs onto device slots, one goroutine per slot.
type Scheduler struct {
	Runner   *Runner
	Store    Recorder
	Slots    []Slot
	Observer Observer
	// ElsewhereWait is how long the scheduler waits before it offers again
	// the specs another process was running (0: DefaultElsewhereWait),
	// to take over those whose process died.
	ElsewhereWait time.Duration
	// FinishedPoll is how often, while it waits, the scheduler asks the
	// store whether another process finished one of those specs, and then
	// ends the wait at once (0: DefaultFinishedPoll).
	FinishedPoll time.Duration
}

// DefaultFinishedPoll is Scheduler.FinishedPoll's default: one cheap
// indexed query a second, so that a grid shared by several processes ends
// within about a second of its last run (with only ElsewhereWait it ended
// up to 30 s late).
const DefaultFinishedPoll = time.Second

// DefaultElsewhereWait is Scheduler.ElsewhereWait's default: the run
// store's heartbeat interval.
const DefaultElsewhereWait = 30 * time.Second

// ElsewhereObserver is an Observer that is also told when the scheduler,
// its own work done, waits for n runs that other processes are computing
// and will offer them again every recheck.
type ElsewhereObserver interface {
	Observer
	WaitingElsewhere(n int, recheck time.Duration)
}

// Summary counts what a grid did. Skipped counts specs already finished
// (before the grid or, by another process, during it); Elsewhere counts
// specs that another process was still running when the grid stopped
// (Ctrl-C) or failed.
type Summary struct {
	Skipped, Finished, Failed, Interrupted, Elsewhere int
}

// Run executes every spec whose hash has no finished run yet. A failing
// run (error, panic, NaN loss) is recorded as failed and the grid goes on.
// A spec another process is running (several grids may share a store) is
// put aside; when the rest is done, Run waits ElsewhereWait and offers the
// put-aside specs again until each is finished (by the other process, or
// here if that process abandoned it), so a grid that returns nil has every
// spec finished or failed. When ctx is cancelled (Ctrl-C), no new run
// starts, running runs are recorded as interrupted, and Run returns ctx's
// error; finished runs are already stored. A store error stops the grid
// and is returned.
func (s *Scheduler) Run(ctx context.Context, specs []RunSpec) (Summary, error) {
	var sum Summary
	hashes := make([]string, len(specs))
	for i, sp := range specs {
		hashes[i] = sp.Hash()
	}
	done, err := s.Store.Finished(hashes)
	if err != nil {
		return sum, err
	}
	var todo []RunSpec
	seen := map[string]bool{}
	for i, sp := range specs {
		if done[hashes[i]] || seen[hashes[i]] {
			sum.Skipped++
			continue
		}
		seen[hashes[i]] = true
		todo = append(todo, sp)
	}
	if s.Observer != nil {
		s.Observer.GridStart(len(todo), sum.Skipped)
	}
	if len(s.Slots) == 0 && len(todo) > 0 {
		return sum, fmt.Errorf("scheduler: no device slots")
	}
	wait := s.ElsewhereWait
	if wait <= 0 {
		wait = DefaultElsewhereWait
	}
	for {
		elsewhere, err := s.pass(ctx, todo, &sum)
		if len(elsewhere) == 0 {
			return sum, err
		}
		if err == nil && ctx.Err() == nil {
			if o, ok := s.Observer.(ElsewhereObserver); ok {
				o.WaitingElsewhere(len(elsewhere), wait)
			}
			if err = s.waitElsewhere(ctx, elsewhere, wait); err == nil && ctx.Err() == nil {
				todo = elsewhere
				continue
			}
		}
		// Stopped with specs still running elsewhere: report them.
		for _, sp := range elsewhere {
			sum.Elsewhere++
			if s.Observer != nil {
				s.Observer.RunEnd(sp, Result{}, fmt.Errorf("%s: %w", sp, ErrRunningElsewhere))
			}
		}
		if err == nil {
			err = ctx.Err()
		}
		return sum, err
	}
}

// waitElsewhere waits until another process finished one of specs, wait
// has passed, or ctx is done, asking the store every FinishedPoll. It
// returns a store error.
func (s *Scheduler) waitElsewhere(ctx context.Context, specs []RunSpec, wait time.Duration) error {
	poll := s.FinishedPoll
	if poll <= 0 {
		poll = DefaultFinishedPoll
	}
	hashes := make([]string, len(specs))
	for i, sp := range specs {
		hashes[i] = sp.Hash()
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		select {
		case <-deadline.C:
			return nil
		case <-ctx.Done():
			return nil
		case <-tick.C:
			done, err := s.Store.Finished(hashes)
			if err != nil {
				return err
			}
			if len(done) > 0 {
				for _, h := range hashes {
					if done[h] {
						return nil
					}
				}
			}
		}
	}
}

// pass runs todo on the slots once, adding to sum; it returns the specs
// that another process was running (not started here) and any store error
// or ctx's error.
func (s *Scheduler) pass(ctx context.Context, todo []RunSpec, sum *Summary) ([]RunSpec, error) {
	queue := make(chan RunSpec)
	results := make(chan error, len(todo))
	g, gctx := errgroup.WithContext(context.Background())
	// stopped: Ctrl-C, or a store error in a slot (flagged at once, before
	// the errgroup cancels gctx, so no other slot starts a run meanwhile).
	var storeFailed atomic.Bool
	stopped := func() bool { return ctx.Err() != nil || gctx.Err() != nil || storeFailed.Load() }
	var mu sync.Mutex // guards elsewhere and doneElsewhere
	var elsewhere []RunSpec
	doneElsewhere := 0
	// finishedElsewhere records a spec another process finished first.
	finishedElsewhere := func(sp RunSpec, res Result, err error) {
		mu.Lock()
		doneElsewhere++
		mu.Unlock()
		if s.Observer != nil {
			s.Observer.RunEnd(sp, res, err)
		}
	}
	// start records a run as started unless the grid has stopped or
	// another process has the spec. Starts are serialised (they are SQLite
	// writes anyway), so none can slip in after a failed one.
	var startMu sync.Mutex
	start := func(sp RunSpec, device string) (id int64, ok bool, err error) {
		startMu.Lock()
		defer startMu.Unlock()
		if stopped() {
			return 0, false, nil
		}
		id, err = s.Store.Start(sp, device)
		switch {
		case errors.Is(err, ErrRunningElsewhere):
			mu.Lock()
			elsewhere = append(elsewhere, sp)
			mu.Unlock()
			return 0, false, nil
		case errors.Is(err, ErrAlreadyFinished):
			finishedElsewhere(sp, Result{}, err)
			return 0, false, nil
		case err != nil:
			storeFailed.Store(true)
			return 0, false, fmt.Errorf("store: start %s: %w", sp, err)
		}
		return id, true, nil
	}
	g.Go(func() error {
		defer close(queue)
		for _, sp := range todo {
			if stopped() {
				return nil
			}
			select {
			case queue <- sp:
			case <-ctx.Done():
				return nil
			case <-gctx.Done():
				return nil
			}
		}
		return nil
	})
	for _, slot := range s.Slots {
		g.Go(func() error {
			for sp := range queue {
				id, ok, err := start(sp, slot.Device)
				if err != nil {
					return err
				}
				if !ok { // not started (stopped, or another process has it): next
					continue
				}
				res, runErr, storeErr := s.runOne(ctx, id, sp, slot)
				if errors.Is(storeErr, ErrAlreadyFinished) {
					// Another process took the run over and finished it
					// first; its result stands.
					finishedElsewhere(sp, res, storeErr)
					continue
				}
				if storeErr != nil {
					storeFailed.Store(true)
					return storeErr
				}
				if s.Observer != nil {
					s.Observer.RunEnd(sp, res, runErr)
				}
				results <- runErr
			}
			return nil
		})
	}
	storeErr := g.Wait()
	close(results)
	for err := range results {
		switch {
		case err == nil:
			sum.Finished++
		case isInterrupt(ctx, err):
			sum.Interrupted++
		default:
			sum.Failed++
		}
	}
	sum.Skipped += doneElsewhere
	if storeErr != nil {
		return elsewhere, storeErr
	}
	return elsewhere, ctx.Err()
}

func isInterrupt(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ctx.Err()))
}

// runOne executes one started spec (run id) and records its end; it
// returns the run's result and own error (recorded) and any store error
// (fatal for the grid, except one wrapping ErrAlreadyFinished: another
// process finished the spec first).
func (s *Scheduler) runOne(ctx context.Context, id int64, sp RunSpec, slot Slot) (res Result, runErr, storeErr error) {
	if s.Observer != nil {
		s.Observer.RunStart(sp, slot.String())
	}
	progress, _ := s.Store.(ProgressRecorder)
	var onEpoch func(int, int)
	if s.Observer != nil || progress != nil {
		onEpoch = func(ep, total int) {
			if progress != nil {
				progress.Progress(id, ep, total)
			}
			if s.Observer != nil {
				s.Observer.RunEpoch(sp, ep, total)
			}
		}
	}
	// The run is stored before its resume state is deleted (Runner.run).
	res, runErr = s.Runner.run(ctx, sp, slot.Device, onEpoch, func(res Result) error {
		if err := s.Store.Finish(id, res); err != nil {
			storeErr = fmt.Errorf("store: finish %s: %w", sp, err)
		}
		return storeErr
	})
	if storeErr != nil {
		return res, nil, storeErr
	}
	if runErr == nil {
		return res, nil, nil
	}
	interrupted := isInterrupt(ctx, runErr)
	if ctx.Err() != nil && !interrupted {
		// Cancellation surfaced as another error (e.g. from the backend).
		interrupted = true
		runErr = fmt.Errorf("%w (%v)", ctx.Err(), runErr)
	}
	if err := s.Store.Fail(id, interrupted, runErr.Error(), res); err != nil {
		return res, runErr, fmt.Errorf("store: fail %s: %w", sp, err)
	}
	return res, runErr, nil
}
