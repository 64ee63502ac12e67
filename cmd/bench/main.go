// Command bench runs and reports the ugbench benchmark of semi-supervised
// universal graph classification (UGNN paper reproduction).
//
//	bench grid     run methods × datasets × ratios × seeds into a SQLite DB
//	bench merge    combine run databases (e.g. a grid's shards) into one
//	bench slurm    write a Slurm job-array script that runs a grid in shards
//	bench report   print the paper's tables (accuracy, f1, ablation, metric,
//	               results, sensitivity with --plot); html: every table,
//	               figure and run as one self-contained page
//	bench runs     list stored runs with their status
//	bench curves   print per-epoch curves, mean±std over seeds
//	bench plot     draw figures to SVG/PNG/PDF: per-epoch curves; t-SNE of
//	               the test graphs' embeddings (the paper's Figure 6)
//	bench rescore  apply post-hoc unknown scorers (msp, energy, knn, …) to
//	               stored runs without retraining
//	bench scorers  list the post-hoc unknown scorers
//	bench compare  compare two selections of runs, with significance tests
//	bench check    CI gate against a committed baseline (exit 0/1/2/3)
//	bench export   every selected run as JSON or CSV, for pandas or a notebook
//	bench datasets print Table 1 for the datasets present
//	bench methods  list registered methods in table order, with their rows and hyper-parameters
//	bench data     fetch datasets from their official archives; verify them
//
// Run `bench COMMAND --help` for the flags of each command.
//
// randseednop=0 lets bench plot tsne seed math/rand's global source, which
// go-tsne draws its initial map from: its API takes no source (see
// figures.TSNE).
//
//go:debug randseednop=0
package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/spf13/pflag"
)

// exitError ends bench with a command's own exit code (bench check's),
// printing err first when it is not nil.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

type command struct {
	name, summary string
	run           func(args []string, stdout io.Writer) error
}

var commands = []command{
	{"grid", "run methods × datasets × ratios × seeds, storing every run", runGrid},
	{"merge", "combine run databases, e.g. the shards of a grid: merge OUT.db IN.db...", runMerge},
	{"slurm", "write an sbatch job-array script running a grid in shards, then merging them", runSlurm},
	{"report", "print a table: accuracy | f1 | ablation | metric NAME | scorers | results | sensitivity PARAM | html (one page)", runReport},
	{"runs", "list stored runs with status and error", runRuns},
	{"curves", "per-epoch curves (loss, OOD-set precision, ...) averaged over seeds", runCurves},
	{"plot", "draw figures: plot curves|tsne --out FILE.svg|.png (per-epoch curves; t-SNE of test embeddings, Figure 6)", runPlot},
	{"rescore", "apply post-hoc unknown scorers to stored runs' outputs, without retraining", runRescore},
	{"scorers", "list the post-hoc unknown scorers and their parameters", runScorers},
	{"compare", "compare two selections of runs cell by cell, with significance tests", runCompare},
	{"export", "write every selected run (spec, params, provenance, metrics) as JSON or CSV", runExport},
	{"import", "add the finished runs of bench export's JSON to a database, e.g. an archive of runs: import --db OUT.db FILE.json...", runImport},
	{"check", "CI gate: judge runs against a committed baseline (exit 0 pass, 1 regression, 2 error, 3 cannot judge)", runCheck},
	{"datasets", "print the paper's Table 1 for the datasets present", runDatasets},
	{"methods", "list registered methods in table order with their paper rows and default hyper-parameters", runMethods},
	{"data", "fetch NAME...|all: download datasets (checksummed); verify: check what is present", runData},
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: bench COMMAND [flags]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(os.Stderr, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun `bench COMMAND --help` for a command's flags.")
}

func main() {
	if len(os.Args) < 2 || os.Args[1] == "-h" || os.Args[1] == "--help" || os.Args[1] == "help" {
		usage()
		os.Exit(2)
	}
	for _, c := range commands {
		if c.name == os.Args[1] {
			err := c.run(os.Args[2:], os.Stdout)
			switch {
			case errors.Is(err, pflag.ErrHelp):
				os.Exit(0)
			case errors.As(err, new(*exitError)):
				var e *exitError
				errors.As(err, &e)
				if e.err != nil {
					fmt.Fprintln(os.Stderr, "bench "+c.name+":", e.err)
				}
				os.Exit(e.code)
			case errors.Is(err, errInterrupted):
				fmt.Fprintln(os.Stderr, "bench:", err)
				os.Exit(130)
			case err != nil:
				fmt.Fprintln(os.Stderr, "bench "+c.name+":", err)
				os.Exit(1)
			}
			return
		}
	}
	fmt.Fprintf(os.Stderr, "bench: unknown command %q\n\n", os.Args[1])
	usage()
	os.Exit(2)
}

// parseFlags parses args into fs and rejects a NaN or infinite value of any
// float flag, naming the flag: no command has a use for one, and a run spec
// holding one could not be hashed.
func parseFlags(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	var bad error
	fs.VisitAll(func(f *pflag.Flag) {
		var vals []string
		switch f.Value.Type() {
		case "float64", "float32":
			vals = []string{f.Value.String()}
		case "float64Slice", "float32Slice":
			if sv, ok := f.Value.(pflag.SliceValue); ok {
				vals = sv.GetSlice()
			}
		}
		for _, s := range vals {
			if v, err := strconv.ParseFloat(s, 64); bad == nil && (err != nil || math.IsNaN(v) || math.IsInf(v, 0)) {
				bad = fmt.Errorf("--%s %s: not a finite number", f.Name, s)
			}
		}
	})
	return bad
}

// newFlags returns a flag set for a command whose usage lists its flags.
func newFlags(name, synopsis string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: bench %s\n\nflags:\n%s", synopsis, fs.FlagUsages())
	}
	return fs
}
