package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ugbench/ugbench/runs"
	"github.com/ugbench/ugbench/suite"
	"github.com/ugbench/ugbench/suite/scorers"
)

// parseScorers parses --scores: scorer specs, or "none".
func parseScorers(specs []string) ([]scorers.Scorer, error) {
	if len(specs) == 1 && specs[0] == "none" {
		return nil, nil
	}
	list, err := scorers.ParseList(specs)
	if err != nil {
		return nil, fmt.Errorf("--scores: %w", err)
	}
	return list, nil
}

func runRescore(args []string, stdout io.Writer) error {
	fs := newFlags("rescore", "rescore --db FILE [--scores LIST] [selection flags]")
	sel := addSelection(fs, "not for rescore: only finished runs are rescored")
	scoreSpecs := fs.StringSlice("scores", suite.DefaultScorers(), "post-hoc unknown scorers to add or recompute on the stored outputs, e.g. knn:k=5,mahalanobis:shrink=0.5 (see `bench scorers`)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	list, err := parseScorers(*scoreSpecs)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		return fmt.Errorf("--scores: name at least one scorer")
	}
	pick, err := sel.parse()
	if err != nil {
		return err
	}
	if fs.Changed("status") {
		return fmt.Errorf("--status: bench rescore rescores finished runs only")
	}
	pick.Filter.Status = []runs.Status{runs.StatusFinished}
	store, rs, err := sel.load(pick)
	if err != nil {
		return err
	}
	defer store.Close()
	start := time.Now()
	var done, without int
	for _, r := range rs {
		o, err := store.Outputs(r.ID)
		if errors.Is(err, runs.ErrNoOutputs) {
			without++
			continue
		}
		if err != nil {
			return err
		}
		m, recs, err := suite.ScoreOutputs(o, list, r.Spec.Protocol.Alpha)
		if err != nil {
			return fmt.Errorf("run %d (%s): %w", r.ID, r.Spec, err)
		}
		for _, rec := range recs {
			if rec.Error != "" && !rec.Unavailable() {
				fmt.Fprintf(os.Stderr, "run %d (%s): scorer %s: %s\n", r.ID, r.Spec, rec.Label, rec.Error)
			}
		}
		if err := store.Rescore(r.ID, m, recs); err != nil {
			return err
		}
		native, err := suite.ScoreNative(o, r.Spec.Protocol.Alpha)
		if err != nil {
			return fmt.Errorf("run %d (%s): %w", r.ID, r.Spec, err)
		}
		if err := store.AddNativeMetrics(r.ID, native); err != nil {
			return err
		}
		done++
	}
	fmt.Fprintf(stdout, "rescored %d run(s) with native, %s in %.1f s", done, strings.Join(suite.ScorerLabels(list), ", "), time.Since(start).Seconds())
	if without > 0 {
		fmt.Fprintf(stdout, "; %d finished run(s) have no stored outputs (stored before schema 8, with --keep-outputs=false, or a method without logits and embeddings)", without)
	}
	fmt.Fprintln(stdout)
	return nil
}
