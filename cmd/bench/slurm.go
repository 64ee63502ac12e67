package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ugbench/ugbench/datasets"
	"github.com/ugbench/ugbench/slurm"
	"github.com/ugbench/ugbench/suite"
)

func runSlurm(args []string, stdout io.Writer) error {
	fs := newFlags("slurm", "slurm --shards N [flags] -- GRID FLAGS (as for bench grid, without --db and --shard)")
	shards := fs.Int("shards", 0, "number of shards = array tasks (required)")
	dir := fs.String("dir", "ugbench-slurm", "directory on a file system all nodes share: shard databases, logs")
	db := fs.String("db", "", "merged database (default DIR/ugbench.db)")
	output := fs.StringP("output", "o", "", "write the script to this file (default: standard output)")
	bench := fs.String("bench", "", "path of the bench binary on the nodes (default: this binary)")
	jobName := fs.String("job-name", "ugbench", "Slurm job name; the merge job is NAME-merge")
	partition := fs.String("partition", "", "Slurm partition (default: the cluster's)")
	account := fs.String("account", "", "Slurm account to charge")
	timeLimit := fs.String("time", "", "time limit of each array task, e.g. 4:00:00 (default: the partition's)")
	mergeTime := fs.String("merge-time", "0:30:00", "time limit of the merge job")
	cpus := fs.Int("cpus-per-task", 1, "CPUs of each array task; the grid gets --devices cpu:N unless its flags set --devices")
	mem := fs.String("mem", "", "memory of each array task, e.g. 8G (default: the partition's)")
	gres := fs.String("gres", "", "generic resources of each array task, e.g. gpu:1")
	localDir := fs.String("local-dir", "", "node-local directory for the shard databases while they run (default $TMPDIR, else /tmp)")
	extra := fs.StringArray("sbatch", nil, "another sbatch option for the array tasks, e.g. --qos=long; repeatable")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *shards < 1 {
		fs.Usage()
		return fmt.Errorf("--shards: give the number of array tasks, e.g. --shards 8")
	}
	gridArgs := fs.Args()
	// Check the grid's flags as bench grid would, and show the split.
	g := newGridFlags()
	if err := g.fs.Parse(gridArgs); err != nil {
		return fmt.Errorf("grid flags: %w", err)
	}
	for _, name := range []string{"db", "shard"} {
		if g.fs.Changed(name) {
			return fmt.Errorf("grid flag --%s: the script sets it (each shard writes its own database)", name)
		}
	}
	if g.fs.Changed("dry-run") {
		return fmt.Errorf("grid flag --dry-run: use `bench grid --dry-run --shard I/N` to see a shard's runs")
	}
	all, _, _, err := g.specs(os.Getenv)
	if err != nil {
		return fmt.Errorf("grid flags: %w", err)
	}
	if !g.fs.Changed("devices") {
		gridArgs = append(gridArgs, "--devices", fmt.Sprintf("cpu:%d", *cpus))
	}
	if !g.fs.Changed("data-dir") {
		// The nodes may not have this shell's environment or directory.
		abs, err := filepath.Abs(datasets.DataDir(""))
		if err != nil {
			return err
		}
		gridArgs = append(gridArgs, "--data-dir", abs)
	}
	absDir, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	if *db == "" {
		*db = filepath.Join(absDir, "ugbench.db")
	}
	absDB, err := filepath.Abs(*db)
	if err != nil {
		return err
	}
	if *bench == "" {
		if *bench, err = os.Executable(); err != nil {
			return fmt.Errorf("--bench: %w", err)
		}
	}
	script, err := slurm.Script(slurm.Config{
		Shards: *shards, Bench: *bench, Dir: absDir, DB: absDB, GridArgs: gridArgs,
		JobName: *jobName, Partition: *partition, Account: *account, Time: *timeLimit,
		MergeTime: *mergeTime, Mem: *mem, Gres: *gres, CPUsPerTask: *cpus,
		LocalDir: *localDir, Sbatch: *extra,
	})
	if err != nil {
		return err
	}
	// The log directory must exist before Slurm starts a task.
	if err := os.MkdirAll(filepath.Join(absDir, "logs"), 0o755); err != nil {
		return fmt.Errorf("--dir: %w", err)
	}
	sizes := make([]int, *shards)
	for i := range sizes {
		sizes[i] = len(suite.Shard{Index: i, Count: *shards}.Select(all))
	}
	where := "standard output"
	if *output != "" {
		if err := os.WriteFile(*output, []byte(script), 0o755); err != nil {
			return fmt.Errorf("--output: %w", err)
		}
		where = *output
	} else if _, err := io.WriteString(stdout, script); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "slurm: %d runs in %d shards (%d to %d runs each; shard sizes %s); script on %s; submit it with `bash FILE`\n",
		len(all), *shards, slices.Min(sizes), slices.Max(sizes), strings.Trim(fmt.Sprint(sizes), "[]"), where)
	return nil
}
