package suite

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

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

// ParseDevices parses --devices: "cpu:N" is N concurrent CPU slots; "cuda:I"
// (comma-separated, e.g. "cuda:0,cuda:1") is device I with perDevice
// slots each. "cpu" alone is cpu:1.
func ParseDevices(s string, perDevice int) ([]Slot, error) {
	if perDevice < 1 {
		return nil, fmt.Errorf("--per-device %d: must be ≥ 1", perDevice)
	}
	var slots []Slot
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		kind, num, hasNum := strings.Cut(part, ":")
		n := 1
		if hasNum {
			v, err := strconv.Atoi(num)
			if err != nil || v < 0 {
				return nil, fmt.Errorf("--devices %q: %q is not kind:number", s, part)
			}
			n = v
		}
		switch kind {
		case "cpu":
			if n < 1 {
				return nil, fmt.Errorf("--devices %q: cpu needs ≥ 1 slot", s)
			}
			for i := 0; i < n; i++ {
				slots = append(slots, Slot{Device: "cpu", Index: i})
			}
		case "cuda", "gpu":
			if !hasNum {
				return nil, fmt.Errorf("--devices %q: %s needs a device number, e.g. cuda:0", s, kind)
			}
			for i := 0; i < perDevice; i++ {
				slots = append(slots, Slot{Device: fmt.Sprintf("cuda:%d", n), Index: i})
			}
		default:
			return nil, fmt.Errorf("--devices %q: unknown device kind %q (want cpu:N or cuda:I)", s, kind)
		}
	}
	return slots, nil
}

// Scheduler runs specs onto device slots, one goroutine per slot.
type Scheduler struct {
	Runner   *Runner
	Store    Recorder
	Slots    []Slot
	Observer Observer
}

// Summary counts what a grid did. Skipped counts specs already finished
// (before the grid or, by another process, during it); Elsewhere counts
// specs skipped because another process was running them.
type Summary struct {
	Skipped, Finished, Failed, Interrupted, Elsewhere int
}

// Run executes every spec whose hash has no finished run yet. A failing
// run (error, panic, NaN loss) is recorded as failed and the grid goes on.
// When ctx is cancelled (Ctrl-C), no new run starts, running runs are
// recorded as interrupted, and Run returns ctx's error; finished runs are
// already stored. A store error stops the grid and is returned.
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
	queue := make(chan RunSpec)
	results := make(chan error, len(todo))
	g, gctx := errgroup.WithContext(context.Background())
	// stopped: Ctrl-C, or a store error in a slot (flagged at once, before
	// the errgroup cancels gctx, so no other slot starts a run meanwhile).
	var storeFailed atomic.Bool
	stopped := func() bool { return ctx.Err() != nil || gctx.Err() != nil || storeFailed.Load() }
	// start records a run as started unless the grid has stopped. Starts
	// are serialised (they are SQLite writes anyway), so none can slip in
	// after a failed one.
	var startMu sync.Mutex
	var doneElsewhere, runningElsewhere atomic.Int64
	start := func(sp RunSpec, device string) (id int64, ok bool, err error) {
		startMu.Lock()
		defer startMu.Unlock()
		if stopped() {
			return 0, false, nil
		}
		id, err = s.Store.Start(sp, device)
		if elsewhere := errors.Is(err, ErrRunningElsewhere); elsewhere || errors.Is(err, ErrAlreadyFinished) {
			if elsewhere {
				runningElsewhere.Add(1)
			} else {
				doneElsewhere.Add(1)
			}
			if s.Observer != nil {
				s.Observer.RunEnd(sp, Result{}, err)
			}
			return 0, false, nil
		}
		if err != nil {
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
				if !ok { // stopped, or skipped: drain what the feeder handed out
					continue
				}
				runErr, storeErr := s.runOne(ctx, id, sp, slot)
				if storeErr != nil {
					storeFailed.Store(true)
					return storeErr
				}
				results <- runErr
			}
			return nil
		})
	}
	storeErr := g.Wait()
	close(results)
	sum.Skipped += int(doneElsewhere.Load())
	sum.Elsewhere = int(runningElsewhere.Load())
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
	if storeErr != nil {
		return sum, storeErr
	}
	return sum, ctx.Err()
}

func isInterrupt(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ctx.Err()))
}

// runOne executes one started spec (run id); it returns the run's own
// error (recorded) and any store error (fatal for the grid).
func (s *Scheduler) runOne(ctx context.Context, id int64, sp RunSpec, slot Slot) (runErr, storeErr error) {
	if s.Observer != nil {
		s.Observer.RunStart(sp, slot.String())
	}
	var onEpoch func(int, int)
	if s.Observer != nil {
		onEpoch = func(ep, total int) { s.Observer.RunEpoch(sp, ep, total) }
	}
	res, runErr := s.Runner.Run(ctx, sp, slot.Device, onEpoch)
	if runErr == nil {
		if err := s.Store.Finish(id, res); err != nil {
			return nil, fmt.Errorf("store: finish %s: %w", sp, err)
		}
	} else {
		interrupted := isInterrupt(ctx, runErr)
		if ctx.Err() != nil && !interrupted {
			// Cancellation surfaced as another error (e.g. from the backend).
			interrupted = true
			runErr = fmt.Errorf("%w (%v)", ctx.Err(), runErr)
		}
		if err := s.Store.Fail(id, interrupted, runErr.Error(), res); err != nil {
			return nil, fmt.Errorf("store: fail %s: %w", sp, err)
		}
	}
	if s.Observer != nil {
		s.Observer.RunEnd(sp, res, runErr)
	}
	return runErr, nil
}
