package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ugbench/ugbench/runs"
)

func runMerge(args []string, stdout io.Writer) error {
	fs := newFlags("merge", "merge OUT.db IN.db... (e.g. the shard databases of a grid run with --shard)")
	onConflict := fs.String("on-conflict", string(runs.ConflictFirst), "two finished runs of one config hash with different results: keep the first merged (first), the one that finished last (newest), or merge nothing (fail); each conflict is printed")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	rule, err := runs.ParseOnConflict(*onConflict)
	if err != nil {
		return fmt.Errorf("--on-conflict: %w", err)
	}
	if fs.NArg() < 2 {
		fs.Usage()
		return fmt.Errorf("want an output database and at least one input database")
	}
	out, inputs := fs.Arg(0), fs.Args()[1:]
	res, err := runs.MergeWithRule(out, inputs, rule)
	if err != nil {
		if errors.Is(err, runs.ErrMergeConflict) {
			return fmt.Errorf("%w; rerun with --on-conflict first or newest", err)
		}
		return err
	}
	running := 0
	for _, r := range res {
		for _, c := range r.Conflicts {
			fmt.Fprintf(os.Stderr, "merge: conflict: %s (--on-conflict %s)\n", c, rule)
		}
		conflicts := ""
		if len(r.Conflicts) > 0 {
			conflicts = fmt.Sprintf(" (%d of them finished with other results than the run of the same hash: conflicts above)", len(r.Conflicts))
		}
		fmt.Fprintf(stdout, "%s: %d runs: %d added, %d replaced a run in a worse state or lost a conflict, %d kept the run already in %s%s\n",
			r.Path, r.Runs, r.Added, r.Replaced, r.Kept, out, conflicts)
		running += r.Running
	}
	if running > 0 {
		fmt.Fprintf(stdout, "note: %d of the merged runs are still marked running in their file (grid not ended, or killed); a later merge of the finished file replaces them\n", running)
	}
	return nil
}
