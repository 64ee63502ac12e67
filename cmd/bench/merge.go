package main

import (
	"fmt"
	"io"

	"github.com/ugbench/ugbench/runs"
)

func runMerge(args []string, stdout io.Writer) error {
	fs := newFlags("merge", "merge OUT.db IN.db... (e.g. the shard databases of a grid run with --shard)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		fs.Usage()
		return fmt.Errorf("want an output database and at least one input database")
	}
	out, inputs := fs.Arg(0), fs.Args()[1:]
	res, err := runs.Merge(out, inputs)
	if err != nil {
		return err
	}
	running := 0
	for _, r := range res {
		fmt.Fprintf(stdout, "%s: %d runs: %d added, %d replaced a run in a worse state, %d kept the run already in %s\n",
			r.Path, r.Runs, r.Added, r.Replaced, r.Kept, out)
		running += r.Running
	}
	if running > 0 {
		fmt.Fprintf(stdout, "note: %d of the merged runs are still marked running in their file (grid not ended, or killed); a later merge of the finished file replaces them\n", running)
	}
	return nil
}
