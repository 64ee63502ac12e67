package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *shards < 1 {
		fs.Usage()
		return fmt.Errorf("--shards: give the number of array tasks, e.g. --shards 8")
	}
	gridArgs := slices.Clone(fs.Args())
	for _, name := range []string{"--db", "--shard"} {
		if hasFlag(gridArgs, name) {
			return fmt.Errorf("grid flag %s: the script sets it (each shard writes its own database)", name)
		}
	}
	if hasFlag(gridArgs, "--dry-run") {
		return fmt.Errorf("grid flag --dry-run: see a shard's runs with `bench grid --dry-run --shard I/N`")
	}
	sizes, err := shardSizes(gridArgs, *shards)
	if err != nil {
		return err
	}
	if !hasFlag(gridArgs, "--devices") {
		gridArgs = append(gridArgs, "--devices", fmt.Sprintf("cpu:%d", *cpus))
	}
	if !hasFlag(gridArgs, "--data-dir") {
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
		sum(sizes), *shards, slices.Min(sizes), slices.Max(sizes), strings.Trim(fmt.Sprint(sizes), "[]"), where)
	return nil
}

// shardSizes checks the grid flags gridArgs as bench grid does, with a dry
// run on a scratch database, and counts the runs of each of n shards from
// the config hashes it lists.
func shardSizes(gridArgs []string, n int) ([]int, error) {
	scratch, err := os.MkdirTemp("", "bench-slurm-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	var list bytes.Buffer
	if err := runGrid(append(slices.Clone(gridArgs), "--dry-run", "--db", filepath.Join(scratch, "dry.db")), &list); err != nil {
		return nil, fmt.Errorf("grid flags: %w", err)
	}
	sizes := make([]int, n)
	found, total := 0, -1
	for _, line := range strings.Split(list.String(), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 1 && isHash(f[0]):
			found++
			for i := range sizes {
				if (suite.Shard{Index: i, Count: n}).Contains(f[0]) {
					sizes[i]++
				}
			}
		case len(f) > 1 && f[1] == "runs,":
			total, _ = strconv.Atoi(f[0])
		}
	}
	if found != total {
		return nil, fmt.Errorf("grid flags: read %d config hashes from the dry run, which lists %d runs", found, total)
	}
	return sizes, nil
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// hasFlag reports whether args set the long flag name ("--name" or
// "--name=value").
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// isHash reports whether s looks like a config hash (RunSpec.Hash).
func isHash(s string) bool {
	if len(s) != 16 {
		return false
	}
	_, err := strconv.ParseUint(s, 16, 64)
	return err == nil
}
