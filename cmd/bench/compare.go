package main

import (
	"fmt"
	"io"
	"os"

	"github.com/ugbench/ugbench/reports"
	runsel "github.com/ugbench/ugbench/reports/selection"
	"github.com/ugbench/ugbench/reports/table"
	"github.com/ugbench/ugbench/runs"
)

func runCompare(args []string, stdout io.Writer) error {
	fs := newFlags("compare", `compare [flags] OLD NEW

OLD and NEW each select runs: a database file, or comma-separated terms
db=FILE, commit=PREFIX, method=NAME, alpha=VALUE, score=LABEL or
PARAM=VALUE (a hyper-parameter), e.g.
  bench compare old.db new.db
  bench compare --db runs.db commit=1a2b3c commit=4d5e6f
  bench compare --db runs.db method=gin-topk method=ugnn
  bench compare --db runs.db --methods ugnn tau=0.1 tau=0.2
  bench compare --db runs.db method=sage-topk,score=native method=sage-topk,score=knn
score=LABEL reads the metrics of an unknown score (native: the method's
own, the default; a post-hoc scorer's label such as msp or knn: its
LABEL:METRIC metrics); two sides of the same runs that differ in score
pair run by run.
The selection flags below apply to both sides. Per cell (method × dataset ×
ratio) it prints old and new mean±std, the change and the p-value of a
Mann-Whitney U test, or of a paired t-test when both sides have the same
(split seed, seed) repetitions; "~" marks a change that is not significant,
"too few seeds" a cell the test cannot judge.`)
	sel := addSelection(fs, "only runs of these statuses (default: all; only finished runs count, the others explain missing seeds)")
	metrics := fs.StringSlice("metrics", reports.DefaultCompareMetrics(), "metrics to compare, one table each")
	alpha := fs.Float64("alpha", reports.DefaultAlpha, "significance level")
	test := fs.String("test", reports.TestAuto, "test: auto (paired when both sides share their seeds, else utest), utest, paired")
	format := fs.String("format", "text", "output format: text, md, latex, csv")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return fmt.Errorf("give two sides, OLD and NEW (got %d arguments)", fs.NArg())
	}
	pick, err := sel.selection()
	if err != nil {
		return err
	}
	sides := make([]runsel.Side, 2)
	sideRuns := make([][]runs.Run, 2)
	for i := range sides {
		if sides[i], err = runsel.ParseSide(fs.Arg(i)); err != nil {
			return err
		}
		db := sides[i].DB
		if db == "" {
			db = *sel.db
		}
		store, rs, err := loadRuns(db, pick)
		if err != nil {
			return fmt.Errorf("side %q: %w", sides[i].Text, err)
		}
		store.Close()
		sideRuns[i] = sides[i].Select(rs)
		if len(sideRuns[i]) == 0 {
			return fmt.Errorf("side %q selects no run of %s; check it against bench runs --db %s", sides[i].Text, db, db)
		}
		if sides[i].Score != "" {
			var notes []string
			if sideRuns[i], notes, err = reports.ResolveScore(sideRuns[i], sides[i].Score); err != nil {
				return fmt.Errorf("side %q: %w", sides[i].Text, err)
			}
			for _, n := range notes {
				fmt.Fprintf(os.Stderr, "side %q: %s\n", sides[i].Text, n)
			}
		}
	}
	old, new := runsel.AlignSides(sides[0], sides[1], sideRuns[0], sideRuns[1])
	cs, warns, err := reports.Compare(old, new, reports.CompareOptions{Metrics: *metrics, Alpha: *alpha, Test: *test,
		OldScore: sides[0].Score, NewScore: sides[1].Score})
	if err != nil {
		return err
	}
	for i, p := range reports.CompareTables(cs, sides[0].Text, sides[1].Text) {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if err := table.RenderPlain(stdout, p, *format); err != nil {
			return err
		}
	}
	if *format != "csv" {
		for _, w := range warns {
			fmt.Fprintln(stdout, "warning: "+w.String())
		}
	}
	return nil
}
