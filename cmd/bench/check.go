package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ugbench/ugbench/reports"
	"github.com/ugbench/ugbench/reports/table"
)

func runCheck(args []string, stdout io.Writer) error {
	err := check(args, stdout)
	var e *exitError
	if err == nil || errors.Is(err, pflag.ErrHelp) || errors.As(err, &e) {
		return err
	}
	return &exitError{code: reports.CheckError, err: err}
}

func check(args []string, stdout io.Writer) error {
	fs := newFlags("check", `check --baseline FILE [flags]

Judges the selected runs against a committed baseline, as asv continuous
does: a cell regresses when its change reaches the metric's threshold AND
the test finds it significant. Exit status: 0 pass, 1 regression, 2 error,
3 cannot judge (too few seeds, or a baseline cell without a current value).
--write-baseline writes FILE from the selected runs instead.
--score LABEL (a post-hoc unknown score, e.g. knn, or du_choice, each
run's score chosen on its D^u) makes --metrics and --threshold name that
score's LABEL:METRIC metrics; a baseline records the full names, so
checking against it reads the same score back.`)
	sel := addSelection(fs, "only runs of these statuses (default: all; only finished runs count)")
	baseline := fs.String("baseline", "", "baseline JSON file (required)")
	write := fs.Bool("write-baseline", false, "write --baseline from the selected runs instead of checking")
	metrics := fs.StringSlice("metrics", reports.DefaultCompareMetrics(), "with --write-baseline: the metrics to record")
	thresholds := fs.StringArray("threshold", nil, "METRIC=-0.02 (absolute change) or METRIC=x1.2 (factor); repeatable; recorded by --write-baseline, overrides the baseline's when checking (default: -0.02 for scores, x1.2 for *_seconds)")
	alpha := fs.Float64("alpha", reports.DefaultAlpha, "with --write-baseline: the significance level to record")
	test := fs.String("test", reports.TestAuto, "with --write-baseline: the test to record: auto, utest, paired")
	format := fs.String("format", "text", "table format: text, md, latex, csv")
	score := fs.String("score", reports.NativeScore, "the unknown score of --metrics and --threshold: native, a post-hoc scorer's label (msp, knn, …) or du_choice")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *baseline == "" {
		return fmt.Errorf("--baseline FILE is required")
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	over := map[string]reports.Threshold{}
	for _, t := range *thresholds {
		m, v, ok := strings.Cut(t, "=")
		if !ok || m == "" {
			return fmt.Errorf("--threshold %q: want METRIC=-0.02 or METRIC=x1.2", t)
		}
		th, err := reports.ParseThreshold(v)
		if err != nil {
			return fmt.Errorf("--threshold %q: %w", t, err)
		}
		over[reports.ScoredMetric(*score, m)] = th
	}
	pick, err := sel.parse()
	if err != nil {
		return err
	}
	store, rs, err := sel.load(pick)
	if err != nil {
		return err
	}
	store.Close()
	if rs, _, err = reports.ResolveScore(rs, *score); err != nil {
		return fmt.Errorf("--score: %w", err)
	}

	if *write {
		switch *test {
		case reports.TestAuto, reports.TestU, reports.TestPaired:
		default:
			return fmt.Errorf("--test %q: want auto, utest or paired", *test)
		}
		if !(*alpha > 0 && *alpha < 1) {
			return fmt.Errorf("--alpha %g: want 0 < alpha < 1", *alpha)
		}
		scored := make([]string, len(*metrics))
		for i, m := range *metrics {
			scored[i] = reports.ScoredMetric(*score, m)
		}
		b, warns := reports.NewBaseline(rs, scored, over, *alpha, *test)
		if len(b.Cells) == 0 {
			return fmt.Errorf("no finished run of the selection reports %s; nothing to write", strings.Join(scored, ", "))
		}
		var buf bytes.Buffer
		if err := b.WriteJSON(&buf); err != nil {
			return err
		}
		if err := os.WriteFile(*baseline, buf.Bytes(), 0o644); err != nil {
			return err
		}
		for _, w := range warns {
			fmt.Fprintln(stdout, "warning: "+w.String())
		}
		fmt.Fprintf(stdout, "wrote %s: %d cells, thresholds %v, alpha %g, test %s\n", *baseline, len(b.Cells), b.Thresholds, b.Alpha, b.Test)
		return nil
	}

	file, err := os.Open(*baseline)
	if err != nil {
		return fmt.Errorf("--baseline: %w (write one with --write-baseline)", err)
	}
	b, err := reports.ReadBaseline(file, *baseline)
	file.Close()
	if err != nil {
		return fmt.Errorf("--baseline: %w (rewrite it with --write-baseline)", err)
	}
	if *score != reports.NativeScore && !slices.ContainsFunc(b.Cells, func(c reports.BaselineCell) bool {
		s, _ := reports.SplitScoredMetric(c.Metric)
		return s == *score
	}) {
		return fmt.Errorf("--score %s: baseline %s records no metric of that score (write one with --write-baseline --score %s)", *score, *baseline, *score)
	}
	res, err := reports.Check(b, rs, over)
	if err != nil {
		return err
	}
	if err := table.RenderPlain(stdout, reports.CheckTable(res), *format); err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(stdout, "warning: "+w.String())
	}
	for _, line := range res.Summary() {
		fmt.Fprintln(stdout, line)
	}
	if res.Code != reports.CheckPass {
		return &exitError{code: res.Code}
	}
	return nil
}
