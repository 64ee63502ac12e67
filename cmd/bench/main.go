// Command bench runs and reports the ugbench benchmark of semi-supervised
// universal graph classification (UGNN paper reproduction).
//
//	bench grid     run methods × datasets × ratios × seeds into a SQLite DB
//	bench report   print the paper's tables (accuracy, f1, ablation, metric)
//	bench runs     list stored runs with their status
//	bench curves   print per-epoch curves, mean±std over seeds
//	bench datasets print Table 1 for the datasets present
//	bench methods  list registered methods and their hyper-parameters
//	bench data     fetch datasets from their official archives; verify them
//
// Run `bench COMMAND --help` for the flags of each command.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	_ "github.com/ugbench/ugbench/methods/all"
)

type command struct {
	name, summary string
	run           func(args []string, stdout io.Writer) error
}

var commands = []command{
	{"grid", "run methods × datasets × ratios × seeds, storing every run", runGrid},
	{"report", "print a table: accuracy | f1 | ablation | metric NAME", runReport},
	{"runs", "list stored runs with status and error", runRuns},
	{"curves", "per-epoch curves (loss, OOD-set precision, ...) averaged over seeds", runCurves},
	{"datasets", "print the paper's Table 1 for the datasets present", runDatasets},
	{"methods", "list registered methods and their default hyper-parameters", runMethods},
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
	hookDatasetBuild(os.Stderr)
	for _, c := range commands {
		if c.name == os.Args[1] {
			err := c.run(os.Args[2:], os.Stdout)
			switch {
			case errors.Is(err, pflag.ErrHelp):
				os.Exit(0)
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

// newFlags returns a flag set for a command whose usage lists its flags.
func newFlags(name, synopsis string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: bench %s\n\nflags:\n%s", synopsis, fs.FlagUsages())
	}
	return fs
}
