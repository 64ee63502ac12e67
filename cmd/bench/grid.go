package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/internal/cpukernels"
	"github.com/ugbench/ugbench/internal/supervisor"
	"github.com/ugbench/ugbench/methods/gnn"
	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
)

// supervisedEnv marks the child process of --restart-after-crash, which
// runs the grid itself.
const supervisedEnv = "UGBENCH_GRID_SUPERVISED"

// superviseGrid runs `bench grid args` as a child process under
// supervisor.Run, restarting it after a runtime fatal error at most
// restarts times, and exits with the last child's status.
func superviseGrid(args []string, restarts int) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("--restart-after-crash: %w", err)
	}
	code, err := supervisor.Run(context.Background(), supervisor.Command{
		Path: exe, Args: append([]string{"grid"}, args...), Env: append(os.Environ(), supervisedEnv+"=1"),
		Stdout: os.Stdout, Stderr: os.Stderr,
	}, restarts, os.Stderr)
	if err != nil {
		return err
	}
	if code != 0 {
		return &exitError{code: code}
	}
	return nil
}

var errInterrupted = errors.New("interrupted: finished runs are stored; rerun the same command to resume")

func runGrid(args []string, stdout io.Writer) error {
	fs := newFlags("grid", "grid --methods LIST|all --datasets LIST [flags]")
	methods := fs.StringSlice("methods", nil, "methods to run, comma-separated, or all (see `bench methods`)")
	dsets := fs.StringSlice("datasets", nil, "datasets to run on, comma-separated (see `bench datasets`)")
	ratios := fs.StringSlice("ratios", []string{"low", "high"}, "labelled ratios: low, high (the dataset's protocol ratios) or numbers in (0,1]")
	seeds := fs.String("seeds", "0,1,2", "run seeds (initialisation, batching, sampling): list and/or ranges, e.g. 0,1,2 or 0-4")
	splitSeeds := fs.String("split-seeds", "0", "split seeds (test set and labelled set), a grid dimension like --seeds; the paper's split is fixed: 0")
	steps := fs.Int("steps", 0, "override the supervised step budget of every method that trains (0 = the dataset's protocol budget, see docs/protocol.md)")
	sets := fs.StringArray("set", nil, "sweep a hyper-parameter: method.param=v1,v2 (method may be *); repeatable")
	db := fs.String("db", "ugbench.db", "SQLite database file of runs")
	dataDir := fs.String("data-dir", "", "dataset directory (default $UGBENCH_DATA, else ./data)")
	cacheDir := fs.String("cache-dir", "", "cache of reusable training state, e.g. UGNN warm-ups (default $UGBENCH_CACHE, else ugbench-cache beside --db; \"off\" disables)")
	resumeEvery := fs.Duration("resume-every", suite.DefaultResumeEvery, "save the state of running runs of the GNN methods (UGNN and the GNN baselines) this often under --cache-dir, so that an interrupted run continues where it stopped when the command is rerun with the same binary; 0 disables")
	backend := fs.String("backend", "", "GoMLX backend: go, xla:cpu, xla:cuda or xla:/path/to/pjrt_plugin.so (XLA needs a -tags xla build; default $GOMLX_BACKEND, else go)")
	devices := fs.String("devices", suite.DefaultDevices, "device slots: cpu:N (N concurrent runs), cpu:auto (one per core, at most one per 4 GiB of RAM: docs/speed.md) or cuda:0,cuda:1")
	perDevice := fs.Int("per-device", 1, "concurrent runs per cuda device")
	alpha := fs.Float64Slice("alpha", []float64{1}, "OOD multiplier(s): the ceil(alpha*K) highest unknown scores are declared unknown; a list sweeps it, e.g. 0.8,1,1.2,1.4")
	classSplit := fs.String("class-split", "first", "known classes: first (the first ids) or random (drawn with the seed)")
	testFrac := fs.Float64("test-frac", suite.DefaultTestFrac, "held-out test fraction of every class; the headline metrics are the test set's")
	dryRun := fs.Bool("dry-run", false, "list the run specs (done, running in another process, or to do) and the estimated wall time of those to do, without running")
	estimateFrom := fs.StringSlice("estimate-from", nil, "with --dry-run: also take the wall-time estimate from the finished runs of these databases (default: --db only)")
	quiet := fs.Bool("quiet", false, "no progress bar; one line per finished run")
	scoreSpecs := fs.StringSlice("scores", suite.DefaultScorers(), "post-hoc unknown scorers applied to every GNN and kernel run beside its native score, e.g. knn:k=5,energy:t=2 (see `bench scorers`); \"none\" applies none")
	keepOutputs := fs.Bool("keep-outputs", true, "store each run's logits and embeddings (float16, gzip) so that `bench rescore` can add scorers without retraining")
	restarts := fs.Int("restart-after-crash", 0, "run the grid in a child process and rerun it, at most N times, when it dies of a Go runtime fatal error (\"fatal error: …\", e.g. the AVX2 SIMD fault in README); it resumes by config hash, so only the runs in flight start over; 0 runs in this process")
	shardFlag := fs.String("shard", "", "run only shard I of N of the grid, I/N with 0 ≤ I < N (specs are split by config hash); env/N reads I from $SLURM_ARRAY_TASK_ID or $JOB_COMPLETION_INDEX")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *resumeEvery < 0 {
		return fmt.Errorf("--resume-every %v: want a duration ≥ 0 (0 disables)", *resumeEvery)
	}
	if *restarts < 0 {
		return fmt.Errorf("--restart-after-crash %d: want ≥ 0", *restarts)
	}
	if *restarts > 0 && !*dryRun && os.Getenv(supervisedEnv) == "" {
		return superviseGrid(args, *restarts)
	}
	if _, err := datasets.RegisterUserDatasets(datasets.DataDir(*dataDir)); err != nil {
		return err
	}
	scorerList, err := parseScorers(*scoreSpecs)
	if err != nil {
		return err
	}
	seedList, err := suite.ParseSeeds(*seeds)
	if err != nil {
		return fmt.Errorf("--seeds: %w", err)
	}
	splitList, err := suite.ParseSeeds(*splitSeeds)
	if err != nil {
		return fmt.Errorf("--split-seeds: %w", err)
	}
	if *steps < 0 {
		return fmt.Errorf("--steps %d: want ≥ 0", *steps)
	}
	setMap, err := suite.ParseSets(*sets)
	if err != nil {
		return suite.AsFlagError(err)
	}
	if *classSplit != datasets.ClassSplitFirst && *classSplit != datasets.ClassSplitRandom {
		return fmt.Errorf("--class-split %q: want first or random", *classSplit)
	}
	if !(*testFrac > 0 && *testFrac < 1) {
		return fmt.Errorf("--test-frac %g: want a fraction in (0, 1)", *testFrac)
	}
	shard, err := suite.ParseShard(*shardFlag, os.Getenv)
	if err != nil {
		return suite.AsFlagError(err)
	}
	specs, err := suite.Expand(suite.GridConfig{
		Methods: *methods, Datasets: *dsets, Ratios: *ratios, SplitSeeds: splitList, Seeds: seedList,
		Sets: setMap, Steps: *steps,
		Protocol: suite.Protocol{ClassSplit: *classSplit, TestFrac: *testFrac, Alpha: 1},
		Alphas:   *alpha,
	})
	if err != nil {
		return suite.AsFlagError(err)
	}
	if shard.Count > 1 {
		n := len(specs)
		specs = shard.Select(specs)
		fmt.Fprintf(os.Stderr, "grid: shard %s: %d of the grid's %d runs\n", shard, len(specs), n)
	}
	slots, err := suite.ParseDevices(*devices, *perDevice)
	if err != nil {
		return suite.AsFlagError(err)
	}
	store, err := runs.Open(*db)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.QuickCheck(); err != nil {
		return fmt.Errorf("--db: %w", err)
	}
	if *dryRun {
		return printDryRun(stdout, store, *estimateFrom, specs)
	}
	if n, err := store.MarkRunningInterrupted(); err != nil {
		return err
	} else if n > 0 {
		fmt.Fprintf(os.Stderr, "marked %d stale running run(s) from an earlier process as interrupted\n", n)
	}
	// A second Ctrl-C kills at once, from a second after the first: a signal
	// delivered more than once at a time (a terminal or Slurm signals every
	// process of the group or job step, and --restart-after-crash's
	// supervisor passes its own on) still stops the grid gracefully, and its
	// repeats are ignored until then, also after runGrid has returned, so
	// the exit status stays 130.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer func() {
		if ctx.Err() == nil {
			stop()
		}
	}()
	go func() { <-ctx.Done(); time.Sleep(time.Second); stop() }()
	backendCfg := gnn.BackendConfig(*backend)
	// Start the backend now: a bad --backend fails before any run, and what
	// GoMLX prints when it starts comes before the progress bar.
	if _, err := gnn.NewBackend(backendCfg); err != nil {
		return fmt.Errorf("--backend: %w", err)
	}
	runner := &suite.Runner{DataDir: datasets.DataDir(*dataDir), Loader: datasetLoader(os.Stderr), Backend: backendCfg, CacheDir: resolveCacheDir(*cacheDir, *db), ResumeEvery: *resumeEvery, Scorers: scorerList, KeepOutputs: *keepOutputs}
	if runner.CacheDir != "" && runner.ResumeEvery > 0 {
		if err := suite.ProbeResume(runner.CacheDir); err != nil {
			fmt.Fprintf(os.Stderr, "warning: --cache-dir: %v; running runs will not be saved (--resume-every), an interrupted run will start over\n", err)
			runner.ResumeEvery = 0
		}
	}
	for _, name := range *dsets { // fail fast on a missing or malformed dataset
		if _, err := runner.Dataset(name); err != nil {
			return fmt.Errorf("--datasets %s: %w", name, err)
		}
	}
	prog := newProgress(os.Stderr, *quiet)
	runner.Warn = prog.Warn
	sched := &suite.Scheduler{
		Runner:   runner,
		Store:    runs.Recorder{Store: store, Backend: backendCfg, Kernels: cpukernels.Of(backendCfg)},
		Slots:    slots,
		Observer: prog,
	}
	sum, err := sched.Run(ctx, specs)
	prog.Close()
	elsewhere := ""
	if sum.Elsewhere > 0 {
		elsewhere = fmt.Sprintf(", %d running in other processes", sum.Elsewhere)
	}
	fmt.Fprintf(os.Stderr, "grid: %d finished, %d failed, %d interrupted, %d already done%s (db %s)\n",
		sum.Finished, sum.Failed, sum.Interrupted, sum.Skipped, elsewhere, *db)
	return gridOutcome(sum, len(specs), err, *db)
}

// gridOutcome is the error runGrid ends with, given the scheduler's
// summary of n specs and its error: errInterrupted while a signal left
// runs to do (interrupted, unstarted or running elsewhere), so that main
// exits 130; a signal that came after the last run ended leaves nothing to
// resume, and the grid ends as if none had come (as it does for one after
// the scheduler returned).
func gridOutcome(sum suite.Summary, n int, err error, db string) error {
	if errors.Is(err, context.Canceled) {
		if sum.Finished+sum.Failed+sum.Skipped < n {
			return errInterrupted
		}
		err = nil
	}
	switch {
	case err != nil:
		return err
	case sum.Failed > 0:
		return fmt.Errorf("%d run(s) failed; see `bench runs --db %s --status failed`", sum.Failed, db)
	}
	return nil
}

func printDryRun(stdout io.Writer, store *runs.Store, estimateFrom []string, specs []suite.RunSpec) error {
	hashes := make([]string, len(specs))
	for i, s := range specs {
		hashes[i] = s.Hash()
	}
	done, err := store.Finished(hashes)
	if err != nil {
		return err
	}
	running, err := store.RunningElsewhere(hashes)
	if err != nil {
		return err
	}
	finished, err := finishedRuns(store, estimateFrom)
	if err != nil {
		return err
	}
	todo, elsewhere, unknown := 0, 0, 0
	total := 0.0
	for i, s := range specs {
		state, est := "todo", ""
		switch {
		case done[hashes[i]]:
			state = "done"
		case running[hashes[i]]:
			state = "running"
			elsewhere++
		default:
			todo++
			e := runs.EstimateSeconds(finished, s)
			if math.IsNaN(e.Seconds) {
				unknown++
				est = "  est ? (no comparable finished run)"
			} else {
				total += e.Seconds
				est = fmt.Sprintf("  est %s (%s)", runs.FormatDuration(e.Seconds), e.Basis)
			}
		}
		fmt.Fprintf(stdout, "%s  %-7s  %-12s %-14s %-5s split=%-2d seed=%-3d %s%s\n", hashes[i], state, s.Method, s.Dataset, s.RatioLabel(), s.SplitSeed, s.Seed, s.Params.Summary(), est)
	}
	fmt.Fprintf(stdout, "%d runs, %d to do", len(specs), todo)
	if elsewhere > 0 {
		fmt.Fprintf(stdout, ", %d running in another process", elsewhere)
	}
	fmt.Fprintln(stdout)
	if todo > 0 {
		fmt.Fprintf(stdout, "estimated wall time of the runs to do, one after another: %s", runs.FormatDuration(total))
		if unknown > 0 {
			fmt.Fprintf(stdout, " + %d run(s) with no comparable finished run", unknown)
		}
		fmt.Fprintln(stdout, "\n(median wall time of comparable finished runs, as they ran; concurrent CPU slots share the cores: two slots on 2 cores finished small runs 1.4-1.7x sooner, docs/speed.md)")
	}
	return nil
}

// finishedRuns lists the finished runs of store and of the databases in
// extra (opened read-only for the listing and closed again).
func finishedRuns(store *runs.Store, extra []string) ([]runs.Run, error) {
	f := runs.Filter{Status: []runs.Status{runs.StatusFinished}}
	out, err := store.List(f)
	if err != nil {
		return nil, err
	}
	for _, path := range extra {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("--estimate-from %s: %w", path, err)
		}
		other, err := runs.Open(path)
		if err != nil {
			return nil, fmt.Errorf("--estimate-from %s: %w", path, err)
		}
		rs, err := other.List(f)
		other.Close()
		if err != nil {
			return nil, fmt.Errorf("--estimate-from %s: %w", path, err)
		}
		out = append(out, rs...)
	}
	return out, nil
}

// resolveCacheDir: the flag, else $UGBENCH_CACHE, else ugbench-cache beside
// the database; "off" disables caching.
func resolveCacheDir(flag, db string) string {
	switch {
	case flag == "off":
		return ""
	case flag != "":
		return flag
	case os.Getenv("UGBENCH_CACHE") != "":
		return os.Getenv("UGBENCH_CACHE")
	}
	return filepath.Join(filepath.Dir(db), "ugbench-cache")
}
